package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/toolapi/toolapi/tool"
)

func greeter() *tool.Tool {
	return &tool.Tool{
		ID: "hello.greet", Label: "Greet", Description: "Greets someone.", Operation: tool.OpRead,
		Permission: "access content",
		Inputs: []*tool.Definition{{Name: "to", Type: "string", Required: true, Examples: []any{"Ada"},
			Constraints: tool.Constraints{Length: &tool.Bounds{Max: tool.Ptr(50)}}}},
		Outputs: []*tool.Definition{{Name: "result", Type: "string", Required: true}},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			return tool.Succeeded("", map[string]any{"result": "Hello, " + in.String("to")}), nil
		},
	}
}

// TestAdjust re-types an input at registration: the registry validates by
// the adjusted definition, advertises it, and leaves the original alone.
func TestAdjust(t *testing.T) {
	orig := greeter()
	reg := tool.NewRegistry(&tool.Options{Adjust: func(tl *tool.Tool) (*tool.Tool, error) {
		in := tl.Inputs[0]
		in.Type = "email"                         // re-typed in place:
		in.Examples = []any{"ada@example.com"}    // its examples are the hook's to update
		in.Constraints.Length.Max = tool.Ptr(100) // a deep copy: the original keeps 50
		tl.Description = "Greets someone by email."
		return tl, nil
	}})
	if err := reg.Add(orig); err != nil {
		t.Fatal(err)
	}
	if orig.Inputs[0].Type != "string" || *orig.Inputs[0].Constraints.Length.Max != 50 || orig.Description != "Greets someone." {
		t.Errorf("the original tool changed: %+v", orig.Inputs[0])
	}
	var sch map[string]any
	json.Unmarshal(reg.InputSchemaJSON("hello.greet"), &sch)
	to := sch["properties"].(map[string]any)["to"].(map[string]any)
	if to["format"] != "email" || to["maxLength"] != 100.0 || to["examples"].([]any)[0] != "ada@example.com" {
		t.Errorf("advertised %v, want an email of at most 100 characters with the new example", to)
	}
	ctx := tool.WithAccount(context.Background(), &tool.User{ID: "u", Permissions: []string{"access content"}})
	res, err := reg.RunJSON(ctx, "hello.greet", []byte(`{"to":"Ada"}`))
	if err != nil || res.Success || res.Failure != tool.FailureInput {
		t.Errorf("a name where an email is due: %+v %v, want an input failure", res, err)
	}
	res, err = reg.RunJSON(ctx, "hello.greet", []byte(`{"to":"ada@example.com"}`))
	if err != nil || !res.Success {
		t.Errorf("an email: %+v %v", res, err)
	}
	// The same literal in a registry without the hook is unchanged.
	plain := tool.NewRegistry(nil)
	if err := plain.Add(orig); err != nil {
		t.Fatal(err)
	}
	if res, _ := plain.RunJSON(ctx, "hello.greet", []byte(`{"to":"Ada"}`)); !res.Success {
		t.Errorf("without the hook: %+v", res)
	}
}

func TestAdjustRefuses(t *testing.T) {
	for name, adjust := range map[string]func(*tool.Tool) (*tool.Tool, error){
		"error":      func(*tool.Tool) (*tool.Tool, error) { return nil, errors.New("no greetings here") },
		"nil":        func(*tool.Tool) (*tool.Tool, error) { return nil, nil },
		"renamed":    func(t *tool.Tool) (*tool.Tool, error) { t.ID = "other"; return t, nil },
		"bad change": func(t *tool.Tool) (*tool.Tool, error) { t.Inputs[0].Type = "no such type"; return t, nil },
	} {
		t.Run(name, func(t *testing.T) {
			reg := tool.NewRegistry(&tool.Options{Adjust: adjust, Logger: slog.New(slog.DiscardHandler)})
			err := reg.Add(greeter())
			if err == nil {
				t.Fatal("added")
			}
			if _, ok := reg.Tool("hello.greet"); ok {
				t.Error("the tool is in the registry")
			}
			if !strings.Contains(err.Error(), "hello.greet") {
				t.Errorf("error %q does not name the tool", err)
			}
		})
	}
}
