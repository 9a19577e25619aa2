package toolapp

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"

	"github.com/toolapi/toolapi/ratelimit"
	"github.com/toolapi/toolapi/tool"
)

// An initialize request of MCP.
const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// postMCP posts an initialize request to base's /mcp with the token (none
// when empty) and headers, and returns the answer, its body read.
func postMCP(t *testing.T, base, token string, header map[string]string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(initialize))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, v := range header {
		if k == "Host" {
			req.Host = v
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// signIn signs in to the explorer at base as name with token, from a new
// browser sending the headers, and returns the answer's status and body
// and the browser.
func signIn(t *testing.T, base, name, token string, header map[string]string) (int, string, *http.Client) {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	do := func(req *http.Request) (int, string) {
		for k, v := range header {
			if k == "Host" {
				req.Host = v
			} else {
				req.Header.Set(k, v)
			}
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	req, _ := http.NewRequest(http.MethodGet, base+"/signin", nil)
	status, body := do(req)
	m := csrfField.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("GET /signin: %d, no form", status)
	}
	form := url.Values{"csrf": {m[1]}, "name": {name}, "password": {token}}
	req, _ = http.NewRequest(http.MethodPost, base+"/signin", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	status, body = do(req)
	return status, body, c
}

// TestAuthFailureLimit checks that /mcp and the explorer's sign-in share
// one limit of failed checks per address: wrong tokens at /mcp hold back
// new credentials at the explorer too, while a token accepted recently
// and requests without credentials from the same address go on.
func TestAuthFailureLimit(t *testing.T) {
	a := newTestApp(t)
	token, err := a.accounts.IssueToken(context.Background(), "ada")
	if err != nil {
		t.Fatal(err)
	}
	base := startServe(t, a, &Options{Name: "notes"})
	if resp, _ := postMCP(t, base, token, nil); resp.StatusCode != 200 {
		t.Fatalf("ada's token: %d", resp.StatusCode)
	}
	if status, _, _ := signIn(t, base, "ada", token, nil); status != 200 {
		t.Fatalf("ada signing in to the explorer: %d", status)
	}
	for i := range ratelimit.DefaultFailureBurst {
		if resp, _ := postMCP(t, base, fmt.Sprintf("tok_guess%d", i), nil); resp.StatusCode != 401 {
			t.Fatalf("guess %d: %d, want 401", i+1, resp.StatusCode)
		}
	}
	if resp, _ := postMCP(t, base, "tok_guess", nil); resp.StatusCode != 429 || resp.Header.Get("Retry-After") == "" {
		t.Errorf("a guess past the limit: %d, Retry-After %q; want 429 with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	if status, body, _ := signIn(t, base, "ada", "tok_other", nil); status != 429 || !strings.Contains(body, "Too many sign-ins") {
		t.Errorf("new credentials at the explorer after failures at /mcp: %d, want 429", status)
	}
	if resp, _ := postMCP(t, base, token, nil); resp.StatusCode != 200 {
		t.Errorf("ada's token, accepted before: %d, want 200", resp.StatusCode)
	}
	if status, body, _ := signIn(t, base, "ada", token, nil); status != 200 || !strings.Contains(body, "Signed in as <strong>ada</strong>") {
		t.Errorf("ada signing in to the explorer again: %d", status)
	}
	if status, _, _ := signIn(t, base, "", "", nil); status == 429 {
		t.Error("a sign-in without credentials was refused by the limit")
	}
	if resp, _ := postMCP(t, base, "", nil); resp.StatusCode != 200 {
		t.Errorf("an anonymous request: %d, want 200", resp.StatusCode)
	}
}

// TestServeBehindProxy serves behind a (simulated) reverse proxy on the
// same machine: its connections come from loopback, under the public host
// and with the client's address in X-Forwarded-For.
func TestServeBehindProxy(t *testing.T) {
	a := newTestApp(t)
	token, err := a.accounts.IssueToken(context.Background(), "ada")
	if err != nil {
		t.Fatal(err)
	}
	loopback := []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
	plain := startServe(t, a, &Options{Name: "notes"})
	behind := startServe(t, a, &Options{Name: "notes", PublicHosts: []string{"tools.example.com"}, TrustedProxies: loopback})
	public := map[string]string{"Host": "tools.example.com"}

	if resp, _ := postMCP(t, plain, token, public); resp.StatusCode != 403 {
		t.Errorf("without --public-host, /mcp under a public host on loopback: %d, want 403", resp.StatusCode)
	}
	for _, tc := range []struct {
		host string
		want int
	}{{"tools.example.com", 200}, {"TOOLS.example.com:443", 200}, {"127.0.0.1", 200}, {"evil.example.com", 403}} {
		h := map[string]string{"Host": tc.host}
		if resp, _ := postMCP(t, behind, token, h); resp.StatusCode != tc.want {
			t.Errorf("/mcp under %s: %d, want %d", tc.host, resp.StatusCode, tc.want)
		}
		req, _ := http.NewRequest(http.MethodGet, behind+"/", nil)
		req.Host = tc.host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("the explorer under %s: %d, want %d", tc.host, resp.StatusCode, tc.want)
		}
	}
	if status, body, _ := signIn(t, behind, "ada", token, public); status != 200 || !strings.Contains(body, "Signed in as <strong>ada</strong>") {
		t.Errorf("signing in under the public host: %d", status)
	}

	// Behind the trusted proxy, each client is its own address.
	from := func(client string) map[string]string {
		return map[string]string{"Host": "tools.example.com", "X-Forwarded-For": "6.6.6.6, " + client}
	}
	for i := range ratelimit.DefaultFailureBurst {
		if resp, _ := postMCP(t, behind, fmt.Sprintf("tok_guess%d", i), from("203.0.113.1")); resp.StatusCode != 401 {
			t.Fatalf("guess %d: %d", i+1, resp.StatusCode)
		}
	}
	if resp, _ := postMCP(t, behind, "tok_guess", from("203.0.113.1")); resp.StatusCode != 429 {
		t.Errorf("the guessing client past its limit: %d, want 429", resp.StatusCode)
	}
	if resp, _ := postMCP(t, behind, "tok_other", from("203.0.113.2")); resp.StatusCode != 401 {
		t.Errorf("another client behind the proxy: %d, want 401 (not held back)", resp.StatusCode)
	}
	if status, _, _ := signIn(t, behind, "ada", "tok_wrong", from("203.0.113.2")); status != 401 {
		t.Errorf("another client signing in behind the proxy: %d, want 401", status)
	}

	// Without trusted proxies the header is the client's word: ignored.
	for i := range ratelimit.DefaultFailureBurst {
		postMCP(t, plain, fmt.Sprintf("tok_guess%d", i), map[string]string{"X-Forwarded-For": fmt.Sprintf("198.51.100.%d", i)})
	}
	if resp, _ := postMCP(t, plain, "tok_guess", map[string]string{"X-Forwarded-For": "198.51.100.99"}); resp.StatusCode != 429 {
		t.Errorf("an untrusted X-Forwarded-For escaped the limit: %d, want 429", resp.StatusCode)
	}

	code, _, stderr := runApp(t, a, nil, "serve", "--trusted-proxy", "10.0.0.0/33")
	if code == 0 || !strings.Contains(stderr, `trusted proxy "10.0.0.0/33": must be an IP address or a CIDR network`) {
		t.Errorf("serve --trusted-proxy 10.0.0.0/33: exit %d, %q", code, stderr)
	}
	code, _, stderr = runApp(t, a, nil, "serve", "--public-host", "https://tools.example.com/")
	if code == 0 || !strings.Contains(stderr, `public host "https://tools.example.com/": must be a host name`) {
		t.Errorf("serve --public-host with a URL: exit %d, %q", code, stderr)
	}
}

// serveApp serves app on a free loopback port with opts until the test
// ends, and returns its base URL.
func serveApp(t *testing.T, app *App, opts *Options) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- Serve(ctx, ln, app, opts) }()
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return "http://" + ln.Addr().String()
}

// sqlAccounts is an Accounts store in a SQL database, as an application
// keeps its accounts: a table of names and token hashes. db can be
// swapped, as a database that goes away and comes back.
type sqlAccounts struct {
	db atomic.Pointer[sql.DB]
}

func (s *sqlAccounts) lookup(ctx context.Context, query, arg string) (tool.Account, error) {
	var name string
	err := s.db.Load().QueryRowContext(ctx, query, arg).Scan(&name)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("%w: %q", ErrUnknownAccount, arg)
	}
	if err != nil {
		return nil, err
	}
	return &tool.User{ID: name, Permissions: []string{"read notes"}}, nil
}

func (s *sqlAccounts) Account(ctx context.Context, name string) (tool.Account, error) {
	return s.lookup(ctx, `SELECT name FROM accounts WHERE name = $1`, name)
}

func (s *sqlAccounts) TokenAccount(ctx context.Context, token string) (tool.Account, error) {
	return s.lookup(ctx, `SELECT name FROM accounts WHERE token_hash = $1`, HashToken(token))
}

func (s *sqlAccounts) Anonymous(context.Context) (tool.Account, error) { return tool.Anonymous, nil }

// TestAccountsUnavailable serves accounts kept in a real database, then
// closes it: every token is answered 503 with Retry-After at /mcp and at
// the explorer's sign-in, never 401, and no failure is counted, so that
// once the database is back every client gets in; on SQLite and, with
// TOOLAPI_TEST_POSTGRES, on PostgreSQL (then also an unreachable server).
func TestAccountsUnavailable(t *testing.T) {
	const token = "tok_ada_0123456789abcdef"
	type database struct {
		name        string
		open        func(t *testing.T) *sql.DB
		unreachable func(t *testing.T) *sql.DB // nil: none to try
	}
	dbs := []database{{
		name: "sqlite",
		open: func(t *testing.T) *sql.DB {
			db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "accounts.db"))
			if err != nil {
				t.Fatal(err)
			}
			return db
		},
	}}
	if pg := os.Getenv("TOOLAPI_TEST_POSTGRES"); pg != "" {
		dbs = append(dbs, database{
			name: "postgres",
			open: func(t *testing.T) *sql.DB {
				db, err := sql.Open("pgx", pg)
				if err != nil {
					t.Fatal(err)
				}
				schema := "toolapp_accounts_" + strings.ToLower(rand.Text()[:12])
				if _, err := db.Exec(`DROP SCHEMA IF EXISTS ` + schema + ` CASCADE; CREATE SCHEMA ` + schema); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() {
					if admin, err := sql.Open("pgx", pg); err == nil {
						admin.Exec(`DROP SCHEMA ` + schema + ` CASCADE`)
						admin.Close()
					}
				})
				db.Close()
				u, _ := url.Parse(pg)
				q := u.Query()
				q.Set("search_path", schema)
				u.RawQuery = q.Encode()
				db, err = sql.Open("pgx", u.String())
				if err != nil {
					t.Fatal(err)
				}
				return db
			},
			unreachable: func(t *testing.T) *sql.DB {
				u, _ := url.Parse(pg)
				u.Host = "127.0.0.1:1" // nothing listens there: connection refused
				db, err := sql.Open("pgx", u.String())
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { db.Close() })
				return db
			},
		})
	} else if os.Getenv("CI") == "true" {
		t.Fatal("TOOLAPI_TEST_POSTGRES is not set on CI")
	}
	for _, d := range dbs {
		t.Run(d.name, func(t *testing.T) {
			live := d.open(t)
			t.Cleanup(func() { live.Close() })
			if _, err := live.Exec(`CREATE TABLE accounts (name TEXT PRIMARY KEY, token_hash TEXT NOT NULL)`); err != nil {
				t.Fatal(err)
			}
			if _, err := live.Exec(`INSERT INTO accounts (name, token_hash) VALUES ('ada', $1)`, HashToken(token)); err != nil {
				t.Fatal(err)
			}
			accounts := new(sqlAccounts)
			accounts.db.Store(live)
			base := serveApp(t, &App{Registry: newTestApp(t).reg, Accounts: accounts}, &Options{Name: "notes"})
			if resp, _ := postMCP(t, base, token, nil); resp.StatusCode != 200 {
				t.Fatalf("with the database up: %d", resp.StatusCode)
			}
			if resp, _ := postMCP(t, base, "tok_wrong", nil); resp.StatusCode != 401 {
				t.Fatalf("a wrong token with the database up: %d, want 401", resp.StatusCode)
			}
			signedIn := func() *http.Client {
				status, body, c := signIn(t, base, "ada", token, nil)
				if status != 200 || !strings.Contains(body, "Signed in as <strong>ada</strong>") {
					t.Fatalf("signing in with the database up: %d", status)
				}
				return c
			}()

			closed := d.open(t)
			closed.Close() // sql: database is closed
			downs := []*sql.DB{closed}
			if d.unreachable != nil {
				downs = append(downs, d.unreachable(t))
			}
			for _, down := range downs {
				accounts.db.Store(down)
				for i := range 3 * ratelimit.DefaultFailureBurst {
					tok := token
					if i%2 == 1 {
						tok = fmt.Sprintf("tok_new%d", i)
					}
					resp, body := postMCP(t, base, tok, nil)
					if resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" || resp.Header.Get("WWW-Authenticate") != "" {
						t.Fatalf("request %d with the database down: %d, Retry-After %q, WWW-Authenticate %q; want 503 with Retry-After and no challenge",
							i+1, resp.StatusCode, resp.Header.Get("Retry-After"), resp.Header.Get("WWW-Authenticate"))
					}
					if strings.Contains(body, "closed") || strings.Contains(body, "refused") {
						t.Fatalf("the answer shows the database's error: %s", body)
					}
				}
				if status, _, _ := signIn(t, base, "ada", "tok_new", nil); status != 503 {
					t.Errorf("signing in to the explorer with the database down: %d, want 503", status)
				}
				resp, err := signedIn.Get(base + "/")
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" {
					t.Errorf("a signed-in visitor with the database down: %d, want 503 with Retry-After", resp.StatusCode)
				}
			}

			accounts.db.Store(live)
			if resp, _ := postMCP(t, base, token, nil); resp.StatusCode != 200 {
				t.Errorf("once the database is back: %d, want 200", resp.StatusCode)
			}
			if resp, _ := postMCP(t, base, "tok_wrong", nil); resp.StatusCode != 401 {
				t.Errorf("a wrong token once the database is back: %d, want 401 (the outage was counted as failures)", resp.StatusCode)
			}
			resp, err := signedIn.Get(base + "/")
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if !strings.Contains(string(b), "Signed in as <strong>ada</strong>") {
				t.Error("the visitor was signed out by the outage")
			}
		})
	}
}
