package tool_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/toolapi/toolapi/tool"
)

func Example() {
	reg := tool.NewRegistry(nil)
	err := reg.Add(&tool.Tool{
		ID: "text.repeat", Label: "Repeat", Description: "Repeats a word.",
		Operation: tool.OpTransform, Permission: "access content",
		Inputs: []*tool.Definition{
			{Name: "word", Type: "string", Required: true, Constraints: tool.Constraints{NotBlank: true}},
			{Name: "times", Type: "integer", Default: 2, Constraints: tool.Constraints{Range: &tool.Range{Min: tool.Ptr(1.0), Max: tool.Ptr(5.0)}}},
		},
		Outputs: []*tool.Definition{{Name: "result", Type: "string", Required: true}},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			text := strings.Repeat(in.String("word")+" ", int(in.Int("times")))
			return tool.Succeeded("", map[string]any{"result": strings.TrimSpace(text)}), nil
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := tool.WithAccount(context.Background(), &tool.User{ID: "ada", Permissions: []string{"access content"}})

	res, _ := reg.RunJSON(ctx, "text.repeat", []byte(`{"word":"hey"}`))
	fmt.Println(res.Success, res.Message, res.Outputs["result"])

	res, _ = reg.RunJSON(ctx, "text.repeat", []byte(`{"word":"","times":9}`))
	fmt.Println(res.Failure, res.Violations)

	res, _ = reg.Run(ctx, "text.repeat", map[string]any{"word": tool.Text("ho"), "times": tool.Text("3")})
	fmt.Println(res.Outputs["result"])

	res, _ = reg.RunJSON(context.Background(), "text.repeat", []byte(`{"word":"hey"}`))
	fmt.Println(res.Failure, res.Message)
	// Output:
	// true Repeat completed. hey hey
	// input [word: must not be blank times: must be at most 5]
	// ho ho ho
	// access You may not run Repeat: it needs the permission "access content".
}
