// Package functask lets function calling run tools as durable tasks of a
// task Manager (package task): it adapts a [*task.Manager] to
// [funcall.Tasks].
//
//	set := funcall.New(reg, account).WithTasks(functask.New(manager))
//	// a call of a tool that may run as a task returns a task handle;
//	// the model polls it with tasks_get and cancels it with tasks_cancel
//
// It is a package of its own so that package funcall depends on no task
// engine: an application without tasks pulls in no queue.
package functask

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/toolapi/toolapi/funcall"
	"github.com/toolapi/toolapi/task"
)

// New returns the [funcall.Tasks] of m.
func New(m *task.Manager) funcall.Tasks { return tasks{m} }

type tasks struct{ m *task.Manager }

func (t tasks) Create(ctx context.Context, toolID string, args json.RawMessage) (*funcall.Task, error) {
	tk, err := t.m.Create(ctx, toolID, args)
	if err != nil {
		return nil, mapError(err)
	}
	return of(tk), nil
}

func (t tasks) Get(ctx context.Context, id string) (*funcall.Task, error) {
	tk, err := t.m.Get(ctx, id)
	if err != nil {
		return nil, mapError(err)
	}
	return of(tk), nil
}

func (t tasks) Cancel(ctx context.Context, id string) (*funcall.Task, error) {
	tk, err := t.m.Cancel(ctx, id)
	if err != nil {
		return nil, mapError(err)
	}
	return of(tk), nil
}

// mapError maps the task package's errors to funcall's, keeping the
// original in the chain.
func mapError(err error) error {
	var re *task.RefusedError
	switch {
	case errors.As(err, &re):
		return &funcall.TaskRefusedError{Result: re.Result}
	case errors.Is(err, task.ErrNotFound):
		return fmt.Errorf("%w: %w", funcall.ErrTaskNotFound, err)
	case errors.Is(err, task.ErrFinished):
		return fmt.Errorf("%w: %w", funcall.ErrTaskFinished, err)
	}
	return err
}

// of returns tk as funcall tells it.
func of(tk *task.Task) *funcall.Task {
	out := &funcall.Task{ID: tk.ID, Tool: tk.Tool, Status: string(tk.Status), StatusMessage: tk.StatusMessage, PollInterval: tk.PollInterval, Result: tk.Result}
	if tk.Progress != nil {
		out.Progress = &funcall.TaskProgress{Done: tk.Progress.Done, Total: tk.Progress.Total, Message: tk.Progress.Message}
	}
	if tk.Question != nil {
		out.Question = tk.Question.Message
	}
	return out
}
