package toolsearch_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolapi/toolapi/funcall"
	"github.com/toolapi/toolapi/internal/testenv"
	"github.com/toolapi/toolapi/mcpserver"
	"github.com/toolapi/toolapi/tool"
)

// core is the tool set listed beside the search tool in these tests.
func core(t *tool.Tool) bool { return t.ID == "tools.search" || t.ID == "crm.get_customer" }

// TestMCPListsCoreSet serves the 5,000-tool catalog over MCP listing only
// a core set and the search tool; an agent searches, then calls a tool it
// was not shown by the name the search gave.
func TestMCPListsCoreSet(t *testing.T) {
	testenv.NeedFull(t)
	reg, idx := newCatalog(t)
	if err := reg.Add(idx.Tool()); err != nil {
		t.Fatal(err)
	}
	srv := mcpserver.New(reg, &mcpserver.Options{Listed: core})
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, reader)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	var names []string
	for mt, err := range cs.Tools(ctx, nil) { // every page
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, mt.Name)
	}
	if diff := cmp.Diff([]string{"crm__get_customer", "tools__search"}, names); diff != "" {
		t.Fatalf("tools/list (-want +got):\n%s", diff)
	}

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "tools__search", Arguments: map[string]any{"query": "publish an album", "limit": 1}})
	if err != nil || res.IsError {
		t.Fatalf("search: %v %+v", err, res)
	}
	var found struct {
		Result []struct{ Name, ID string }
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &found); err != nil || len(found.Result) != 1 {
		t.Fatalf("search result %s: %v", b, err)
	}
	if found.Result[0].ID != "music.publish_album" {
		t.Fatalf("search found %s, want music.publish_album", found.Result[0].ID)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: found.Result[0].Name, Arguments: map[string]any{"id": "7"}})
	if err != nil || res.IsError {
		t.Fatalf("calling %s (from %s), which tools/list did not show: %v %+v", found.Result[0].Name, b, err, res)
	}
}

// TestFuncallDeclaresCoreSet declares the core set to a model and
// dispatches a tool that was not declared.
func TestFuncallDeclaresCoreSet(t *testing.T) {
	reg, idx := newCatalog(t)
	if err := reg.Add(idx.Tool()); err != nil {
		t.Fatal(err)
	}
	ts := funcall.New(reg, reader).Declare(core)
	var names []string
	decls, err := ts.Declarations(funcall.OpenAI)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range decls.([]funcall.OpenAITool) {
		names = append(names, d.Function.Name)
	}
	if diff := cmp.Diff([]string{"crm__get_customer", "tools__search"}, names); diff != "" {
		t.Fatalf("declarations (-want +got):\n%s", diff)
	}
	ctx := context.Background()
	if r := ts.Dispatch(ctx, "hr__approve_leave_request", []byte(`{"id":"3"}`)); !r.Success {
		t.Errorf("an undeclared tool: %+v", r)
	}
	if r := ts.Dispatch(ctx, "tools__search", []byte(`{"query":"approve leave"}`)); !r.Success || len(r.Outputs["result"].([]any)) == 0 {
		t.Errorf("search: %+v", r)
	}
}
