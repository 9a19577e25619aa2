package toolgenai_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"google.golang.org/genai"

	toolgenai "github.com/toolapi/toolapi/contrib/genai"
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
	tools := toolgenai.New(reg, &tool.User{ID: "agent", Permissions: []string{"use tools"}}, nil)

	// A stand-in for the API, whose model calls the tool twice.
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"candidates":[{"finishReason":"STOP","content":{"role":"model","parts":[
			{"functionCall":{"id":"call_1","name":"text__upper","args":{"text":"hello"}}},
			{"functionCall":{"id":"call_2","name":"text__upper","args":{}}}]}}]}`)
	}))
	defer api.Close()

	ctx := context.Background()
	client, err := genai.NewClient(ctx, &genai.ClientConfig{
		APIKey: "key", Backend: genai.BackendGeminiAPI, HTTPOptions: genai.HTTPOptions{BaseURL: api.URL},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	config := &genai.GenerateContentConfig{Tools: []*genai.Tool{tools.Tool()}}
	contents := genai.Text("Shout hello.")
	resp, err := client.Models.GenerateContent(ctx, "gemini-2.5-flash", contents, config)
	if err != nil {
		fmt.Println(err)
		return
	}
	answer := tools.Run(ctx, resp.FunctionCalls())
	contents = append(contents, resp.Candidates[0].Content, answer)
	for _, p := range answer.Parts {
		b, _ := json.Marshal(p.FunctionResponse.Response)
		fmt.Println(p.FunctionResponse.ID, string(b))
	}
	// Output:
	// call_1 {"output":{"success":true,"message":"Upper completed.","outputs":{"result":"HELLO"}}}
	// call_2 {"error":{"success":false,"message":"Invalid input for Upper: text: is required","error_type":"invalid_input","violations":[{"path":"text","rule":"required","message":"is required"}],"input_schema":{"type":"object","properties":{"text":{"type":"string","pattern":"^[^\\x00]*$"}},"required":["text"],"additionalProperties":false}}}
}
