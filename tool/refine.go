package tool

import (
	"context"
	"fmt"
)

// A Refiner refines some inputs from the values of others (a choice list
// that depends on another input).
type Refiner struct {
	// Inputs names the inputs it refines.
	Inputs []string
	// Refine returns input def.Name's definition given the others' values
	// (decoded, maybe invalid or absent), or def to leave it as it is.
	Refine func(ctx context.Context, def *Definition, values map[string]any) (*Definition, error)
}

// Refine returns the input definitions of the tool with the given ID as
// its refiner makes them for args (or as they are, without one).
func (r *Registry) Refine(ctx context.Context, id string, args map[string]any) ([]*Definition, error) {
	e := reachable(ctx, r.entry(id))
	if e == nil {
		return nil, fmt.Errorf("%w: %q", ErrNotFound, id)
	}
	t := e.tool
	if !e.permission.allows(AccountFrom(ctx)) {
		return nil, fmt.Errorf("%w: %q", ErrNotFound, id)
	}
	if e.refined == nil {
		return cloneDefinitions(t.Inputs), nil
	}
	in, _ := r.decodeInputs(ctx, e, args)
	known := in.byName()
	defs := make([]*Definition, len(t.Inputs))
	for i, n := range e.inputs {
		defs[i] = n.def
		if e.refined[n.def.Name] {
			rn, err := r.refine(ctx, t, n, known)
			if err != nil {
				return nil, err
			}
			defs[i] = rn.def
		}
	}
	return cloneDefinitions(defs), nil
}

// refine returns the refined, compiled definition of input n.
func (r *Registry) refine(ctx context.Context, t *Tool, n *node, values map[string]any) (*node, error) {
	def, err := t.Refiner.Refine(ctx, n.def, values)
	if err != nil {
		return nil, err
	}
	if def == nil || def == n.def {
		return n, nil
	}
	if def.Name != n.def.Name {
		return nil, fmt.Errorf("refined definition renames %q to %q", n.def.Name, def.Name)
	}
	return compile(def, func(name string) *DataType {
		r.mu.RLock()
		defer r.mu.RUnlock()
		return r.types[name]
	}, def.Name)
}

// cloneDefinitions returns shallow copies of defs, so that callers may
// change them without changing the tool.
func cloneDefinitions(defs []*Definition) []*Definition {
	out := make([]*Definition, len(defs))
	for i, d := range defs {
		c := *d
		out[i] = &c
	}
	return out
}
