package toolcli_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolapi/toolapi/tool"
)

// info and run take a tool's name in MCP and function calling as well as
// its ID; where one tool's ID is another's name, the ID wins.
func TestToolByName(t *testing.T) {
	reg := newRegistry(t)
	reg.Name("demo.echo") // names the tools: demo.echo is demo__echo
	// A tool whose ID is demo.echo's name; it gets a name of its own.
	err := reg.Add(&tool.Tool{
		ID: "demo__echo", Label: "Other echo", Description: "Says other.", Operation: tool.OpRead, Access: anyone,
		Outputs: []*tool.Definition{{Name: "word", Type: "string", Required: true}},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			return tool.Succeeded("", map[string]any{"word": "other"}), nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	other := reg.Name("demo__echo")
	if other == "demo__echo" || other == "" {
		t.Fatalf("the tool demo__echo is named %q", other)
	}

	_, byID, _ := call(t, reg, nil, "info", "demo.sum")
	code, byName, errOut := call(t, reg, nil, "info", "demo__sum")
	if code != 0 {
		t.Fatalf("info demo__sum: exit status %d; stderr:\n%s", code, errOut)
	}
	if diff := cmp.Diff(byID, byName); diff != "" {
		t.Errorf("info by name differs from info by ID (-ID +name):\n%s", diff)
	}
	if !strings.Contains(byName, "Name:         demo__sum (in MCP and function calling)") {
		t.Errorf("info does not show the name:\n%s", byName)
	}

	tests := []struct {
		word string
		want result
	}{
		{word: "demo__sum", want: result{Success: true, Message: "Sum completed.", Outputs: map[string]any{"sum": 3.0}}},
		{word: "demo__echo", want: result{Success: true, Message: "Other echo completed.", Outputs: map[string]any{"word": "other"}}},
		{word: other, want: result{Success: true, Message: "Other echo completed.", Outputs: map[string]any{"word": "other"}}},
	}
	for _, tt := range tests {
		args := []string{tt.word}
		if tt.word == "demo__sum" {
			args = append(args, "--input", "numbers=1", "--input", "numbers=2")
		}
		if diff := cmp.Diff(tt.want, runJSON(t, reg, nil, args...)); diff != "" {
			t.Errorf("run %s (-want +got):\n%s", tt.word, diff)
		}
	}

	code, _, errOut = call(t, reg, nil, "info", "demo__nope")
	if code != 1 || !strings.Contains(errOut, `tool "demo__nope" not found`) {
		t.Errorf("info of an unknown name: exit status %d, stderr %q", code, errOut)
	}
	if got := runJSON(t, reg, nil, "demo__nope"); got.ErrorType != "tool_not_found" || !strings.Contains(got.Message, "demo__nope") {
		t.Errorf("run of an unknown name: %+v", got)
	}
}
