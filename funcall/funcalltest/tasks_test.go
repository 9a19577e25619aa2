package funcalltest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/toolapi/toolapi/funcall"
	"github.com/toolapi/toolapi/tool"
)

// TestNewTasks: a task runs the tool as its account and ends completed with
// the run's result; a held one is cancelled and its context ends; inputs
// that break the rules are refused before a task exists; another account
// gets no such task; an ended task cannot be cancelled.
func TestNewTasks(t *testing.T) {
	release := make(chan struct{})
	stopped := make(chan struct{}, 1)
	reg := tool.NewRegistry(nil)
	if err := reg.Add(&tool.Tool{
		ID: "report.build", Label: "Build", Description: "Builds a report.", Operation: tool.OpTransform,
		Permission: "build", Task: tool.TaskRequired,
		Inputs:  []*tool.Definition{{Name: "pages", Type: "integer", Required: true, Constraints: tool.Constraints{Range: &tool.Range{Min: tool.Ptr(1.0)}}}, {Name: "hold", Type: "boolean"}},
		Outputs: []*tool.Definition{{Name: "pages", Type: "integer", Required: true}},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			if in.Bool("hold") {
				select {
				case <-release:
				case <-ctx.Done():
					stopped <- struct{}{}
					return nil, ctx.Err()
				}
			}
			return tool.Succeeded("Built.", map[string]any{"pages": in.Int("pages")}), nil
		},
	}); err != nil {
		t.Fatal(err)
	}
	g := NewTasks(reg)
	ada := tool.WithAccount(context.Background(), &tool.User{ID: "ada", Permissions: []string{"build"}})
	bob := tool.WithAccount(context.Background(), &tool.User{ID: "bob", Permissions: []string{"build"}})

	tk, err := g.Create(ada, "report.build", json.RawMessage(`{"pages":3}`))
	if err != nil || tk.Status != funcall.TaskWorking {
		t.Fatalf("Create = %+v, %v", tk, err)
	}
	if tk, err = g.Wait(context.Background(), tk.ID); err != nil || tk.Status != funcall.TaskCompleted || fmt.Sprint(tk.Result.Outputs["pages"]) != "3" {
		t.Fatalf("the ended task: %+v (%+v), %v", tk, tk.Result, err)
	}
	if _, err := g.Get(bob, tk.ID); !errors.Is(err, funcall.ErrTaskNotFound) {
		t.Errorf("bob's Get = %v, want ErrTaskNotFound", err)
	}
	if _, err := g.Cancel(ada, tk.ID); !errors.Is(err, funcall.ErrTaskFinished) {
		t.Errorf("Cancel of an ended task = %v, want ErrTaskFinished", err)
	}

	var refused *funcall.TaskRefusedError
	if _, err := g.Create(ada, "report.build", json.RawMessage(`{"pages":0}`)); !errors.As(err, &refused) || refused.Result.Failure != tool.FailureInput {
		t.Errorf("Create with pages 0 = %v, want a refusal for the input", err)
	}

	held, err := g.Create(ada, "report.build", json.RawMessage(`{"pages":1,"hold":true}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Cancel(bob, held.ID); !errors.Is(err, funcall.ErrTaskNotFound) {
		t.Errorf("bob's Cancel = %v, want ErrTaskNotFound", err)
	}
	if c, err := g.Cancel(ada, held.ID); err != nil || c.Status != funcall.TaskCancelled {
		t.Fatalf("Cancel = %+v, %v", c, err)
	}
	<-stopped // the handler saw its context end
	if got, _ := g.Wait(context.Background(), held.ID); got.Status != funcall.TaskCancelled {
		t.Errorf("the cancelled task ended %s", got.Status)
	}
	close(release)
}
