package tool

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestDurationOutputs checks that a duration the wire form cannot hold
// fails the run instead of publishing something schema-invalid.
func TestDurationOutputs(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{{90 * time.Minute, "PT1H30M"}, {49 * time.Hour, "P2DT1H"}, {0, "PT0S"}, {1500 * time.Millisecond, ""}, {-time.Hour, ""}} {
		r := newTestRegistry(t, &Tool{ID: "t.d", Label: "D", Description: "D.", Permission: "p",
			Outputs: []*Definition{{Name: "d", Type: "duration", Required: true}},
			Handler: func(context.Context, *Values) (*Result, error) { return Succeeded("", map[string]any{"d": c.d}), nil }})
		res, _ := r.RunJSON(WithAccount(context.Background(), editor), "t.d", nil)
		if c.want == "" {
			if res.Failure != FailureRuntime {
				t.Errorf("%v: %+v, want a runtime failure", c.d, res)
			}
			continue
		}
		if !res.Success || res.Outputs["d"] != c.want {
			t.Errorf("%v: %+v, want %s", c.d, res, c.want)
		}
	}
}

// TestObjectsPublishInPlace checks that an Object is published like a
// map: undeclared keys dropped, nil optional members left out, values in
// their wire form, and the caller sees a map[string]any.
func TestObjectsPublishInPlace(t *testing.T) {
	obj := Object{"title": "Cranes", "created": time.Date(2023, 6, 11, 6, 0, 0, 0, time.UTC), "note": nil, "secret": "x"}
	r := newTestRegistry(t, &Tool{ID: "t.o", Label: "O", Description: "O.", Permission: "p",
		Outputs: []*Definition{{Name: "result", Type: "list", Required: true, Items: &Definition{Type: "map", Properties: []*Definition{
			{Name: "title", Type: "string", Required: true},
			{Name: "created", Type: "timestamp", Required: true},
			{Name: "note", Type: "string"},
		}}}},
		Handler: func(context.Context, *Values) (*Result, error) {
			return Succeeded("", map[string]any{"result": []any{obj}}), nil
		}})
	res, _ := r.RunJSON(WithAccount(context.Background(), editor), "t.o", nil)
	want := map[string]any{"result": []any{map[string]any{"title": "Cranes", "created": "2023-06-11T06:00:00Z"}}}
	if diff := cmp.Diff(want, res.Outputs); diff != "" {
		t.Errorf("outputs (-want +got):\n%s", diff)
	}
}
