package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolapi/toolapi/tool"
	"github.com/toolapi/toolapi/toolapp"
	"github.com/toolapi/toolapi/toolcli"
)

// serveOptions let tests watch a server's life.
type serveOptions struct {
	// ready, when set, receives the address the server listens on.
	ready func(addr string)
	// shuttingDown, when set, is called once shutdown has begun.
	shuttingDown func()
}

// serve serves app on addr as `album serve` does, until ctx is done.
func serve(ctx context.Context, app *App, addr string, stdout io.Writer, so *serveOptions) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	if so != nil && so.ready != nil {
		so.ready(ln.Addr().String())
	}
	opts := (&flags{}).options()
	opts.Stdout = stdout
	if so != nil {
		opts.OnShutdown = so.shuttingDown
	}
	return toolapp.Serve(ctx, ln, app.Service(), opts)
}

// newMux returns the site's HTTP handler, as `album serve` serves it.
func newMux(app *App) http.Handler {
	return toolapp.Handler(app.Service(), (&flags{}).options())
}

// cliAccount returns the account --user names, as `album tool` finds it.
func (a *App) cliAccount(ctx context.Context, name string) (tool.Account, error) {
	u, err := a.Store.Account(ctx, name)
	if errors.Is(err, errNoUser) {
		return nil, fmt.Errorf("%q: %w", name, toolcli.ErrUnknownUser)
	}
	return u, err
}

// bearer adds a bearer token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// connectMCP connects an MCP client to the server at base, with token
// unless it is empty.
func connectMCP(t *testing.T, base, token string, standaloneSSE bool) (*mcp.ClientSession, error) {
	t.Helper()
	hc := &http.Client{}
	if token != "" {
		hc.Transport = bearer{token}
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "album-test", Version: "1"}, nil)
	return c.Connect(t.Context(), &mcp.StreamableClientTransport{
		Endpoint: base + "/mcp", HTTPClient: hc, MaxRetries: -1, DisableStandaloneSSE: !standaloneSSE,
	}, nil)
}

func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	return names
}

// TestServeCommand runs `album serve --print-tokens` as a user would and
// uses what it prints: the tokens and the address.
func TestServeCommand(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out, w := io.Pipe()
	var stderr lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"--db", filepath.Join(dir, "album.db"), "serve", "--addr", "127.0.0.1:0", "--print-tokens"},
			nil, w, &stderr)
		w.Close()
	}()

	tokens := map[string]string{}
	var base string
	lines := bufio.NewScanner(out)
	for base == "" && lines.Scan() {
		line := lines.Text()
		if f := strings.Fields(line); len(f) == 2 && strings.HasPrefix(f[1], "alb_") {
			tokens[f[0]] = f[1]
		}
		if rest, ok := strings.CutPrefix(line, "Serving Album demo on "); ok {
			base, _, _ = strings.Cut(rest, " ")
		}
	}
	if base == "" {
		t.Fatalf("serve printed no address; stderr:\n%s", stderr.String())
	}
	go io.Copy(io.Discard, out)
	if len(tokens) != 3 || tokens["editor"] == "" || tokens["admin"] == "" || tokens["anonymous"] != "" {
		t.Fatalf("tokens printed: %v; want editor, admin and mallory's", tokens)
	}

	resp, err := http.Get(base + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(body) != "ok\n" {
		t.Errorf("/healthz = %d %q", resp.StatusCode, body)
	}
	resp, err = http.Get(base + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "album.search") {
		t.Errorf("/ = %d %q", resp.StatusCode, body)
	}

	editor, err := connectMCP(t, base, tokens["editor"], true)
	if err != nil {
		t.Fatal(err)
	}
	defer editor.Close()
	want := []string{"album__add_track", "album__archive", "album__delete", "album__list", "album__protect", "album__publish", "album__search", "album__summarize", "album__takedown", "site__info", "translation__export"}
	if got := toolNames(t, editor); !slices.Equal(got, want) {
		t.Errorf("editor's tools = %v, want %v", got, want)
	}
	res, err := editor.CallTool(t.Context(), &mcp.CallToolParams{Name: "album.summarize", Arguments: map[string]any{"album": "2"}})
	if err != nil {
		t.Fatal(err)
	}
	structured, _ := json.Marshal(res.StructuredContent)
	if res.IsError || !strings.Contains(string(structured), `"title":"Night Studies"`) {
		t.Errorf("editor's summary of their draft = %s (error %v)", structured, res.IsError)
	}

	anon, err := connectMCP(t, base, "", false)
	if err != nil {
		t.Fatal(err)
	}
	defer anon.Close()
	if got := toolNames(t, anon); !slices.Equal(got, []string{"album__list", "album__search", "album__summarize", "site__info"}) {
		t.Errorf("anonymous tools = %v", got)
	}
	res, err = anon.CallTool(t.Context(), &mcp.CallToolParams{Name: "album.summarize", Arguments: map[string]any{"album": "2"}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError {
		t.Error("anonymous summarized an editor's draft")
	}

	if cs, err := connectMCP(t, base, "alb_not-a-token", false); err == nil {
		cs.Close()
		t.Error("a client with a wrong token connected")
	}
	blocked, err := connectMCP(t, base, tokens["mallory"], false)
	if err != nil {
		t.Fatal(err)
	}
	if got := toolNames(t, blocked); len(got) != 0 {
		t.Errorf("the blocked user sees tools %v", got)
	}
	res, err = blocked.CallTool(t.Context(), &mcp.CallToolParams{Name: "album.search", Arguments: map[string]any{"word": "blue"}})
	if err == nil && !res.IsError {
		t.Error("the blocked user ran album.search")
	}
	blocked.Close()

	editor.Close()
	anon.Close()
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("serve exited %d; stderr:\n%s", code, stderr.String())
	}
}

// A write in flight when shutdown begins finishes and is committed before
// the server stops.
func TestShutdownFinishesWrite(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		app, logs := newTestApp(t, s)
		token, err := s.IssueToken(context.Background(), "editor")
		if err != nil {
			t.Fatal(err)
		}
		album := mustAlbum(t, s, "Night Studies")
		before, _ := s.Tracks(context.Background(), album)

		inCommit := make(chan struct{})
		shuttingDown := make(chan struct{})
		var once sync.Once
		s.beforeCommit = func(ctx context.Context) error {
			once.Do(func() { close(inCommit) })
			<-shuttingDown
			return nil
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		addr := make(chan string, 1)
		served := make(chan error, 1)
		go func() {
			served <- serve(ctx, app, "127.0.0.1:0", io.Discard, &serveOptions{
				ready:        func(a string) { addr <- a },
				shuttingDown: func() { close(shuttingDown) },
			})
		}()
		base := "http://" + <-addr
		cs, err := connectMCP(t, base, token, false)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		type callResult struct {
			res *mcp.CallToolResult
			err error
		}
		called := make(chan callResult, 1)
		go func() {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "album.add_track",
				Arguments: map[string]any{"album": "2", "title": "Written during shutdown"}})
			called <- callResult{res, err}
		}()
		<-inCommit // the write is in its transaction, about to commit
		cancel()   // SIGINT or SIGTERM
		r := <-called
		if r.err != nil || r.res.IsError {
			t.Fatalf("the call in flight = %+v, %v; log:\n%s", r.res, r.err, logs)
		}
		cs.Close()
		if err := <-served; err != nil {
			t.Errorf("serve: %v", err)
		}
		after, err := s.Tracks(context.Background(), album)
		if err != nil {
			t.Fatal(err)
		}
		if len(after) != len(before)+1 || after[len(after)-1].Title != "Written during shutdown" {
			t.Errorf("tracks after shutdown: %d (before %d); the write was lost", len(after), len(before))
		}
		if _, err := http.Get(base + "/healthz"); err == nil {
			t.Error("the server still answers after shutdown")
		}
	})
}
