package task

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/toolapi/toolapi/tool"
)

// asked is a Confirmer that says yes and keeps the questions.
type asked struct{ questions []string }

func (a *asked) Confirm(_ context.Context, _ *tool.Tool, q string) (bool, error) {
	a.questions = append(a.questions, q)
	return true, nil
}

// A task of a tool whose ConfirmIf picks the call asks with the reason,
// at creation when the context has a Confirmer, or when it starts; one
// the method does not pick runs without asking; the method's error
// refuses the task without its text.
func TestConfirmIfTask(t *testing.T) {
	each(t, func(t *testing.T, db *sql.DB) {
		f := newFixture(t, db, nil)
		err := f.reg.Add(&tool.Tool{
			ID: "album.refund", Label: "Refund", Description: "Refunds.", Permission: "export", Task: tool.TaskRequired,
			Inputs: []*tool.Definition{{Name: "amount", Type: "integer", Required: true}},
			ConfirmIf: func(_ context.Context, in *tool.Values) (string, error) {
				switch n := in.Int("amount"); {
				case n < 0:
					return "", errors.New("ledger: connection refused")
				case n > 100:
					return fmt.Sprintf("%d is over 100.", n), nil
				}
				return "", nil
			},
			Handler: func(context.Context, *tool.Values) (*tool.Result, error) {
				return tool.Succeeded("Refunded.", nil), nil
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		f.start(t)
		ctx := as(ada())

		// Not picked: runs with no one to ask.
		tk, err := f.m.Create(ctx, "album.refund", json.RawMessage(`{"amount":50}`))
		if err != nil {
			t.Fatal(err)
		}
		if tk = wait(t, f.m, ctx, tk.ID); tk.Status != Completed {
			t.Fatalf("a task not picked: %+v result %+v", tk, tk.Result)
		}
		// Picked, a Confirmer in the context: asked before the task exists.
		a := &asked{}
		tk, err = f.m.Create(tool.WithConfirmer(ctx, a), "album.refund", json.RawMessage(`{"amount":150}`))
		if err != nil {
			t.Fatal(err)
		}
		if tk = wait(t, f.m, ctx, tk.ID); tk.Status != Completed {
			t.Fatalf("a confirmed task: %+v result %+v", tk, tk.Result)
		}
		want := `Run Refund (album.refund) with {"amount":150}? Reason: 150 is over 100.`
		if len(a.questions) != 1 || a.questions[0] != want {
			t.Errorf("asked %q, want %q", a.questions, want)
		}
		// Picked, no Confirmer: the task asks when it starts, with the reason.
		tk, err = f.m.Create(ctx, "album.refund", json.RawMessage(`{"amount":150}`))
		if err != nil {
			t.Fatal(err)
		}
		tk = wait(t, f.m, ctx, tk.ID)
		if tk.Status != InputRequired || tk.Question == nil || !tk.Question.Confirm || tk.Question.Message != want {
			t.Fatalf("task %+v question %+v, want the confirmation %q", tk, tk.Question, want)
		}
		// Cancelled, so that stopping the manager does not wait for it.
		if _, err := f.m.Cancel(ctx, tk.ID); err != nil {
			t.Fatal(err)
		}
		// The method's error: refused, its text kept out.
		_, err = f.m.Create(ctx, "album.refund", json.RawMessage(`{"amount":-1}`))
		var re *RefusedError
		if !errors.As(err, &re) || re.Result.Failure != tool.FailureRuntime || re.Result.Message != "Refund failed." {
			t.Errorf("ConfirmIf's error: %v", err)
		}
	})
}
