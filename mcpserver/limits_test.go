package mcpserver_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolapi/toolapi/mcpserver"
	"github.com/toolapi/toolapi/ratelimit"
	"github.com/toolapi/toolapi/tool"
)

// postBody sends one JSON-RPC message to url and returns the response and
// its body.
func postBody(t testing.TB, url, body string, header map[string]string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

// openSession initializes a session with token ("" for none) and returns
// its ID.
func openSession(t testing.TB, url, token string) string {
	t.Helper()
	h := map[string]string{}
	if token != "" {
		h["Authorization"] = "Bearer " + token
	}
	resp := post(t, url, initialize, h)
	id := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || id == "" {
		t.Fatalf("initialize with token %q: status %d, session %q", token, resp.StatusCode, id)
	}
	return id
}

// alive reports whether the session with the given ID still answers.
func alive(t testing.TB, url, token, id string) bool {
	t.Helper()
	h := map[string]string{"Mcp-Session-Id": id, "Mcp-Protocol-Version": legacy}
	if token != "" {
		h["Authorization"] = "Bearer " + token
	}
	resp := post(t, url, `{"jsonrpc":"2.0","id":2,"method":"ping"}`, h)
	switch resp.StatusCode {
	case 200:
		return true
	case 404:
		return false
	}
	t.Fatalf("ping in session %s: status %d", id, resp.StatusCode)
	return false
}

// TestSessionLimits checks that anonymous initialize requests cannot hold
// more sessions than the caps, that a new session closes the one idle
// longest (of its own account first), and that the others stay.
func TestSessionLimits(t *testing.T) {
	f := newFixture(t)
	ts := serveHTTP(t, f, &mcpserver.Options{AllowAnonymous: true, MaxSessions: 4, MaxSessionsPerAccount: 3})

	// A flood of anonymous sessions keeps three, the newest.
	var flood []string
	for range 50 {
		flood = append(flood, openSession(t, ts.URL, ""))
	}
	var open []int
	for i, id := range flood {
		if alive(t, ts.URL, "", id) {
			open = append(open, i)
		}
	}
	if len(open) != 3 || open[0] != 47 {
		t.Errorf("of 50 anonymous sessions, open: %v; want the last 3", open)
	}

	// The editor's first session takes the fourth place; its second
	// passes the total and closes the session idle longest, an anonymous
	// one (47: each ping above made the later ones more recent).
	e1 := openSession(t, ts.URL, "editor-token")
	e2 := openSession(t, ts.URL, "editor-token")
	want := map[string]bool{flood[47]: false, flood[48]: true, flood[49]: true, e1: true, e2: true}
	for id, w := range want {
		token := "editor-token"
		if id != e1 && id != e2 {
			token = ""
		}
		if got := alive(t, ts.URL, token, id); got != w {
			t.Errorf("session %s open: %v, want %v", id, got, w)
		}
	}
}

// TestSessionLimitBusy checks that a session with a request running is
// not closed for a new one: the new one is refused instead.
func TestSessionLimitBusy(t *testing.T) {
	f := newFixture(t)
	ts := serveHTTP(t, f, &mcpserver.Options{MaxSessionsPerAccount: 1})
	cs, err := connectHTTP(t, ts.URL, "editor-token", nil, legacy)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test.wait"})
		done <- err
	}()
	waitFor(t, f.started, "start of test.wait")

	resp, body := postBody(t, ts.URL, initialize, map[string]string{"Authorization": "Bearer editor-token"})
	if !strings.Contains(body, `"error"`) || !strings.Contains(body, "busy") || resp.Header.Get("Mcp-Session-Id") != "" && alive(t, ts.URL, "editor-token", resp.Header.Get("Mcp-Session-Id")) {
		t.Errorf("initialize while the account's one session is busy: %d %s, want a JSON-RPC error saying the sessions are busy", resp.StatusCode, body)
	}
	// Another account is not held back.
	openSession(t, ts.URL, "admin-token")

	cancel()
	waitFor(t, f.stopped, "end of test.wait")
	<-done
	// Once idle, the busy session gives way.
	openSession(t, ts.URL, "editor-token")
	if _, err := cs.ListTools(context.Background(), nil); err == nil {
		t.Errorf("the editor's first session still answers after a new one took its place")
	}
}

// TestSessionTimeout checks that an idle session is closed.
func TestSessionTimeout(t *testing.T) {
	f := newFixture(t)
	ts := serveHTTP(t, f, &mcpserver.Options{AllowAnonymous: true, SessionTimeout: time.Millisecond})
	id := openSession(t, ts.URL, "")
	deadline := time.Now().Add(10 * time.Second)
	for alive(t, ts.URL, "", id) {
		if time.Now().After(deadline) {
			t.Fatal("a session idle for 10s with a 1ms timeout is still open")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestAuthFailureLimit checks the limit on failed authentications at
// /mcp: an address out of checks is answered 429 with Retry-After before
// new credentials are checked, while a token accepted recently and a
// request without credentials from the same address still get through,
// and other addresses are not held back.
func TestAuthFailureLimit(t *testing.T) {
	f := newFixture(t)
	var (
		mu      sync.Mutex
		checked int
	)
	srv := mcpserver.New(f.reg, &mcpserver.Options{
		AllowAnonymous: true,
		AuthFailures:   ratelimit.NewFailures(&ratelimit.FailureOptions{Burst: 3}),
		ClientAddress:  func(r *http.Request) string { return r.Header.Get("X-Test-Client") },
		Authenticate: func(r *http.Request) (tool.Account, error) {
			mu.Lock()
			checked++
			mu.Unlock()
			return mcpserver.Bearer(lookupToken)(r)
		},
	})
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	try := func(client, token string) *http.Response {
		h := map[string]string{"X-Test-Client": client}
		if token != "" {
			h["Authorization"] = "Bearer " + token
		}
		return post(t, ts.URL, initialize, h)
	}
	if resp := try("a", "editor-token"); resp.StatusCode != 200 {
		t.Fatalf("editor's first request: status %d", resp.StatusCode)
	}
	for i := range 3 {
		if resp := try("a", "guess"+strconv.Itoa(i)); resp.StatusCode != 401 {
			t.Fatalf("failure %d: status %d, want 401", i+1, resp.StatusCode)
		}
	}
	mu.Lock()
	before := checked
	mu.Unlock()
	for _, token := range []string{"guess", "admin-token"} {
		resp := try("a", token)
		if resp.StatusCode != 429 || resp.Header.Get("Retry-After") == "" {
			t.Errorf("token %s after 3 failures: status %d, Retry-After %q; want 429 with a Retry-After", token, resp.StatusCode, resp.Header.Get("Retry-After"))
		}
	}
	mu.Lock()
	if checked != before {
		t.Errorf("new credentials were checked %d times while the address waited", checked-before)
	}
	mu.Unlock()
	if resp := try("a", "editor-token"); resp.StatusCode != 200 {
		t.Errorf("a token accepted before, from the same address: status %d, want 200", resp.StatusCode)
	}
	if resp := try("a", ""); resp.StatusCode != 200 {
		t.Errorf("a request without credentials from the same address: status %d, want 200", resp.StatusCode)
	}
	if resp := try("b", "admin-token"); resp.StatusCode != 200 {
		t.Errorf("another address: status %d, want 200", resp.StatusCode)
	}
}

// TestAuthUnavailable checks that credentials that cannot be checked (the
// store of accounts is down) are answered 503 with Retry-After, never 401,
// and are not counted as failures: once the store is back, the address
// signs in.
func TestAuthUnavailable(t *testing.T) {
	f := newFixture(t)
	var down atomic.Bool
	down.Store(true)
	srv := mcpserver.New(f.reg, &mcpserver.Options{
		AuthFailures:  ratelimit.NewFailures(&ratelimit.FailureOptions{Burst: 2}),
		ClientAddress: func(r *http.Request) string { return "balancer" },
		Authenticate: mcpserver.Bearer(func(ctx context.Context, token string) (tool.Account, error) {
			if down.Load() {
				return nil, fmt.Errorf("looking the token up: %w: connection refused", tool.ErrUnavailable)
			}
			return lookupToken(ctx, token)
		}),
	})
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	for i := range 20 {
		resp, body := postBody(t, ts.URL, initialize, map[string]string{"Authorization": "Bearer editor-token"})
		if resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" || resp.Header.Get("WWW-Authenticate") != "" {
			t.Fatalf("request %d while the store is down: status %d, Retry-After %q, WWW-Authenticate %q; want 503, a Retry-After and no challenge",
				i+1, resp.StatusCode, resp.Header.Get("Retry-After"), resp.Header.Get("WWW-Authenticate"))
		}
		if strings.Contains(body, "connection refused") {
			t.Fatalf("the answer shows the store's error: %s", body)
		}
	}
	down.Store(false)
	if resp := post(t, ts.URL, initialize, map[string]string{"Authorization": "Bearer editor-token"}); resp.StatusCode != 200 {
		t.Errorf("once the store is back: status %d, want 200", resp.StatusCode)
	}
}

// TestHugeFailureStaysSmall checks that a tools/call whose arguments break
// the rules in every way it can (290,000 unknown keys, 3.5 MB) is answered
// with a failure under 64 KB.
func TestHugeFailureStaysSmall(t *testing.T) {
	f := newFixture(t)
	ts := serveHTTP(t, f, &mcpserver.Options{})
	session := openSession(t, ts.URL, "editor-token")
	h := map[string]string{"Authorization": "Bearer editor-token", "Mcp-Session-Id": session, "Mcp-Protocol-Version": legacy}
	post(t, ts.URL, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, h)

	var b strings.Builder
	b.WriteString(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"album.search","arguments":{"word":"blue"`)
	for i := range 290_000 {
		fmt.Fprintf(&b, `,"k%d":0`, i)
	}
	b.WriteString(`}}}`)
	if b.Len() < 3_000_000 {
		t.Fatalf("the request is %d bytes", b.Len())
	}
	resp, body := postBody(t, ts.URL, b.String(), h)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %.300s", resp.StatusCode, body)
	}
	if len(body) >= 64<<10 {
		t.Errorf("the answer is %d bytes, want under 64 KB", len(body))
	}
	if !strings.Contains(body, `"isError":true`) || !strings.Contains(body, "more") {
		t.Errorf("answer %.500s, want a failure listing some violations and how many more", body)
	}
}
