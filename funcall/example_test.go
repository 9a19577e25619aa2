package funcall_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolapi/toolapi/funcall"
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
	set := funcall.New(reg, &tool.User{ID: "agent", Permissions: []string{"use tools"}})

	decls, _ := set.Declarations(funcall.Anthropic)
	decl, _ := json.Marshal(decls)
	fmt.Println(string(decl))

	// The model calls the tool by its declared name.
	resp, _ := json.Marshal(set.Dispatch(context.Background(), "text__upper", []byte(`{"text":"hello"}`)))
	fmt.Println(string(resp))
	resp, _ = json.Marshal(set.Dispatch(context.Background(), "text__upper", []byte(`{}`)))
	fmt.Println(string(resp))
	// Output:
	// [{"name":"text__upper","description":"Upper-cases a text.","input_schema":{"type":"object","properties":{"text":{"type":"string","pattern":"^[^\\x00]*$"}},"required":["text"],"additionalProperties":false}}]
	// {"success":true,"message":"Upper completed.","outputs":{"result":"HELLO"}}
	// {"success":false,"message":"Invalid input for Upper: text: is required","error_type":"invalid_input","violations":[{"path":"text","rule":"required","message":"is required"}],"input_schema":{"type":"object","properties":{"text":{"type":"string","pattern":"^[^\\x00]*$"}},"required":["text"],"additionalProperties":false}}
}

// A Gemini model gets its declarations in the OpenAPI subset Gemini takes,
// and its function calls are dispatched as Gemini hands them over.
func ExampleToolset_DispatchCall() {
	reg := tool.NewRegistry(nil)
	reg.Add(&tool.Tool{
		ID: "text.count", Label: "Count", Description: "Counts the words of a text.",
		Operation: tool.OpTransform, Permission: "use tools",
		Inputs: []*tool.Definition{{Name: "text", Type: "string", Required: true, Examples: []any{"two words"},
			Constraints: tool.Constraints{Length: &tool.Bounds{Max: tool.Ptr(1000)}}}},
		Outputs: []*tool.Definition{{Name: "result", Type: "integer", Required: true}},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			return tool.Succeeded("", map[string]any{"result": len(strings.Fields(in.String("text")))}), nil
		},
	})
	set := funcall.New(reg, &tool.User{ID: "agent", Permissions: []string{"use tools"}})

	decls, _ := set.Declarations(funcall.Gemini)
	decl, _ := json.Marshal(decls)
	fmt.Println(string(decl))

	call := []byte(`{"functionCall":{"name":"text__count","args":{"text":"one two three"}}}`)
	resp, _ := json.Marshal(set.DispatchCall(context.Background(), funcall.Gemini, call))
	fmt.Println(string(resp))
	// Output:
	// [{"name":"text__count","description":"Counts the words of a text.","parameters":{"type":"object","properties":{"text":{"type":"string","description":"Example: \"two words\".","maxLength":1000,"pattern":"^[^\\x00]*$"}},"required":["text"]}}]
	// {"success":true,"message":"Count completed.","outputs":{"result":3}}
}
