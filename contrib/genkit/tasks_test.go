package toolgenkit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	toolgenkit "github.com/toolapi/toolapi/contrib/genkit"
	"github.com/toolapi/toolapi/funcall"
	"github.com/toolapi/toolapi/tool"
)

// goTasks runs each task in a goroutine of this process, through the
// registry's run path. The durable engine (package task) needs a database
// and River, which this module does not depend on; the adapter sees only
// funcall.Tasks, which both implement. A call with {"ask":true} starts a
// task that waits for a person's answer, which answer gives, as the Tool
// Explorer or an MCP client would.
type goTasks struct {
	reg   *tool.Registry
	mu    sync.Mutex
	tasks map[string]*funcall.Task
	owner map[string]string
	stop  map[string]context.CancelFunc
}

func newGoTasks(reg *tool.Registry) *goTasks {
	return &goTasks{reg: reg, tasks: map[string]*funcall.Task{}, owner: map[string]string{}, stop: map[string]context.CancelFunc{}}
}

func (g *goTasks) Create(ctx context.Context, toolID string, args json.RawMessage) (*funcall.Task, error) {
	if _, vs, err := g.reg.ValidateJSON(ctx, toolID, args); err != nil || len(vs) > 0 {
		res, _ := g.reg.RunJSON(ctx, toolID, args)
		return nil, &funcall.TaskRefusedError{Result: res}
	}
	var in struct{ Ask bool }
	_ = json.Unmarshal(args, &in)
	g.mu.Lock()
	defer g.mu.Unlock()
	id := fmt.Sprintf("T%d", len(g.tasks)+1)
	tk := &funcall.Task{ID: id, Tool: toolID, Status: funcall.TaskWorking, PollInterval: 10 * time.Millisecond}
	if in.Ask {
		tk.Status, tk.Question = funcall.TaskInputRequired, "Which quarter?"
	}
	g.tasks[id], g.owner[id] = tk, tool.AccountFrom(ctx).AccountID()
	run, cancel := context.WithCancel(context.WithoutCancel(ctx))
	g.stop[id] = cancel
	go func() {
		res, _ := g.reg.RunJSON(run, toolID, args)
		g.mu.Lock()
		defer g.mu.Unlock()
		if tk.Status == funcall.TaskWorking {
			tk.Status, tk.Result = funcall.TaskFailed, res
			if res.Success {
				tk.Status = funcall.TaskCompleted
			}
		}
	}()
	c := *tk
	return &c, nil
}

// answer gives the answer the task id waits for.
func (g *goTasks) answer(id string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.tasks[id].Status, g.tasks[id].Question = funcall.TaskWorking, ""
}

func (g *goTasks) Get(ctx context.Context, id string) (*funcall.Task, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	tk, ok := g.tasks[id]
	if !ok || g.owner[id] != tool.AccountFrom(ctx).AccountID() {
		return nil, funcall.ErrTaskNotFound
	}
	c := *tk
	return &c, nil
}

func (g *goTasks) Cancel(ctx context.Context, id string) (*funcall.Task, error) {
	if _, err := g.Get(ctx, id); err != nil {
		return nil, err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	tk := g.tasks[id]
	if tk.Status != funcall.TaskWorking && tk.Status != funcall.TaskInputRequired {
		return nil, funcall.ErrTaskFinished
	}
	c := *tk
	return &c, nil
}

// taskRegistry returns a registry of one tool that runs as a task and,
// given "hold", runs until release is closed.
func taskRegistry(t *testing.T, release <-chan struct{}) *tool.Registry {
	t.Helper()
	reg := tool.NewRegistry(nil)
	if err := reg.Add(&tool.Tool{
		ID: "report.build", Label: "Build", Description: "Builds a report.", Operation: tool.OpTransform,
		Permission: "use tools", Task: tool.TaskRequired,
		Inputs:  []*tool.Definition{{Name: "hold", Type: "boolean"}, {Name: "ask", Type: "boolean"}},
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
	return reg
}

// taskSetup returns a Genkit with the scripted model, the tools of
// taskRegistry with tasks, and the tasks.
func taskSetup(t *testing.T, s *script, release <-chan struct{}, wait time.Duration) (*genkit.Genkit, ai.Model, *toolgenkit.Tools, *goTasks) {
	t.Helper()
	reg := taskRegistry(t, release)
	tasks := newGoTasks(reg)
	g := genkit.Init(context.Background())
	m := genkit.DefineModel(g, "test/scripted", &ai.ModelOptions{Supports: &ai.ModelSupports{Tools: true, Multiturn: true}}, s.generate)
	return g, m, toolgenkit.New(reg, agent, &toolgenkit.Options{Tasks: tasks, TaskWait: wait}), tasks
}

// taskBuilt is the output of a call whose task T1 ended with its outcome.
var taskBuilt = map[string]any{"success": true, "message": "Built.", "outputs": map[string]any{"pages": 3.0},
	"task": map[string]any{"task_id": "T1", "status": "completed", "poll_interval_seconds": 0.01}}

// TestTaskWaits: under Generate, a call of a tool that runs as a task
// waits for the task's outcome, which the model reads; tasks_get and
// tasks_cancel are declared beside the tool.
func TestTaskWaits(t *testing.T) {
	s := &script{}
	g, m, set, _ := taskSetup(t, s, nil, 0)
	var got map[string]any
	var declared []string
	s.turns = append(s.turns,
		func(req *ai.ModelRequest) *ai.Message {
			for _, d := range req.Tools {
				declared = append(declared, d.Name)
			}
			return calls(&ai.ToolRequest{Name: "report__build", Ref: "1", Input: map[string]any{}})
		},
		func(req *ai.ModelRequest) *ai.Message {
			got = outputs(t, req)["1"]
			return ai.NewModelTextMessage("Done.")
		},
	)
	resp, err := generate(g, m, set, ai.WithPrompt("Build the report."))
	if err != nil {
		t.Fatal(err)
	}
	if resp.FinishReason == ai.FinishReasonInterrupted || resp.Text() != "Done." {
		t.Errorf("finish reason %q, answer %q", resp.FinishReason, resp.Text())
	}
	slices.Sort(declared) // Genkit declares the tools in an order of its own
	if diff := cmp.Diff([]string{"report__build", "tasks_cancel", "tasks_get"}, declared); diff != "" {
		t.Errorf("declared tools (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(taskBuilt, got); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}

// TestTaskInterrupt: a task still working when the call's wait ends, or
// one that waits for a person's answer, interrupts Generate with a
// [toolgenkit.TaskPending]; restarted with Tools.Resume once the task has
// moved on, the call follows the same task (no second task starts) and
// the model reads its outcome. Confirm and Decline do not restart such a
// call.
func TestTaskInterrupt(t *testing.T) {
	for _, tt := range []struct {
		name string
		ask  bool
		wait time.Duration
		want toolgenkit.TaskPending
	}{
		{"working", false, 30 * time.Millisecond,
			toolgenkit.TaskPending{Tool: "report__build", TaskID: "T1", Status: "working"}},
		{"input_required", true, time.Minute,
			toolgenkit.TaskPending{Tool: "report__build", TaskID: "T1", Status: "input_required", Question: "Which quarter?"}},
	} {
		release := make(chan struct{})
		s := &script{}
		g, m, set, tasks := taskSetup(t, s, release, tt.wait)
		var got map[string]any
		s.turns = append(s.turns,
			func(req *ai.ModelRequest) *ai.Message {
				return calls(&ai.ToolRequest{Name: "report__build", Ref: "1", Input: map[string]any{"hold": true, "ask": tt.ask}})
			},
			func(req *ai.ModelRequest) *ai.Message {
				got = outputs(t, req)["1"]
				return ai.NewModelTextMessage("Done.")
			},
		)
		start := time.Now()
		resp, err := generate(g, m, set, ai.WithPrompt("Build the report."))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		interrupts := resp.Interrupts()
		if resp.FinishReason != ai.FinishReasonInterrupted || len(interrupts) != 1 {
			t.Fatalf("%s: finish reason %q with %d interrupts, want interrupted with 1", tt.name, resp.FinishReason, len(interrupts))
		}
		if tt.ask && time.Since(start) > 30*time.Second {
			t.Errorf("%s: the call waited for the task's wait instead of interrupting on the question", tt.name)
		}
		info, ok := ai.InterruptAs[toolgenkit.TaskPending](interrupts[0])
		if diff := cmp.Diff(tt.want, info, ignoreMessage); !ok || diff != "" {
			t.Errorf("%s: interrupt metadata (-want +got):\n%s", tt.name, diff)
		}
		if !slices.Contains(pendingMessages, info.Message) || (tt.ask && info.Message != pendingMessages[0]) {
			t.Errorf("%s: interrupt message %q", tt.name, info.Message)
		}
		if set.Confirm(interrupts[0]) != nil || set.Decline(interrupts[0]) != nil {
			t.Errorf("%s: Confirm or Decline restarts a call interrupted on its task", tt.name)
		}

		if tt.ask {
			tasks.answer("T1")
		}
		close(release)
		resp, err = generate(g, m, set, ai.WithMessages(resp.History()...), ai.WithToolRestarts(set.Resume(interrupts[0])))
		if err != nil {
			t.Fatalf("%s: restarted: %v", tt.name, err)
		}
		if resp.Text() != "Done." {
			t.Errorf("%s: answer %q, want Done.", tt.name, resp.Text())
		}
		if diff := cmp.Diff(taskBuilt, got); diff != "" {
			t.Errorf("%s: output (-want +got):\n%s", tt.name, diff)
		}
	}
}

// pendingMessages are the messages a TaskPending may carry for task T1:
// that of its start, when the wait ends before the first poll, and that
// of a poll.
var pendingMessages = []string{
	`Build is running as task T1. Call tasks_get with {"task_id":"T1"} after 0.01 seconds to see how it stands and get its outcome.`,
	"Task T1 is working.",
}

// ignoreMessage compares TaskPending values but for their Message.
var ignoreMessage = cmpopts.IgnoreFields(toolgenkit.TaskPending{}, "Message")
