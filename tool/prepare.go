package tool

import (
	"context"
	"github.com/google/jsonschema-go/jsonschema"
)

// prepared is what a tool's definitions compile to, once.
type prepared struct {
	permission Permission
	searchText string
	inSchema   *jsonschema.Schema
	outSchema  *jsonschema.Schema
}

func (t *Tool) prepare(r *Registry) (*prepared, error) {
	panic("unimplemented")
}

func (r *Registry) run(ctx context.Context, t *Tool, args map[string]any, argErr []Violation) *Result {
	panic("unimplemented")
}

func decodeArgs(data []byte) (map[string]any, []Violation) {
	panic("unimplemented")
}

// Refine returns the input definitions of the tool with the given ID as
// its refiner makes them for these arguments (the explorer re-renders its
// form from them). Tools without a refiner return their inputs.
func (r *Registry) Refine(ctx context.Context, id string, args map[string]any) ([]*Definition, error) {
	panic("unimplemented")
}
