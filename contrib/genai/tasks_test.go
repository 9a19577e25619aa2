package toolgenai_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"encoding/json"

	"google.golang.org/genai"

	toolgenai "github.com/toolapi/toolapi/contrib/genai"
	"github.com/toolapi/toolapi/funcall"
	"github.com/toolapi/toolapi/funcall/funcalltest"
	"github.com/toolapi/toolapi/tool"
)

// TestTasks: with Options.Tasks, tasks_get and tasks_cancel are declared
// beside the tools; a task tool's call answers at once with the task's
// handle, which tasks_get follows to the outcome and tasks_cancel ends;
// another account's tools cannot see the task. Without Tasks, neither
// function is declared and the call runs in the request.
func TestTasks(t *testing.T) {
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
	plain := toolgenai.New(reg, agent, nil)
	if got := declared(plain); !slices.Equal(got, []string{"report__build"}) {
		t.Errorf("without Tasks, declared %v", got)
	}
	if r := call(ctx, plain, "report__build", `{}`); r.Task != nil || r.Message != "Built." {
		t.Errorf("without Tasks, the call gave %+v, want the run's result", r)
	}

	tasks := funcalltest.NewTasks(reg)
	tools := toolgenai.New(reg, agent, &toolgenai.Options{Tasks: tasks})
	if got := declared(tools); !slices.Equal(got, []string{"report__build", funcall.TasksCancel, funcall.TasksGet}) {
		t.Errorf("with Tasks, declared %v", got)
	}
	if got := tools.Call(ctx, &genai.FunctionCall{Name: "report__build", Args: map[string]any{"hold": true}}).Response; got["output"] == nil {
		t.Errorf("a working task's handle is not the output: %v", got)
	}
	r := call(ctx, tools, "report__build", `{}`)
	if r.Task == nil || r.Outputs != nil {
		t.Fatalf("the call gave %+v, want a task handle", r)
	}
	id := r.Task.ID
	if _, err := tasks.Wait(ctx, id); err != nil {
		t.Fatal(err)
	}
	if r := call(ctx, tools, funcall.TasksGet, `{"task_id":"`+id+`"}`); r.Task == nil || r.Task.Status != funcall.TaskCompleted || r.Message != "Built." {
		t.Errorf("tasks_get after the end gave %+v", r)
	}

	held := call(ctx, tools, "report__build", `{"hold":true}`)
	if held.Task == nil {
		t.Fatalf("the held call gave %+v", held)
	}
	other := toolgenai.New(reg, &tool.User{ID: "other", Permissions: []string{"use tools"}}, &toolgenai.Options{Tasks: tasks})
	if r := call(ctx, other, funcall.TasksGet, `{"task_id":"`+held.Task.ID+`"}`); r.ErrorType != funcall.TaskNotFound {
		t.Errorf("another account's tasks_get gave %+v, want %s", r, funcall.TaskNotFound)
	}
	if r := call(ctx, tools, funcall.TasksCancel, `{"task_id":"`+held.Task.ID+`"}`); r.Task == nil || r.Task.Status != funcall.TaskCancelled {
		t.Errorf("tasks_cancel gave %+v", r)
	}
	waitCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if tk, err := tasks.Wait(waitCtx, held.Task.ID); err != nil || tk.Status != funcall.TaskCancelled {
		t.Errorf("the cancelled task: %+v, %v", tk, err)
	}
}

// declared returns the names the tools declare, sorted.
func declared(tools *toolgenai.Tools) []string {
	var names []string
	for _, d := range tools.Tool().FunctionDeclarations {
		names = append(names, d.Name)
	}
	slices.Sort(names)
	return names
}

// call makes the call a model would and returns the response.
func call(ctx context.Context, tools *toolgenai.Tools, name, args string) *funcall.Response {
	var m map[string]any
	if err := json.Unmarshal([]byte(args), &m); err != nil {
		panic(err)
	}
	// A result or a task handle is the output; a failure, the error.
	got := tools.Call(ctx, &genai.FunctionCall{Name: name, Args: m}).Response
	if r, ok := got["output"].(*funcall.Response); ok {
		return r
	}
	return got["error"].(*funcall.Response)
}
