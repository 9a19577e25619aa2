package toollangchaingo_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms"

	toollangchaingo "github.com/toolapi/toolapi/contrib/langchaingo"
	"github.com/toolapi/toolapi/tool"
)

// callOnce is a stand-in for a chat model: it calls a tool, then answers
// with what the tool said.
type callOnce struct{ name, args string }

func (m callOnce) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	for _, p := range msgs[len(msgs)-1].Parts {
		if r, ok := p.(llms.ToolCallResponse); ok {
			return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: r.Content}}}, nil
		}
	}
	call := llms.ToolCall{ID: "call_1", Type: "function", FunctionCall: &llms.FunctionCall{Name: m.name, Arguments: m.args}}
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{ToolCalls: []llms.ToolCall{call}}}}, nil
}

func (m callOnce) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, opts...)
}

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
	set := toollangchaingo.New(reg, &tool.User{ID: "agent", Permissions: []string{"use tools"}}, nil)

	llm := callOnce{name: "text__upper", args: `{"text":"hello"}`}
	executor := agents.NewExecutor(agents.NewOpenAIFunctionsAgent(llm, set.Tools()))
	answer, err := chains.Run(context.Background(), executor, "Shout hello.")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(answer)
	// Output:
	// {"success":true,"message":"Upper completed.","outputs":{"result":"HELLO"}}
}
