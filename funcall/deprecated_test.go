package funcall_test

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/toolapi/toolapi/funcall"
	"github.com/toolapi/toolapi/tool"
)

// TestDeprecatedDeclarations checks that every dialect's declaration of
// a deprecated tool starts its description with the note.
func TestDeprecatedDeclarations(t *testing.T) {
	reg := tool.NewRegistry(&tool.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	err := reg.Add(&tool.Tool{ID: "album.find", Label: "Find", Description: "Finds albums.", Operation: tool.OpRead,
		Access: func(context.Context, *tool.Values) (bool, error) { return true, nil }, Deprecated: "use album.search",
		Inputs:  []*tool.Definition{{Name: "word", Type: "string", Required: true}},
		Handler: func(context.Context, *tool.Values) (*tool.Result, error) { return nil, nil }})
	if err != nil {
		t.Fatal(err)
	}
	set := funcall.New(reg, editor)
	const want = "Deprecated: use album.search\n\nFinds albums."
	for dialect, got := range map[string]string{
		"OpenAI":          declared[funcall.OpenAITool](t, set, funcall.OpenAI)[0].Function.Description,
		"OpenAIStrict":    declared[funcall.OpenAITool](t, set, funcall.OpenAIStrict)[0].Function.Description,
		"OpenAIResponses": declared[funcall.OpenAIResponsesTool](t, set, funcall.OpenAIResponsesStrict)[0].Description,
		"Anthropic":       declared[funcall.AnthropicTool](t, set, funcall.Anthropic)[0].Description,
		"AnthropicStrict": declared[funcall.AnthropicTool](t, set, funcall.AnthropicStrict)[0].Description,
		"Gemini":          declared[funcall.GeminiFunction](t, set, funcall.Gemini)[0].Description,
	} {
		if got != want {
			t.Errorf("%s: description %q, want %q", dialect, got, want)
		}
	}
}
