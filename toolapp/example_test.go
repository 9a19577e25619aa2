package toolapp_test

import (
	"context"
	"fmt"
	"os"

	"github.com/toolapi/toolapi/tool"
	"github.com/toolapi/toolapi/toolapp"
)

// An application hands its registry and accounts to the runner, which
// gives it the standard commands; here "tool run", as a person types it.
func Example() {
	reg := tool.NewRegistry(nil)
	reg.Add(&tool.Tool{
		ID: "notes.count", Label: "Count notes", Description: "Counts the notes.",
		Operation: tool.OpRead, Permission: "read notes",
		Outputs: []*tool.Definition{{Name: "count", Type: "integer", Required: true}},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			return tool.Succeeded("", map[string]any{"count": 3}), nil
		},
	})
	accounts := toolapp.NewStaticAccounts(nil, &tool.User{ID: "ada", Permissions: []string{"read notes"}})
	open := func(context.Context) (*toolapp.App, error) {
		return &toolapp.App{Registry: reg, Accounts: accounts}, nil
	}
	opts := &toolapp.Options{Name: "notes", Stdout: os.Stdout, Stderr: os.Stdout}

	// In main: toolapp.Main(open, opts).
	code := toolapp.Run(context.Background(), open, []string{"tool", "run", "notes.count", "--user", "ada"}, opts)
	fmt.Println("exit status", code)
	code = toolapp.Run(context.Background(), open, []string{"tool", "run", "notes.count"}, opts)
	fmt.Println("exit status", code)
	// Output:
	// Count notes completed.
	// {
	//   "count": 3
	// }
	// exit status 0
	// tool "notes.count" not found for account "anonymous" (an account sees only the tools it may run; --user NAME acts for another)
	// exit status 1
}
