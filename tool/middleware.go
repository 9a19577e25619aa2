package tool

import (
	"context"
	"encoding/json"
)

// A Call is one run (or check) of a tool as middleware sees it.
type Call struct {
	// Tool is the tool being run.
	Tool *Tool
	// Account is the account the run is for; never nil.
	Account Account
	// Inputs holds the inputs once decoded and valid; nil until then.
	Inputs *Values
	// Decoded, when set, is called once Inputs is set, before entities and
	// access; a non-nil Result ends the run. It calls the one it replaced.
	Decoded func(ctx context.Context, c *Call) *Result
	// Check is true for [Registry.Validate]: middleware that records or
	// charges runs lets it pass untouched.
	Check bool
	// Replayed is set by middleware that answers the call with the
	// outcome an earlier run kept, instead of running it (package
	// idempotency does, for a repeated key): middleware around it that
	// records runs marks the record so.
	Replayed bool

	e       *entry
	args    arguments
	checked *checked // what a check found; nil until the run path checks
}

// checked is what checking a call's inputs found: the canonical JSON of
// the arguments, or the violations, or the error of a failed lookup.
type checked struct {
	canonical json.RawMessage
	vs        []Violation
	err       error
	refusal   *Result // an entity the account may not use (see WithEntityAccess)
}

// InputsJSON returns the canonical JSON of the inputs the caller set, except
// the sensitive ones; nil when Inputs is nil.
func (c *Call) InputsJSON() []byte {
	if c.Inputs == nil {
		return nil
	}
	b, err := json.Marshal(c.Inputs.canonical(true))
	if err != nil {
		return nil
	}
	return b
}

// A RunFunc runs a tool: the run path, or middleware around it.
type RunFunc func(ctx context.Context, c *Call) *Result

// A Middleware wraps every run: it may act around next or answer itself.
type Middleware func(next RunFunc) RunFunc

// Use adds middleware around every run and check of r; the first added is
// the outermost. A panic in middleware fails the run, logged.
func (r *Registry) Use(mw ...Middleware) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.middleware = append(r.middleware, mw...)
	var h RunFunc = r.path
	for i := len(r.middleware) - 1; i >= 0; i-- {
		h = r.middleware[i](h)
	}
	r.chain.Store(&h)
}

// path is the innermost RunFunc: the run path, or the check of a call's
// inputs.
func (r *Registry) path(ctx context.Context, c *Call) *Result {
	if c.Check {
		return r.check(ctx, c)
	}
	return r.run(ctx, c.e, c.args, c)
}
