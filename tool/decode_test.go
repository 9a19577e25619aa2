package tool

import (
	"context"
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
		want := []Violation{{"i", "must be an integer between -9223372036854775808 and 9223372036854775807"}, {"f", "must be a number"}}
		if diff := cmp.Diff(want, res.Violations); diff != "" {
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
	want := []Violation{{"xs[0]", "must be at least 0"}, {"xs[1]", "must be at most 32767"}}
	if diff := cmp.Diff(want, res.Violations); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
}
