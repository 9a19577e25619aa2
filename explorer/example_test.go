package explorer_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"

	"github.com/toolapi/toolapi/explorer"
	"github.com/toolapi/toolapi/tool"
)

func ExampleNew() {
	reg := tool.NewRegistry(nil)
	reg.Add(&tool.Tool{
		ID: "greet", Label: "Greet", Description: "Says hello.", Operation: tool.OpRead, Permission: "greet",
		Inputs:  []*tool.Definition{{Name: "name", Type: "string", Required: true}},
		Outputs: []*tool.Definition{{Name: "greeting", Type: "string", Required: true}},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			return tool.Succeeded("", map[string]any{"greeting": "Hello, " + in.String("name") + "!"}), nil
		},
	})
	guest := &tool.User{ID: "guest", Permissions: []string{"greet"}}
	h := explorer.New(reg, &explorer.Options{
		Title: "Greeter",
		// Visitors browse as guest; a real application also sets
		// Authenticate and Presets.
		Anonymous: func(context.Context) (tool.Account, error) { return guest, nil },
	})

	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	fmt.Println(w.Code, strings.Contains(w.Body.String(), `<a href="/tools/greet">Greet</a>`))
	w = httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/tools/greet", nil))
	fmt.Println(w.Code, strings.Contains(w.Body.String(), `name="in:name"`))
	// Output:
	// 200 true
	// 200 true
}
