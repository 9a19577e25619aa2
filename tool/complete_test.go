package tool

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestComplete(t *testing.T) {
	models := map[string][]any{"fruit": {"apple", "apricot", "pear"}, "tool": {"hammer"}}
	et := albumType(nil)
	et.Search = func(_ context.Context, acct Account, query string, limit int) ([]EntityRef, error) {
		var out []EntityRef
		for _, a := range []EntityRef{{"album", "1", "Blue Hours"}, {"album", "2", "Blue Note"}, {"album", "3", "Red"}} {
			if strings.Contains(strings.ToLower(a.Label), strings.ToLower(query)) && len(out) < limit {
				out = append(out, a)
			}
		}
		return out, nil
	}
	tl := &Tool{ID: "t.pick", Label: "Pick", Description: "Picks a thing of a kind.", Permission: "p",
		Inputs: []*Definition{
			{Name: "kind", Type: "string", Required: true, Constraints: Constraints{Choice: []any{"fruit", "tool"}}},
			{Name: "thing", Type: "string", Required: true},
			{Name: "albums", Type: "list", EntityOp: "view", Items: &Definition{Type: "entity:album"}},
			{Name: "note", Type: "string"},
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
		Handler: func(context.Context, *Values) (*Result, error) { return nil, nil },
	}
	r := NewRegistry(nil)
	if err := r.AddEntityType(et); err != nil {
		t.Fatal(err)
	}
	if err := r.Add(tl); err != nil {
		t.Fatal(err)
	}
	ctx := WithAccount(context.Background(), editor)
	for _, tc := range []struct {
		input, prefix string
		args          map[string]any
		want          []Suggestion
	}{
		{"kind", "", nil, []Suggestion{{"fruit", "fruit"}, {"tool", "tool"}}},
		{"kind", "T", nil, []Suggestion{{"tool", "tool"}}},
		{"thing", "ap", map[string]any{"kind": "fruit"}, []Suggestion{{"apple", "apple"}, {"apricot", "apricot"}}},
		{"thing", "", map[string]any{"kind": "tool"}, []Suggestion{{"hammer", "hammer"}}},
		{"thing", "", nil, nil}, // nothing to choose from until a kind is given
		{"albums", "blue", nil, []Suggestion{{"1", "Blue Hours"}, {"2", "Blue Note"}}},
		{"note", "x", nil, nil},
	} {
		got, err := r.Complete(ctx, "t.pick", tc.input, tc.prefix, tc.args)
		if err != nil {
			t.Errorf("%s %q: %v", tc.input, tc.prefix, err)
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s %q %v (-want +got):\n%s", tc.input, tc.prefix, tc.args, diff)
		}
	}
	if _, err := r.Complete(ctx, "t.pick", "nope", "", nil); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown input: %v, want ErrNotFound", err)
	}
	if _, err := r.Complete(context.Background(), "t.pick", "kind", "", nil); !errors.Is(err, ErrNotFound) {
		t.Errorf("anonymous, without the permission: %v, want ErrNotFound", err)
	}
}
