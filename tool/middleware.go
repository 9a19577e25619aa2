package tool

import (
	"context"
	"encoding/json"
)

// A Call is one run of a tool as middleware sees it.
type Call struct {
	// Tool is the tool being run.
	Tool *Tool
	// Account is the account the run is for (see [AccountFrom]); never nil
	// ([Anonymous] when the context carries none).
	Account Account
	// Inputs holds the decoded inputs, set by the run path once they are
	// decoded and validated: nil before, and when decoding failed.
	Inputs *Values
	// Check is true when the call only checks its inputs ([Registry.Validate]):
	// the run path decodes and validates them and loads the entities they
	// name, in the context the middleware passes on, and runs no access
	// check, confirmation or handler. Middleware that sets up what entity
	// types and handlers need (a tenant, a transaction) does so for checks
	// too; middleware that records or charges runs (an audit trail, a rate
	// limit, telemetry) passes a check to next untouched.
	Check bool

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
}

// InputsJSON returns the canonical JSON of the decoded inputs the caller
// set, with sensitive inputs (see [Definition.Sensitive]) left out: an
// object in the form [Registry.RunJSON] accepts. Entities are given by
// their IDs. It returns nil when Inputs is nil.
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

// A Middleware wraps every run of a registry's tools: it returns a RunFunc
// that may act before and after calling next (which runs the rest of the
// chain and then the run path), or return a Result of its own without
// calling next. It sees every outcome, refusals included.
type Middleware func(next RunFunc) RunFunc

// Use adds middleware around every run of r, from every caller (Run,
// RunJSON and the callers built on them), and around every check of
// inputs ([Registry.Validate], with [Call.Check] set); the first added is
// the outermost. A panic in middleware fails the run as a runtime failure,
// logged.
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
