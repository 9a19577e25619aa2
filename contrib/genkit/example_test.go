package toolgenkit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"

	toolgenkit "github.com/toolapi/toolapi/contrib/genkit"
	"github.com/toolapi/toolapi/tool"
)

func Example() {
	reg := tool.NewRegistry(nil)
	reg.Add(&tool.Tool{
		ID: "text.upper", Label: "Upper", Description: "Upper-cases a text.",
		Operation: tool.OpTransform, Permission: "use tools",
		Inputs:  []*tool.Definition{{Name: "text", Type: "string", Required: true}},
		Outputs: []*tool.Definition{{Name: "result", Type: "string", Required: true}},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			return tool.Succeeded("", map[string]any{"result": strings.ToUpper(in.String("text"))}), nil
		},
	})
	set := toolgenkit.New(reg, &tool.User{ID: "agent", Permissions: []string{"use tools"}}, nil)

	ctx := context.Background()
	g := genkit.Init(ctx)
	// A stand-in for a model: it calls the tool, then answers with what the
	// tool said.
	model := genkit.DefineModel(g, "example/call-once", &ai.ModelOptions{Supports: &ai.ModelSupports{Tools: true, Multiturn: true}},
		func(ctx context.Context, req *ai.ModelRequest, cb ai.ModelStreamCallback) (*ai.ModelResponse, error) {
			for _, p := range req.Messages[len(req.Messages)-1].Content {
				if p.ToolResponse != nil {
					b, _ := json.Marshal(p.ToolResponse.Output)
					return &ai.ModelResponse{Message: ai.NewModelTextMessage(string(b)), FinishReason: ai.FinishReasonStop}, nil
				}
			}
			call := ai.NewToolRequestPart(&ai.ToolRequest{Name: "text__upper", Ref: "1", Input: map[string]any{"text": "hello"}})
			return &ai.ModelResponse{Message: &ai.Message{Role: ai.RoleModel, Content: []*ai.Part{call}}, FinishReason: ai.FinishReasonStop}, nil
		})

	resp, err := genkit.Generate(ctx, g, ai.WithModel(model), ai.WithPrompt("Shout hello."),
		ai.WithTools(set.Refs()...), ai.WithMiddleware(set.Middleware()))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.Text())
	// Output:
	// {"message":"Upper completed.","outputs":{"result":"HELLO"},"success":true}
}
