package toolopenai_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	toolopenai "github.com/toolapi/toolapi/contrib/openai"
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
	tools := toolopenai.New(reg, &tool.User{ID: "agent", Permissions: []string{"use tools"}}, nil)

	// A stand-in for the API, whose model calls the tool twice.
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-5","choices":[{"index":0,"finish_reason":"tool_calls",
			"message":{"role":"assistant","content":null,"tool_calls":[
				{"id":"call_1","type":"function","function":{"name":"text__upper","arguments":"{\"text\":\"hello\"}"}},
				{"id":"call_2","type":"function","function":{"name":"text__upper","arguments":"{}"}}]}}]}`)
	}))
	defer api.Close()
	client := openai.NewClient(option.WithBaseURL(api.URL), option.WithAPIKey("key"))

	ctx := context.Background()
	params := openai.ChatCompletionNewParams{
		Model:    "gpt-5",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Shout hello.")},
		Tools:    tools.Chat(),
	}
	completion, err := client.Chat.Completions.New(ctx, params)
	if err != nil {
		fmt.Println(err)
		return
	}
	msg := completion.Choices[0].Message
	params.Messages = append(params.Messages, msg.ToParam())
	for _, answer := range tools.RunChat(ctx, msg) {
		params.Messages = append(params.Messages, answer)
		fmt.Println(answer.OfTool.ToolCallID, answer.OfTool.Content.OfString.Value)
	}
	// Output:
	// call_1 {"success":true,"message":"Upper completed.","outputs":{"result":"HELLO"}}
	// call_2 {"success":false,"message":"Invalid input for Upper: text: is required","error_type":"invalid_input","violations":[{"path":"text","rule":"required","message":"is required"}],"input_schema":{"type":"object","properties":{"text":{"type":"string","pattern":"^[^\\x00]*$"}},"required":["text"],"additionalProperties":false}}
}
