package toolanthropic_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	toolanthropic "github.com/toolapi/toolapi/contrib/anthropic"
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
	tools := toolanthropic.New(reg, &tool.User{ID: "agent", Permissions: []string{"use tools"}}, nil)

	// A stand-in for the API, whose model calls the tool twice.
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"msg_1","type":"message","role":"assistant","model":"claude-test","stop_reason":"tool_use",
			"usage":{"input_tokens":10,"output_tokens":10},"content":[
				{"type":"tool_use","id":"toolu_1","name":"text__upper","input":{"text":"hello"}},
				{"type":"tool_use","id":"toolu_2","name":"text__upper","input":{}}]}`)
	}))
	defer api.Close()
	client := anthropic.NewClient(option.WithBaseURL(api.URL), option.WithAPIKey("key"))

	ctx := context.Background()
	params := anthropic.MessageNewParams{
		Model:     "claude-test",
		MaxTokens: 1024,
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Shout hello."))},
		Tools:     tools.Declarations(),
	}
	msg, err := client.Messages.New(ctx, params)
	if err != nil {
		fmt.Println(err)
		return
	}
	results := tools.Run(ctx, msg.Content)
	params.Messages = append(params.Messages, msg.ToParam(), anthropic.NewUserMessage(results...))
	for _, r := range results {
		fmt.Println(r.OfToolResult.ToolUseID, r.OfToolResult.IsError.Value, r.OfToolResult.Content[0].OfText.Text)
	}
	// Output:
	// toolu_1 false {"success":true,"message":"Upper completed.","outputs":{"result":"HELLO"}}
	// toolu_2 true {"success":false,"message":"Invalid input for Upper: text: is required","error_type":"invalid_input","violations":[{"path":"text","rule":"required","message":"is required"}],"input_schema":{"type":"object","properties":{"text":{"type":"string","pattern":"^[^\\x00]*$"}},"required":["text"],"additionalProperties":false}}
}
