package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// Validate checks arguments for the tool with the given ID as a run would,
// without running it: it decodes and validates them and looks up the
// entities they name, all in one pass, and runs no access method, entity
// access check or handler. Values in args are as for [Registry.Run]: a
// [Text] is text a person typed, coerced to its input's type; anything
// else is a JSON value.
//
// It returns the canonical JSON of the arguments, the form [Registry.RunJSON]
// accepts and what a stored preset should hold (the inputs the caller set,
// sensitive ones included; times in RFC 3339, durations in ISO 8601,
// entities by their references), and every violation found; the JSON is
// nil when there are violations. It returns an error wrapping
// [ErrNotFound] for a tool r does not hold or the account in ctx may not
// run, and an error when looking up an entity fails (logged).
func (r *Registry) Validate(ctx context.Context, id string, args map[string]any) (json.RawMessage, []Violation, error) {
	e, err := r.entryFor(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	return r.validate(ctx, e, arguments{tree: args})
}

// ValidateJSON is [Registry.Validate] with the arguments as a JSON object.
func (r *Registry) ValidateJSON(ctx context.Context, id string, args []byte) (json.RawMessage, []Violation, error) {
	e, err := r.entryFor(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	return r.validate(ctx, e, arguments{doc: args, isDoc: true})
}

// entryFor returns the entry of the tool with the given ID if the account
// in ctx has its permission.
func (r *Registry) entryFor(ctx context.Context, id string) (*entry, error) {
	e := r.entry(id)
	if e == nil || !e.permission.allows(AccountFrom(ctx)) {
		return nil, fmt.Errorf("%w: %q", ErrNotFound, id)
	}
	return e, nil
}

func (r *Registry) validate(ctx context.Context, e *entry, args arguments) (canonical json.RawMessage, _ []Violation, err error) {
	defer func() {
		if v := recover(); v != nil {
			r.logger.Error("validation panicked", "tool", e.tool.ID, "panic", fmt.Sprint(v))
			canonical, err = nil, errors.New("validation failed")
		}
	}()
	var vs violations
	in := r.decodeInto(ctx, e, args, &vs)
	if in != nil {
		if err := r.lookUpEntities(ctx, e, in, &vs); err != nil {
			return nil, nil, err
		}
	}
	if !vs.empty() {
		return nil, sortedViolations(e, &vs), nil
	}
	b, err := json.Marshal(in.canonical(false))
	if err != nil {
		return nil, nil, fmt.Errorf("encoding the arguments: %w", err)
	}
	return b, nil, nil
}

// lookUpEntities checks that the entities in inputs name exist, adding a
// violation for each that does not. It loads each distinct entity once
// and checks no op on it.
func (r *Registry) lookUpEntities(ctx context.Context, e *entry, in *Values, vs *violations) error {
	for i, n := range e.inputs {
		if entityOp(n) == "" || in.values[i] == nil {
			continue
		}
		l := entityLoader{r: r, t: e.tool, sensitive: n.def.Sensitive}
		seg := pathSeg{name: n.def.Name}
		var refs []any
		switch v := in.values[i].(type) {
		case entityRef:
			refs = []any{v}
		case []any:
			refs = v
		}
		found := make(map[entityRef]bool, len(refs))
		for j, item := range refs {
			ref, ok := item.(entityRef)
			if !ok {
				continue
			}
			p := seg
			if _, single := in.values[i].(entityRef); !single {
				p = seg.item(j)
			}
			ok, seen := found[ref]
			if !seen {
				var err error
				if ok, err = l.exists(ctx, ref); err != nil {
					r.logger.Error("entity lookup failed", "tool", e.tool.ID, "error", err.Error())
					return errors.New("looking up an entity failed")
				}
				found[ref] = ok
			}
			if !ok {
				l.notFound(ref, &p, vs)
			}
		}
	}
	return nil
}
