package funcall_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/toolapi/toolapi/funcall"
	"github.com/toolapi/toolapi/tool"
)

// TestBudget checks function calling of budgeted tools: the declaration
// of a paged tool holds cursor, the dispatcher answers pages with
// next_cursor and refuses another account's cursor as invalid_input, and
// outputs over the byte budget are left out, the message saying why.
func TestBudget(t *testing.T) {
	reg := tool.NewRegistry(&tool.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	err := reg.Add(&tool.Tool{
		ID: "notes.list", Label: "List notes", Description: "Lists notes.", Operation: tool.OpRead, Permission: "notes",
		Budget:  tool.Budget{Items: 2},
		Outputs: []*tool.Definition{{Name: "result", Type: "list", Required: true, Items: &tool.Definition{Type: "string"}}},
		Handler: func(context.Context, *tool.Values) (*tool.Result, error) {
			return tool.Succeeded("", map[string]any{"result": []any{"a", "b", "c"}}), nil
		},
	}, &tool.Tool{
		ID: "notes.dump", Label: "Dump notes", Description: "Dumps notes.", Operation: tool.OpRead, Permission: "notes",
		Budget:  tool.Budget{Bytes: 100},
		Outputs: []*tool.Definition{{Name: "text", Type: "string", Required: true}},
		Handler: func(context.Context, *tool.Values) (*tool.Result, error) {
			return tool.Succeeded("", map[string]any{"text": strings.Repeat("n", 500)}), nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	ann := funcall.New(reg, &tool.User{ID: "ann", Permissions: []string{"notes"}})
	bob := funcall.New(reg, &tool.User{ID: "bob", Permissions: []string{"notes"}})
	decl, err := ann.Declarations(funcall.OpenAI)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(decl); !strings.Contains(string(b), `"cursor"`) {
		t.Errorf("the declarations lack the cursor: %s", b)
	}
	first := ann.Dispatch(context.Background(), "notes__list", []byte(`{}`))
	next, _ := first.Outputs["next_cursor"].(string)
	if !first.Success || len(first.Outputs["result"].([]any)) != 2 || next == "" {
		t.Fatalf("first page: %+v", first)
	}
	last := ann.Dispatch(context.Background(), "notes__list", []byte(`{"cursor":"`+next+`"}`))
	if _, more := last.Outputs["next_cursor"]; !last.Success || more || last.Outputs["result"].([]any)[0] != "c" {
		t.Errorf("last page: %+v", last)
	}
	refused := bob.Dispatch(context.Background(), "notes__list", []byte(`{"cursor":"`+next+`"}`))
	if refused.ErrorType != funcall.InvalidInput || len(refused.Violations) != 1 || refused.Violations[0].Rule != tool.RuleCursorInvalid {
		t.Errorf("bob with ann's cursor: %+v", refused)
	}
	big := ann.Dispatch(context.Background(), "notes__dump", []byte(`{}`))
	if !big.Success || len(big.Outputs) != 0 || !strings.Contains(big.Message, "over its budget of 100 bytes") {
		t.Errorf("over the byte budget: %+v", big)
	}
}
