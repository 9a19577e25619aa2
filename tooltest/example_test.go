package tooltest_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolapi/toolapi/tool"
	"github.com/toolapi/toolapi/tooltest"
)

// newRegistry returns the tools under test: notes.add, which editors may
// run.
func newRegistry() *tool.Registry {
	reg := tool.NewRegistry(nil)
	reg.Add(&tool.Tool{
		ID: "notes.add", Label: "Add note", Description: "Adds a note.",
		Operation: tool.OpWrite, Permission: "edit notes",
		Inputs: []*tool.Definition{
			{Name: "title", Type: "string", Required: true, Constraints: tool.Constraints{NotBlank: true}},
			{Name: "tags", Type: "list", Items: &tool.Definition{Type: "string"}},
		},
		Outputs: []*tool.Definition{{Name: "title", Type: "string", Required: true}},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			tool.Progress(ctx, 1, 1, "stored")
			return tool.Succeeded("", map[string]any{"title": strings.TrimSpace(in.String("title"))}), nil
		},
	})
	return reg
}

// exampleT stands in for the *testing.T a test has.
type exampleT struct{}

func (exampleT) Helper()                           {}
func (exampleT) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }
func (exampleT) Context() context.Context          { return context.Background() }
func (exampleT) Cleanup(func())                    {}

// A test runs a tool as an account, with Go or JSON arguments, and checks
// what came back.
func ExampleAs() {
	var t exampleT // in a test: t *testing.T
	reg := newRegistry()
	editor := tooltest.As(t, reg, &tool.User{ID: "ada", Permissions: []string{"edit notes"}})

	res := editor.Run("notes.add", map[string]any{"title": " Groceries "}).Succeeded()
	fmt.Println(res.Message, res.Output("title"), res.Progress())

	var out struct{ Title string }
	editor.RunJSON("notes.add", `{"title": "Books", "tags": ["a"]}`).Succeeded().DecodeOutputs(&out)
	fmt.Println(out.Title)

	res = editor.RunWith("notes.add", struct {
		Title string   `json:"title"`
		Tags  []string `json:"tags"`
	}{Title: "", Tags: []string{"x"}}).Violates("title")
	fmt.Println(res)

	tooltest.As(t, reg, nil).Run("notes.add", map[string]any{"title": "x"}).Failed(tool.FailureAccess)
	// Output:
	// Add note completed. Groceries [1/1 stored]
	// Books
	// input failure:
	//   title: must not be blank (rule: minLength)
}

// A test talks to the tools over MCP, in memory, as an agent's client
// would.
func ExampleMCPSession() {
	var t exampleT // in a test: t *testing.T
	cs := tooltest.MCPSession(t, newRegistry(), &tool.User{ID: "ada", Permissions: []string{"edit notes"}}, nil)
	defer cs.Close()

	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{
		Name: "notes.add", Arguments: map[string]any{"title": "Groceries"},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.IsError, res.StructuredContent)
	// Output:
	// false map[title:Groceries]
}
