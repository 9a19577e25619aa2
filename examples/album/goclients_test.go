package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	mcpgoclient "github.com/mark3labs/mcp-go/client"
	mcpgotransport "github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolapi/toolapi/internal/testenv"
	"github.com/toolapi/toolapi/tool"
)

// The tests of this file connect the MCP clients of two Go libraries to
// the album's /mcp, as `album serve` mounts it: the official go-sdk's and
// mark3labs/mcp-go's. Each client connects at the protocol version it
// prefers (2026-07-28, without a session) and at older ones (with the
// initialize handshake), to a default serve and to `serve --stateless`,
// and goes through the same steps: it discovers or initializes, lists its
// tools, reads, writes, is refused, and a wrong token cannot connect. A
// recorder between client and server checks what crossed the wire: the
// protocol version header of each request, the JSON-RPC methods, and
// whether a session was handed out.

// goClient is one library's connection to /mcp, reduced to what the
// tests compare.
type goClient interface {
	// Version is the protocol version the connection settled on.
	Version() string
	// Tools returns the names of the listed tools, sorted.
	Tools(ctx context.Context) ([]string, error)
	// Call calls a tool. A JSON-RPC error comes back as an error whose
	// code rpcCode tells.
	Call(ctx context.Context, name string, args map[string]any) (*goCallResult, error)
	Close() error
}

// goCallResult is a tool result as either library reads it.
type goCallResult struct {
	IsError    bool
	Text       string // the text blocks, joined
	Structured map[string]any
}

// goClientConnect connects a library's client to endpoint, as the bearer
// of token unless it is empty, asking for protocol version version (the
// library's default when empty), with hc as its HTTP client.
type goClientConnect func(ctx context.Context, endpoint, token, version string, hc *http.Client) (goClient, error)

// wireRecorder is an http.RoundTripper that records each exchange between
// a client and the server.
type wireRecorder struct {
	mu        sync.Mutex
	exchanges []wireExchange
}

type wireExchange struct {
	HTTPMethod     string // POST, GET, DELETE
	RPCMethod      string // the JSON-RPC method of a POST, if it names one
	Version        string // the Mcp-Protocol-Version header sent
	SentSession    string // the Mcp-Session-Id header sent
	Status         int
	GrantedSession string // the Mcp-Session-Id header received
}

func (w *wireRecorder) RoundTrip(r *http.Request) (*http.Response, error) {
	ex := wireExchange{
		HTTPMethod:  r.Method,
		Version:     r.Header.Get("Mcp-Protocol-Version"),
		SentSession: r.Header.Get("Mcp-Session-Id"),
	}
	if r.Body != nil && r.Method == http.MethodPost {
		body, err := io.ReadAll(r.Body)
		r.Body.Close()
		if err != nil {
			return nil, err
		}
		var msg struct {
			Method string `json:"method"`
		}
		_ = json.Unmarshal(body, &msg) // a batch or a response names no method
		ex.RPCMethod = msg.Method
		r = r.Clone(r.Context())
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	res, err := http.DefaultTransport.RoundTrip(r)
	if err == nil {
		ex.Status = res.StatusCode
		ex.GrantedSession = res.Header.Get("Mcp-Session-Id")
	}
	w.mu.Lock()
	w.exchanges = append(w.exchanges, ex)
	w.mu.Unlock()
	return res, err
}

func (w *wireRecorder) all() []wireExchange {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.exchanges)
}

// rpcMethods returns the JSON-RPC methods the client posted, in order.
func (w *wireRecorder) rpcMethods() []string {
	var methods []string
	for _, ex := range w.all() {
		if ex.RPCMethod != "" {
			methods = append(methods, ex.RPCMethod)
		}
	}
	return methods
}

// rpcCode returns the code of the JSON-RPC error err carries, of either
// library, or 0.
func rpcCode(err error) int {
	var sdk *jsonrpc.Error
	if errors.As(err, &sdk) {
		return int(sdk.Code)
	}
	// mcp-go turns a JSON-RPC error into a sentinel of its code.
	for code, sentinel := range map[int]error{
		-32602: mcpgo.ErrInvalidParams,
		-32601: mcpgo.ErrMethodNotFound,
		-32600: mcpgo.ErrInvalidRequest,
		-32603: mcpgo.ErrInternalError,
	} {
		if errors.Is(err, sentinel) {
			return code
		}
	}
	return 0
}

// sdkClient is a go-sdk client session.
type sdkClient struct{ cs *mcp.ClientSession }

func connectSDK(ctx context.Context, endpoint, token, version string, hc *http.Client) (goClient, error) {
	c := mcp.NewClient(&mcp.Implementation{Name: "album-go-sdk", Version: "1"}, nil)
	hdr := http.Header{}
	if token != "" {
		hdr.Set("Authorization", "Bearer "+token)
	}
	hc.Transport = headerAdder{hdr, hc.Transport}
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc, MaxRetries: -1},
		&mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		return nil, err
	}
	return &sdkClient{cs}, nil
}

func (c *sdkClient) Version() string { return c.cs.InitializeResult().ProtocolVersion }

func (c *sdkClient) Tools(ctx context.Context) ([]string, error) {
	var names []string
	for tl, err := range c.cs.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	return names, nil
}

func (c *sdkClient) Call(ctx context.Context, name string, args map[string]any) (*goCallResult, error) {
	res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return nil, err
	}
	out := &goCallResult{IsError: res.IsError, Text: contentText(res)}
	return out, structuredMap(res.StructuredContent, &out.Structured)
}

func (c *sdkClient) Close() error { return c.cs.Close() }

// mcpgoClient is a mark3labs/mcp-go client.
type mcpgoClient struct{ c *mcpgoclient.Client }

func connectMCPGo(ctx context.Context, endpoint, token, version string, hc *http.Client) (goClient, error) {
	opts := []mcpgotransport.StreamableHTTPCOption{mcpgotransport.WithHTTPBasicClient(hc)}
	if token != "" {
		opts = append(opts, mcpgotransport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	}
	tr, err := mcpgotransport.NewStreamableHTTP(endpoint, opts...)
	if err != nil {
		return nil, err
	}
	var copts []mcpgoclient.ClientOption
	if version != "" {
		copts = append(copts, mcpgoclient.WithProtocolVersion(version))
	}
	c := mcpgoclient.NewClient(tr, copts...)
	if err := c.Start(ctx); err != nil {
		return nil, err
	}
	req := mcpgo.InitializeRequest{}
	req.Params.ClientInfo = mcpgo.Implementation{Name: "album-mcp-go", Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		c.Close()
		return nil, err
	}
	return &mcpgoClient{c}, nil
}

func (c *mcpgoClient) Version() string { return c.c.ProtocolVersion() }

func (c *mcpgoClient) Tools(ctx context.Context) ([]string, error) {
	res, err := c.c.ListTools(ctx, mcpgo.ListToolsRequest{})
	if err != nil {
		return nil, err
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	return names, nil
}

func (c *mcpgoClient) Call(ctx context.Context, name string, args map[string]any) (*goCallResult, error) {
	req := mcpgo.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.c.CallTool(ctx, req)
	if err != nil {
		return nil, err
	}
	out := &goCallResult{IsError: res.IsError}
	var texts []string
	for _, block := range res.Content {
		if tc, ok := mcpgo.AsTextContent(block); ok {
			texts = append(texts, tc.Text)
		}
	}
	out.Text = strings.Join(texts, "\n")
	return out, structuredMap(res.StructuredContent, &out.Structured)
}

func (c *mcpgoClient) Close() error { return c.c.Close() }

// headerAdder adds its header to each request before next sends it.
type headerAdder struct {
	header http.Header
	next   http.RoundTripper
}

func (h headerAdder) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h.header {
		r.Header[k] = v
	}
	return h.next.RoundTrip(r)
}

// structuredMap decodes structured content, of whatever Go type a library
// gives it, into *out; none leaves *out nil.
func structuredMap(v any, out *map[string]any) error {
	if v == nil {
		return nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, out)
}

// TestGoClients runs each Go client library at its default protocol
// version against a default serve: the clients of mcp-go v1.2.1 failed
// there once (400, -32022), as /mcp served only sessions.
// TestGoClientsEveryVersion runs the rest.
func TestGoClients(t *testing.T) {
	testenv.NeedFull(t)
	t.Run("go-sdk", func(t *testing.T) { testGoClient(t, connectSDK, "", false) })
	t.Run("mcp-go", func(t *testing.T) { testGoClient(t, connectMCPGo, "", false) })
}

// TestGoClientsEveryVersion runs each Go client library at each protocol
// version against a default serve and against serve --stateless: twelve
// servers, so it is one of the slow tests.
func TestGoClientsEveryVersion(t *testing.T) {
	testenv.NeedFull(t)
	libraries := []struct {
		name     string
		connect  goClientConnect
		versions []string // "" is the library's default
	}{
		{"go-sdk", connectSDK, []string{"", "2026-07-28", "2025-11-25"}},
		{"mcp-go", connectMCPGo, []string{"", "2025-11-25", "2025-06-18"}},
	}
	for _, stateless := range []bool{false, true} {
		serveName := "serve"
		if stateless {
			serveName = "serve--stateless"
		}
		t.Run(serveName, func(t *testing.T) {
			for _, lib := range libraries {
				for _, version := range lib.versions {
					name := version
					if name == "" {
						name = "default"
					}
					t.Run(lib.name+"/"+name, func(t *testing.T) {
						testGoClient(t, lib.connect, version, stateless)
					})
				}
			}
		})
	}
}

// testGoClient connects with connect at version to a fresh album served
// with sessions or, when stateless, without, and checks that every
// generation of client is served the same.
func testGoClient(t *testing.T, connect goClientConnect, version string, stateless bool) {
	s := newSQLiteStore(t)
	app, logs := newTestApp(t, s)
	app.Stateless = stateless
	editorToken, err := s.IssueToken(context.Background(), "editor")
	if err != nil {
		t.Fatal(err)
	}
	endpoint := serveApp(t, app) + "/mcp"
	ctx := t.Context()

	// The version a client of each kind must settle on: the newest unless
	// it asks for an older one.
	want := version
	if want == "" {
		want = "2026-07-28"
	}
	modern := want >= "2026-07-28"

	editorWire := &wireRecorder{}
	editor, err := connect(ctx, endpoint, editorToken, version, &http.Client{Transport: editorWire})
	if err != nil {
		t.Fatalf("editor: connecting: %v\nwire: %+v\nserver log:\n%s", err, editorWire.all(), logs)
	}
	defer editor.Close()
	if got := editor.Version(); got != want {
		t.Errorf("protocol version %q, want %q", got, want)
	}

	names, err := editor.Tools(ctx)
	if err != nil {
		t.Fatalf("editor: listing tools: %v", err)
	}
	var wantNames []string
	for _, id := range []string{"album.add_track", "album.archive", "album.delete", "album.list", "album.protect", "album.publish", "album.search", "album.summarize", "album.takedown", "site.info", "translation.export"} {
		wantNames = append(wantNames, tool.NameOf(id))
	}
	slices.Sort(wantNames)
	if !slices.Equal(names, wantNames) {
		t.Errorf("editor's tools = %v, want %v", names, wantNames)
	}

	// A read, a write, and the read again sees the write.
	summarize := func() float64 {
		t.Helper()
		res, err := editor.Call(ctx, tool.NameOf("album.summarize"), map[string]any{"album": "1"})
		if err != nil || res.IsError {
			t.Fatalf("album.summarize: %+v, %v", res, err)
		}
		n, ok := res.Structured["track_count"].(float64)
		if !ok || res.Structured["title"] != "Blue Hours" {
			t.Fatalf("album.summarize: structured content %v, want Blue Hours' track count", res.Structured)
		}
		return n
	}
	before := summarize()
	title := "Go client at " + want
	res, err := editor.Call(ctx, tool.NameOf("album.add_track"), map[string]any{"album": "1", "title": title, "length": "PT3M"})
	if err != nil || res.IsError {
		t.Fatalf("album.add_track: %+v, %v", res, err)
	}
	if after := summarize(); after != before+1 {
		t.Errorf("track count %v after adding a track, want %v", after, before+1)
	}
	tracks, err := s.Tracks(context.Background(), mustAlbum(t, s, "Blue Hours"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(tracks, func(tr *Track) bool { return tr.Title == title }) {
		t.Errorf("the track %q did not reach the database", title)
	}

	// A refusal: the editor may not publish the admin's draft.
	res, err = editor.Call(ctx, tool.NameOf("album.publish"), map[string]any{"album": "4"})
	if err != nil || !res.IsError {
		t.Errorf("album.publish of another account's album: %+v, %v; want a tool error", res, err)
	}
	if mustAlbum(t, s, "Winter Sketches").Published {
		t.Error("a refused publish published Winter Sketches")
	}

	// Anonymous: only the read tools, and a write tool is not there.
	anonWire := &wireRecorder{}
	anon, err := connect(ctx, endpoint, "", version, &http.Client{Transport: anonWire})
	if err != nil {
		t.Fatalf("anonymous: connecting: %v", err)
	}
	defer anon.Close()
	names, err = anon.Tools(ctx)
	if err != nil {
		t.Fatalf("anonymous: listing tools: %v", err)
	}
	wantNames = nil
	for _, id := range []string{"album.list", "album.search", "album.summarize", "site.info"} {
		wantNames = append(wantNames, tool.NameOf(id))
	}
	slices.Sort(wantNames)
	if !slices.Equal(names, wantNames) {
		t.Errorf("anonymous tools = %v, want %v", names, wantNames)
	}
	res, err = anon.Call(ctx, tool.NameOf("album.add_track"), map[string]any{"album": "1", "title": "Anonymous"})
	if code := rpcCode(err); code != -32602 {
		t.Errorf("anonymous album.add_track: %+v, %v (code %d); want the JSON-RPC error -32602 of an unknown tool", res, err, code)
	}

	// A wrong token cannot connect: the server answers 401.
	wrongWire := &wireRecorder{}
	if c, err := connect(ctx, endpoint, "alb_not-a-token", version, &http.Client{Transport: wrongWire}); err == nil {
		c.Close()
		t.Error("a wrong token connected")
	}
	if ex := wrongWire.all(); len(ex) == 0 || ex[0].Status != http.StatusUnauthorized {
		t.Errorf("a wrong token: exchanges %+v, want 401 first", ex)
	}

	// What crossed the wire.
	for who, w := range map[string]*wireRecorder{"editor": editorWire, "anonymous": anonWire} {
		methods := w.rpcMethods()
		granted := false
		for _, ex := range w.all() {
			switch {
			case who == "anonymous" && ex.RPCMethod == "tools/call" && modern:
				// From 2026-07-28 on, an invalid-params error (the
				// unknown tool) travels with HTTP 400.
				if ex.Status != http.StatusBadRequest {
					t.Errorf("anonymous: the call of a tool not there answered %d, want 400", ex.Status)
				}
			case ex.HTTPMethod == http.MethodGet && ex.Status == http.StatusMethodNotAllowed:
				// A stateless serve offers no stream to GET.
			case ex.Status >= 400:
				t.Errorf("%s: %s %s answered %d", who, ex.HTTPMethod, ex.RPCMethod, ex.Status)
			}
			if ex.GrantedSession != "" {
				granted = true
			}
			if modern && ex.Version != want {
				t.Errorf("%s: %s sent Mcp-Protocol-Version %q, want %q", who, ex.RPCMethod, ex.Version, want)
			}
		}
		if modern {
			if !slices.Contains(methods, "server/discover") || slices.Contains(methods, "initialize") {
				t.Errorf("%s: methods sent %v, want server/discover and no initialize", who, methods)
			}
			if granted {
				t.Errorf("%s: a session was handed out at %s", who, want)
			}
			continue
		}
		if !slices.Contains(methods, "initialize") {
			t.Errorf("%s: methods sent %v, want initialize", who, methods)
		}
		if granted == stateless {
			t.Errorf("%s: a session handed out: %v, want %v (stateless serve: %v)", who, granted, !stateless, stateless)
		}
	}
}
