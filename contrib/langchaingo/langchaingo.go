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
//
// langchaingo has no way to pause a run either, so with [Options.Tasks] a
// tool that runs as a task is waited for: its call starts the task and
// returns the task's outcome when it ends, asking how it stands every poll
// interval. When the call's context ends first, or the task waits for a
// person's answer, the call returns the task's handle instead, and the
// model follows the task with the tools tasks_get and tasks_cancel, which
// are then offered too.
package toollangchaingo

import (
	"context"
	"encoding/json"
	"strings"
	"time"

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
	// Tasks runs the tools that may run as tasks as background tasks
	// (see funcall.Toolset.WithTasks; functask.New makes one of a task
	// Manager), which a call waits for. Nil runs every call in the
	// request.
	Tasks funcall.Tasks
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
		t.set = t.set.WithConfirmer(opts.Confirmer).WithTasks(opts.Tasks)
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
// object and returns the JSON of its [funcall.Response]. A call that
// starts a task waits for the task's outcome (see [Options.Tasks]).
func (t *Tools) Call(ctx context.Context, name, arguments string) string {
	r := t.set.Dispatch(ctx, name, []byte(arguments))
	if name != funcall.TasksGet && name != funcall.TasksCancel {
		r = t.wait(ctx, r)
	}
	b, err := json.Marshal(r)
	if err != nil {
		return `{"success":false,"message":"The result could not be encoded.","error_type":"execution_failed"}`
	}
	return string(b)
}

// wait follows the task r started, if any, until it ends or waits for an
// answer, and returns its last response; when ctx ends first, the last
// response, whose handle tells the model how to follow the task.
func (t *Tools) wait(ctx context.Context, r *funcall.Response) *funcall.Response {
	for r.Task != nil && r.Task.Status == funcall.TaskWorking {
		timer := time.NewTimer(time.Duration(r.Task.PollIntervalSeconds * float64(time.Second)))
		select {
		case <-ctx.Done():
			timer.Stop()
			return r
		case <-timer.C:
		}
		args, err := json.Marshal(map[string]string{"task_id": r.Task.ID})
		if err != nil {
			return r
		}
		next := t.set.Dispatch(ctx, funcall.TasksGet, args)
		if next.Task == nil {
			return r // the task cannot be read now: the model can ask again
		}
		r = next
	}
	return r
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
