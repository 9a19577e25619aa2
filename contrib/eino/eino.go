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
//
// With [Options.Tasks], a tool that runs as a task is waited for: its call
// starts the task and returns the task's outcome when it ends, asking how
// it stands every poll interval. When the task waits for a person's answer
// (status input_required), or is still working when [Options.TaskWait]
// has passed, the call interrupts the run (tool.StatefulInterrupt) with a
// [*TaskPending] as its info and the task's ID as its state, so that the
// run pauses instead of holding a model turn; as for a confirmation, run
// with a checkpoint store to resume it. The answer itself is given
// where the task lives (the Tool Explorer, an MCP client), not through
// eino. Resume the interrupt's ID (compose.Resume or
// compose.ResumeWithData with any data, adk.Runner.ResumeWithParams) once
// the task has moved on: the tool asks how the task stands, waits again,
// and answers with its outcome, or interrupts once more while it still
// has not ended. A call whose context ends while it waits returns the
// task's handle, and the model follows the task with the tools tasks_get
// and tasks_cancel, which are then offered too.
package tooleino

import (
	"context"
	"encoding/json"
	"time"

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
	// Tasks runs the tools that may run as tasks as background tasks
	// (see funcall.Toolset.WithTasks; functask.New makes one of a task
	// Manager), which a call waits for. Nil runs every call in the
	// request.
	Tasks funcall.Tasks
	// TaskWait is how long a call waits for its task to end before it
	// interrupts the run with a [*TaskPending]. Zero means
	// [DefaultTaskWait]; a negative value interrupts as soon as the task
	// has been started, unless it has already ended.
	TaskWait time.Duration
}

// DefaultTaskWait is how long a call waits for its task when
// [Options.TaskWait] is zero.
const DefaultTaskWait = 30 * time.Second

// Tools are the tools of a registry that one account may run, as eino
// tools. They are safe for concurrent use.
type Tools struct {
	set      *funcall.Toolset
	tools    []*Tool
	taskWait time.Duration
}

// New returns the tools of reg that acct may run (a nil acct is
// [toolapi.Anonymous]). opts may be nil.
func New(reg *toolapi.Registry, acct toolapi.Account, opts *Options) *Tools {
	t := &Tools{set: funcall.New(reg, acct), taskWait: DefaultTaskWait}
	if opts != nil {
		t.set = t.set.WithConfirmer(opts.Confirmer).WithTasks(opts.Tasks)
		switch {
		case opts.TaskWait < 0:
			t.taskWait = 0
		case opts.TaskWait > 0:
			t.taskWait = opts.TaskWait
		}
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
func init() {
	schema.RegisterName[*Confirmation](ConfirmationName)
	schema.RegisterName[*TaskPending](TaskPendingName)
}

// A TaskPending is the info of the interrupt by which a call pauses the
// run while its task has not ended (see [Options.Tasks]).
//
// A checkpoint store saves it with the interrupted run, under the name
// TaskPendingName.
type TaskPending struct {
	// Tool is the name the model called the tool by.
	Tool string
	// TaskID is the task's ID, the "task_id" of tasks_get and tasks_cancel.
	TaskID string
	// Status is input_required, when the task waits for a person's
	// answer, or working.
	Status string
	// Question is what a task whose status is input_required asks.
	Question string
	// Message says how the task stands, for a person.
	Message string
}

// TaskPendingName is the name under which checkpoints hold a
// [*TaskPending]. It never changes.
const TaskPendingName = "toolapi/tooleino.TaskPending"

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
// tool that needs confirmation or whose task has not ended.
func (t *Tool) InvokableRun(ctx context.Context, arguments string, opts ...tool.Option) (string, error) {
	set := t.tools.set
	if _, hasState, id := tool.GetInterruptState[string](ctx); hasState {
		// The run paused on this call's task: follow the task again, or,
		// when another interrupt is being resumed, only look at it once.
		wait := t.tools.taskWait
		if target, _, _ := tool.GetResumeContext[any](ctx); !target {
			wait = 0
		}
		return t.follow(ctx, t.tools.get(ctx, id), wait)
	}
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
	r := set.Dispatch(ctx, t.info.Name, []byte(arguments))
	if t.info.Name == funcall.TasksGet || t.info.Name == funcall.TasksCancel {
		return encode(r), nil
	}
	return t.follow(ctx, r, t.tools.taskWait)
}

// follow waits up to wait for the task r started or told of, if any, and
// returns its outcome, or interrupts the run while the task has not
// ended; when ctx ends first, it returns the last response, the task's
// handle.
func (t *Tool) follow(ctx context.Context, r *funcall.Response, wait time.Duration) (string, error) {
	if r.Task == nil {
		return encode(r), nil
	}
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	for r.Task != nil && r.Task.Status == funcall.TaskWorking {
		if wait <= 0 {
			return "", t.pause(ctx, r)
		}
		timer := time.NewTimer(time.Duration(r.Task.PollIntervalSeconds * float64(time.Second)))
		select {
		case <-ctx.Done():
			timer.Stop()
			return encode(r), nil
		case <-deadline.C:
			timer.Stop()
			return "", t.pause(ctx, r)
		case <-timer.C:
		}
		next := t.tools.get(ctx, r.Task.ID)
		if next.Task == nil {
			return encode(r), nil // the task cannot be read now: the model can ask again
		}
		r = next
	}
	if r.Task != nil && r.Task.Status == funcall.TaskInputRequired {
		return "", t.pause(ctx, r)
	}
	return encode(r), nil
}

// pause interrupts the run on the task of r, which has not ended.
func (t *Tool) pause(ctx context.Context, r *funcall.Response) error {
	info := &TaskPending{Tool: t.info.Name, TaskID: r.Task.ID, Status: r.Task.Status, Question: r.Task.Question, Message: r.Message}
	return tool.StatefulInterrupt(ctx, info, r.Task.ID)
}

// get asks how the task id stands, as tasks_get does.
func (t *Tools) get(ctx context.Context, id string) *funcall.Response {
	args, _ := json.Marshal(map[string]string{"task_id": id}) // a string: no error
	return t.set.Dispatch(ctx, funcall.TasksGet, args)
}

func encode(resp *funcall.Response) string {
	b, err := json.Marshal(resp)
	if err != nil {
		return `{"success":false,"message":"The result could not be encoded.","error_type":"execution_failed"}`
	}
	return string(b)
}
