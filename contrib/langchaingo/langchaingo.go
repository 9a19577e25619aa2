// Package toollangchaingo offers the tools of a [tool.Registry] to
// langchaingo (github.com/tmc/langchaingo): as its tools.Tool, for its
// agents and their executor, and as its function definitions, for a model
// called directly with llms.WithFunctions or llms.WithTools.
//
//	set := toollangchaingo.New(reg, account, nil)
//	agent := agents.NewOpenAIFunctionsAgent(llm, set.Tools())
//	answer, err := chains.Run(ctx, agents.NewExecutor(agent), "Shout hello.")
//
// The tools are those the account may run, under the names
// [tool.NameOf] gives them. Every call runs through the registry's
// run path for that account (permission, validation, access checks,
// confirmation) and answers with the JSON of a [funcall.Response]:
// {"success","message","outputs"}, and on a failure "error_type" and, when
// the input was wrong, "violations" and "input_schema", so that the model
// can correct it and call again. A failure is an answer, not an error: an
// error from a tool stops langchaingo's executor, while the model can read
// an answer and try again. Error text from inside a tool never reaches the
// model.
//
// A tool's input is its arguments as a JSON object. langchaingo's agents
// declare every tool with one string argument, so each [Tool]'s
// description ends with its input schema; the function definitions of
// [Tools.Functions] carry the schemas themselves.
//
// langchaingo has no way to ask a person to approve a call: a tool marked
// Confirm runs only when [Options.Confirmer] confirms it, and is refused
// with a message saying so when there is none.
package toollangchaingo

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"

	"github.com/toolapi/toolapi/funcall"
	"github.com/toolapi/toolapi/tool"
)

// Options configure [New]. The zero value is the default.
type Options struct {
	// Confirmer confirms each run of a tool marked Confirm, as a person
	// would. Nil means such runs are refused as access failures whose
	// message says that a person must confirm them.
	Confirmer tool.Confirmer
}

// Tools are the tools of a registry that one account may run, in
// langchaingo's types. They are safe for concurrent use.
type Tools struct {
	set   *funcall.Toolset
	decls []funcall.AnthropicTool
}

// New returns the tools of reg that acct may run (a nil acct is
// [tool.Anonymous]). opts may be nil.
func New(reg *tool.Registry, acct tool.Account, opts *Options) *Tools {
	t := &Tools{set: funcall.New(reg, acct)}
	if opts != nil {
		t.set = t.set.WithConfirmer(opts.Confirmer)
	}
	decls, _ := t.set.Declarations(funcall.Anthropic) // a known format: no error
	t.decls = decls.([]funcall.AnthropicTool)         // name, description and input schema of each
	return t
}

// Tools returns the tools as langchaingo tools, in ID order.
func (t *Tools) Tools() []tools.Tool {
	out := make([]tools.Tool, 0, len(t.decls))
	for _, d := range t.decls {
		schema, _ := json.Marshal(d.InputSchema)
		out = append(out, &Tool{
			tools:       t,
			name:        d.Name,
			description: strings.TrimSpace(d.Description) + "\nInput: a JSON object matching this JSON Schema: " + string(schema),
		})
	}
	return out
}

// Functions returns the function definitions of the tools, with their
// input schemas, in ID order (for llms.WithFunctions).
func (t *Tools) Functions() []llms.FunctionDefinition {
	out := make([]llms.FunctionDefinition, 0, len(t.decls))
	for _, d := range t.decls {
		out = append(out, llms.FunctionDefinition{Name: d.Name, Description: d.Description, Parameters: d.InputSchema})
	}
	return out
}

// Definitions returns the tools as llms.Tool values of type function, in
// ID order (for llms.WithTools).
func (t *Tools) Definitions() []llms.Tool {
	fs := t.Functions()
	out := make([]llms.Tool, len(fs))
	for i := range fs {
		out[i] = llms.Tool{Type: "function", Function: &fs[i]}
	}
	return out
}

// Call runs the tool a model called by name with its arguments as a JSON
// object and returns the JSON of its [funcall.Response].
func (t *Tools) Call(ctx context.Context, name, arguments string) string {
	b, err := json.Marshal(t.set.Dispatch(ctx, name, []byte(arguments)))
	if err != nil {
		return `{"success":false,"message":"The result could not be encoded.","error_type":"execution_failed"}`
	}
	return string(b)
}

// A Tool is one tool of a [Tools] as a langchaingo tools.Tool.
type Tool struct {
	tools       *Tools
	name        string
	description string
}

var _ tools.Tool = (*Tool)(nil)

// Name returns the tool's name.
func (t *Tool) Name() string { return t.name }

// Description returns what the tool does, followed by its input schema.
func (t *Tool) Description() string { return t.description }

// Call runs the tool with input, its arguments as a JSON object, and
// returns the JSON of its [funcall.Response]. A failed run is an answer
// too: the returned error is always nil.
func (t *Tool) Call(ctx context.Context, input string) (string, error) {
	return t.tools.Call(ctx, t.name, input), nil
}
