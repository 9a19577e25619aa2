package funcall_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolapi/toolapi/funcall"
	"github.com/toolapi/toolapi/tool"
)

// TestTitledChoicesEveryFormat declares a tool with labelled choices, a
// single one and a multi-select list, in every format: the plain formats
// give them as titled constants (oneOf; anyOf on the list's items), the
// strict and Gemini formats as a plain enum with the labels in words; a
// call with a choice runs in every format and one without is refused.
func TestTitledChoicesEveryFormat(t *testing.T) {
	reg := tool.NewRegistry(&tool.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	err := reg.Add(&tool.Tool{ID: "album.tag", Label: "Tag", Description: "Tags an album.", Operation: tool.OpWrite,
		Access: func(context.Context, *tool.Values) (bool, error) { return true, nil },
		Inputs: []*tool.Definition{
			{Name: "status", Type: "string", Required: true, Constraints: tool.Constraints{Choice: []any{"draft", "live"}, ChoiceLabels: []string{"Draft", "Published"}}},
			{Name: "moods", Type: "list", Items: &tool.Definition{Type: "string"}, Required: true,
				Constraints: tool.Constraints{Choice: []any{"calm", "sad"}, ChoiceLabels: []string{"Calm", "Sad"}}},
		},
		Handler: func(_ context.Context, in *tool.Values) (*tool.Result, error) {
			return tool.Succeeded("tagged "+in.String("status"), nil), nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	set := funcall.New(reg, editor)
	titled := []any{map[string]any{"const": "draft", "title": "Draft"}, map[string]any{"const": "live", "title": "Published"}}
	for _, f := range funcall.Formats() {
		d := decls(t, set, f)[0]
		b, _ := json.Marshal(d.schema)
		var s map[string]any
		json.Unmarshal(b, &s)
		props := s["properties"].(map[string]any)
		status := props["status"].(map[string]any)
		items := props["moods"].(map[string]any)["items"].(map[string]any)
		switch f {
		case funcall.OpenAI, funcall.OpenAIResponses, funcall.Anthropic:
			if diff := cmp.Diff(titled, status["oneOf"]); diff != "" {
				t.Errorf("%s: status (-want +got):\n%s", f, diff)
			}
			if items["anyOf"] == nil || items["type"] != nil {
				t.Errorf("%s: moods items %v, want anyOf of titled constants", f, items)
			}
		default:
			if status["oneOf"] != nil || status["enum"] == nil || status["description"] != `Choices: "draft" (Draft), "live" (Published).` {
				t.Errorf("%s: status %v, want a plain enum with the labels in words", f, status)
			}
			if items["anyOf"] != nil || items["enum"] == nil || items["type"] != "string" {
				t.Errorf("%s: moods items %v, want a plain string enum", f, items)
			}
		}
		ok := set.DispatchFormat(context.Background(), f, d.name, []byte(`{"status":"live","moods":["calm"]}`))
		if !ok.Success || ok.Message != "tagged live" {
			t.Errorf("%s: a call with choices: %+v", f, ok)
		}
		bad := set.DispatchFormat(context.Background(), f, d.name, []byte(`{"status":"Published","moods":["calm"]}`))
		if bad.Success || bad.ErrorType != funcall.InvalidInput {
			t.Errorf("%s: a call with a label for a value: %+v", f, bad)
		}
	}
}
