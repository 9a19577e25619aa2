// Package toolgenkit offers the tools of a [tool.Registry] to Firebase
// Genkit (github.com/firebase/genkit/go) as its tools, for Generate and
// prompts.
//
//	set := toolgenkit.New(reg, account, nil)
//	resp, err := genkit.Generate(ctx, g, ai.WithModel(model),
//		ai.WithPrompt("Shout hello."),
//		ai.WithTools(set.Refs()...), ai.WithMiddleware(set.Middleware()))
//
// The tools are those the account may run, under the names
// [tool.NameOf] gives them, each declared with its input schema and
// an output schema: that of a [Result] whose "outputs" is the tool's own
// output schema. Every call runs through the registry's run path for that
// account (permission, validation, access checks, confirmation) and its
// output is a [Result]: {"success","message","outputs"}, and on a failure
// "error_type" and, when the input was wrong, "violations" and
// "input_schema", so that the model can correct it and call again. A
// failure is an output, not an error: an error from a tool ends Generate,
// while the model can read an output and try again. Error text from inside
// a tool never reaches the model.
//
// Genkit checks a tool's input against the schema of its action before the
// tool runs, and ends Generate when the check fails; so these tools'
// actions declare the input schema to the model but leave the check to the
// registry, whose violations reach the model as an invalid_input output.
//
// Genkit ends Generate with a NOT_FOUND error when a model calls a tool it
// was not given, such as one the account may not run. [Tools.Middleware]
// turns such a call into a tool_not_found output the model reads ("There
// is no tool named vault__secret."), and Generate goes on.
//
// A tool marked Confirm interrupts Generate (a Genkit tool interrupt whose
// metadata is a [Confirmation]), so that a person can decide: the response
// finishes as interrupted, and its Interrupts() go back through
// [Tools.Confirm] or [Tools.Decline] into ai.WithToolRestarts on the next
// Generate, with the messages of the response's History(). The value of a
// sensitive input is never in the metadata. [Options.Confirmer] decides in
// place of a person instead.
//
// With [Options.Tasks], a tool that runs as a task is waited for: its call
// starts the task and its output is the task's outcome when it ends, with
// the task's handle under "task", asking how it stands every poll
// interval. When the task waits for a person's answer (status
// input_required), or is still working when [Options.TaskWait] has
// passed, the call interrupts Generate (a Genkit tool interrupt whose
// metadata is a [TaskPending]), so that the response finishes as
// interrupted instead of holding the model's turn. The answer itself is
// given where the task lives (the Tool Explorer, an MCP client), not
// through Genkit. Once the task has moved on, [Tools.Resume] makes of the
// interrupt the part for ai.WithToolRestarts: the restarted call asks how
// the same task stands, waits again, and gives its outcome, or interrupts
// once more while it still has not ended. A call whose context ends while
// it waits outputs the task's handle, and the model follows the task with
// the tools tasks_get and tasks_cancel, which are then offered too.
package toolgenkit

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/core"
	"github.com/firebase/genkit/go/core/api"

	"github.com/toolapi/toolapi/funcall"
	"github.com/toolapi/toolapi/tool"
)

// Options configure [New]. The zero value is the default.
type Options struct {
	// Confirmer confirms each run of a tool marked Confirm, as a person
	// would. Nil means such a run interrupts Generate so that a person
	// confirms it.
	Confirmer tool.Confirmer
	// Tasks runs the tools that may run as tasks as background tasks
	// (see funcall.Toolset.WithTasks; functask.New makes one of a task
	// Manager), which a call waits for. Nil runs every call in the
	// request.
	Tasks funcall.Tasks
	// TaskWait is how long a call waits for its task to end before it
	// interrupts Generate with a [TaskPending]. Zero means
	// [DefaultTaskWait]; a negative value interrupts as soon as the task
	// has been started, unless it has already ended.
	TaskWait time.Duration
}

// DefaultTaskWait is how long a call waits for its task when
// [Options.TaskWait] is zero.
const DefaultTaskWait = 30 * time.Second

// Tools are the tools of a registry that one account may run, as Genkit
// tools. They are safe for concurrent use.
type Tools struct {
	set      *funcall.Toolset
	tools    []ai.Tool
	byName   map[string]*genkitTool
	taskWait time.Duration
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
	// Task is the task the call started or asked about, when it runs as
	// one (see [Options.Tasks]).
	Task *funcall.TaskHandle `json:"task,omitempty"`
}

// A Confirmation is the metadata of the interrupt by which a tool marked
// Confirm asks a person to confirm a run (ai.InterruptAs[Confirmation]
// reads it from an interrupted part). It never holds the value of a
// sensitive input: [funcall.Hidden] stands in its place.
type Confirmation struct {
	// Tool is the name the model called the tool by.
	Tool string `json:"tool"`
	// Label is the tool's label ("Launch").
	Label string `json:"label"`
	// Input is the input of the call, with the value of each sensitive
	// input hidden; nil when it is not a JSON object.
	Input any `json:"input"`
	// Message is the question to ask the person:
	// `Run Launch (rocket.launch) with {"to":"moon"}?`.
	Message string `json:"message"`
}

// confirmedKey is the key of the person's answer in the resumed metadata.
const confirmedKey = "confirmed"

// A TaskPending is the metadata of the interrupt by which a call pauses
// Generate while its task has not ended (ai.InterruptAs[TaskPending] reads
// it from an interrupted part; see [Options.Tasks]).
type TaskPending struct {
	// Tool is the name the model called the tool by.
	Tool string `json:"tool"`
	// TaskID is the task's ID, the "task_id" of tasks_get and tasks_cancel.
	TaskID string `json:"task_id"`
	// Status is input_required, when the task waits for a person's
	// answer, or working.
	Status string `json:"status"`
	// Question is what a task whose status is input_required asks.
	Question string `json:"question,omitempty"`
	// Message says how the task stands, for a person.
	Message string `json:"message"`
}

// taskKey is the key of the task's ID in the resumed metadata.
const taskKey = "task_id"

// New returns the tools of reg that acct may run (a nil acct is
// [tool.Anonymous]). opts may be nil.
func New(reg *tool.Registry, acct tool.Account, opts *Options) *Tools {
	t := &Tools{set: funcall.New(reg, acct), byName: map[string]*genkitTool{}, taskWait: DefaultTaskWait}
	if opts != nil {
		t.set = t.set.WithConfirmer(opts.Confirmer).WithTasks(opts.Tasks)
		switch {
		case opts.TaskWait < 0:
			t.taskWait = 0
		case opts.TaskWait > 0:
			t.taskWait = opts.TaskWait
		}
	}
	resultSchema := core.InferSchemaMap(Result{})
	decls, _ := t.set.Declarations(funcall.Anthropic)   // a known format: no error
	for _, d := range decls.([]funcall.AnthropicTool) { // name, description and a copy of the input schema
		var outputs map[string]any
		if tt, ok := reg.ToolByName(d.Name); ok {
			outputs = schemaMap(reg.OutputSchemaJSON(tt.ID))
		}
		gt := &genkitTool{
			ToolDef: ai.NewTool(d.Name, d.Description, t.run(d.Name)), // no input schema: Genkit does not check the input
			def: &ai.ToolDefinition{
				Name: d.Name, Description: d.Description,
				InputSchema:  schemaMap(d.InputSchema),
				OutputSchema: withOutputs(resultSchema, outputs),
				Metadata:     map[string]any{"multipart": false},
			},
		}
		t.tools = append(t.tools, gt)
		t.byName[d.Name] = gt
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
// ai.WithToolRestarts. It returns nil when p is not a call of these tools
// interrupted for a confirmation.
func (t *Tools) Confirm(p *ai.Part) *ai.Part { return t.restart(p, confirmedKey, true) }

// Decline returns the part that restarts an interrupted call so that the
// tool answers that it was not confirmed and did not run: pass it to
// ai.WithToolRestarts. It returns nil when p is not a call of these tools
// interrupted for a confirmation.
func (t *Tools) Decline(p *ai.Part) *ai.Part { return t.restart(p, confirmedKey, false) }

// Resume returns the part that restarts a call interrupted while its task
// had not ended (see [Options.Tasks]), so that it follows the same task
// to its outcome: pass it to ai.WithToolRestarts. It returns nil when p is
// not a call of these tools interrupted on its task.
func (t *Tools) Resume(p *ai.Part) *ai.Part {
	tp, ok := ai.InterruptAs[TaskPending](p)
	if !ok || tp.TaskID == "" {
		return nil
	}
	return t.restart(p, taskKey, tp.TaskID)
}

func (t *Tools) restart(p *ai.Part, key string, value any) *ai.Part {
	if p == nil || p.ToolRequest == nil {
		return nil
	}
	at, ok := t.byName[p.ToolRequest.Name]
	if !ok {
		return nil
	}
	if tp, ok := ai.InterruptAs[TaskPending](p); ok && tp.TaskID != "" && key != taskKey {
		return nil // not a confirmation
	}
	return at.Restart(p, &ai.RestartOptions{ResumedMetadata: map[string]any{key: value}})
}

// run returns the function of the tool known as name.
func (t *Tools) run(name string) ai.ToolFunc[any, *Result] {
	return func(tc *ai.ToolContext, input any) (*Result, error) {
		args, err := json.Marshal(input)
		if err != nil {
			return nil, fmt.Errorf("tool %s: input not JSON: %w", name, err)
		}
		set := t.set
		if id, ok := ai.ResumedValue[string](tc, taskKey); ok {
			// Generate paused on this call's task: follow the task again.
			return t.follow(tc, name, t.get(tc.Context, id))
		}
		if set.Confirmer() == nil {
			if c := set.Confirmation(name, args); c != nil {
				if !tc.IsResumed() {
					info := Confirmation{Tool: c.Tool, Label: c.Label, Message: c.Message}
					if c.Arguments != nil {
						json.Unmarshal(c.Arguments, &info.Input) // funcall's own JSON
					}
					return nil, ai.InterruptWith(tc, info)
				}
				yes, _ := ai.ResumedValue[bool](tc, confirmedKey)
				set = set.WithConfirmer(funcall.Answer(yes))
			}
		}
		resp := set.Dispatch(tc.Context, name, args)
		if name == funcall.TasksGet || name == funcall.TasksCancel {
			return result(resp), nil
		}
		return t.follow(tc, name, resp)
	}
}

// follow waits for the task r started or told of, if any, and returns its
// outcome, or interrupts Generate while the task has not ended; when the
// call's context ends first, it returns the last response, the task's
// handle.
func (t *Tools) follow(tc *ai.ToolContext, name string, r *funcall.Response) (*Result, error) {
	if r.Task == nil {
		return result(r), nil
	}
	deadline := time.NewTimer(t.taskWait)
	defer deadline.Stop()
	for r.Task != nil && r.Task.Status == funcall.TaskWorking {
		if t.taskWait <= 0 {
			return nil, pause(tc, name, r)
		}
		timer := time.NewTimer(time.Duration(r.Task.PollIntervalSeconds * float64(time.Second)))
		select {
		case <-tc.Done():
			timer.Stop()
			return result(r), nil
		case <-deadline.C:
			timer.Stop()
			return nil, pause(tc, name, r)
		case <-timer.C:
		}
		next := t.get(tc.Context, r.Task.ID)
		if next.Task == nil {
			return result(r), nil // the task cannot be read now: the model can ask again
		}
		r = next
	}
	if r.Task != nil && r.Task.Status == funcall.TaskInputRequired {
		return nil, pause(tc, name, r)
	}
	return result(r), nil
}

// pause interrupts Generate on the task of r, which has not ended.
func pause(tc *ai.ToolContext, name string, r *funcall.Response) error {
	return ai.InterruptWith(tc, TaskPending{Tool: name, TaskID: r.Task.ID, Status: r.Task.Status, Question: r.Task.Question, Message: r.Message})
}

// get asks how the task id stands, as tasks_get does.
func (t *Tools) get(ctx context.Context, id string) *funcall.Response {
	args, _ := json.Marshal(map[string]string{"task_id": id}) // a string: no error
	return t.set.Dispatch(ctx, funcall.TasksGet, args)
}

// result returns resp as a Result.
func result(resp *funcall.Response) *Result {
	r := &Result{Success: resp.Success, Message: resp.Message, ErrorType: resp.ErrorType, Violations: resp.Violations, Task: resp.Task}
	if resp.Success {
		r.Outputs = resp.Outputs
	}
	if resp.InputSchema != nil {
		r.InputSchema = schemaMap(resp.InputSchema)
	}
	return r
}

// A genkitTool is a Genkit tool whose action declares the tool's input
// schema to the model but does not check input against it: Genkit would
// end Generate on a failed check, while the registry's check answers the
// model with the violations.
type genkitTool struct {
	// ToolDef runs the tool; its action has no input schema.
	*ai.ToolDef[any, *Result]
	def *ai.ToolDefinition
}

// Definition returns the tool's definition for models, with its schemas.
func (g *genkitTool) Definition() *ai.ToolDefinition { return g.def }

// Register registers the tool's action with r (Generate does, in a
// registry of its own), and the tool that answers calls of tools not
// declared (see [Tools.Middleware]).
func (g *genkitTool) Register(r api.Registry) {
	a := &action{tool: g}
	provider, id := api.ParseName(g.def.Name)
	r.RegisterAction(api.NewKey(api.ActionTypeToolV2, provider, id), a)
	r.RegisterAction(api.NewKey(api.ActionTypeTool, provider, id), a)
	if ai.LookupTool(r, undeclaredName) == nil {
		ai.NewTool(undeclaredName, "Answers a call of a tool that was not declared.", refuseUndeclared).Register(r)
	}
}

// An action is the Genkit action of a genkitTool: its descriptor carries
// the declared schemas, and its runs go to the tool without a schema check.
type action struct{ tool *genkitTool }

func (a *action) Register(r api.Registry) { a.tool.Register(r) }

func (a *action) Name() string { return a.tool.def.Name }

func (a *action) Desc() api.ActionDesc {
	d := a.tool.def
	return api.ActionDesc{
		Type: api.ActionTypeToolV2, Key: api.KeyFromName(api.ActionTypeToolV2, d.Name),
		Name: d.Name, Description: d.Description,
		InputSchema: d.InputSchema, OutputSchema: d.OutputSchema,
		Metadata: map[string]any{
			"type": api.ActionTypeToolV2, "name": d.Name, "description": d.Description,
			"tool": map[string]any{"multipart": false}, "dynamic": true,
		},
	}
}

// RunJSON runs the tool with input and returns its multipart response.
func (a *action) RunJSON(ctx context.Context, input json.RawMessage, _ func(context.Context, json.RawMessage) error) (json.RawMessage, error) {
	var in any
	if len(input) > 0 {
		if err := json.Unmarshal(input, &in); err != nil {
			return nil, core.NewError(core.INVALID_ARGUMENT, "tool %s: input is not JSON", a.tool.def.Name)
		}
	}
	resp, err := a.tool.RunRawMultipart(ctx, in)
	if err != nil {
		return nil, err
	}
	return json.Marshal(resp)
}

func (a *action) RunJSONWithTelemetry(ctx context.Context, input json.RawMessage, cb func(context.Context, json.RawMessage) error) (*api.ActionRunResult[json.RawMessage], error) {
	out, err := a.RunJSON(ctx, input, cb)
	if err != nil {
		return nil, err
	}
	return &api.ActionRunResult[json.RawMessage]{Result: out}, nil
}

// undeclaredName is the name of the tool that answers a call of a tool
// that was not declared; a name [tool.NameOf] never gives (it has
// a slash).
const undeclaredName = "toolgenkit/undeclared"

// An undeclaredCall is the input of the tool undeclaredName: the call the
// model made.
type undeclaredCall struct {
	Tool  string `json:"tool"`
	Input any    `json:"input,omitempty"`
}

func refuseUndeclared(_ *ai.ToolContext, c undeclaredCall) (*Result, error) {
	return &Result{Message: "There is no tool named " + c.Tool + ".", ErrorType: funcall.ToolNotFound}, nil
}

// Middleware returns the model middleware that answers a call of a tool
// not declared to the model (one the account may not run, or one that does
// not exist) with a tool_not_found output, so that Generate goes on and the
// model reads it, where Genkit would end Generate with NOT_FOUND. Pass it
// with the tools: ai.WithMiddleware(set.Middleware()).
//
// Genkit runs only tools it finds by name, and a model may name any: the
// middleware hands such a call to a tool of its own, which the model is
// never shown (it is registered with these tools, not declared), and shows
// the model its own call and the refusal under the name it used.
//
// It also fills the response's Request when the model leaves it nil, as
// some models do: ModelResponse.History, which a restart after a
// confirmation passes back to Generate, reads it.
func (t *Tools) Middleware() ai.ModelMiddleware {
	return func(next ai.ModelFunc) ai.ModelFunc {
		return func(ctx context.Context, req *ai.ModelRequest, cb ai.ModelStreamCallback) (*ai.ModelResponse, error) {
			resp, err := next(ctx, restoreUndeclared(req), cb)
			if err != nil || resp == nil {
				return resp, err
			}
			if resp.Request == nil {
				resp.Request = req // for resp.History(), which reads it
			}
			if resp.Message == nil {
				return resp, nil
			}
			declared := make(map[string]bool, len(req.Tools))
			for _, d := range req.Tools {
				declared[d.Name] = true
			}
			resp.Message = redirectUndeclared(resp.Message, declared)
			return resp, nil
		}
	}
}

// redirectUndeclared returns msg with each call of a tool not declared
// made a call of the tool undeclaredName.
func redirectUndeclared(msg *ai.Message, declared map[string]bool) *ai.Message {
	var out *ai.Message
	for i, p := range msg.Content {
		if p.ToolRequest == nil || declared[p.ToolRequest.Name] {
			continue
		}
		if out == nil {
			c := *msg
			c.Content = slices.Clone(msg.Content)
			out = &c
		}
		np := ai.NewToolRequestPart(&ai.ToolRequest{Name: undeclaredName, Ref: p.ToolRequest.Ref,
			Input: undeclaredCall{Tool: p.ToolRequest.Name, Input: p.ToolRequest.Input}})
		np.Metadata = maps.Clone(p.Metadata)
		out.Content[i] = np
	}
	if out == nil {
		return msg
	}
	return out
}

// restoreUndeclared returns req with the calls redirectUndeclared made,
// and the tool's answers to them, under the name the model called.
func restoreUndeclared(req *ai.ModelRequest) *ai.ModelRequest {
	var out *ai.ModelRequest
	names := map[string]string{} // by ref
	for i, m := range req.Messages {
		var msg *ai.Message
		for j, p := range m.Content {
			var np *ai.Part
			switch {
			case p.ToolRequest != nil && p.ToolRequest.Name == undeclaredName:
				var c undeclaredCall
				if b, err := json.Marshal(p.ToolRequest.Input); err != nil || json.Unmarshal(b, &c) != nil || c.Tool == "" {
					continue
				}
				names[p.ToolRequest.Ref] = c.Tool
				np = ai.NewToolRequestPart(&ai.ToolRequest{Name: c.Tool, Ref: p.ToolRequest.Ref, Input: c.Input})
			case p.ToolResponse != nil && p.ToolResponse.Name == undeclaredName && names[p.ToolResponse.Ref] != "":
				r := *p.ToolResponse
				r.Name = names[r.Ref]
				np = ai.NewToolResponsePart(&r)
			default:
				continue
			}
			np.Metadata = maps.Clone(p.Metadata)
			if out == nil {
				c := *req
				c.Messages = slices.Clone(req.Messages)
				out = &c
			}
			if msg == nil {
				c := *m
				c.Content = slices.Clone(m.Content)
				msg = &c
				out.Messages[i] = msg
			}
			msg.Content[j] = np
		}
	}
	if out == nil {
		return req
	}
	return out
}

// withOutputs returns the schema of a Result with outputs as the schema of
// its "outputs" (nil keeps that of any map).
func withOutputs(result, outputs map[string]any) map[string]any {
	s := maps.Clone(result)
	props, _ := s["properties"].(map[string]any)
	if outputs == nil || props == nil {
		return s
	}
	props = maps.Clone(props)
	o := maps.Clone(outputs)
	o["description"] = "The tool's outputs by name, on success."
	props["outputs"] = o
	s["properties"] = props
	return s
}

// schemaMap returns a JSON Schema as the map Genkit declares schemas with.
func schemaMap(s any) map[string]any {
	m := map[string]any{"type": "object"}
	b, ok := s.(json.RawMessage)
	if !ok {
		var err error
		if b, err = json.Marshal(s); err != nil {
			return m
		}
	}
	var d map[string]any
	if json.Unmarshal(b, &d) == nil && d != nil {
		m = d
	}
	return m
}
