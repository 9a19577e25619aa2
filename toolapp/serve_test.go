package toolapp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// startServe serves a on a free loopback port with opts until the test
// ends, and returns its base URL.
func startServe(t *testing.T, a *testApp, opts *Options) string {
	t.Helper()
	return startServeApp(t, a.open, opts)
}

// startServeApp serves the App open returns on a free loopback port with
// opts until the test ends, and returns its base URL.
func startServeApp(t *testing.T, open Opener, opts *Options) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	app, err := open(context.Background())
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

type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func connect(t *testing.T, base, token string, opts *mcp.ClientOptions) (*mcp.ClientSession, error) {
	t.Helper()
	hc := &http.Client{}
	if token != "" {
		hc.Transport = bearer{token}
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "toolapp-test", Version: "1"}, opts)
	return c.Connect(t.Context(), &mcp.StreamableClientTransport{
		Endpoint: base + "/mcp", HTTPClient: hc, MaxRetries: -1, DisableStandaloneSSE: true,
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

// Serve answers MCP for the account of a bearer token (anonymous without
// one), the explorer and the health check.
func TestServe(t *testing.T) {
	a := newTestApp(t)
	token, err := a.accounts.IssueToken(context.Background(), "ada")
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	var mu sync.Mutex
	base := startServe(t, a, &Options{Name: "notes", Title: "Notes", Stdout: writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return out.Write(p)
	})})

	ada, err := connect(t, base, token, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ada.Close()
	if got := toolNames(t, ada); !slices.Equal(got, []string{"notes__count", "notes__slow"}) {
		t.Errorf("ada's tools = %v", got)
	}
	anon, err := connect(t, base, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer anon.Close()
	if got := toolNames(t, anon); !slices.Equal(got, []string{"notes__slow"}) {
		t.Errorf("anonymous tools = %v", got)
	}
	if cs, err := connect(t, base, "tok_wrong", nil); err == nil {
		cs.Close()
		t.Error("a wrong token connected")
	}

	for _, c := range []struct {
		health error
		path   string
		code   int
		body   string
	}{
		{nil, "/healthz", 200, "ok\n"},
		{errors.New("database down"), "/healthz", 200, "ok\n"},
		{nil, "/readyz", 200, "ok\n"},
		{errors.New("database down"), "/readyz", 503, "unavailable\n"},
		{nil, "/", 200, "notes.slow"},
		{nil, "/signin", 200, "API token"},
	} {
		a.health = c.health
		resp, err := http.Get(base + c.path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.code || !strings.Contains(string(body), c.body) {
			t.Errorf("GET %s (health %v) = %d %q; want %d with %q", c.path, c.health, resp.StatusCode, body, c.code, c.body)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if want := "Serving Notes on " + base + " (MCP at " + base + "/mcp).\n"; out.String() != want {
		t.Errorf("serve printed %q, want %q", out.String(), want)
	}
}

type writerFunc func(p []byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// Requests over the size limits are refused.
func TestServeSizeLimits(t *testing.T) {
	a := newTestApp(t)
	base := startServe(t, a, &Options{MaxMCPBody: 1000, MaxFormBody: 500, MaxHeaderBytes: 4096})
	post := func(path string, body io.Reader, length int64) int {
		req, _ := http.NewRequest("POST", base+path, body)
		req.ContentLength = length
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("POST %s: %v", path, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	big := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 2000) + `"}}`
	if code := post("/mcp", strings.NewReader(big), int64(len(big))); code != http.StatusRequestEntityTooLarge {
		t.Errorf("a 2 KB MCP body with its length: %d, want 413", code)
	}
	// Chunked, so the length is learnt only by reading.
	if code := post("/mcp", io.MultiReader(strings.NewReader(big)), -1); code < 400 {
		t.Errorf("a 2 KB chunked MCP body: %d, want a refusal", code)
	}
	form := "name=" + strings.Repeat("x", 600)
	if code := post("/signin", strings.NewReader(form), int64(len(form))); code != http.StatusRequestEntityTooLarge {
		t.Errorf("a 600-byte form: %d, want 413", code)
	}
	req, _ := http.NewRequest("GET", base+"/healthz", nil)
	req.Header.Set("X-Padding", strings.Repeat("x", 16<<10)) // the server allows 4 KiB of slack
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("16 KB of headers: %d, want 431", resp.StatusCode)
	}
}

// A body that trickles in is cut once BodyTimeout has passed, while the
// server is otherwise unbounded in how long it writes.
func TestSlowBodyIsCut(t *testing.T) {
	const size = 60 // bytes the client would send, one every 100ms: 6s
	type readResult struct {
		n   int
		err error
	}
	read := make(chan readResult, 1)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, err := io.Copy(io.Discard, r.Body)
		read <- readResult{int(n), err}
		http.Error(w, "body too slow", http.StatusRequestTimeout)
	})
	o := (&Options{BodyTimeout: 300 * time.Millisecond}).limits()
	srv := newServer(h, &o)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	defer srv.Close()

	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n", size)
	sent := 0
	var got readResult
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
loop:
	for sent < size {
		select {
		case got = <-read:
			break loop
		case <-tick.C:
			if _, err := conn.Write([]byte("x")); err != nil {
				break loop
			}
			sent++
		}
	}
	if sent == size {
		got = <-read
	}
	if !errors.Is(got.err, os.ErrDeadlineExceeded) || got.n >= size {
		t.Errorf("the handler read %d of %d bytes, error %v; want the read cut by its deadline", got.n, size, got.err)
	}
}

// A response that streams longer than the idle and body timeouts (a tool
// reporting progress over MCP's event stream) is not cut.
func TestLongStreamIsNotCut(t *testing.T) {
	a := newTestApp(t)
	base := startServe(t, a, &Options{IdleTimeout: 200 * time.Millisecond, BodyTimeout: 200 * time.Millisecond})
	progress := make(chan float64, 100)
	cs, err := connect(t, base, "", &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			progress <- r.Params.Progress
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	const steps = 8 // 8 × 150ms: 1.2s, six times either timeout
	params := &mcp.CallToolParams{Name: "notes.slow", Arguments: map[string]any{"steps": steps, "pause_ms": 150}}
	params.SetProgressToken("p1")
	res, err := cs.CallTool(t.Context(), params)
	if err != nil {
		t.Fatalf("the call was cut: %v", err)
	}
	if res.IsError {
		t.Fatalf("the call failed: %v", res.Content)
	}
	if got := res.StructuredContent.(map[string]any)["steps"]; got != float64(steps) {
		t.Errorf("steps = %v, want %d", got, steps)
	}
	// The notifications may be handled after the result; each arrives.
	for i := range steps {
		if got := <-progress; got != float64(i+1) {
			t.Errorf("progress notification %d says %v", i+1, got)
		}
	}
}

// Serve stops on its context, letting a request in flight finish, and
// calls OnShutdown once.
func TestServeShutdown(t *testing.T) {
	a := newTestApp(t)
	a.started = make(chan struct{}, 1)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	app, _ := a.open(context.Background())
	ctx, cancel := context.WithCancel(context.Background())
	shutdowns := make(chan struct{}, 2)
	served := make(chan error, 1)
	go func() {
		served <- Serve(ctx, ln, app, &Options{OnShutdown: func() { shutdowns <- struct{}{} }})
	}()
	base := "http://" + ln.Addr().String()
	cs, err := connect(t, base, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	called := make(chan error, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "notes.slow",
			Arguments: map[string]any{"steps": 3, "pause_ms": 200}})
		if err == nil && res.IsError {
			err = fmt.Errorf("failed: %v", res.Content)
		}
		called <- err
	}()
	<-a.started // the call is running
	cancel()
	if err := <-called; err != nil {
		t.Errorf("the call in flight: %v", err)
	}
	cs.Close()
	if err := <-served; err != nil {
		t.Errorf("Serve: %v", err)
	}
	if len(shutdowns) != 1 {
		t.Errorf("OnShutdown called %d times, want 1", len(shutdowns))
	}
	if _, err := http.Get(base + "/healthz"); err == nil {
		t.Error("the server still answers after shutdown")
	}
}

// syncBuffer is a bytes.Buffer safe for concurrent use.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// serve tries again, with a logged backoff, while the opener reports
// ErrUnavailable, and ends at once on any other error.
func TestServeRetriesUnavailable(t *testing.T) {
	a := newTestApp(t)
	var tries atomic.Int32
	open := func(ctx context.Context) (*App, error) {
		if tries.Add(1) <= 2 {
			return nil, fmt.Errorf("dial tcp: connection refused: %w", ErrUnavailable)
		}
		return a.open(ctx)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var out, errOut syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, open, []string{"serve", "--addr", "127.0.0.1:0"}, &Options{Name: "notes", Stdout: &out, Stderr: &errOut})
	}()
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(out.String(), "Serving notes on ") {
		if time.Now().After(deadline) {
			t.Fatalf("serve did not serve; stderr:\n%s", errOut.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if n := tries.Load(); n != 3 {
		t.Errorf("opened %d times, want 3", n)
	}
	log := errOut.String()
	for _, want := range []string{"(attempt 1): dial tcp: connection refused: unavailable for now; trying again in 250ms", "(attempt 2)", "trying again in 500ms"} {
		if !strings.Contains(log, want) {
			t.Errorf("serve's log lacks %q:\n%s", want, log)
		}
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("serve exited %d", code)
	}

	tries.Store(0)
	errOut = syncBuffer{}
	start := time.Now()
	code := Run(t.Context(), func(context.Context) (*App, error) {
		tries.Add(1)
		return nil, errors.New("password authentication failed")
	}, []string{"serve", "--addr", "127.0.0.1:0"}, &Options{Name: "notes", Stdout: io.Discard, Stderr: &errOut})
	if code != 1 || tries.Load() != 1 || strings.Contains(errOut.String(), "trying again") {
		t.Errorf("a permanent failure: exit %d after %d tries in %s; stderr:\n%s", code, tries.Load(), time.Since(start), errOut.String())
	}
}

// With Drain, serve told to stop goes on serving while /readyz answers
// 503, then shuts down.
func TestServeDrains(t *testing.T) {
	a := newTestApp(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var out, errOut syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, a.open, []string{"serve", "--addr", "127.0.0.1:0", "--drain", "1s"}, &Options{Name: "notes", Stdout: &out, Stderr: &errOut})
	}()
	deadline := time.Now().Add(20 * time.Second)
	var base string
	for base == "" {
		if _, rest, ok := strings.Cut(out.String(), "Serving notes on "); ok {
			base, _, _ = strings.Cut(rest, " ")
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not serve; stderr:\n%s", errOut.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	status := func(path string) int {
		resp, err := http.Get(base + path)
		if err != nil {
			return 0
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := status("/readyz"); got != http.StatusOK {
		t.Fatalf("/readyz = %d before the stop", got)
	}
	cancel()
	for !strings.Contains(out.String(), "Draining") {
		time.Sleep(10 * time.Millisecond)
	}
	if got, live := status("/readyz"), status("/healthz"); got != http.StatusServiceUnavailable || live != http.StatusOK {
		t.Errorf("while draining: /readyz %d, /healthz %d; want 503 and 200", got, live)
	}
	if code := <-done; code != 0 {
		t.Errorf("serve exited %d", code)
	}
}
