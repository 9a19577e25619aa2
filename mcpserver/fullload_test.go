package mcpserver_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/toolapi/toolapi/audit"
	"github.com/toolapi/toolapi/mcpserver"
	"github.com/toolapi/toolapi/oauth"
	"github.com/toolapi/toolapi/telemetry"
	"github.com/toolapi/toolapi/tool"
)

// searchRegistry returns a registry holding the benchmark's search as a
// toolapi tool.
func searchRegistry(tb testing.TB) *tool.Registry {
	tb.Helper()
	reg := tool.NewRegistry(&tool.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	err := reg.Add(&tool.Tool{
		ID: "album.search", Label: "Search", Description: "Finds titles containing a word.",
		Operation: tool.OpRead, Permission: "access content",
		Inputs: []*tool.Definition{
			{Name: "word", Type: "string", Description: "a word", Required: true},
			{Name: "limit", Type: "integer", Description: "how many titles at most", Default: 20},
		},
		Outputs: []*tool.Definition{{Name: "result", Type: "list", Required: true, Items: &tool.Definition{Type: "string"}}},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			return tool.Succeeded("", map[string]any{"result": search(in.String("word"), int(in.Int("limit")))}), nil
		},
	})
	if err != nil {
		tb.Fatal(err)
	}
	return reg
}

// servePlainSearch serves the same search as a plain SDK typed tool over
// streamable HTTP on loopback, without authentication.
func servePlainSearch(tb testing.TB) *httptest.Server {
	plain := mcp.NewServer(&mcp.Implementation{Name: "plain", Version: "1"}, nil)
	mcp.AddTool(plain, &mcp.Tool{Name: "album.search", Description: "Finds titles containing a word."},
		func(ctx context.Context, req *mcp.CallToolRequest, in searchIn) (*mcp.CallToolResult, searchOut, error) {
			if in.Limit == 0 {
				in.Limit = 20
			}
			return nil, searchOut{Result: search(in.Word, in.Limit)}, nil
		})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return plain }, nil))
	tb.Cleanup(ts.Close)
	return ts
}

// A jwtIssuer signs access tokens with a local key and serves the key as
// a JSON Web Key Set.
type jwtIssuer struct {
	*httptest.Server
	key *ecdsa.PrivateKey
}

func newJWTIssuer(t *testing.T) *jwtIssuer {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	iss := &jwtIssuer{key: key}
	iss.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{
			{Key: &key.PublicKey, KeyID: "k1", Algorithm: "ES256", Use: "sig"},
		}})
	}))
	t.Cleanup(iss.Close)
	return iss
}

// token returns an access token for subject, valid for an hour for
// resource, with the scope album:read.
func (iss *jwtIssuer) token(t *testing.T, resource, subject string) string {
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: iss.key},
		(&jose.SignerOptions{}).WithType("at+jwt").WithHeader("kid", "k1"))
	if err != nil {
		t.Fatal(err)
	}
	tok, err := jwt.Signed(signer).Claims(map[string]any{
		"iss": iss.URL, "sub": subject, "aud": []string{resource}, "client_id": "load",
		"exp": time.Now().Add(time.Hour).Unix(), "iat": time.Now().Unix(), "scope": "album:read",
	}).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// spanCounter is a span processor that counts the spans that end and
// keeps none.
type spanCounter struct{ ended atomic.Int64 }

func (c *spanCounter) OnStart(context.Context, sdktrace.ReadWriteSpan) {}
func (c *spanCounter) OnEnd(sdktrace.ReadOnlySpan)                     { c.ended.Add(1) }
func (c *spanCounter) Shutdown(context.Context) error                  { return nil }
func (c *spanCounter) ForceFlush(context.Context) error                { return nil }

// TestLoadEverythingOn is opt-in (TOOLAPI_LOAD=1): 64 clients make 20,000
// tools/call in all over streamable HTTP to a server with everything on
// (JWT access tokens checked against a JWKS, OpenTelemetry spans and
// metrics, every run in an audit trail on SQLite), and 20,000 more to a
// plain SDK server doing the same search, in alternating rounds. It logs
// both rates, their ratio and the latency percentiles, and asserts that
// no call failed and that every run has its spans and its audit record.
// TOOLAPI_LOAD_CALLS changes the number of calls.
func TestLoadEverythingOn(t *testing.T) {
	if os.Getenv("TOOLAPI_LOAD") != "1" {
		t.Skip("opt-in load test: TOOLAPI_LOAD=1 go test -run TestLoadEverythingOn -v ./mcpserver")
	}
	const clients, rounds = 64, 4
	calls := 20_000
	if n, err := fmt.Sscan(os.Getenv("TOOLAPI_LOAD_CALLS"), &calls); n == 1 && err == nil && calls < clients*rounds {
		t.Fatalf("TOOLAPI_LOAD_CALLS=%d: at least %d", calls, clients*rounds)
	}

	// The audit trail, in SQLite, recording every run.
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "audit.db")+
		"?_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=busy_timeout(30000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1) // one writer: queue in Go rather than on SQLite's lock
	trail, err := audit.NewSQLStore(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := trail.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}

	// Telemetry with the SDK, spans counted and dropped, metrics kept in
	// memory.
	spans := new(spanCounter)
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	t.Cleanup(func() { tp.Shutdown(context.Background()) })
	tel, err := telemetry.New(&telemetry.Options{
		TracerProvider: tp,
		MeterProvider:  sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader())),
	})
	if err != nil {
		t.Fatal(err)
	}

	reg := searchRegistry(t)
	reg.Use(audit.Middleware(trail, &audit.Options{Audited: func(*tool.Tool) bool { return true }}), tel.Middleware())

	iss := newJWTIssuer(t)
	const resource = "http://127.0.0.1/mcp"
	rs, err := oauth.New(&oauth.Options{
		Resource: resource, Issuer: iss.URL, JWKSURL: iss.URL,
		Scopes: map[string][]string{"album:read": {"access content"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := mcpserver.New(reg, &mcpserver.Options{Authenticate: rs.Authenticate, MaxSessionsPerAccount: 4})
	srv.MCPServer().AddReceivingMiddleware(tel.MCPMiddleware())
	ours := httptest.NewServer(srv.Handler())
	t.Cleanup(ours.Close)
	theirs := servePlainSearch(t)

	oursCS := make([]*mcp.ClientSession, clients)
	theirsCS := make([]*mcp.ClientSession, clients)
	for i := range clients {
		if oursCS[i], err = connectHTTP(t, ours.URL, iss.token(t, resource, fmt.Sprintf("agent-%d", i)), nil, legacy); err != nil {
			t.Fatal(err)
		}
		if theirsCS[i], err = connectHTTP(t, theirs.URL, "", nil, legacy); err != nil {
			t.Fatal(err)
		}
	}
	spans.ended.Store(0) // the sessions' initialize requests

	var failures atomic.Int64
	// round makes n calls from the clients of sessions and returns how long
	// they took and each call's latency.
	round := func(sessions []*mcp.ClientSession, n int) (time.Duration, []time.Duration) {
		latencies := make([][]time.Duration, clients)
		var wg sync.WaitGroup
		start := time.Now()
		for i, cs := range sessions {
			share := n / clients
			if i < n%clients {
				share++
			}
			wg.Go(func() {
				for j := range share {
					word := titles[(i+j)%len(titles)]
					t0 := time.Now()
					res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "album.search", Arguments: map[string]any{"word": word, "limit": 20}})
					latencies[i] = append(latencies[i], time.Since(t0))
					if err != nil || res.IsError {
						if failures.Add(1) <= 5 {
							t.Errorf("client %d call %d: %v %v", i, j, err, res)
						}
					}
				}
			})
		}
		wg.Wait()
		return time.Since(start), slices.Concat(latencies...)
	}
	var oursTime, theirsTime time.Duration
	var oursLat, theirsLat []time.Duration
	for r := range rounds {
		n := calls / rounds
		if r < calls%rounds {
			n++
		}
		// Alternate which goes first, so that neither always has the
		// warmer machine.
		first, second := true, false
		if r%2 == 1 {
			first, second = false, true
		}
		for _, isOurs := range []bool{first, second} {
			if isOurs {
				d, l := round(oursCS, n)
				oursTime, oursLat = oursTime+d, append(oursLat, l...)
			} else {
				d, l := round(theirsCS, n)
				theirsTime, theirsLat = theirsTime+d, append(theirsLat, l...)
			}
		}
	}
	if n := failures.Load(); n > 0 {
		t.Fatalf("%d of %d calls failed", n, 2*calls)
	}
	if len(oursLat) != calls || len(theirsLat) != calls {
		t.Fatalf("%d and %d calls made, want %d each", len(oursLat), len(theirsLat), calls)
	}
	// Every call: its MCP request's span and its run's.
	if got := spans.ended.Load(); got != int64(2*calls) {
		t.Errorf("%d spans ended, want %d", got, 2*calls)
	}
	var audited int
	if err := db.QueryRow(`SELECT count(*) FROM audit_trail WHERE outcome = 'success'`).Scan(&audited); err != nil || audited != calls {
		t.Errorf("audit trail: %d successful runs (%v), want %d", audited, err, calls)
	}

	oursRate := float64(calls) / oursTime.Seconds()
	theirsRate := float64(calls) / theirsTime.Seconds()
	pct := func(l []time.Duration, p int) time.Duration {
		slices.Sort(l)
		return l[len(l)*p/100].Round(time.Microsecond)
	}
	t.Logf("%d tools/call each from %d clients over loopback HTTP, %d alternating rounds", calls, clients, rounds)
	t.Logf("toolapi (JWT, telemetry, audit on SQLite): %.0f calls/s, p50 %v, p99 %v", oursRate, pct(oursLat, 50), pct(oursLat, 99))
	t.Logf("plain SDK (mcp.AddTool, no auth):          %.0f calls/s, p50 %v, p99 %v", theirsRate, pct(theirsLat, 50), pct(theirsLat, 99))
	t.Logf("ratio toolapi/SDK: %.2f", oursRate/theirsRate)
}
