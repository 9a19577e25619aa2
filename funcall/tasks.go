package funcall

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/toolapi/toolapi/internal/dialect"
	"github.com/toolapi/toolapi/tool"
)

// Tasks runs the calls of tools as background tasks, for the account in
// each call's context. Package funcall/functask makes one of a task
// Manager (package task); funcall itself depends on no task engine, so an
// application without tasks pulls in none.
type Tasks interface {
	// Create checks the call of the tool toolID with args and starts its
	// task. A refusal (bad inputs, no permission, not confirmed) is a
	// [*TaskRefusedError]; an unknown tool wraps [tool.ErrNotFound].
	Create(ctx context.Context, toolID string, args json.RawMessage) (*Task, error)
	// Get returns the task id; one the account may not see wraps
	// [ErrTaskNotFound], as one that never was.
	Get(ctx context.Context, id string) (*Task, error)
	// Cancel cancels the task id and returns it cancelled; one that has
	// ended wraps [ErrTaskFinished], one the account may not see
	// [ErrTaskNotFound].
	Cancel(ctx context.Context, id string) (*Task, error)
}

// A Task is a task as [Tasks] tells it.
type Task struct {
	ID   string
	Tool string
	// Status is working, input_required, completed, failed or cancelled.
	Status       string
	PollInterval time.Duration
	// Progress is the last progress the tool reported; nil if none.
	Progress *TaskProgress
	// Question is what a task whose status is input_required asks.
	Question string
	// StatusMessage says more than the status, when there is more to say
	// ("awaiting approval").
	StatusMessage string
	// Result is the outcome of an ended task; nil until then.
	Result *tool.Result
}

// TaskProgress is how far a running task has come: Done of Total units
// (Total 0 when unknown), and what it is doing.
type TaskProgress struct {
	Done    float64 `json:"done"`
	Total   float64 `json:"total,omitempty"`
	Message string  `json:"message,omitempty"`
}

// The statuses of a [Task].
const (
	TaskWorking       = "working"
	TaskInputRequired = "input_required"
	TaskCompleted     = "completed"
	TaskFailed        = "failed"
	TaskCancelled     = "cancelled"
)

// finished reports whether a task of status s has ended.
func finished(s string) bool {
	return s == TaskCompleted || s == TaskFailed || s == TaskCancelled
}

// Errors a [Tasks] wraps.
var (
	// ErrTaskNotFound: no task has this ID for the account.
	ErrTaskNotFound = errors.New("funcall: no such task")
	// ErrTaskFinished: the task has already ended.
	ErrTaskFinished = errors.New("funcall: the task has already ended")
)

// A TaskRefusedError is a task refused before it was created: the failed
// Result a run of the tool with the same arguments would have given.
type TaskRefusedError struct {
	Result *tool.Result
}

func (e *TaskRefusedError) Error() string { return "task refused: " + e.Result.Message }

// The names of the two functions a Toolset with tasks declares beside its
// tools (see [Toolset.WithTasks]). A tool's name never holds a single "_"
// between two words of its ID, so these names are never a tool's unless
// its ID is exactly one of them; such a tool is then neither declared nor
// called.
const (
	// TasksGet is the function that tells how a task stands and, once it
	// has ended, gives its outcome: {"task_id": "..."}.
	TasksGet = "tasks_get"
	// TasksCancel is the function that cancels a task: {"task_id": "..."}.
	TasksCancel = "tasks_cancel"
)

// The error types of a failed [Response] about a task.
const (
	// TaskNotFound: no task has this ID for the Toolset's account (a task
	// of another account is not found either).
	TaskNotFound = "task_not_found"
	// TaskFinished: the task has already ended, so it cannot be cancelled.
	TaskFinished = "task_finished"
)

// A TaskHandle is a task a call started, or the task tasks_get or
// tasks_cancel was asked about, as a [Response] carries it.
type TaskHandle struct {
	// ID is the task's ID, the "task_id" of tasks_get and tasks_cancel.
	ID string `json:"task_id"`
	// Status is where the task stands: working, input_required,
	// completed, failed or cancelled.
	Status string `json:"status"`
	// PollIntervalSeconds is how long to wait before asking again.
	PollIntervalSeconds float64 `json:"poll_interval_seconds"`
	// Progress is the last progress the tool reported; nil if none.
	Progress *TaskProgress `json:"progress,omitempty"`
	// Question is what a task whose status is input_required asks a
	// person; it is answered in the Tool Explorer or by an MCP client,
	// not through function calling.
	Question string `json:"question,omitempty"`
	// StatusMessage says more than the status when there is more to say:
	// "awaiting approval" for a call that waits for another account's
	// approval before it runs.
	StatusMessage string `json:"status_message,omitempty"`
}

// WithTasks returns a Toolset like s whose tools that may run as tasks
// ([tool.Tool.Task] optional or required) run as tasks of m (for a task
// Manager, functask.New(manager)): a call of
// one returns at once, with a [TaskHandle] in place of outputs, and the
// model follows the task with the functions [TasksGet] and [TasksCancel],
// which the Toolset then declares in every format and dispatches, for its
// own account only. A nil m runs every call in the request, as New does.
func (s *Toolset) WithTasks(m Tasks) *Toolset {
	out := *s
	out.tasks = m
	if m != nil {
		out.decl = slices.DeleteFunc(slices.Clone(s.decl), func(t *tool.Tool) bool { return out.isTaskFunction(t.ID) })
	}
	return &out
}

// isTaskFunction reports whether name is one of the task functions of a
// Toolset with tasks.
func (s *Toolset) isTaskFunction(name string) bool {
	return s.tasks != nil && (name == TasksGet || name == TasksCancel)
}

// taskDescriptions are the descriptions of the task functions.
var taskDescriptions = map[string]string{
	TasksGet: "Tells how a task started by another tool call stands: its status (working, input_required, completed, failed, cancelled), " +
		"its progress, and once it has ended its outcome (success, message, outputs), as the tool call would have given it. " +
		"Call it again after poll_interval_seconds while the status is working or input_required.",
	TasksCancel: "Cancels a task started by another tool call that has not ended yet.",
}

// taskSchema is the input schema of the task functions in dialect d.
func taskSchema(d dialect.Dialect) *jsonschema.Schema {
	plain := &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			"task_id": {Type: "string", Description: "The task_id a tool call returned."},
		},
		Required:             []string{"task_id"},
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
	}
	if d == 0 {
		return plain
	}
	b, err := json.Marshal(plain)
	if err != nil {
		return plain
	}
	m, err := dialect.Decode(b)
	if err != nil {
		return plain
	}
	c, err := dialect.Convert(m, d)
	if err != nil || c == nil {
		return plain
	}
	if b, err = json.Marshal(c); err != nil {
		return plain
	}
	out := new(jsonschema.Schema)
	if err := json.Unmarshal(b, out); err != nil {
		return plain
	}
	return out
}

// taskDeclarations returns the declarations of the task functions in
// format f, of the type [Toolset.Declarations] returns for it; nil when the
// Toolset has no tasks.
func (s *Toolset) taskDeclarations(f Format) any {
	if s.tasks == nil {
		return nil
	}
	names := []string{TasksCancel, TasksGet}
	switch f {
	case OpenAI, OpenAIStrict:
		var out []OpenAITool
		for _, n := range names {
			fn := OpenAIFunction{Name: n, Description: taskDescriptions[n], Parameters: taskSchema(f.dialect())}
			if f == OpenAIStrict {
				fn.Strict = new(bool)
				*fn.Strict = true
			}
			out = append(out, OpenAITool{Type: "function", Function: fn})
		}
		return out
	case OpenAIResponses, OpenAIResponsesStrict:
		var out []OpenAIResponsesTool
		for _, n := range names {
			out = append(out, OpenAIResponsesTool{Type: "function", Name: n, Description: taskDescriptions[n],
				Parameters: taskSchema(f.dialect()), Strict: f == OpenAIResponsesStrict})
		}
		return out
	case Anthropic, AnthropicStrict:
		var out []AnthropicTool
		for _, n := range names {
			out = append(out, AnthropicTool{Name: n, Description: taskDescriptions[n], InputSchema: taskSchema(f.dialect()), Strict: f == AnthropicStrict})
		}
		return out
	case Gemini:
		var out []GeminiFunction
		for _, n := range names {
			out = append(out, GeminiFunction{Name: n, Description: taskDescriptions[n], Parameters: taskSchema(f.dialect())})
		}
		return out
	}
	return nil
}

// withTaskDeclarations appends the task functions' declarations to decls,
// the declarations of the tools in format f.
func (s *Toolset) withTaskDeclarations(f Format, decls any) any {
	switch d := s.taskDeclarations(f).(type) {
	case []OpenAITool:
		return append(decls.([]OpenAITool), d...)
	case []OpenAIResponsesTool:
		return append(decls.([]OpenAIResponsesTool), d...)
	case []AnthropicTool:
		return append(decls.([]AnthropicTool), d...)
	case []GeminiFunction:
		return append(decls.([]GeminiFunction), d...)
	}
	return decls
}

// startTask creates the task of a call of t, which a call named name, and
// returns its handle, or the failure a run would have given.
func (s *Toolset) startTask(ctx context.Context, t *tool.Tool, name string, arguments []byte) *Response {
	tk, err := s.tasks.Create(s.runContext(ctx), t.ID, arguments)
	var re *TaskRefusedError
	switch {
	case errors.As(err, &re):
		return s.response(t, re.Result)
	case errors.Is(err, tool.ErrNotFound):
		return notFound(name)
	case err != nil:
		s.reg.Logger().Error("funcall: starting a task failed", "tool", t.ID, "error", err.Error())
		return &Response{Message: label(t) + " could not be started.", ErrorType: ExecutionFailed}
	}
	h := handle(tk)
	if t.Approver != "" && tk.StatusMessage != "" {
		return &Response{
			Success: true,
			Message: fmt.Sprintf("%s has not run: it waits, as task %s, for the approval of an account other than yours, and runs once approved. Call %s with {\"task_id\":%q} later to see how it stands and get its outcome.",
				label(t), tk.ID, TasksGet, tk.ID),
			Task: h,
		}
	}
	return &Response{
		Success: true,
		Message: fmt.Sprintf("%s is running as task %s. Call %s with {\"task_id\":%q} after %g seconds to see how it stands and get its outcome.",
			label(t), tk.ID, TasksGet, tk.ID, h.PollIntervalSeconds),
		Task: h,
	}
}

// label returns t's label, or its ID.
func label(t *tool.Tool) string {
	if t.Label != "" {
		return t.Label
	}
	return t.ID
}

// handle returns the handle of tk.
func handle(tk *Task) *TaskHandle {
	h := &TaskHandle{ID: tk.ID, Status: tk.Status, Progress: tk.Progress, StatusMessage: tk.StatusMessage,
		PollIntervalSeconds: math.Max(tk.PollInterval.Seconds(), 0.001)}
	if tk.Status == TaskInputRequired {
		h.Question = tk.Question
	}
	return h
}

// taskCall runs the task function name with arguments.
func (s *Toolset) taskCall(ctx context.Context, name string, arguments []byte) *Response {
	id, bad := taskID(name, arguments)
	if bad != nil {
		return bad
	}
	ctx = s.runContext(ctx)
	var tk *Task
	var err error
	if name == TasksCancel {
		tk, err = s.tasks.Cancel(ctx, id)
	} else {
		tk, err = s.tasks.Get(ctx, id)
	}
	switch {
	case errors.Is(err, ErrTaskNotFound):
		return &Response{Message: fmt.Sprintf("There is no task %q.", id), ErrorType: TaskNotFound}
	case errors.Is(err, ErrTaskFinished):
		return &Response{Message: fmt.Sprintf("Task %q has already ended, so it cannot be cancelled; call %s to get its outcome.", id, TasksGet),
			ErrorType: TaskFinished}
	case err != nil:
		s.reg.Logger().Error("funcall: "+name+" failed", "task", id, "error", err.Error())
		return &Response{Message: fmt.Sprintf("Task %q could not be reached; try again later.", id), ErrorType: ExecutionFailed}
	}
	h := handle(tk)
	if finished(tk.Status) && tk.Result != nil {
		t, _ := s.reg.Tool(tk.Tool)
		if t == nil {
			t = &tool.Tool{ID: tk.Tool}
		}
		r := s.response(t, tk.Result)
		r.Task = h
		return r
	}
	r := &Response{Success: true, Task: h}
	switch {
	case tk.Status == TaskInputRequired:
		r.Message = fmt.Sprintf("Task %s waits for a person to answer: %s", tk.ID, h.Question)
	case tk.Progress != nil && tk.Progress.Message != "":
		r.Message = fmt.Sprintf("Task %s is working: %s", tk.ID, tk.Progress.Message)
	default:
		r.Message = fmt.Sprintf("Task %s is working.", tk.ID)
	}
	return r
}

// maxTaskID is the longest task ID a task function takes.
const maxTaskID = 64

// taskID returns the task_id of the arguments of a task function, or the
// invalid_input response that says what is wrong with them.
func taskID(name string, arguments []byte) (string, *Response) {
	var args map[string]json.RawMessage
	var vs []tool.Violation
	if len(bytes.TrimSpace(arguments)) > 0 {
		if err := json.Unmarshal(arguments, &args); err != nil {
			vs = append(vs, tool.Violation{Rule: tool.RuleType, Detail: "object", Message: "must be a JSON object"})
		}
	}
	var id string
	raw, ok := args["task_id"]
	switch {
	case vs != nil:
	case !ok || bytes.Equal(bytes.TrimSpace(raw), []byte("null")):
		vs = append(vs, tool.Violation{Path: "task_id", Rule: tool.RuleRequired, Message: "is required"})
	case json.Unmarshal(raw, &id) != nil:
		vs = append(vs, tool.Violation{Path: "task_id", Rule: tool.RuleType, Detail: "string", Message: "must be a string"})
	case id == "":
		one := 1.0
		vs = append(vs, tool.Violation{Path: "task_id", Rule: tool.RuleMinLength, Limit: &one, Message: "must not be empty"})
	case len(id) > maxTaskID:
		limit := float64(maxTaskID)
		vs = append(vs, tool.Violation{Path: "task_id", Rule: tool.RuleMaxLength, Limit: &limit,
			Message: fmt.Sprintf("must be at most %d characters", maxTaskID)})
	}
	for _, k := range slices.Sorted(maps.Keys(args)) {
		if k != "task_id" {
			vs = append(vs, tool.Violation{Path: k, Rule: tool.RuleAdditionalProperties, Message: "is not an input of " + name})
		}
	}
	if vs == nil {
		return id, nil
	}
	msg := "Invalid input for " + name + ":"
	for i, v := range vs {
		if i > 0 {
			msg += ";"
		}
		if v.Path != "" {
			msg += " " + v.Path + ":"
		}
		msg += " " + v.Message
	}
	return "", &Response{Message: msg, ErrorType: InvalidInput, Violations: vs, InputSchema: taskSchema(0)}
}
