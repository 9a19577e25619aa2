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
	// Decoded, when middleware sets it, is called once the inputs are
	// decoded and validated (Inputs is set), before entities are loaded,
	// access is checked and the tool runs. A non-nil Result ends the run
	// with it. Middleware that sets it calls the one it found there.
	Decoded func(ctx context.Context, c *Call) *Result

	e    *entry
	args arguments
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
// RunJSON and the callers built on them); the first added is the
// outermost. A panic in middleware fails the run as a runtime failure,
// logged.
func (r *Registry) Use(mw ...Middleware) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.middleware = append(r.middleware, mw...)
	var h RunFunc = func(ctx context.Context, c *Call) *Result { return r.run(ctx, c.e, c.args, c) }
	for i := len(r.middleware) - 1; i >= 0; i-- {
		h = r.middleware[i](h)
	}
	r.chain.Store(&h)
}
