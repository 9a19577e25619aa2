package tool

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestNumbers checks big and out-of-range numbers on both paths.
func TestNumbers(t *testing.T) {
	var got *Values
	r := newTestRegistry(t, echoTool(&got, &Definition{Name: "i", Type: "integer"}, &Definition{Name: "f", Type: "float"}))
	ctx := WithAccount(context.Background(), editor)
	run := map[string]func(string) *Result{
		"RunJSON": func(doc string) *Result { res, _ := r.RunJSON(ctx, "test.echo", []byte(doc)); return res },
		"Run": func(doc string) *Result {
			m, vs := decodeArgs([]byte(doc))
			if vs != nil {
				return &Result{Failure: FailureInput, Violations: vs}
			}
			res, _ := r.Run(ctx, "test.echo", m)
			return res
		},
	}
	for name, run := range run {
		if res := run(`{"i":9007199254740993}`); !res.Success || got.At(0) != int64(9007199254740993) {
			t.Errorf("%s: 2^53+1: %+v %v", name, res, got.At(0))
		}
		if res := run(`{"i":9223372036854775807}`); !res.Success || got.At(0) != int64(9223372036854775807) {
			t.Errorf("%s: max int64: %+v", name, res)
		}
		res := run(`{"i":9223372036854775808,"f":-1e400}`)
		want := []Violation{{Path: "i", Message: "must be an integer between -9223372036854775808 and 9223372036854775807"}, {Path: "f", Message: "must be a number"}}
		if diff := cmp.Diff(want, res.Violations, wordsOnly); diff != "" {
			t.Errorf("%s: out of range (-want +got):\n%s", name, diff)
		}
	}
}

// TestListRangeNarrowsItems checks that a range on a list narrows the
// range its items already have (a sized integer's bounds) and never
// widens it.
func TestListRangeNarrowsItems(t *testing.T) {
	var got *Values
	r := newTestRegistry(t, echoTool(&got, &Definition{Name: "xs", Type: "list",
		Items:       &Definition{Type: "integer", Constraints: Constraints{Range: &Range{Min: Ptr(-32768.0), Max: Ptr(32767.0)}}},
		Constraints: Constraints{Range: &Range{Min: Ptr(0.0), Max: Ptr(100000.0)}}}))
	res, _ := r.RunJSON(WithAccount(context.Background(), editor), "test.echo", []byte(`{"xs":[-1,100000,5]}`))
	want := []Violation{{Path: "xs[0]", Message: "must be at least 0"}, {Path: "xs[1]", Message: "must be at most 32767"}}
	if diff := cmp.Diff(want, res.Violations, wordsOnly); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
}

// TestMapPropertyNullAndDefault checks that an optional map property sent
// as null reads as absent, and an absent one with a default as that
// default, exactly as a top-level input does, on both paths.
func TestMapPropertyNullAndDefault(t *testing.T) {
	var got *Values
	r := newTestRegistry(t, echoTool(&got, &Definition{Name: "m", Type: "map", Required: true, Properties: []*Definition{
		{Name: "label", Type: "string", Default: "none"},
		{Name: "size", Type: "integer", Default: 10, Constraints: Constraints{NotNull: true}},
		{Name: "note", Type: "string", Nullable: true, Default: "n"},
		{Name: "plain", Type: "string"},
		{Name: "must", Type: "string", Required: true},
	}, Constraints: Constraints{Count: &Bounds{Max: Ptr(2)}}}))
	ctx := WithAccount(context.Background(), editor)
	tests := []struct {
		args  string
		want  map[string]any
		viols []Violation
	}{
		{`{"m":{"must":"x"}}`, map[string]any{"must": "x", "label": "none", "size": int64(10), "note": "n"}, nil},
		{`{"m":{"must":"x","label":null,"plain":null}}`, map[string]any{"must": "x", "label": "none", "size": int64(10), "note": "n"}, nil},
		{`{"m":{"must":"x","note":null}}`, map[string]any{"must": "x", "label": "none", "size": int64(10), "note": nil}, nil},
		{`{"m":{"must":"x","size":null}}`, nil, []Violation{{Path: "m.size", Message: "must not be null"}}},
		{`{"m":{"must":null}}`, nil, []Violation{{Path: "m.must", Message: "is required"}}},
		{`{"m":{"must":"x","label":"a","plain":"b"}}`, nil, []Violation{{Path: "m", Message: "must have at most 2 properties"}}},
	}
	for _, tt := range tests {
		var args map[string]any
		if err := json.Unmarshal([]byte(tt.args), &args); err != nil {
			t.Fatal(err)
		}
		for path, res := range map[string]*Result{"RunJSON": must(r.RunJSON(ctx, "test.echo", []byte(tt.args))), "Run": must(r.Run(ctx, "test.echo", args))} {
			if diff := cmp.Diff(tt.viols, res.Violations, wordsOnly); diff != "" {
				t.Errorf("%s %s: violations (-want +got):\n%s", path, tt.args, diff)
				continue
			}
			if tt.want != nil {
				if diff := cmp.Diff(tt.want, got.Map("m")); diff != "" {
					t.Errorf("%s %s: value (-want +got):\n%s", path, tt.args, diff)
				}
			}
		}
	}
}

func must(res *Result, err error) *Result {
	if err != nil {
		panic(err)
	}
	return res
}
