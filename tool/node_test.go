package tool

import (
	"context"
	"math"
	"testing"
)

// TestConstraintKinds checks that constraints meaningless for a data type
// are refused when the tool is added.
func TestConstraintKinds(t *testing.T) {
	h := func(context.Context, *Values) (*Result, error) { return nil, nil }
	for _, def := range []*Definition{
		{Name: "x", Type: "datetime_iso8601", Constraints: Constraints{Pattern: "^2024"}},
		{Name: "x", Type: "duration", Constraints: Constraints{Length: &Bounds{Max: Ptr(3)}}},
		{Name: "x", Type: "timestamp", Constraints: Constraints{Choice: []any{"2024-01-01T00:00:00Z"}}},
		{Name: "x", Type: "string", Constraints: Constraints{Range: &Range{Max: Ptr(1.0)}}},
		{Name: "x", Type: "integer", Constraints: Constraints{Range: &Range{Max: Ptr(math.NaN())}}},
	} {
		tl := &Tool{ID: "t.c", Label: "C", Description: "C.", Permission: "p", Inputs: []*Definition{def}, Handler: h}
		if err := tl.Check(); err == nil {
			t.Errorf("%s with %+v was accepted", def.Type, def.Constraints)
		}
	}
}
