package toolgenai_test

import (
	"context"
	"encoding/json"
	"testing"

	"google.golang.org/genai"

	toolgenai "github.com/toolapi/toolapi/contrib/genai"
	"github.com/toolapi/toolapi/funcall"
	"github.com/toolapi/toolapi/funcall/funcalltest"
	"github.com/toolapi/toolapi/tool"
)

// TestTasks: the adapter serves tasks as funcalltest.TestTasks checks,
// through its Tool declaration and its Call; the handle of a task still
// running is the function's output, not its error.
func TestTasks(t *testing.T) {
	funcalltest.TestTasks(t, func(reg *tool.Registry, acct tool.Account, tasks funcall.Tasks) funcalltest.Adapter {
		return adapter{t, toolgenai.New(reg, acct, &toolgenai.Options{Tasks: tasks})}
	})
}

type adapter struct {
	t     *testing.T
	tools *toolgenai.Tools
}

func (a adapter) Declared() []string {
	var names []string
	for _, d := range a.tools.Tool().FunctionDeclarations {
		names = append(names, d.Name)
	}
	return names
}

// Call returns the function's output, or its error; a task still running
// or waiting for a person that comes back as the error fails the test.
func (a adapter) Call(ctx context.Context, name, args string) *funcall.Response {
	var m map[string]any
	if err := json.Unmarshal([]byte(args), &m); err != nil {
		a.t.Fatal(err)
	}
	got := a.tools.Call(ctx, &genai.FunctionCall{Name: name, Args: m}).Response
	if r, ok := got["output"].(*funcall.Response); ok {
		return r
	}
	r := got["error"].(*funcall.Response)
	if r.Task != nil && (r.Task.Status == funcall.TaskWorking || r.Task.Status == funcall.TaskInputRequired) {
		a.t.Errorf("%s: the handle of a %s task is the function's error, want its output", name, r.Task.Status)
	}
	return r
}
