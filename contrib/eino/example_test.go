package tooleino_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"

	tooleino "github.com/toolapi/toolapi/contrib/eino"
	"github.com/toolapi/toolapi/tool"
)

// callOnce is a stand-in for a chat model: it calls a tool, then answers
// with what the tool said.
type callOnce struct{ name, args string }

func (m callOnce) Generate(ctx context.Context, msgs []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	if last := msgs[len(msgs)-1]; last.Role == schema.Tool {
		return schema.AssistantMessage(last.Content, nil), nil
	}
	return schema.AssistantMessage("", []schema.ToolCall{{ID: "call_1", Function: schema.FunctionCall{Name: m.name, Arguments: m.args}}}), nil
}

func (m callOnce) Stream(ctx context.Context, msgs []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	msg, err := m.Generate(ctx, msgs, opts...)
	return schema.StreamReaderFromArray([]*schema.Message{msg}), err
}

func (m callOnce) WithTools([]*schema.ToolInfo) (model.ToolCallingChatModel, error) { return m, nil }

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
	set := tooleino.New(reg, &tool.User{ID: "agent", Permissions: []string{"use tools"}}, nil)

	ctx := context.Background()
	agent, err := react.NewAgent(ctx, &react.AgentConfig{
		ToolCallingModel: callOnce{name: "text__upper", args: `{"text":"hello"}`},
		ToolsConfig:      compose.ToolsNodeConfig{Tools: set.Tools(), UnknownToolsHandler: set.UnknownTool},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	answer, err := agent.Generate(ctx, []*schema.Message{schema.UserMessage("Shout hello.")})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(answer.Content)
	// Output:
	// {"success":true,"message":"Upper completed.","outputs":{"result":"HELLO"}}
}
