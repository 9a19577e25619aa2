package toollangchaingo_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	toollangchaingo "github.com/toolapi/toolapi/contrib/langchaingo"
	"github.com/toolapi/toolapi/funcall"
	"github.com/toolapi/toolapi/funcall/funcalltest"
	"github.com/toolapi/toolapi/tool"
)

// TestTaskWaits: a call of a tool that runs as a task waits for the
// task's outcome; a call whose context ends first returns the task's
// handle, which tasks_get then follows.
func TestTaskWaits(t *testing.T) {
	release := make(chan struct{})
	reg := tool.NewRegistry(nil)
	if err := reg.Add(&tool.Tool{
		ID: "report.build", Label: "Build", Description: "Builds a report.", Operation: tool.OpTransform,
		Permission: "use tools", Task: tool.TaskRequired,
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
	tasks := funcalltest.NewTasks(reg)
	set := toollangchaingo.New(reg, agent, &toollangchaingo.Options{Tasks: tasks})
	var names []string
	for _, f := range set.Functions() {
		names = append(names, f.Name)
	}
	if diff := cmp.Diff([]string{"report__build", "tasks_cancel", "tasks_get"}, names); diff != "" {
		t.Errorf("functions (-want +got):\n%s", diff)
	}

	var got map[string]any
	if err := json.Unmarshal([]byte(set.Call(context.Background(), "report__build", `{}`)), &got); err != nil {
		t.Fatal(err)
	}
	task, _ := got["task"].(map[string]any)
	if got["success"] != true || got["message"] != "Built." || !cmp.Equal(got["outputs"], map[string]any{"pages": 3.0}) || task["status"] != "completed" {
		t.Errorf("the call did not wait for the outcome: %v", got)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	got = nil
	if err := json.Unmarshal([]byte(set.Call(ctx, "report__build", `{"hold":true}`)), &got); err != nil {
		t.Fatal(err)
	}
	task, _ = got["task"].(map[string]any)
	if task["status"] != "working" || got["outputs"] != nil {
		t.Fatalf("a call whose context ended returned %v, want the task's handle", got)
	}
	close(release)
	for {
		got = nil
		if err := json.Unmarshal([]byte(set.Call(context.Background(), funcall.TasksGet, `{"task_id":"`+task["task_id"].(string)+`"}`)), &got); err != nil {
			t.Fatal(err)
		}
		if got["task"].(map[string]any)["status"] != "working" {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got["message"] != "Built." {
		t.Errorf("tasks_get after the end: %v", got)
	}
}
