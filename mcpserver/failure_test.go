package mcpserver_test

import (
	"context"
	"strings"
	"testing"

	"github.com/toolapi/toolapi/mcpserver"
	"github.com/toolapi/toolapi/tool"
)

// TestFailureOutputs: a tool that fails with outputs (tool.Failed) gives
// them to an MCP caller as structured content and as text.
func TestFailureOutputs(t *testing.T) {
	reg := tool.NewRegistry(nil)
	err := reg.Add(&tool.Tool{
		ID: "files.check", Label: "Check", Description: "Checks the files.", Operation: tool.OpRead,
		Access: func(context.Context, *tool.Values) (bool, error) { return true, nil },
		Outputs: []*tool.Definition{
			{Name: "checked", Type: "integer", Required: true},
			{Name: "broken", Type: "list", Items: &tool.Definition{Type: "string"}},
		},
		Handler: func(context.Context, *tool.Values) (*tool.Result, error) {
			return tool.Failed("2 of 5 files are broken.", map[string]any{"checked": 5, "broken": []any{"a.txt", "b.txt"}}), nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, mcpserver.New(reg, nil), tool.Anonymous, nil)
	res := callTool(t, cs, "files__check", map[string]any{})
	if !res.IsError {
		t.Fatalf("not an error: %s", mustJSON(t, res))
	}
	if got, want := string(mustJSON(t, res.StructuredContent)), `{"broken":["a.txt","b.txt"],"checked":5}`; got != want {
		t.Errorf("structuredContent %s, want %s", got, want)
	}
	text := string(mustJSON(t, res.Content))
	for _, want := range []string{"2 of 5 files are broken.", `Outputs: {\"broken\":[\"a.txt\",\"b.txt\"],\"checked\":5}`} {
		if !strings.Contains(text, want) {
			t.Errorf("content %s lacks %s", text, want)
		}
	}
}
