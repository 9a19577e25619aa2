// Package toolgenkit offers the tools of a [tool.Registry] to Firebase
// Genkit (github.com/firebase/genkit/go) as its tools, for Generate and
// prompts.
//
//	set := toolgenkit.New(reg, account, nil)
//	resp, err := genkit.Generate(ctx, g, ai.WithModel(model),
//		ai.WithPrompt("Shout hello."), ai.WithTools(set.Refs()...))
//
// The tools are those the account may run, under the names
// [tool.Registry.Name] gives them, each declared with its input schema.
// Every call runs through the registry's run path for that account
// (permission, validation, access checks, confirmation) and its output is
// a [Result]: {"success","message","outputs"}, and on a failure
// "error_type" and, when the input was wrong, "violations" and
// "input_schema", so that the model can correct it and call again. A
// failure is an output, not an error: an error from a tool ends Generate,
// while the model can read an output and try again. Error text from inside
// a tool never reaches the model.
//
// Genkit itself checks a tool's input against its declared schema before
// the tool runs, and a call that fails that check ends Generate with an
// error ("data did not match expected schema"); what the schema cannot say
// (an entity that does not exist, a rule a tool checks itself) reaches the
// model as an input failure it can correct. Genkit infers the output
// schema a tool declares from its Go output type, so the tools declare
// that of [Result]. Genkit likewise ends Generate with a
// NOT_FOUND error when a model calls a tool it was not given, such as one
// the account may not run.
//
// A tool marked Confirm interrupts Generate (a Genkit tool interrupt whose
// metadata is a [Confirmation]), so that a person can decide: the response
// finishes as interrupted, and its Interrupts() go back through
// [Tools.Confirm] or [Tools.Decline] into ai.WithToolRestarts on the next
// Generate. [Options.Confirmer] decides in place of a person instead.
package toolgenkit

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/firebase/genkit/go/ai"

	"github.com/toolapi/toolapi/funcall"
	"github.com/toolapi/toolapi/tool"
)

// Options configure [New]. The zero value is the default.
type Options struct {
	// Confirmer confirms each run of a tool marked Confirm, as a person
	// would. Nil means such a run interrupts Generate so that a person
	// confirms it.
	Confirmer tool.Confirmer
}

// Tools are the tools of a registry that one account may run, as Genkit
// tools. They are safe for concurrent use.
type Tools struct {
	set       *funcall.Toolset
	confirmer tool.Confirmer
	tools     []ai.Tool
	byName    map[string]ai.Tool
}

// A Result is the output of a tool: the outcome of its run.
type Result struct {
	// Success reports whether the tool ran and succeeded.
	Success bool `json:"success"`
	// Message is a sentence about the outcome.
	Message string `json:"message"`
	// Outputs holds the tool's outputs by name on success; it is left out
	// when the tool has none, and on failure.
	Outputs map[string]any `json:"outputs,omitempty"`
	// ErrorType is set on failure: tool_not_found, invalid_input,
	// access_denied or execution_failed.
	ErrorType string `json:"error_type,omitempty"`
	// Violations lists what was wrong with the input of an invalid_input
	// failure.
	Violations []tool.Violation `json:"violations,omitempty"`
	// InputSchema is the tool's input schema, on an invalid_input failure.
	InputSchema map[string]any `json:"input_schema,omitempty"`
}

// A Confirmation is the metadata of the interrupt by which a tool marked
// Confirm asks a person to confirm a run (ai.InterruptAs[Confirmation]
// reads it from an interrupted part).
type Confirmation struct {
	// Tool is the name the model called the tool by.
	Tool string `json:"tool"`
	// Label is the tool's label ("Launch").
	Label string `json:"label"`
	// Input is the input of the call.
	Input any `json:"input"`
}

// confirmedKey is the key of the person's answer in the resumed metadata.
const confirmedKey = "confirmed"

// New returns the tools of reg that acct may run (a nil acct is
// [tool.Anonymous]). opts may be nil.
func New(reg *tool.Registry, acct tool.Account, opts *Options) *Tools {
	t := &Tools{set: funcall.New(reg, acct), byName: map[string]ai.Tool{}}
	if opts != nil {
		t.confirmer = opts.Confirmer
	}
	for _, d := range t.set.Anthropic() { // name, description and a copy of the input schema
		var label string
		var confirm bool
		if tt, ok := reg.ToolByName(d.Name); ok {
			label, confirm = tt.Label, tt.Confirm
		}
		at := ai.NewTool(d.Name, d.Description, t.run(d.Name, label, confirm), ai.WithInputSchema(schemaMap(d.InputSchema)))
		t.tools = append(t.tools, at)
		t.byName[d.Name] = at
	}
	return t
}

// Tools returns the tools, in ID order.
func (t *Tools) Tools() []ai.Tool { return t.tools }

// Refs returns the tools as references for ai.WithTools, in ID order.
func (t *Tools) Refs() []ai.ToolRef {
	out := make([]ai.ToolRef, len(t.tools))
	for i, at := range t.tools {
		out[i] = at
	}
	return out
}

// Confirm returns the part that restarts an interrupted call (one of a
// response's Interrupts()) so that the tool runs: pass it to
// ai.WithToolRestarts. It returns nil when p is not a call of these tools.
func (t *Tools) Confirm(p *ai.Part) *ai.Part { return t.restart(p, true) }

// Decline returns the part that restarts an interrupted call so that the
// tool answers that it was not confirmed and did not run: pass it to
// ai.WithToolRestarts. It returns nil when p is not a call of these tools.
func (t *Tools) Decline(p *ai.Part) *ai.Part { return t.restart(p, false) }

func (t *Tools) restart(p *ai.Part, confirmed bool) *ai.Part {
	if p == nil || p.ToolRequest == nil {
		return nil
	}
	at, ok := t.byName[p.ToolRequest.Name]
	if !ok {
		return nil
	}
	return at.Restart(p, &ai.RestartOptions{ResumedMetadata: map[string]any{confirmedKey: confirmed}})
}

// run returns the function of the tool known as name.
func (t *Tools) run(name, label string, confirm bool) ai.ToolFunc[any, *Result] {
	return func(tc *ai.ToolContext, input any) (*Result, error) {
		ctx := tc.Context
		c := t.confirmer
		if confirm && c == nil {
			if !tc.IsResumed() {
				return nil, ai.InterruptWith(tc, Confirmation{Tool: name, Label: label, Input: input})
			}
			ok, _ := ai.ResumedValue[bool](tc, confirmedKey)
			c = answer(ok)
		}
		if c != nil {
			ctx = tool.WithConfirmer(ctx, c)
		}
		args, err := json.Marshal(input)
		if err != nil {
			return nil, fmt.Errorf("tool %s: input not JSON: %w", name, err)
		}
		resp := t.set.Dispatch(ctx, name, args)
		r := &Result{Success: resp.Success, Message: resp.Message, ErrorType: resp.ErrorType, Violations: resp.Violations}
		if resp.Success {
			r.Outputs = resp.Outputs
		}
		if resp.InputSchema != nil {
			r.InputSchema = schemaMap(resp.InputSchema)
		}
		return r, nil
	}
}

// answer is a person's answer to a confirmation.
type answer bool

func (a answer) Confirm(ctx context.Context, _ *tool.Tool, _ *tool.Values) (bool, error) {
	return bool(a), nil
}

// schemaMap returns a JSON Schema as the map Genkit declares schemas with.
func schemaMap(s any) map[string]any {
	m := map[string]any{"type": "object"}
	if b, err := json.Marshal(s); err == nil {
		var d map[string]any
		if json.Unmarshal(b, &d) == nil && d != nil {
			m = d
		}
	}
	return m
}
