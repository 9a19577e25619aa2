package mcpserver_test

import (
	"context"
	"io"
	"log/slog"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolapi/toolapi/mcpserver"
	"github.com/toolapi/toolapi/tool"
)

var modelName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// awkwardIDs are tool IDs that model APIs refuse as names.
var awkwardIDs = []string{
	"kitchen.clash",
	"kitchen__clash",
	"Site-Info.v2",
	"kitchen.a_tool_whose_id_is_far_longer_than_any_model_api_accepts_as_a_function_name",
}

func awkwardRegistry(t *testing.T) *tool.Registry {
	t.Helper()
	reg := tool.NewRegistry(&tool.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	anyone := func(context.Context, *tool.Values) (bool, error) { return true, nil }
	for _, id := range awkwardIDs {
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

// By default tools are listed under names every model API accepts, the
// registry's own; with RawIDs under their IDs. Either way tools/call takes
// both.
func TestNames(t *testing.T) {
	for _, raw := range []bool{false, true} {
		reg := awkwardRegistry(t)
		srv := mcpserver.New(reg, &mcpserver.Options{RawIDs: raw})
		cs := connect(t, srv, tool.Anonymous, nil)
		var want []string
		for _, id := range awkwardIDs {
			if raw {
				want = append(want, id)
			} else {
				want = append(want, reg.Name(id))
			}
		}
		got := toolNames(t, cs)
		if diff := cmp.Diff(slices.Sorted(slices.Values(want)), got); diff != "" {
			t.Errorf("RawIDs %v: tools/list (-want +got):\n%s", raw, diff)
		}
		for _, id := range awkwardIDs {
			if !raw && !modelName.MatchString(reg.Name(id)) {
				t.Errorf("%q is listed as %q, which does not match %s", id, reg.Name(id), modelName)
			}
			for _, name := range []string{id, reg.Name(id)} {
				res := callTool(t, cs, name, map[string]any{})
				if res.IsError || string(mustJSON(t, res.StructuredContent)) != string(mustJSON(t, map[string]any{"result": id})) {
					t.Errorf("RawIDs %v: calling %q ran %s, want %q", raw, name, mustJSON(t, res), id)
				}
			}
		}
		if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "kitchen__none"}); err == nil || !strings.Contains(err.Error(), `unknown tool "kitchen__none"`) {
			t.Errorf("unknown tool: %v, want an unknown tool protocol error", err)
		}
	}
}

// A tool added while a client is connected is listed under a name that
// renames no other tool, even when its ID is the name an existing tool was
// given: "Site-Info__v2" comes after "Site-Info.v2", listed as "Site-Info__v2".
func TestNamesStableWhenAdded(t *testing.T) {
	reg := awkwardRegistry(t)
	srv := mcpserver.New(reg, nil)
	cs := connect(t, srv, tool.Anonymous, nil)
	before := toolNames(t, cs)
	if !slices.Contains(before, "Site-Info__v2") {
		t.Fatalf("before Add, tools/list = %v, want %q listed for %q", before, "Site-Info__v2", "Site-Info.v2")
	}
	err := reg.Add(&tool.Tool{
		ID: "Site-Info__v2", Label: "Late", Description: "Comes late.", Operation: tool.OpRead,
		Access:  func(context.Context, *tool.Values) (bool, error) { return true, nil },
		Outputs: []*tool.Definition{{Name: "result", Type: "string", Required: true}},
		Handler: func(context.Context, *tool.Values) (*tool.Result, error) {
			return tool.Succeeded("", map[string]any{"result": "Site-Info__v2"}), nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	after := toolNames(t, cs)
	late := reg.Name("Site-Info__v2")
	if late == "Site-Info__v2" || !modelName.MatchString(late) || slices.Contains(before, late) {
		t.Errorf("the late tool is named %q, want a new model name other than %q", late, "Site-Info__v2")
	}
	if diff := cmp.Diff(slices.Sorted(slices.Values(append(slices.Clone(before), late))), after); diff != "" {
		t.Errorf("after Add, tools/list (-want +got):\n%s", diff)
	}
	// The name still calls the tool that had it (a name wins over an ID),
	// and the late tool answers to its own name.
	for name, want := range map[string]string{"Site-Info__v2": "Site-Info.v2", late: "Site-Info__v2"} {
		res := callTool(t, cs, name, map[string]any{})
		if got := string(mustJSON(t, res.StructuredContent)); res.IsError || got != string(mustJSON(t, map[string]any{"result": want})) {
			t.Errorf("calling %q ran %s, want %q", name, mustJSON(t, res), want)
		}
	}
}
