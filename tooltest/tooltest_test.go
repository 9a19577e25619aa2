package tooltest

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolapi/toolapi/tool"
)

func registry(t *testing.T) *tool.Registry {
	t.Helper()
	reg := tool.NewRegistry(nil)
	err := reg.Add(
		&tool.Tool{
			ID: "notes.add", Label: "Add note", Description: "Adds a note.",
			Operation: tool.OpWrite, Permission: "edit notes",
			Inputs: []*tool.Definition{
				{Name: "title", Type: "string", Required: true, Constraints: tool.Constraints{NotBlank: true}},
				{Name: "limit", Type: "integer", Default: 3, Constraints: tool.Constraints{Range: &tool.Range{Max: tool.Ptr(10.0)}}},
			},
			Outputs: []*tool.Definition{
				{Name: "title", Type: "string", Required: true},
				{Name: "limit", Type: "integer", Required: true},
			},
			Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
				tool.Log(ctx, "info", "adding "+in.String("title"))
				return tool.Succeeded("", map[string]any{"title": in.String("title"), "limit": in.Int("limit")}), nil
			},
		},
		&tool.Tool{
			ID: "notes.purge", Label: "Purge notes", Description: "Removes every note.",
			Operation: tool.OpWrite, Permission: "edit notes", Confirm: true,
			Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
				return tool.Succeeded("Purged.", nil), nil
			},
		},
	)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

var editor = &tool.User{ID: "ada", Permissions: []string{"edit notes"}}

func TestCaller(t *testing.T) {
	reg := registry(t)
	ada := As(t, reg, editor)

	res := ada.Run("notes.add", map[string]any{"title": tool.Text("Groceries"), "limit": tool.Text("7")}).Succeeded()
	if diff := cmp.Diff(map[string]any{"title": "Groceries", "limit": int64(7)}, res.Outputs); diff != "" {
		t.Errorf("outputs (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"info: adding Groceries"}, res.Logs()); diff != "" {
		t.Errorf("logs (-want +got):\n%s", diff)
	}
	var out struct {
		Title string
		Limit int
	}
	ada.RunJSON("notes.add", `{"title":"Books"}`).Succeeded().DecodeOutputs(&out)
	if out.Title != "Books" || out.Limit != 3 {
		t.Errorf("decoded outputs = %+v", out)
	}
	res = ada.RunWith("notes.add", map[string]any{"title": "", "limit": 11}).Violates("title", "limit")
	if diff := cmp.Diff([]string{"title", "limit"}, res.ViolationPaths()); diff != "" {
		t.Errorf("violation paths (-want +got):\n%s", diff)
	}

	As(t, reg, nil).Run("notes.add", map[string]any{"title": "x"}).Failed(tool.FailureAccess)
	ada.Run("notes.purge", nil).Failed(tool.FailureAccess) // nobody confirmed
	ada.Confirm = true
	if res := ada.Run("notes.purge", nil).Succeeded(); res.Message != "Purged." {
		t.Errorf("message = %q", res.Message)
	}
}

// fakeT records the failures of the helpers instead of failing.
type fakeT struct {
	*testing.T
	failures []string
}

func (f *fakeT) Fatalf(format string, args ...any) {
	f.failures = append(f.failures, fmt.Sprintf(format, args...))
	runtime.Goexit()
}

// failure runs f with a fakeT and returns what it failed with.
func failure(t *testing.T, f func(ft *fakeT)) string {
	ft := &fakeT{T: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(ft)
	}()
	<-done
	return strings.Join(ft.failures, "\n")
}

func TestCallerReportsWhatWentWrong(t *testing.T) {
	reg := registry(t)
	tests := []struct {
		name string
		run  func(ft *fakeT)
		want string // "" means no failure
	}{
		{"unknown tool", func(ft *fakeT) { As(ft, reg, editor).Run("notes.nope", nil) }, `running notes.nope: tool not found: "notes.nope"`},
		{"not a success", func(ft *fakeT) { As(ft, reg, nil).Run("notes.add", map[string]any{"title": "x"}).Succeeded() },
			"notes.add: want success, got access failure: "},
		{"another category", func(ft *fakeT) {
			As(ft, reg, editor).Run("notes.add", map[string]any{}).Failed(tool.FailureAccess)
		}, "notes.add: want a failure of category access, got input failure:\n  title: is required (rule: required)"},
		{"missing violation", func(ft *fakeT) {
			As(ft, reg, editor).Run("notes.add", map[string]any{"title": ""}).Violates("limit")
		}, "notes.add: want a violation at \"limit\", got input failure:\n  title: must not be blank (rule: minLength)"},
		{"violation of another rule", func(ft *fakeT) {
			As(ft, reg, editor).Run("notes.add", map[string]any{"title": "", "limit": 11}).ViolatesRule("limit", tool.RuleMinimum)
		}, "notes.add: want a violation of rule minimum at \"limit\", got input failure:\n  title: must not be blank (rule: minLength)\n  limit: must be at most 10 (rule: maximum)"},
		{"violation of the rule", func(ft *fakeT) {
			As(ft, reg, editor).Run("notes.add", map[string]any{"title": "", "limit": 11}).ViolatesRule("limit", tool.RuleMaximum).ViolatesRule("title", tool.RuleMinLength)
		}, ""},
		{"violation present", func(ft *fakeT) {
			As(ft, reg, editor).Run("notes.add", map[string]any{"title": ""}).Violates("title")
		}, ""},
		{"outputs that do not decode", func(ft *fakeT) {
			var n int
			As(ft, reg, editor).Run("notes.add", map[string]any{"title": "x"}).DecodeOutputs(&n)
		}, "notes.add: decoding the outputs into *int: "},
		{"arguments that do not encode", func(ft *fakeT) { As(ft, reg, editor).RunWith("notes.add", func() {}) },
			"encoding the arguments of notes.add: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := failure(t, tt.run)
			if tt.want == "" && got != "" || !strings.HasPrefix(got, tt.want) {
				t.Errorf("failed with %q, want %q", got, tt.want)
			}
		})
	}
}

func TestMCPSession(t *testing.T) {
	reg := registry(t)
	cs := MCPSession(t, reg, editor, nil)
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "notes.add", Arguments: map[string]any{"title": "Groceries"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || res.StructuredContent.(map[string]any)["title"] != "Groceries" {
		t.Errorf("notes.add over MCP = %v, %v", res.IsError, res.StructuredContent)
	}
	// Anonymous sees nothing to call.
	list, err := MCPSession(t, reg, nil, nil).ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) != 0 {
		t.Errorf("anonymous lists %d tools", len(list.Tools))
	}
}
