package mcpserver_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolapi/toolapi/mcpserver"
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
	srv := mcpserver.New(reg, nil)

	// Serve one client over in-memory transports; RunStdio and Handler
	// serve real ones.
	ctx := context.Background()
	serverSide, clientSide := mcp.NewInMemoryTransports()
	agent := &tool.User{ID: "agent", Permissions: []string{"use tools"}}
	if _, err := srv.Connect(ctx, serverSide, agent); err != nil {
		panic(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, nil)
	cs, err := client.Connect(ctx, clientSide, nil)
	if err != nil {
		panic(err)
	}
	defer cs.Close()

	list, _ := cs.ListTools(ctx, nil)
	for _, t := range list.Tools {
		fmt.Println(t.Name, "-", t.Title, "- read only:", t.Annotations.ReadOnlyHint, "- idempotent:", t.Annotations.IdempotentHint)
	}
	res, _ := cs.CallTool(ctx, &mcp.CallToolParams{Name: "text__upper", Arguments: map[string]any{"text": "hello"}})
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	res, _ = cs.CallTool(ctx, &mcp.CallToolParams{Name: "text.upper", Arguments: map[string]any{}})
	fmt.Println(res.IsError, res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// text__upper - Upper - read only: false - idempotent: true
	// {"result":"HELLO"}
	// true Invalid input for Upper: text: is required
}
