package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// Validate checks args as [Registry.Run] would, with [Call.Check] set and
// no access check, confirmation or handler. It returns every violation, or
// the canonical JSON of the arguments, sensitive ones included. Its error
// wraps [ErrNotFound] for a tool the account may not run; under a context
// of [WithEntityAccess], it is an [*AccessError] for an entity the account
// may not use.
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

// WithEntityAccess returns ctx under which [Registry.Validate] and
// [Registry.ValidateJSON] also check, as a run does, that the account may
// use each entity the inputs name with the operation its input declares,
// and ask the tool's access method ([Tool.Access]): every check a run
// makes before it asks to confirm, and before its handler. A caller that
// accepts a call now and runs it later (a task) validates under it, so
// that a refusal comes before anything is stored. A refusal is an
// [*AccessError] whose Reason is the run's message.
func WithEntityAccess(ctx context.Context) context.Context {
	return context.WithValue(ctx, entityAccessKey{}, true)
}

type entityAccessKey struct{}

// entryFor returns the entry of the tool with the given ID if the account
// in ctx has its permission.
func (r *Registry) entryFor(ctx context.Context, id string) (*entry, error) {
	e := reachable(ctx, r.entry(id))
	if e == nil || !e.permission.allows(AccountFrom(ctx)) {
		return nil, fmt.Errorf("%w: %q", ErrNotFound, id)
	}
	return e, nil
}

// validate checks args as a run would, through the registry's middleware
// (see [Call.Check]).
func (r *Registry) validate(ctx context.Context, e *entry, args arguments) (json.RawMessage, []Violation, error) {
	c := &Call{Tool: e.tool, Account: AccountFrom(ctx), Check: true, e: e, args: args}
	chain := r.chain.Load()
	if chain == nil {
		r.check(ctx, c)
	} else {
		res := r.through(ctx, *chain, c)
		if c.checked == nil {
			// Middleware answered in the check's place.
			if res.Failure == FailureInput && len(res.Violations) > 0 {
				return nil, res.Violations, nil
			}
			return nil, nil, errors.New("the registry's middleware did not let the check through: " + res.Message)
		}
	}
	if c.checked.refusal != nil {
		return nil, nil, &AccessError{Reason: c.checked.refusal.Message}
	}
	return c.checked.canonical, c.checked.vs, c.checked.err
}

// check decodes and validates c's arguments and loads the entities they
// name, recording what it found in c.checked, and returns it as a Result
// for the middleware around it.
func (r *Registry) check(ctx context.Context, c *Call) *Result {
	t := c.Tool
	c.checked = r.checkArgs(ctx, c)
	switch {
	case c.checked.err != nil:
		return &Result{Message: "The inputs of " + t.label() + " could not be checked.", Failure: FailureRuntime, Internal: true}
	case len(c.checked.vs) > 0:
		return inputFailure(t, c.checked.vs)
	case c.checked.refusal != nil:
		return c.checked.refusal
	}
	return &Result{Success: true, Message: "The inputs of " + t.label() + " are valid."}
}

func (r *Registry) checkArgs(ctx context.Context, c *Call) (ch *checked) {
	e := c.e
	defer func() {
		if v := recover(); v != nil {
			r.logger.Error("validation panicked", "tool", e.tool.ID, "panic", fmt.Sprint(v))
			ch = &checked{err: errors.New("validation failed")}
		}
	}()
	var vs violations
	in := r.decodeInto(ctx, e, c.args, &vs)
	if in != nil {
		access, _ := ctx.Value(entityAccessKey{}).(bool)
		if res := r.loadEntities(ctx, e, c.Account, in, !access, &vs); res != nil {
			if access && res.Failure == FailureAccess {
				return &checked{refusal: res}
			}
			return &checked{err: errors.New("looking up an entity failed")}
		}
	}
	if !vs.empty() {
		return &checked{vs: sortedViolations(e, &vs)}
	}
	if access, _ := ctx.Value(entityAccessKey{}).(bool); access && e.tool.Access != nil {
		// As a run: the tool's access method decides on the loaded inputs.
		if ch := r.checkAccess(ctx, e, in); ch != nil {
			return ch
		}
	}
	if cursor := in.String(CursorInput); cursor != "" && e.paged {
		if _, ok := r.openCursor(c.Account, e, in, cursor); !ok {
			return &checked{vs: []Violation{newViolation(Violation{Path: CursorInput, Rule: RuleCursorInvalid})}}
		}
	}
	c.Inputs = in
	b, err := json.Marshal(in.canonical(false))
	if err != nil {
		return &checked{err: fmt.Errorf("encoding the arguments: %w", err)}
	}
	return &checked{canonical: b}
}

// checkAccess asks e's access method about in, as a run does, and returns
// what the check found when it refuses: the run's access failure, its
// input failure, or an error for the log; nil when it allows.
func (r *Registry) checkAccess(ctx context.Context, e *entry, in *Values) *checked {
	t := e.tool
	ok, err := t.Access(ctx, in)
	if err != nil {
		err = r.mapErr(err)
		var ie *InputError
		if errors.As(err, &ie) {
			return &checked{vs: []Violation{{Path: ie.Input, Rule: RuleHandler, Message: ie.Message}}}
		}
		if res := refusal(t, err); res != nil {
			return &checked{refusal: res}
		}
		return &checked{err: fmt.Errorf("access check failed: %w", err)}
	}
	if !ok {
		return &checked{refusal: accessFailure("You may not run " + t.label() + " with these inputs.")}
	}
	return nil
}
