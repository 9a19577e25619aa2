package mcpserver_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolapi/toolapi/mcpserver"
	"github.com/toolapi/toolapi/tool"
)

// awkwardIDs are tool IDs that model APIs refuse as names, and one that is
// its own name.
var awkwardIDs = []string{
	"kitchen.clash",
	"Site-Info.v2",
	"_under.score.twice",
	"plain_name",
}

func awkwardRegistry(t *testing.T, ids ...string) *tool.Registry {
	t.Helper()
	reg := tool.NewRegistry(&tool.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	anyone := func(context.Context, *tool.Values) (bool, error) { return true, nil }
	for _, id := range ids {
		err := reg.Add(&tool.Tool{
			ID: id, Label: "Echo", Description: "Says which tool ran.", Operation: tool.OpRead, Access: anyone,
			Outputs: []*tool.Definition{{Name: "result", Type: "string", Required: true}},
			Handler: func(context.Context, *tool.Values) (*tool.Result, error) {
				return tool.Succeeded("", map[string]any{"result": id}), nil
			},
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return reg
}

// By default tools are listed under their names (tool.NameOf); with
// RawIDs under their IDs. Either way tools/call takes both.
func TestNames(t *testing.T) {
	for _, raw := range []bool{false, true} {
		reg := awkwardRegistry(t, awkwardIDs...)
		srv := mcpserver.New(reg, &mcpserver.Options{RawIDs: raw})
		cs := connect(t, srv, tool.Anonymous, nil)
		var want []string
		for _, id := range awkwardIDs {
			if raw {
				want = append(want, id)
			} else {
				want = append(want, tool.NameOf(id))
			}
		}
		got := toolNames(t, cs)
		if diff := cmp.Diff(slices.Sorted(slices.Values(want)), got); diff != "" {
			t.Errorf("RawIDs %v: tools/list (-want +got):\n%s", raw, diff)
		}
		for _, id := range awkwardIDs {
			for _, name := range []string{id, tool.NameOf(id)} {
				res := callTool(t, cs, name, map[string]any{})
				if res.IsError || string(mustJSON(t, res.StructuredContent)) != string(mustJSON(t, map[string]any{"result": id})) {
					t.Errorf("RawIDs %v: calling %q ran %s, want %q", raw, name, mustJSON(t, res), id)
				}
			}
		}
		for _, name := range []string{"kitchen__none", "kitchen.clash.more", "plain.name"} {
			if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name}); err == nil || !strings.Contains(err.Error(), `unknown tool "`+name+`"`) {
				t.Errorf("calling %q: %v, want an unknown tool protocol error", name, err)
			}
		}
	}
}

// Two servers holding different tools, as two versions of an application
// before and after a restart, list the tools they share under the same
// names, whatever else they hold and in whatever order the tools came.
func TestNamesAcrossServers(t *testing.T) {
	before := awkwardRegistry(t, awkwardIDs...)
	reversed := slices.Clone(awkwardIDs)
	slices.Reverse(reversed)
	after := awkwardRegistry(t, append([]string{"kitchen.clash_v2", "a.new_tool"}, reversed...)...)
	one := toolNames(t, connect(t, mcpserver.New(before, nil), tool.Anonymous, nil))
	two := toolNames(t, connect(t, mcpserver.New(after, nil), tool.Anonymous, nil))
	for _, id := range awkwardIDs {
		n := tool.NameOf(id)
		if !slices.Contains(one, n) || !slices.Contains(two, n) {
			t.Errorf("%q: listed %v before and %v after, want %q in both", id, one, two, n)
		}
	}
	// A tool whose name another tool has is refused, and renames nothing.
	if err := after.Add(awkwardRegistryTool("kitchen__clash")); err == nil {
		t.Fatal("a tool named as kitchen.clash is, was added")
	}
	cs := connect(t, mcpserver.New(after, nil), tool.Anonymous, nil)
	res := callTool(t, cs, "kitchen__clash", map[string]any{})
	if string(mustJSON(t, res.StructuredContent)) != `{"result":"kitchen.clash"}` {
		t.Errorf("kitchen__clash ran %s, want kitchen.clash", mustJSON(t, res))
	}
}

func awkwardRegistryTool(id string) *tool.Tool {
	return &tool.Tool{
		ID: id, Label: "Echo", Description: "Says which tool ran.", Operation: tool.OpRead,
		Access:  func(context.Context, *tool.Values) (bool, error) { return true, nil },
		Handler: func(context.Context, *tool.Values) (*tool.Result, error) { return nil, nil },
	}
}

// A tools/call of a tool the account may not see is answered exactly as
// a tools/call of a tool that does not exist, by its name or its ID, in
// memory and over HTTP; the tool does not run.
func TestCallHiddenToolAsUnknown(t *testing.T) {
	f := newFixture(t)
	without := newFixture(t)
	without.reg.Remove("site.publish")
	for _, name := range []string{"site__publish", "site.publish"} {
		hidden := connect(t, mcpserver.New(f.reg, nil), editor, nil)
		_, got := hidden.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{"note": "x"}})
		absent := connect(t, mcpserver.New(without.reg, nil), editor, nil)
		_, want := absent.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{"note": "x"}})
		if want == nil || got == nil || got.Error() != want.Error() {
			t.Errorf("in memory, %q: %v; want %v, as for a tool that does not exist", name, got, want)
		}

		// Over HTTP, the whole answer is the same, byte for byte.
		bodies := make([]string, 2)
		for i, reg := range []*tool.Registry{f.reg, without.reg} {
			ts := serveHTTP(t, &fixture{reg: reg}, &mcpserver.Options{Stateless: true, JSONResponse: true})
			resp, body := postBody(t, ts.URL, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"`+name+`","arguments":{"note":"x"}}}`,
				map[string]string{"Authorization": "Bearer editor-token", "Mcp-Protocol-Version": "2025-11-25"})
			if resp.StatusCode != http.StatusOK {
				t.Errorf("over HTTP, %q: status %d", name, resp.StatusCode)
			}
			bodies[i] = body
		}
		if bodies[0] != bodies[1] || !strings.Contains(bodies[0], `unknown tool \"`+name+`\"`) {
			t.Errorf("over HTTP, %q answers\n%s\nwant, as for a tool that does not exist,\n%s", name, bodies[0], bodies[1])
		}
	}
	if f.published != 0 {
		t.Errorf("site.publish ran %d times", f.published)
	}
	// The account that may see it runs it.
	cs := connect(t, mcpserver.New(f.reg, nil), admin, &mcp.ClientOptions{})
	res := callTool(t, cs, "site__publish", map[string]any{})
	if !strings.Contains(strings.Join(texts(res), "\n"), "Publish runs only when a person confirms it") {
		t.Errorf("admin calling site__publish: %s, want the confirmation refusal", mustJSON(t, res))
	}
}

// A tools/call over HTTP of a tool the account may not call is answered
// 403 insufficient_scope with the scopes StepUp names, whether it names
// the tool by its name (as tools/list gives it) or by its ID; a tool the
// account may call goes on, by either, and StepUp is not asked.
func TestStepUpByName(t *testing.T) {
	f := newFixture(t)
	var asked []string
	ts := serveHTTP(t, f, &mcpserver.Options{StepUp: func(acct tool.Account, tl *tool.Tool) string {
		asked = append(asked, tl.ID)
		if tl.ID == "site.publish" {
			return "site:admin"
		}
		return ""
	}})
	h := map[string]string{"Authorization": "Bearer editor-token"}
	resp, _ := postBody(t, ts.URL, initialize, h)
	h["Mcp-Session-Id"] = resp.Header.Get("Mcp-Session-Id")
	h["Mcp-Protocol-Version"] = "2025-11-25"
	postBody(t, ts.URL, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, h)
	call := func(body string) (*http.Response, string) {
		return postBody(t, ts.URL, body, h)
	}
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"site__publish","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"site.publish","arguments":{}}}`,
		// The members in another order, the arguments before the name.
		`{"params":{"arguments":{"note":"a \"name\": here"},"name":"site__publish"},"id":3,"method":"tools/call","jsonrpc":"2.0"}`,
	} {
		resp, text := call(body)
		want := `Bearer error="insufficient_scope", error_description="the token does not grant this tool", scope="site:admin"`
		if resp.StatusCode != http.StatusForbidden || resp.Header.Get("WWW-Authenticate") != want {
			t.Errorf("%s: %d %q %s, want 403 %q", body, resp.StatusCode, resp.Header.Get("WWW-Authenticate"), text, want)
		}
	}
	asked = nil
	for _, name := range []string{"album__search", "album.search"} {
		resp, text := call(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"` + name + `","arguments":{"word":"so"}}}`)
		if resp.StatusCode != http.StatusOK || !strings.Contains(text, "So What") {
			t.Errorf("tools/call of %s, within the scopes: %d %s, want 200 and a result", name, resp.StatusCode, text)
		}
	}
	if len(asked) != 0 {
		t.Errorf("StepUp was asked about %v, tools the account may call", asked)
	}

	// Where StepUp names no scope, the call goes on and is answered as a
	// call of a tool that does not exist.
	none := serveHTTP(t, f, &mcpserver.Options{Stateless: true, JSONResponse: true, StepUp: func(tool.Account, *tool.Tool) string { return "" }})
	for _, name := range []string{"site__publish", "site.publish"} {
		resp, text := postBody(t, none.URL, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"`+name+`","arguments":{}}}`,
			map[string]string{"Authorization": "Bearer editor-token", "Mcp-Protocol-Version": "2025-11-25"})
		if resp.StatusCode != http.StatusOK || !strings.Contains(text, `unknown tool \"`+name+`\"`) {
			t.Errorf("tools/call of %s with no scope to step up to: %d %s, want an unknown tool error", name, resp.StatusCode, text)
		}
	}
	if f.published != 0 {
		t.Errorf("site.publish ran %d times", f.published)
	}
}
