package toolcli_test

import (
	"context"
	"fmt"
	"os"

	"github.com/toolapi/toolapi/tool"
	"github.com/toolapi/toolapi/toolcli"
)

// An application mounts the tool command in its own binary and hands it
// the words after "tool".
func ExampleRun() {
	reg := tool.NewRegistry(nil)
	reg.Add(&tool.Tool{
		ID:          "hello.greet",
		Label:       "Greet",
		Description: "Greets someone by name.",
		Operation:   tool.OpTransform,
		// Everyone may greet.
		Access: func(context.Context, *tool.Values) (bool, error) { return true, nil },
		Inputs: []*tool.Definition{
			{Name: "name", Type: "string", Required: true},
		},
		Outputs: []*tool.Definition{
			{Name: "greeting", Type: "string", Required: true},
		},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			return tool.Succeeded("", map[string]any{"greeting": "Hello, " + in.String("name") + "!"}), nil
		},
	})

	// In main: os.Exit(toolcli.Run(ctx, reg, os.Args[2:], os.Stdout, os.Stderr, nil))
	args := []string{"run", "hello.greet", "--input", "name=Ada", "--json"}
	status := toolcli.Run(context.Background(), reg, args, os.Stdout, os.Stderr, nil)
	fmt.Println("exit status", status)
	// Output:
	// {
	//   "success": true,
	//   "message": "Greet completed.",
	//   "outputs": {
	//     "greeting": "Hello, Ada!"
	//   }
	// }
	// exit status 0
}
