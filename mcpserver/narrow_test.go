package mcpserver_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolapi/toolapi/explorer"
	"github.com/toolapi/toolapi/mcpserver"
	"github.com/toolapi/toolapi/tool"
	"github.com/toolapi/toolapi/toolsearch"
)

// narrowedAccount is an account that a token's scopes narrowed.
type narrowedAccount struct {
	tool.User
	n *tool.Narrowing
}

func (a *narrowedAccount) Narrowing() *tool.Narrowing { return a.n }

// narrowServer serves over HTTP a registry of a viewer read tool, an
// editor write tool and tools.search (in the viewer toolset); ran records
// the tools that ran.
func narrowServer(t *testing.T) (url string, ran func() []string) {
	t.Helper()
	srv, ran := narrowMCP(t)
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	return ts.URL, ran
}

// narrowMCP is the MCP server of narrowServer.
func narrowMCP(t *testing.T) (*mcpserver.Server, func() []string) {
	t.Helper()
	var mu sync.Mutex
	var runs []string
	h := func(id string) tool.Handler {
		return func(context.Context, *tool.Values) (*tool.Result, error) {
			mu.Lock()
			runs = append(runs, id)
			mu.Unlock()
			return tool.Succeeded("done", nil), nil
		}
	}
	reg := tool.NewRegistry(&tool.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	ix := toolsearch.New(reg, &toolsearch.Options{Groups: []string{"viewer"}})
	err := reg.Add(
		&tool.Tool{ID: "photo.view", Label: "View", Description: "Shows a photo.", Operation: tool.OpRead, Access: anyone,
			Groups: []string{"viewer"}, Handler: h("photo.view"),
			Inputs: []*tool.Definition{{Name: "kind", Type: "string", Constraints: tool.Constraints{Choice: []any{"print", "poster"}}}}},
		&tool.Tool{ID: "photo.edit", Label: "Edit", Description: "Edits a photo.", Operation: tool.OpWrite, Access: anyone,
			Groups: []string{"editor"}, Handler: h("photo.edit"),
			Inputs: []*tool.Definition{{Name: "kind", Type: "string", Constraints: tool.Constraints{Choice: []any{"print", "poster"}}}}},
		ix.Tool(),
	)
	if err != nil {
		t.Fatal(err)
	}
	scoped := &narrowedAccount{User: tool.User{ID: "scoped"}, n: mcpserver.ScopeNarrowing([]string{"openid", "tools:read"})}
	srv := mcpserver.New(reg, &mcpserver.Options{Name: "photos", Apps: explorer.NewApps(reg, nil), Authenticate: mcpserver.Bearer(func(_ context.Context, token string) (tool.Account, error) {
		switch token {
		case "plain":
			return &tool.User{ID: "plain"}, nil
		case "scoped":
			return scoped, nil
		}
		return nil, nil
	})})
	return srv, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), runs...)
	}
}

func TestHTTPNarrowedConnection(t *testing.T) {
	base, ran := narrowServer(t)
	for _, c := range []struct {
		name, query, token string
		list               []string
		out                string // a tool outside the narrowing
	}{
		{"groups", "?groups=viewer", "plain", []string{"photo__view", "tools__search"}, "photo__edit"},
		{"readonly", "?readonly=1", "plain", []string{"photo__view", "tools__search"}, "photo__edit"},
		{"editor and read-only", "?groups=editor&readonly=true", "plain", nil, "photo__edit"},
		{"token scope tools:read", "", "scoped", []string{"photo__view", "tools__search"}, "photo__edit"},
		{"token scope, query cannot widen", "?groups=editor", "scoped", nil, "photo__edit"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cs, err := connectHTTP(t, base+"/mcp"+c.query, c.token, nil, latest)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.list, toolNames(t, cs)); diff != "" {
				t.Errorf("tools/list (-want +got):\n%s", diff)
			}
			_, errOut := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c.out, Arguments: map[string]any{}})
			_, errNone := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "photo__nothing", Arguments: map[string]any{}})
			var jOut, jNone *jsonrpc.Error
			if !errors.As(errOut, &jOut) || !errors.As(errNone, &jNone) {
				t.Fatalf("calls outside the narrowing: %v and %v, want protocol errors", errOut, errNone)
			}
			if jOut.Code != jNone.Code || strings.Replace(jOut.Message, c.out, "X", 1) != strings.Replace(jNone.Message, "photo__nothing", "X", 1) {
				t.Errorf("outside the narrowing: %d %q; unknown: %d %q; want the same answer", jOut.Code, jOut.Message, jNone.Code, jNone.Message)
			}
			_, err = cs.Complete(context.Background(), &mcp.CompleteParams{
				Ref:      &mcp.CompleteReference{Type: "ref/resource", URI: mcpserver.ToolURIScheme + c.out},
				Argument: mcp.CompleteParamsArgument{Name: "kind", Value: "p"},
			})
			if !errors.As(err, &jOut) || !strings.Contains(jOut.Message, "unknown tool") {
				t.Errorf("completing %s outside the narrowing: %v, want an unknown tool", c.out, err)
			}
			// The app of a tool outside the narrowing is not there either.
			outApp := "ui://photos/" + strings.ReplaceAll(c.out, "__", ".")
			if _, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: outApp}); err == nil {
				t.Errorf("the app %s of a tool outside the narrowing was read", outApp)
			}
			if slices.Contains(resourceURIs(t, cs), outApp) {
				t.Errorf("resources/list offers %s, the app of a tool outside the narrowing", outApp)
			}
			if c.list != nil {
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "tools__search", Arguments: map[string]any{"query": "photo"}})
				if err != nil || res.IsError {
					t.Fatalf("tools.search: %+v, %v", res, err)
				}
				found := mustJSON(t, res.StructuredContent)
				if !strings.Contains(string(found), `"photo.view"`) || strings.Contains(string(found), `"photo.edit"`) {
					t.Errorf("tools.search under the narrowing found %s, want photo.view only", found)
				}
			}
		})
	}
	if got := ran(); len(got) != 0 {
		t.Errorf("tools ran outside the narrowing: %v", got)
	}
	// Without a narrowing the same connection reaches and runs both.
	cs, err := connectHTTP(t, base+"/mcp", "plain", nil, latest)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"photo__edit", "photo__view", "tools__search"}, toolNames(t, cs)); diff != "" {
		t.Errorf("tools/list without a narrowing (-want +got):\n%s", diff)
	}
	if !slices.Contains(resourceURIs(t, cs), "ui://photos/photo.edit") {
		t.Errorf("resources/list without a narrowing lacks the app of photo.edit: %v", resourceURIs(t, cs))
	}
	if res := callTool(t, cs, "photo__edit", map[string]any{}); res.IsError {
		t.Errorf("photo.edit without a narrowing failed: %v", texts(res))
	}
	if diff := cmp.Diff([]string{"photo.edit"}, ran()); diff != "" {
		t.Errorf("ran (-want +got):\n%s", diff)
	}
}

func TestHTTPNarrowUnknownGroup(t *testing.T) {
	base, _ := narrowServer(t)
	for query, want := range map[string]string{
		"?groups=viewer,admins": `query parameter groups: unknown tool group "admins": no tool declares it (the groups are editor, viewer)`,
		"?readonly=maybe":       "query parameter readonly: must be 1, true, 0 or false",
	} {
		req, err := http.NewRequest(http.MethodPost, base+"/mcp"+query, strings.NewReader(initialize))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer plain")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), want) {
			t.Errorf("%s: %d %q, want 400 with %q", query, resp.StatusCode, body, want)
		}
	}
}

// TestConnectNarrowed checks that a connection made with a narrowed context
// (as one over standard input and output is) is narrowed.
func TestConnectNarrowed(t *testing.T) {
	srv, ran := narrowMCP(t)
	ctx := tool.Narrow(context.Background(), tool.Narrowing{ReadOnly: true})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, &tool.User{ID: "plain"})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	if diff := cmp.Diff([]string{"photo__view", "tools__search"}, toolNames(t, cs)); diff != "" {
		t.Errorf("tools/list (-want +got):\n%s", diff)
	}
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "photo__edit", Arguments: map[string]any{}}); err == nil || !strings.Contains(err.Error(), `unknown tool "photo__edit"`) {
		t.Errorf("photo.edit on a read-only connection: %v, want an unknown tool", err)
	}
	if got := ran(); len(got) != 0 {
		t.Errorf("ran %v", got)
	}
}

// TestStepUpNarrowed checks that a call of a tool outside the request's
// narrowing asks for no scope (which would tell that it exists): it is
// answered as a tool that does not exist.
func TestStepUpNarrowed(t *testing.T) {
	f := newFixture(t)
	ts := serveHTTP(t, f, &mcpserver.Options{StepUp: func(acct tool.Account, tl *tool.Tool) string {
		if tl.ID == "site.publish" {
			return "site:admin"
		}
		return ""
	}})
	url := ts.URL + "?readonly=1"
	h := map[string]string{"Authorization": "Bearer editor-token"}
	resp, _ := postBody(t, url, initialize, h)
	h["Mcp-Session-Id"] = resp.Header.Get("Mcp-Session-Id")
	h["Mcp-Protocol-Version"] = "2025-11-25"
	postBody(t, url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, h)
	resp, text := postBody(t, url, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"site__publish","arguments":{}}}`, h)
	if resp.StatusCode != http.StatusOK || !strings.Contains(text, `unknown tool \"site__publish\"`) {
		t.Errorf("site.publish on a read-only request: %d %q %s, want 200 and an unknown tool", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), text)
	}
	// Without the narrowing, the same call asks for the scope.
	if resp, _ := postBody(t, ts.URL, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"site__publish","arguments":{}}}`, h); resp.StatusCode != http.StatusForbidden {
		t.Errorf("site.publish without a narrowing: %d, want 403", resp.StatusCode)
	}
	if f.published != 0 {
		t.Errorf("site.publish ran %d times", f.published)
	}
}
