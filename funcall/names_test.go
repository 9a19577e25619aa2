package funcall_test

import (
	"context"
	"io"
	"log/slog"
	"regexp"
	"strings"
	"testing"

	"github.com/toolapi/toolapi/funcall"
	"github.com/toolapi/toolapi/tool"
)

// The function names each API takes: OpenAI's and Anthropic's, and
// Gemini's, which must start with a letter or "_".
var (
	openAIName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	geminiName = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$`)
)

// TestNamesRoundTrip declares tools with IDs at the edges of the rules
// (a leading "_" before a digit, dashes, many dots, the longest name) in
// every format: each name is one every API takes, and a call by that name,
// in the API's own envelope, runs the tool it was declared for. An ID
// starting with a digit, which Gemini would refuse as a name, is refused.
func TestNamesRoundTrip(t *testing.T) {
	reg := tool.NewRegistry(&tool.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	ids := []string{"_9lives.check", "a-b.c-d", "x.y.z.w", "Upper.Case", strings.Repeat("a", 30) + "." + strings.Repeat("b", 32)}
	for _, id := range ids {
		err := reg.Add(&tool.Tool{ID: id, Label: "T", Description: "Says its ID.", Operation: tool.OpRead,
			Access: func(context.Context, *tool.Values) (bool, error) { return true, nil },
			Handler: func(_ context.Context, _ *tool.Values) (*tool.Result, error) {
				return tool.Succeeded("ran "+id, nil), nil
			}})
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
	}
	if err := reg.Add(&tool.Tool{ID: "9lives.check", Description: "x", Access: func(context.Context, *tool.Values) (bool, error) { return true, nil }}); err == nil ||
		!strings.Contains(err.Error(), "must start with a letter or '_'") {
		t.Errorf("an ID starting with a digit: %v", err)
	}
	set := funcall.New(reg, editor)
	for _, f := range funcall.Formats() {
		names := descriptions(t, set, f)
		if len(names) != len(ids) {
			t.Fatalf("%s: %d declarations, want %d", f, len(names), len(ids))
		}
		for name := range names {
			if !openAIName.MatchString(name) || !geminiName.MatchString(name) {
				t.Errorf("%s: name %q is not one every API takes", f, name)
			}
			id := set.ID(name)
			if id == "" {
				t.Errorf("%s: %q leads to no tool", f, name)
				continue
			}
			if found, ok := reg.ToolByName(name); !ok || found.ID != id {
				t.Errorf("%s: ToolByName(%q) = %v, %v", f, name, found, ok)
			}
			resp := set.DispatchCall(context.Background(), f, envelope(f, name, []byte(`{}`)))
			if !resp.Success || resp.Message != "ran "+id {
				t.Errorf("%s: a call of %q: %+v, want the run of %s", f, name, resp, id)
			}
		}
	}
}
