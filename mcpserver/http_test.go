package mcpserver_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolapi/toolapi/mcpserver"
	"github.com/toolapi/toolapi/tool"
)

// tokens are the bearer tokens of the tests' accounts.
var tokens = map[string]tool.Account{"editor-token": editor, "admin-token": admin}

func lookupToken(_ context.Context, token string) (tool.Account, error) {
	return tokens[token], nil
}

// serveHTTP serves f's registry over streamable HTTP on loopback.
func serveHTTP(t testing.TB, f *fixture, opts *mcpserver.Options) *httptest.Server {
	t.Helper()
	if opts.Authenticate == nil {
		opts.Authenticate = mcpserver.Bearer(lookupToken)
	}
	ts := httptest.NewServer(mcpserver.New(f.reg, opts).Handler())
	t.Cleanup(ts.Close)
	return ts
}

// withToken is an http.RoundTripper that sends a bearer token.
type withToken struct {
	token string
	next  http.RoundTripper
}

func (w withToken) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if w.token != "" {
		r.Header.Set("Authorization", "Bearer "+w.token)
	}
	return w.next.RoundTrip(r)
}

// connectHTTP connects an SDK client to endpoint with token ("" for none).
func connectHTTP(t testing.TB, endpoint, token string, opts *mcp.ClientOptions, version string) (*mcp.ClientSession, error) {
	t.Helper()
	transport := &mcp.StreamableClientTransport{
		Endpoint:   endpoint,
		HTTPClient: &http.Client{Transport: withToken{token, http.DefaultTransport}},
		MaxRetries: -1,
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, opts)
	cs, err := c.Connect(context.Background(), transport, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { cs.Close() })
	return cs, nil
}

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// post sends one JSON-RPC message to url and returns the response.
func post(t testing.TB, url, body string, header map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
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
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

func TestHTTPAuthentication(t *testing.T) {
	f := newFixture(t)
	closed := serveHTTP(t, f, &mcpserver.Options{})
	open := serveHTTP(t, f, &mcpserver.Options{AllowAnonymous: true})

	for _, tc := range []struct {
		name, url, token string
		status           int
		challenge        string
	}{
		{"no token", closed.URL, "", 401, "Bearer"},
		{"unknown token", closed.URL, "guess", 401, `Bearer error="invalid_token"`},
		{"unknown token, anonymous allowed", open.URL, "guess", 401, `Bearer error="invalid_token"`},
		{"not a bearer token", closed.URL, "", 401, `Bearer error="invalid_token"`},
		{"no token, anonymous allowed", open.URL, "", 200, ""},
		{"editor", closed.URL, "editor-token", 200, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := map[string]string{}
			if tc.token != "" {
				h["Authorization"] = "Bearer " + tc.token
			}
			if tc.name == "not a bearer token" {
				h["Authorization"] = "Basic ZWRpdG9yOnNlY3JldA=="
			}
			resp := post(t, tc.url, initialize, h)
			if resp.StatusCode != tc.status || resp.Header.Get("WWW-Authenticate") != tc.challenge {
				t.Errorf("status %d, WWW-Authenticate %q; want %d, %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), tc.status, tc.challenge)
			}
		})
	}

	for _, tc := range []struct {
		url, token string
		want       []string
	}{
		{open.URL, "", []string{"test__ask", "test__panic", "test__report", "test__wait"}},
		{closed.URL, "editor-token", []string{"album__cover", "album__search", "test__ask", "test__panic", "test__report", "test__wait"}},
		{closed.URL, "admin-token", []string{"album__cover", "album__search", "site__publish", "test__ask", "test__panic", "test__report", "test__wait"}},
	} {
		cs, err := connectHTTP(t, tc.url, tc.token, nil, legacy)
		if err != nil {
			t.Fatalf("token %q: %v", tc.token, err)
		}
		if diff := cmp.Diff(tc.want, toolNames(t, cs)); diff != "" {
			t.Errorf("token %q: tools/list (-want +got):\n%s", tc.token, diff)
		}
	}
	if _, err := connectHTTP(t, closed.URL, "", nil, legacy); err == nil {
		t.Errorf("a client without a token connected")
	}

	// Each call is checked for its account: a tool the list does not show
	// it is one it cannot call, as if it did not exist.
	cs, err := connectHTTP(t, closed.URL, "editor-token", nil, legacy)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "site.publish"}); err == nil || !strings.Contains(err.Error(), `unknown tool "site.publish"`) {
		t.Errorf("editor calling site.publish: %v, %v; want an unknown tool protocol error", res, err)
	}
}

// TestHTTPSessionAccount checks that a session stays with the account that
// opened it, anonymous or not.
func TestHTTPSessionAccount(t *testing.T) {
	f := newFixture(t)
	ts := serveHTTP(t, f, &mcpserver.Options{AllowAnonymous: true})
	const list = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	for _, opener := range []string{"editor-token", ""} {
		h := map[string]string{}
		if opener != "" {
			h["Authorization"] = "Bearer " + opener
		}
		resp := post(t, ts.URL, initialize, h)
		session := resp.Header.Get("Mcp-Session-Id")
		if resp.StatusCode != 200 || session == "" {
			t.Fatalf("initialize with token %q: status %d, session %q", opener, resp.StatusCode, session)
		}
		for _, token := range []string{"admin-token", "editor-token", ""} {
			h := map[string]string{"Mcp-Session-Id": session, "Mcp-Protocol-Version": "2025-11-25"}
			if token != "" {
				h["Authorization"] = "Bearer " + token
			}
			want := 403
			if token == opener {
				want = 200
			}
			if resp := post(t, ts.URL, list, h); resp.StatusCode != want {
				t.Errorf("tools/list in the session opened with token %q, with token %q: status %d, want %d", opener, token, resp.StatusCode, want)
			}
		}
	}
}

// TestHTTPAccountWithoutID checks that an account without an ID, with
// which a session could not be bound to its account, is refused.
func TestHTTPAccountWithoutID(t *testing.T) {
	f := newFixture(t)
	nameless := &tool.User{Permissions: admin.Permissions}
	ts := serveHTTP(t, f, &mcpserver.Options{AllowAnonymous: true, Authenticate: mcpserver.Bearer(func(ctx context.Context, token string) (tool.Account, error) {
		if token == "nameless-token" {
			return nameless, nil
		}
		return lookupToken(ctx, token)
	})})
	resp := post(t, ts.URL, initialize, map[string]string{"Authorization": "Bearer nameless-token"})
	if resp.StatusCode != 401 || resp.Header.Get("WWW-Authenticate") != `Bearer error="invalid_token"` {
		t.Errorf("an account without an ID: status %d, WWW-Authenticate %q; want 401 and an invalid_token challenge", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
}

func TestHTTPOriginAndHost(t *testing.T) {
	f := newFixture(t)
	ts := serveHTTP(t, f, &mcpserver.Options{AllowAnonymous: true, TrustedOrigins: []string{"https://app.example.com"}})
	host := strings.TrimPrefix(ts.URL, "http://")
	for _, tc := range []struct {
		name   string
		header map[string]string
		status int
	}{
		{"rebound host", map[string]string{"Host": "evil.example.com", "Origin": "http://evil.example.com"}, 403},
		{"rebound host without origin", map[string]string{"Host": "evil.example.com:80"}, 403},
		{"foreign origin", map[string]string{"Origin": "http://evil.example.com"}, 403},
		{"same origin", map[string]string{"Origin": "http://" + host}, 200},
		{"localhost", map[string]string{"Host": "localhost:" + strings.Split(host, ":")[1], "Origin": "http://localhost:" + strings.Split(host, ":")[1]}, 200},
		{"trusted origin", map[string]string{"Origin": "https://app.example.com"}, 200},
		{"no origin", map[string]string{}, 200},
		{"cross-site fetch", map[string]string{"Sec-Fetch-Site": "cross-site"}, 403},
		{"cross-site fetch from a trusted origin", map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "https://app.example.com"}, 200},
		{"same-origin fetch", map[string]string{"Sec-Fetch-Site": "same-origin", "Origin": "http://evil.example.com"}, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if resp := post(t, ts.URL, initialize, tc.header); resp.StatusCode != tc.status {
				t.Errorf("status %d, want %d", resp.StatusCode, tc.status)
			}
		})
	}
	// GET, HEAD and OPTIONS requests are not checked for their origin: a
	// foreign GET gets as far as the MCP handler, which wants a session.
	for _, method := range []string{http.MethodGet, http.MethodHead, http.MethodOptions} {
		req, err := http.NewRequest(method, ts.URL, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Origin", "http://evil.example.com")
		req.Header.Set("Sec-Fetch-Site", "cross-site")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == 403 || resp.StatusCode == 200 {
			t.Errorf("%s from a foreign origin: status %d (%s), want the MCP handler's refusal", method, resp.StatusCode, strings.TrimSpace(string(body)))
		}
	}
	off := serveHTTP(t, f, &mcpserver.Options{AllowAnonymous: true, DisableLocalhostProtection: true})
	if resp := post(t, off.URL, initialize, map[string]string{"Host": "evil.example.com"}); resp.StatusCode != 200 {
		t.Errorf("with the protection off, a foreign Host got status %d", resp.StatusCode)
	}
}

// alternate is an http.RoundTripper that sends each request to the next of
// its hosts in turn, as a load balancer would.
type alternate struct {
	hosts []string
	n     atomic.Int64
}

func (a *alternate) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.URL.Host = a.hosts[int(a.n.Add(1))%len(a.hosts)]
	r.Host = r.URL.Host
	return http.DefaultTransport.RoundTrip(r)
}

// TestHTTPStateless runs two stateless servers, each over its own registry
// as two processes would be, behind a balancer that alternates requests
// between them. They share the key of their request states.
func TestHTTPStateless(t *testing.T) {
	var hits [2]atomic.Int64
	var hosts []string
	key := []byte("the key that both servers share.")
	for i := range 2 {
		f := newFixture(t)
		addAskModel(t, f)
		h := mcpserver.New(f.reg, &mcpserver.Options{Stateless: true, StateKey: key, Authenticate: mcpserver.Bearer(lookupToken)}).Handler()
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hits[i].Add(1)
			h.ServeHTTP(w, r)
		}))
		t.Cleanup(ts.Close)
		hosts = append(hosts, strings.TrimPrefix(ts.URL, "http://"))
	}
	balancer := &http.Client{Transport: withToken{"editor-token", &alternate{hosts: hosts}}}

	for _, version := range []string{legacy, latest} {
		t.Run(version, func(t *testing.T) {
			c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
				CreateMessageHandler: func(_ context.Context, r *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
					return &mcp.CreateMessageResult{Role: "assistant", Model: "m", Content: &mcp.TextContent{Text: "42"}}, nil
				},
				ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
				},
			})
			cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{
				Endpoint: "http://balancer/mcp", HTTPClient: balancer, MaxRetries: -1, DisableStandaloneSSE: true,
			}, &mcp.ClientSessionOptions{ProtocolVersion: version})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			if got := cs.InitializeResult().ProtocolVersion; got != version {
				t.Fatalf("negotiated %s, want %s", got, version)
			}
			if names := toolNames(t, cs); !slices.Contains(names, "album__search") || slices.Contains(names, "site__publish") {
				t.Errorf("tools/list = %v", names)
			}
			for i := range 10 {
				res := callTool(t, cs, "album.search", map[string]any{"word": titles[i%len(titles)]})
				want := fmt.Sprintf(`{"result":[{"position":%d,"title":%q}]}`, i%len(titles)+1, titles[i%len(titles)])
				if res.IsError || string(mustJSON(t, res.StructuredContent)) != want {
					t.Errorf("call %d: %s", i, mustJSON(t, res))
				}
			}
			// Without sessions, a server can ask the client only through multi
			// round-trip requests, which carry the answers from one server to
			// the other.
			// Sampling reaches only a tool that declares it needs it.
			res := callTool(t, cs, "test.ask", map[string]any{"prompt": "?"})
			want := `{"action":"accept","answer":"","name":"Ada"}`
			if version == legacy {
				want = `{"answer":""}`
			}
			if got := string(mustJSON(t, res.StructuredContent)); got != want {
				t.Errorf("test.ask: %s, want %s", mustJSON(t, res), want)
			}
			if version == latest {
				res = callTool(t, cs, "test.askmodel", map[string]any{"prompt": "?"})
				if got := string(mustJSON(t, res.StructuredContent)); got != `{"answer":"42"}` {
					t.Errorf("test.askmodel: %s", mustJSON(t, res))
				}
			}
		})
	}
	if hits[0].Load() < 10 || hits[1].Load() < 10 {
		t.Errorf("requests per server: %d and %d, want both used", hits[0].Load(), hits[1].Load())
	}
}

// TestHTTPCookieAuthentication checks an Authenticate that reads something
// other than a bearer token: the account still reaches the tools, and the
// session stays with it.
func TestHTTPCookieAuthentication(t *testing.T) {
	f := newFixture(t)
	ts := serveHTTP(t, f, &mcpserver.Options{Authenticate: func(r *http.Request) (tool.Account, error) {
		c, err := r.Cookie("session")
		if err != nil {
			return nil, nil
		}
		if acct := tokens[c.Value]; acct != nil {
			return acct, nil
		}
		return nil, mcpserver.ErrInvalidToken
	}})
	resp := post(t, ts.URL, initialize, map[string]string{"Cookie": "session=admin-token"})
	session := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || session == "" {
		t.Fatalf("initialize: status %d, session %q", resp.StatusCode, session)
	}
	h := map[string]string{"Mcp-Session-Id": session, "Mcp-Protocol-Version": "2025-11-25"}
	const list = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	h["Cookie"] = "session=editor-token"
	if resp := post(t, ts.URL, list, h); resp.StatusCode != 403 {
		t.Errorf("another account's cookie in the session: status %d, want 403", resp.StatusCode)
	}
	h["Cookie"] = "session=stolen"
	if resp := post(t, ts.URL, list, h); resp.StatusCode != 401 {
		t.Errorf("an unknown cookie: status %d, want 401", resp.StatusCode)
	}

	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	jar := &http.Client{Transport: withCookie{"session=admin-token"}}
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL, HTTPClient: jar, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if names := toolNames(t, cs); !slices.Contains(names, "site__publish") {
		t.Errorf("the admin's tools/list = %v", names)
	}
}

type withCookie struct{ cookie string }

func (w withCookie) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Cookie", w.cookie)
	return http.DefaultTransport.RoundTrip(r)
}

// A session's requests are served at the protocol version it negotiated
// when their Mcp-Protocol-Version header names an older one or none: a
// session of 2025-11-25 gets its streams opened with a priming event (an
// event ID and no data) whatever the header says; one of 2025-06-18 never
// does, since the header is never raised past what the session negotiated.
func TestHTTPNegotiatedVersion(t *testing.T) {
	f := newFixture(t)
	ts := serveHTTP(t, f, &mcpserver.Options{AllowAnonymous: true, EventStore: mcp.NewMemoryEventStore(nil)})
	for _, tc := range []struct {
		negotiated, header string
		primed             bool
	}{
		{"2025-11-25", "2025-11-25", true},
		{"2025-11-25", "2025-03-26", true},
		{"2025-11-25", "", true},
		{"2025-06-18", "2025-06-18", false},
		{"2025-06-18", "2025-03-26", false},
	} {
		resp := post(t, ts.URL, strings.Replace(initialize, "2025-11-25", tc.negotiated, 1), nil)
		id := resp.Header.Get("Mcp-Session-Id")
		if resp.StatusCode != 200 || id == "" {
			t.Fatalf("initialize at %s: status %d, session %q", tc.negotiated, resp.StatusCode, id)
		}
		h := map[string]string{"Mcp-Session-Id": id}
		if tc.header != "" {
			h["Mcp-Protocol-Version"] = tc.header
		}
		post(t, ts.URL, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, h)
		resp, body := postBody(t, ts.URL, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, h)
		if resp.StatusCode != 200 || !strings.Contains(body, `"tools"`) {
			t.Fatalf("session of %s, header %q: status %d, body %s", tc.negotiated, tc.header, resp.StatusCode, body)
		}
		if primed := strings.HasPrefix(body, "event: prime\nid: "); primed != tc.primed {
			t.Errorf("session of %s, header %q: primed %v, want %v; body:\n%s", tc.negotiated, tc.header, primed, tc.primed, body)
		}
	}
}
