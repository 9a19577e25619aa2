// Package tooleino offers the tools of a [tool.Registry] to CloudWeGo's eino
// (github.com/cloudwego/eino) as its invokable tools, for a ToolsNode, a
// react agent or an adk agent.
//
//	set := tooleino.New(reg, account, nil)
//	agent, err := react.NewAgent(ctx, &react.AgentConfig{
//		ToolCallingModel: chatModel,
//		ToolsConfig: compose.ToolsNodeConfig{
//			Tools:               set.Tools(),
//			UnknownToolsHandler: set.UnknownTool,
//		},
//	})
//
// The tools are those the account may run, under the names
// [toolapi.NameOf] gives them, each with its input schema
// (schema.NewParamsOneOfByJSONSchema). Every call runs through the
// registry's run path for that account (permission, validation, access
// checks, confirmation) and answers with the JSON of a [funcall.Response]:
// {"success","message","outputs"}, and on a failure "error_type" and, when
// the arguments were wrong, "violations" and "input_schema", so that the
// model can correct them and call again. A failure is an answer, not an
// error: an error from a tool stops an eino graph, while the model can
// read an answer and try again. Error text from inside a tool never
// reaches the model. [Tools.UnknownTool] answers a call of a tool the
// account may not run, or that does not exist, the same way.
//
// A tool marked Confirm interrupts the run (tool.Interrupt) with a
// [*Confirmation] as its info, so that a person can decide; the value of a
// sensitive input is never in it. Run with a checkpoint store (a graph
// compiled with compose.WithCheckPointStore; for a react agent, its
// exported graph compiled so; for adk, adk.RunnerConfig.CheckPointStore),
// and resume with the person's answer for the interrupt's ID: true runs
// the tool, false refuses it (compose.ResumeWithData, or
// adk.Runner.ResumeWithParams). [Options.Confirmer] decides in place of a
// person instead.
package tooleino

import (
	"context"
	"encoding/json"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"
	"github.com/eino-contrib/jsonschema"

	"github.com/toolapi/toolapi/funcall"
	toolapi "github.com/toolapi/toolapi/tool"
)

// Options configure [New]. The zero value is the default.
type Options struct {
	// Confirmer confirms each run of a tool marked Confirm, as a person
	// would. Nil means such a run interrupts the graph so that a person
	// confirms it (see [Confirmation]).
	Confirmer toolapi.Confirmer
}

// Tools are the tools of a registry that one account may run, as eino
// tools. They are safe for concurrent use.
type Tools struct {
	set   *funcall.Toolset
	tools []*Tool
}

// New returns the tools of reg that acct may run (a nil acct is
// [toolapi.Anonymous]). opts may be nil.
func New(reg *toolapi.Registry, acct toolapi.Account, opts *Options) *Tools {
	t := &Tools{set: funcall.New(reg, acct)}
	if opts != nil {
		t.set = t.set.WithConfirmer(opts.Confirmer)
	}
	decls, _ := t.set.Declarations(funcall.Anthropic)   // a known format: no error
	for _, d := range decls.([]funcall.AnthropicTool) { // name, description and a copy of the input schema
		tt := &Tool{tools: t, info: &schema.ToolInfo{Name: d.Name, Desc: d.Description}}
		if b, err := json.Marshal(d.InputSchema); err == nil {
			var s jsonschema.Schema
			if json.Unmarshal(b, &s) == nil {
				tt.info.ParamsOneOf = schema.NewParamsOneOfByJSONSchema(&s)
			}
		}
		t.tools = append(t.tools, tt)
	}
	return t
}

// Tools returns the tools as eino tools, in ID order.
func (t *Tools) Tools() []tool.BaseTool {
	out := make([]tool.BaseTool, len(t.tools))
	for i, tt := range t.tools {
		out[i] = tt
	}
	return out
}

// UnknownTool answers a call of a tool that is not among the tools (one
// the account may not run, or none at all) with a tool_not_found
// response; it fits compose.ToolsNodeConfig.UnknownToolsHandler.
func (t *Tools) UnknownTool(ctx context.Context, name, input string) (string, error) {
	return encode(&funcall.Response{Message: "There is no tool named " + name + ".", ErrorType: funcall.ToolNotFound}), nil
}

// A Confirmation is the info of the interrupt by which a tool marked
// Confirm asks a person to confirm a run. It never holds the value of a
// sensitive input: [funcall.Hidden] stands in its place.
//
// A checkpoint store saves it with the interrupted run, under the name
// ConfirmationName (eino's schema.RegisterName, done when the package is
// loaded).
type Confirmation struct {
	// Tool is the name the model called the tool by.
	Tool string
	// Label is the tool's label ("Launch").
	Label string
	// Arguments are the arguments of the call, a JSON object, with the
	// value of each sensitive input hidden; empty when the model sent none
	// or sent something other than an object.
	Arguments string
	// Message is the question to ask the person:
	// `Run Launch (rocket.launch) with {"to":"moon"}?`.
	Message string
}

// ConfirmationName is the name under which checkpoints hold a
// [*Confirmation]. It never changes, so that a checkpoint saved by one
// version of this package resumes under another.
const ConfirmationName = "toolapi/tooleino.Confirmation"

// eino saves an interrupt's info in checkpoints with encoding/gob, which
// must know the info's type by name before it is encoded or decoded; the
// registration is eino's own, global, and made once.
func init() { schema.RegisterName[*Confirmation](ConfirmationName) }

// A Tool is one tool of a [Tools] as an eino tool.InvokableTool.
type Tool struct {
	tools *Tools
	info  *schema.ToolInfo
}

var _ tool.InvokableTool = (*Tool)(nil)

// Info returns the tool's name, description and input schema.
func (t *Tool) Info(ctx context.Context) (*schema.ToolInfo, error) { return t.info, nil }

// InvokableRun runs the tool with its JSON arguments and returns the JSON
// of its [funcall.Response]. The error is nil but for the interrupt of a
// tool that needs confirmation.
func (t *Tool) InvokableRun(ctx context.Context, arguments string, opts ...tool.Option) (string, error) {
	set := t.tools.set
	if set.Confirmer() == nil {
		if c := set.Confirmation(t.info.Name, []byte(arguments)); c != nil {
			info := &Confirmation{Tool: c.Tool, Label: c.Label, Arguments: string(c.Arguments), Message: c.Message}
			if interrupted, _, _ := tool.GetInterruptState[any](ctx); !interrupted {
				return "", tool.Interrupt(ctx, info)
			}
			target, hasData, yes := tool.GetResumeContext[bool](ctx)
			if !target {
				return "", tool.Interrupt(ctx, info) // another interrupt is being resumed
			}
			set = set.WithConfirmer(funcall.Answer(hasData && yes))
		}
	}
	return encode(set.Dispatch(ctx, t.info.Name, []byte(arguments))), nil
}

func encode(resp *funcall.Response) string {
	b, err := json.Marshal(resp)
	if err != nil {
		return `{"success":false,"message":"The result could not be encoded.","error_type":"execution_failed"}`
	}
	return string(b)
}
