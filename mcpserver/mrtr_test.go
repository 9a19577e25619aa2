package mcpserver_test

import (
	"context"
	"testing"

	"github.com/toolapi/toolapi/tool"
)

// addAskModel adds test.askmodel to f: it asks the client's model, and
// declares that it needs to (tool.NeedsSampling).
func addAskModel(t testing.TB, f *fixture) {
	t.Helper()
	err := f.reg.Add(&tool.Tool{
		ID: "test.askmodel", Access: anyone, Label: "Ask model", Description: "Asks the client's model, which it needs.", Operation: tool.OpRead,
		Needs:   []tool.ClientFeature{tool.NeedsSampling},
		Inputs:  []*tool.Definition{{Name: "prompt", Type: "string", Required: true}},
		Outputs: []*tool.Definition{{Name: "answer", Type: "string"}},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			answer, err := tool.Sample(ctx, in.String("prompt"), 50)
			if err != nil {
				return nil, err
			}
			return tool.Succeeded("", map[string]any{"answer": answer}), nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
}
