// Package funcalltest helps test what uses function calling's tasks, as
// net/http/httptest helps test HTTP handlers: [NewTasks] gives a
// [funcall.Tasks] that runs each task in a goroutine of the test, so that
// the tests of an adapter or an agent see tasks without a database or a
// queue.
package funcalltest

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/toolapi/toolapi/funcall"
	"github.com/toolapi/toolapi/tool"
)

// MaxTasks is the most tasks a [Tasks] keeps; creating one more fails.
const MaxTasks = 1000

// Tasks runs the tasks of function calling ([funcall.Tasks]) in goroutines
// of the test's own process, so that the tests of an adapter or an agent
// see tasks without a database or a queue. A task runs through
// [tool.Registry.RunJSON] as the account that created it, as the durable
// engine (package task, through funcall/functask) runs it; unlike the
// engine, nothing outlives the process and a task asks no questions. Only
// the creating account sees and cancels its tasks: any other gets
// [funcall.ErrTaskNotFound], as for an ID that never was. A Tasks is safe
// for concurrent use.
type Tasks struct {
	reg *tool.Registry

	mu    sync.Mutex
	tasks map[string]*goTask
}

type goTask struct {
	task    funcall.Task
	account string
	stop    context.CancelFunc
	done    chan struct{}
}

// NewTasks returns a Tasks that runs the tools of reg.
func NewTasks(reg *tool.Registry) *Tasks {
	return &Tasks{reg: reg, tasks: make(map[string]*goTask)}
}

// Create implements [funcall.Tasks]: it checks the inputs as a run does
// and starts the task. Inputs that break the tool's rules are refused with
// the failed result a run gives ([funcall.TaskRefusedError]); access is
// checked when the task runs, as for any run.
func (g *Tasks) Create(ctx context.Context, toolID string, args json.RawMessage) (*funcall.Task, error) {
	if _, vs, err := g.reg.ValidateJSON(ctx, toolID, args); err != nil || len(vs) > 0 {
		res, err := g.reg.RunJSON(ctx, toolID, args)
		if err != nil {
			return nil, err
		}
		return nil, &funcall.TaskRefusedError{Result: res}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.tasks) >= MaxTasks {
		return nil, fmt.Errorf("funcalltest: more than %d tasks", MaxTasks)
	}
	id := fmt.Sprintf("T%d", len(g.tasks)+1)
	run, stop := context.WithCancel(context.WithoutCancel(ctx))
	gt := &goTask{
		task:    funcall.Task{ID: id, Tool: toolID, Status: funcall.TaskWorking, PollInterval: 10 * time.Millisecond},
		account: tool.AccountFrom(ctx).AccountID(),
		stop:    stop,
		done:    make(chan struct{}),
	}
	g.tasks[id] = gt
	go func() {
		defer close(gt.done)
		res, err := g.reg.RunJSON(run, toolID, args)
		if err != nil {
			res = &tool.Result{Message: "The tool is gone.", Failure: tool.FailureRuntime}
		}
		g.mu.Lock()
		defer g.mu.Unlock()
		if gt.task.Status == funcall.TaskWorking {
			gt.task.Status, gt.task.Result = funcall.TaskFailed, res
			if res.Success {
				gt.task.Status = funcall.TaskCompleted
			}
		}
	}()
	c := gt.task
	return &c, nil
}

// Get implements [funcall.Tasks].
func (g *Tasks) Get(ctx context.Context, id string) (*funcall.Task, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	gt, err := g.visible(ctx, id)
	if err != nil {
		return nil, err
	}
	c := gt.task
	return &c, nil
}

// Cancel implements [funcall.Tasks]: it ends the task's context and marks
// it cancelled.
func (g *Tasks) Cancel(ctx context.Context, id string) (*funcall.Task, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	gt, err := g.visible(ctx, id)
	if err != nil {
		return nil, err
	}
	if gt.task.Status != funcall.TaskWorking {
		return nil, fmt.Errorf("%w: %s is %s", funcall.ErrTaskFinished, id, gt.task.Status)
	}
	gt.task.Status, gt.task.Result = funcall.TaskCancelled, tool.Failed("Cancelled.", nil)
	gt.stop()
	c := gt.task
	return &c, nil
}

// Wait waits until the task id has ended or ctx is done, whichever
// account created it, and returns it as it stands then.
func (g *Tasks) Wait(ctx context.Context, id string) (*funcall.Task, error) {
	g.mu.Lock()
	gt, ok := g.tasks[id]
	g.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("%w: %s", funcall.ErrTaskNotFound, id)
	}
	select {
	case <-gt.done:
	case <-ctx.Done():
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	c := gt.task
	return &c, ctx.Err()
}

// visible returns the task id if the account in ctx created it. g.mu is
// held.
func (g *Tasks) visible(ctx context.Context, id string) (*goTask, error) {
	gt, ok := g.tasks[id]
	if !ok || gt.account != tool.AccountFrom(ctx).AccountID() {
		return nil, fmt.Errorf("%w: %s", funcall.ErrTaskNotFound, id)
	}
	return gt, nil
}
