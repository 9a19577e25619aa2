package functask_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
	_ "modernc.org/sqlite"

	"github.com/toolapi/toolapi/funcall"
	"github.com/toolapi/toolapi/funcall/functask"
	"github.com/toolapi/toolapi/task"
	"github.com/toolapi/toolapi/task/tasktest"
	"github.com/toolapi/toolapi/tool"
)

var (
	ada = &tool.User{ID: "ada", Permissions: []string{"report"}}
	bob = &tool.User{ID: "bob", Permissions: []string{"report"}}
)

// taskFixture is a registry with tools that run as tasks, and a started
// task Manager on SQLite. release lets report.build end.
type taskFixture struct {
	reg     *tool.Registry
	m       *task.Manager
	release chan struct{}
}

func newTaskFixture(t *testing.T) *taskFixture {
	t.Helper()
	f := &taskFixture{release: make(chan struct{})}
	f.reg = tool.NewRegistry(nil)
	err := f.reg.Add(
		&tool.Tool{
			ID: "report.build", Label: "Build report", Description: "Builds a report.", Permission: "report", Task: tool.TaskRequired,
			Inputs:  []*tool.Definition{{Name: "pages", Type: "integer", Required: true, Constraints: tool.Constraints{Range: &tool.Range{Max: new(100.0)}}}, {Name: "hold", Type: "boolean"}},
			Outputs: []*tool.Definition{{Name: "pages", Type: "integer", Required: true}},
			Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
				tool.Progress(ctx, 1, 2, "laying out")
				if in.Bool("hold") {
					select {
					case <-f.release:
					case <-ctx.Done():
						return nil, ctx.Err()
					}
				}
				return tool.Succeeded("Built.", map[string]any{"pages": in.Int("pages")}), nil
			},
		},
		&tool.Tool{
			ID: "report.name", Label: "Name report", Description: "Asks for a name.", Permission: "report", Task: tool.TaskOptional,
			Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
				e, err := tool.Elicit(ctx, "Which name?", &jsonschema.Schema{Type: "object",
					Properties: map[string]*jsonschema.Schema{"name": {Type: "string"}}, Required: []string{"name"}})
				if err != nil {
					return nil, err
				}
				return tool.Succeeded("", map[string]any{"name": e.Content["name"]}), nil
			},
			Outputs: []*tool.Definition{{Name: "name", Type: "string"}},
		},
		&tool.Tool{
			ID: "report.count", Label: "Count", Description: "Counts at once.", Permission: "report", Operation: tool.OpRead,
			Outputs: []*tool.Definition{{Name: "n", Type: "integer", Required: true}},
			Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
				return tool.Succeeded("", map[string]any{"n": 7}), nil
			},
		},
	)
	if err != nil {
		t.Fatal(err)
	}
	users := map[string]tool.Account{"ada": ada, "bob": bob}
	f.m = tasktest.Start(t, f.reg, tasktest.SQLite(t), &task.Options{PollInterval: 20 * time.Millisecond, ProgressEvery: time.Nanosecond,
		Account: func(ctx context.Context, id string) (tool.Account, error) { return users[id], nil }})
	// Cleanups run last first: a held task is let go before the manager
	// stops.
	t.Cleanup(func() {
		select {
		case <-f.release:
		default:
			close(f.release)
		}
	})
	return f
}

// wait waits until the task id ends or asks something, as acct.
func (f *taskFixture) wait(t *testing.T, acct tool.Account, id string) *task.Task {
	t.Helper()
	ctx, cancel := context.WithTimeout(tool.WithAccount(context.Background(), acct), 20*time.Second)
	defer cancel()
	tk, err := f.m.Wait(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

// callIn is a call of name with args in the form a model API of format f
// hands it over.
func callIn(f funcall.Format, name, args string) []byte {
	var v any
	switch f {
	case funcall.OpenAI, funcall.OpenAIStrict:
		v = map[string]any{"type": "function", "function": map[string]any{"name": name, "arguments": args}}
	case funcall.OpenAIResponses, funcall.OpenAIResponsesStrict:
		v = map[string]any{"type": "function_call", "name": name, "arguments": args}
	case funcall.Anthropic, funcall.AnthropicStrict:
		v = map[string]any{"type": "tool_use", "name": name, "input": json.RawMessage(args)}
	default:
		v = map[string]any{"functionCall": map[string]any{"name": name, "args": json.RawMessage(args)}}
	}
	b, _ := json.Marshal(v)
	return b
}

// asModel returns r as a model reads it: its JSON, decoded.
func asModel(t *testing.T, r *funcall.Response) map[string]any {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// In every format a task tool's call returns a handle, tasks_get and
// tasks_cancel are declared with a required task_id, and tasks_get gives
// the outcome once the task has ended.
func TestTaskHandleEveryFormat(t *testing.T) {
	f := newTaskFixture(t)
	set := funcall.New(f.reg, ada).WithTasks(functask.New(f.m))
	ctx := context.Background()
	for _, format := range funcall.Formats() {
		t.Run(string(format), func(t *testing.T) {
			ds := decls(t, set, format)
			var names []string
			for _, d := range ds {
				names = append(names, d.name)
				if d.name != funcall.TasksGet && d.name != funcall.TasksCancel {
					continue
				}
				props, _ := d.schema["properties"].(map[string]any)
				if _, ok := props["task_id"]; !ok || !slices.Equal(toStrings(d.schema["required"]), []string{"task_id"}) {
					t.Errorf("%s's schema: %v", d.name, d.schema)
				}
				strictFormat := format == funcall.OpenAIStrict || format == funcall.OpenAIResponsesStrict || format == funcall.AnthropicStrict
				if d.strict != strictFormat {
					t.Errorf("%s strict = %v in %s", d.name, d.strict, format)
				}
			}
			want := []string{"report__build", "report__count", "report__name", funcall.TasksCancel, funcall.TasksGet}
			if diff := cmp.Diff(want, names); diff != "" {
				t.Errorf("declared names (-want +got):\n%s", diff)
			}

			r := asModel(t, set.DispatchCall(ctx, format, callIn(format, "report__build", `{"pages":3}`)))
			h, _ := r["task"].(map[string]any)
			id, _ := h["task_id"].(string)
			if r["success"] != true || id == "" || h["status"] != "working" || h["poll_interval_seconds"] != 0.02 || r["outputs"] != nil {
				t.Fatalf("call of a task tool: %v", r)
			}
			if !strings.Contains(r["message"].(string), `{"task_id":"`+id+`"}`) {
				t.Errorf("message does not say how to poll: %q", r["message"])
			}
			f.wait(t, ada, id)
			r = asModel(t, set.DispatchCall(ctx, format, callIn(format, funcall.TasksGet, `{"task_id":"`+id+`"}`)))
			want2 := map[string]any{"success": true, "message": "Built.", "outputs": map[string]any{"pages": 3.0},
				"task": map[string]any{"task_id": id, "status": "completed", "poll_interval_seconds": 0.02,
					"progress": map[string]any{"done": 1.0, "total": 2.0, "message": "laying out"}}}
			if diff := cmp.Diff(want2, r); diff != "" {
				t.Errorf("tasks_get of the ended task (-want +got):\n%s", diff)
			}
		})
	}
}

func toStrings(v any) []string {
	var out []string
	l, _ := v.([]any)
	for _, s := range l {
		out = append(out, s.(string))
	}
	return out
}

// A Toolset without tasks runs a task tool in the request and declares
// no task functions; with tasks, a tool that never runs as a task still
// runs in the request.
func TestTaskToolsWithoutTasks(t *testing.T) {
	f := newTaskFixture(t)
	ctx := context.Background()
	plain := funcall.New(f.reg, ada)
	for _, d := range decls(t, plain, funcall.OpenAI) {
		if d.name == funcall.TasksGet || d.name == funcall.TasksCancel {
			t.Errorf("declared %s without tasks", d.name)
		}
	}
	r := plain.Dispatch(ctx, "report__build", []byte(`{"pages":2}`))
	if !r.Success || r.Task != nil || r.Outputs["pages"] != int64(2) && r.Outputs["pages"] != 2 {
		t.Errorf("task tool without tasks: %+v", r)
	}
	if r := plain.Dispatch(ctx, funcall.TasksGet, []byte(`{"task_id":"x"}`)); r.ErrorType != funcall.ToolNotFound {
		t.Errorf("tasks_get without tasks: %+v", r)
	}
	r = funcall.New(f.reg, ada).WithTasks(functask.New(f.m)).Dispatch(ctx, "report__count", nil)
	if !r.Success || r.Task != nil || r.Outputs["n"] == nil {
		t.Errorf("a tool that never runs as a task, with tasks: %+v", r)
	}
}

// A refused call starts no task and fails as the run would; progress,
// questions and cancellation are told; bad task IDs and arguments are
// clear errors; another account's task is not found, as an unknown one.
func TestTaskFunctionsErrors(t *testing.T) {
	f := newTaskFixture(t)
	ctx := context.Background()
	set := funcall.New(f.reg, ada).WithTasks(functask.New(f.m))

	r := set.Dispatch(ctx, "report__build", []byte(`{"pages":1000}`))
	if r.Success || r.ErrorType != funcall.InvalidInput || r.Task != nil || len(r.Violations) != 1 || r.Violations[0].Path != "pages" ||
		r.Violations[0].Rule != tool.RuleMaximum || r.InputSchema == nil {
		t.Errorf("refused task: %+v", r)
	}
	page, err := f.m.List(tool.WithAccount(ctx, ada), nil)
	if err != nil || len(page.Tasks) != 0 {
		t.Errorf("a refused call stored a task: %v %v", page, err)
	}

	held := set.Dispatch(ctx, "report__build", []byte(`{"pages":1,"hold":true}`))
	if held.Task == nil {
		t.Fatalf("no handle: %+v", held)
	}
	id := held.Task.ID

	// Another account's task is not found, with the same answer as an
	// unknown ID, for get and cancel alike.
	other := funcall.New(f.reg, bob).WithTasks(functask.New(f.m))
	for _, name := range []string{funcall.TasksGet, funcall.TasksCancel} {
		for _, tt := range []struct {
			set *funcall.Toolset
			id  string
		}{{other, id}, {set, "NOSUCHTASK0000000000000000"}} {
			r := tt.set.Dispatch(ctx, name, []byte(`{"task_id":"`+tt.id+`"}`))
			want := &funcall.Response{Message: `There is no task "` + tt.id + `".`, ErrorType: funcall.TaskNotFound}
			if diff := cmp.Diff(want, r); diff != "" {
				t.Errorf("%s of %s (-want +got):\n%s", name, tt.id, diff)
			}
		}
	}

	// Bad arguments name the input and the rule.
	for _, tt := range []struct {
		args string
		want []tool.Violation
	}{
		{``, []tool.Violation{{Path: "task_id", Rule: tool.RuleRequired, Message: "is required"}}},
		{`{"task_id":null}`, []tool.Violation{{Path: "task_id", Rule: tool.RuleRequired, Message: "is required"}}},
		{`{"task_id":7}`, []tool.Violation{{Path: "task_id", Rule: tool.RuleType, Detail: "string", Message: "must be a string"}}},
		{`{"task_id":""}`, []tool.Violation{{Path: "task_id", Rule: tool.RuleMinLength, Limit: new(1.0), Message: "must not be empty"}}},
		{`{"task_id":"` + strings.Repeat("x", 65) + `"}`, []tool.Violation{{Path: "task_id", Rule: tool.RuleMaxLength, Limit: new(64.0), Message: "must be at most 64 characters"}}},
		{`{"task_id":"` + id + `","wait":true}`, []tool.Violation{{Path: "wait", Rule: tool.RuleAdditionalProperties, Message: "is not an input of tasks_get"}}},
		{`["x"]`, []tool.Violation{{Rule: tool.RuleType, Detail: "object", Message: "must be a JSON object"}}},
	} {
		r := set.Dispatch(ctx, funcall.TasksGet, []byte(tt.args))
		if r.ErrorType != funcall.InvalidInput || r.InputSchema == nil || !strings.HasPrefix(r.Message, "Invalid input for tasks_get:") {
			t.Errorf("tasks_get %s: %+v", tt.args, r)
		}
		if diff := cmp.Diff(tt.want, r.Violations); diff != "" {
			t.Errorf("tasks_get %s violations (-want +got):\n%s", tt.args, diff)
		}
	}

	// A running task tells its progress; cancelling it ends it; cancelling
	// it again is a clear error.
	r = set.Dispatch(ctx, funcall.TasksGet, []byte(`{"task_id":"`+id+`"}`))
	if !r.Success || r.Task == nil || r.Task.Status != funcall.TaskWorking || r.Outputs != nil {
		t.Errorf("tasks_get of a running task: %+v", r)
	}
	r = set.Dispatch(ctx, funcall.TasksCancel, []byte(`{"task_id":"`+id+`"}`))
	if r.Success || r.Task == nil || r.Task.Status != funcall.TaskCancelled || r.Message != "Build report was cancelled." {
		t.Errorf("tasks_cancel: %+v", r)
	}
	r = set.Dispatch(ctx, funcall.TasksCancel, []byte(`{"task_id":"`+id+`"}`))
	want := &funcall.Response{Message: `Task "` + id + `" has already ended, so it cannot be cancelled; call tasks_get to get its outcome.`, ErrorType: funcall.TaskFinished}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Errorf("tasks_cancel of an ended task (-want +got):\n%s", diff)
	}

	// A task that asks a question says what it asks.
	asking := set.Dispatch(ctx, "report__name", nil)
	if asking.Task == nil {
		t.Fatalf("no handle: %+v", asking)
	}
	f.wait(t, ada, asking.Task.ID)
	r = set.Dispatch(ctx, funcall.TasksGet, []byte(`{"task_id":"`+asking.Task.ID+`"}`))
	if !r.Success || r.Task.Status != funcall.TaskInputRequired || r.Task.Question != "Which name?" ||
		r.Message != "Task "+asking.Task.ID+" waits for a person to answer: Which name?" {
		t.Errorf("tasks_get of a waiting task: %+v", r)
	}
	if r := set.Dispatch(ctx, funcall.TasksCancel, []byte(`{"task_id":"`+asking.Task.ID+`"}`)); r.Task == nil || r.Task.Status != funcall.TaskCancelled {
		t.Errorf("tasks_cancel of a waiting task: %+v", r)
	}
}

// A declaration as every format has it: a name, whether it is strict, and
// its schema as JSON.
type decl struct {
	name   string
	strict bool
	schema map[string]any // nil when the format declares none
}

func decls(t *testing.T, set *funcall.Toolset, f funcall.Format) []decl {
	t.Helper()
	d, err := set.Declarations(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	var raw []map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	var out []decl
	for _, r := range raw {
		if fn, ok := r["function"].(map[string]any); ok {
			r = fn
		}
		sch, _ := r["parameters"].(map[string]any)
		if sch == nil {
			sch, _ = r["input_schema"].(map[string]any)
		}
		strict, _ := r["strict"].(bool)
		out = append(out, decl{name: r["name"].(string), strict: strict, schema: sch})
	}
	return out
}

// TestApprovalHandle: a call of a tool with an approver returns a handle
// that says the call has not run and waits for approval; once another
// account approves it, tasks_get gives its outcome.
func TestApprovalHandle(t *testing.T) {
	f := newTaskFixture(t)
	if err := f.reg.Add(&tool.Tool{
		ID: "report.send", Label: "Send report", Description: "Sends the report, once approved.", Permission: "report",
		Task: tool.TaskRequired, Approver: "report",
		Handler: func(context.Context, *tool.Values) (*tool.Result, error) {
			return tool.Succeeded("Sent.", nil), nil
		},
	}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	set := funcall.New(f.reg, ada).WithTasks(functask.New(f.m))
	r := set.Dispatch(ctx, "report__send", nil)
	if !r.Success || r.Task == nil || r.Task.StatusMessage != task.AwaitingApproval || !strings.Contains(r.Message, "Send report has not run: it waits, as task "+r.Task.ID) {
		t.Fatalf("a call that waits for approval: %+v handle %+v", r, r.Task)
	}
	if got := set.Dispatch(ctx, funcall.TasksGet, []byte(`{"task_id":"`+r.Task.ID+`"}`)); got.Task == nil || got.Task.StatusMessage != task.AwaitingApproval || got.Task.Status != funcall.TaskWorking {
		t.Errorf("tasks_get while it waits: %+v", got)
	}
	if _, err := f.m.Approve(tool.WithAccount(ctx, bob), r.Task.ID, nil); err != nil {
		t.Fatal(err)
	}
	f.wait(t, ada, r.Task.ID)
	if got := set.Dispatch(ctx, funcall.TasksGet, []byte(`{"task_id":"`+r.Task.ID+`"}`)); !got.Success || got.Message != "Sent." {
		t.Errorf("tasks_get once approved: %+v", got)
	}
}
