package tool

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRefineChecksPermission checks that refining needs the tool's
// permission and hands out copies.
func TestRefineChecksPermission(t *testing.T) {
	var got *Values
	tl := echoTool(&got, &Definition{Name: "x", Type: "string"})
	r := newTestRegistry(t, tl)
	if _, err := r.Refine(context.Background(), "test.echo", nil); !errors.Is(err, ErrNotFound) {
		t.Errorf("anonymous Refine: err = %v, want ErrNotFound", err)
	}
	defs, err := r.Refine(WithAccount(context.Background(), editor), "test.echo", nil)
	if err != nil {
		t.Fatal(err)
	}
	defs[0].Name = "changed"
	if tl.Inputs[0].Name != "x" {
		t.Error("Refine handed out the tool's own definition")
	}
}

func TestRefiner(t *testing.T) {
	models := map[string][]any{"fruit": {"apple", "pear"}, "tool": {"hammer"}}
	var got *Values
	tl := &Tool{ID: "t.pick", Label: "Pick", Description: "Picks a thing of a kind.", Permission: "p",
		Inputs: []*Definition{
			{Name: "kind", Type: "string", Required: true, Constraints: Constraints{Choice: []any{"fruit", "tool"}}},
			{Name: "thing", Type: "string", Required: true},
		},
		Refiner: &Refiner{Inputs: []string{"thing"}, Refine: func(_ context.Context, def *Definition, values map[string]any) (*Definition, error) {
			kind, _ := values["kind"].(string)
			if models[kind] == nil {
				return def, nil
			}
			d := *def
			d.Constraints.Choice = models[kind]
			return &d, nil
		}},
		Handler: func(_ context.Context, in *Values) (*Result, error) { got = in; return nil, nil },
	}
	r := newTestRegistry(t, tl)
	ctx := WithAccount(context.Background(), editor)
	if res, _ := r.RunJSON(ctx, "t.pick", []byte(`{"kind":"fruit","thing":"pear"}`)); !res.Success || got.String("thing") != "pear" {
		t.Errorf("refined valid: %+v", res)
	}
	res, _ := r.RunJSON(ctx, "t.pick", []byte(`{"kind":"tool","thing":"pear"}`))
	if diff := cmp.Diff([]Violation{{Path: "thing", Message: "must be one of: hammer"}}, res.Violations, wordsOnly); diff != "" {
		t.Errorf("refined invalid (-want +got):\n%s", diff)
	}
	defs, err := r.Refine(ctx, "t.pick", map[string]any{"kind": "fruit"})
	if err != nil || !cmp.Equal(defs[1].Constraints.Choice, []any{"apple", "pear"}) {
		t.Errorf("Refine: %v %v", defs, err)
	}
	if tl.Inputs[1].Constraints.Choice != nil {
		t.Error("refining changed the tool's own definition")
	}
}
