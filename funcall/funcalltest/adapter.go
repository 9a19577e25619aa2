package funcalltest

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/toolapi/toolapi/funcall"
	"github.com/toolapi/toolapi/tool"
)

// An Adapter is the tools of one account as a function-calling adapter
// offers them to a model: the names it declares and the call a model
// makes, answered with the call's [funcall.Response].
type Adapter interface {
	Declared() []string
	Call(ctx context.Context, name, args string) *funcall.Response
}

// TestTasks checks how an adapter serves tasks, with the adapters that
// newAdapter returns for the tools of a registry and an account, given
// tasks or nil. With tasks, tasks_get and tasks_cancel are declared beside
// the tools; a task tool's call answers at once with the task's handle,
// which tasks_get follows to the outcome and tasks_cancel ends; another
// account's adapter cannot see the task. Without tasks, neither function
// is declared and the call runs in the request. The registry's one tool,
// report.build, may run as a task and needs the permission "use tools".
func TestTasks(t testing.TB, newAdapter func(reg *tool.Registry, acct tool.Account, tasks funcall.Tasks) Adapter) {
	t.Helper()
	release := make(chan struct{})
	defer close(release)
	reg := tool.NewRegistry(nil)
	if err := reg.Add(&tool.Tool{
		ID: "report.build", Label: "Build", Description: "Builds a report.", Operation: tool.OpTransform,
		Permission: "use tools", Task: tool.TaskOptional,
		Inputs:  []*tool.Definition{{Name: "hold", Type: "boolean"}},
		Outputs: []*tool.Definition{{Name: "pages", Type: "integer", Required: true}},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			if in.Bool("hold") {
				select {
				case <-release:
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
			return tool.Succeeded("Built.", map[string]any{"pages": 3}), nil
		},
	}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	agent := &tool.User{ID: "agent", Permissions: []string{"use tools"}}
	plain := newAdapter(reg, agent, nil)
	if got := sorted(plain.Declared()); !slices.Equal(got, []string{"report__build"}) {
		t.Errorf("without Tasks, declared %v", got)
	}
	if r := plain.Call(ctx, "report__build", `{}`); r.Task != nil || fmt.Sprint(r.Outputs["pages"]) != "3" {
		t.Errorf("without Tasks, the call gave %+v, want the run's result", r)
	}

	tasks := NewTasks(reg)
	tools := newAdapter(reg, agent, tasks)
	if got := sorted(tools.Declared()); !slices.Equal(got, []string{"report__build", funcall.TasksCancel, funcall.TasksGet}) {
		t.Errorf("with Tasks, declared %v", got)
	}
	r := tools.Call(ctx, "report__build", `{}`)
	if r.Task == nil || r.Outputs != nil {
		t.Fatalf("the call gave %+v, want a task handle", r)
	}
	id := r.Task.ID
	if _, err := tasks.Wait(ctx, id); err != nil {
		t.Fatal(err)
	}
	if r := tools.Call(ctx, funcall.TasksGet, `{"task_id":"`+id+`"}`); r.Task == nil || r.Task.Status != funcall.TaskCompleted || fmt.Sprint(r.Outputs["pages"]) != "3" {
		t.Errorf("tasks_get after the end gave %+v", r)
	}

	held := tools.Call(ctx, "report__build", `{"hold":true}`)
	if held.Task == nil {
		t.Fatalf("the held call gave %+v", held)
	}
	other := newAdapter(reg, &tool.User{ID: "other", Permissions: []string{"use tools"}}, tasks)
	if r := other.Call(ctx, funcall.TasksGet, `{"task_id":"`+held.Task.ID+`"}`); r.ErrorType != funcall.TaskNotFound {
		t.Errorf("another account's tasks_get gave %+v, want %s", r, funcall.TaskNotFound)
	}
	if r := tools.Call(ctx, funcall.TasksCancel, `{"task_id":"`+held.Task.ID+`"}`); r.Task == nil || r.Task.Status != funcall.TaskCancelled {
		t.Errorf("tasks_cancel gave %+v", r)
	}
	waitCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if tk, err := tasks.Wait(waitCtx, held.Task.ID); err != nil || tk.Status != funcall.TaskCancelled {
		t.Errorf("the cancelled task: %+v, %v", tk, err)
	}
}

// sorted returns names sorted.
func sorted(names []string) []string {
	names = slices.Clone(names)
	slices.Sort(names)
	return names
}
