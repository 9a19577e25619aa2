package task

import (
	"context"
	"database/sql"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolapi/toolapi/tool"
)

// TestInterruptedWhenWorkerDies: a task whose worker stops writing its
// heartbeat (its process died) is marked failed as interrupted by the sweep
// of another Manager on the same database, and is never run again.
func TestInterruptedWhenWorkerDies(t *testing.T) {
	each(t, func(t *testing.T, db *sql.DB) {
		// The first Manager writes no heartbeat after it claims the task:
		// as far as the database can tell, its process is dead.
		dead := newFixture(t, db, &Options{Key: testKey, PollInterval: 10 * time.Millisecond, StaleAfter: time.Hour, SweepEvery: time.Hour})
		var runs atomic.Int32
		dead.reg.Use(func(next tool.RunFunc) tool.RunFunc {
			return func(ctx context.Context, c *tool.Call) *tool.Result {
				if !c.Check {
					runs.Add(1)
				}
				return next(ctx, c)
			}
		})
		dead.start(t)
		ctx := as(ada())
		tk, err := dead.m.Create(ctx, "album.export", json.RawMessage(`{"album":"summer","hold":true}`))
		if err != nil {
			t.Fatal(err)
		}
		<-dead.gate.started

		next := newFixture(t, db, &Options{Key: testKey, PollInterval: 10 * time.Millisecond, StaleAfter: 50 * time.Millisecond, SweepEvery: 10 * time.Millisecond})
		next.start(t)
		got := wait(t, next.m, ctx, tk.ID)
		if got.Status != Failed || got.StatusMessage != "interrupted" || got.Result == nil || got.Result.Failure != tool.FailureRuntime {
			t.Fatalf("task %+v result %+v, want failed as interrupted", got, got.Result)
		}
		// The dead worker's method is cancelled once it reads the status,
		// and its end does not overwrite the interruption.
		waitRunning(t, dead.m, tk.ID)
		if got, _ = next.m.Get(ctx, tk.ID); got.StatusMessage != "interrupted" {
			t.Errorf("after the old worker ended: %+v", got)
		}
		// Its job worked again (River rescued it, say) does not run it again.
		dead.m.run(context.Background(), tk.ID)
		next.m.run(context.Background(), tk.ID)
		if n := runs.Load(); n != 1 {
			t.Errorf("the tool ran %d times, want once", n)
		}
	})
}

// TestStopInterrupts: a Manager stopped while a task runs waits for it
// until its context ends, then cancels it: the task fails as interrupted.
func TestStopInterrupts(t *testing.T) {
	each(t, func(t *testing.T, db *sql.DB) {
		f := newFixture(t, db, nil)
		if err := f.m.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		ctx := as(ada())
		tk, err := f.m.Create(ctx, "album.export", json.RawMessage(`{"album":"summer","hold":true}`))
		if err != nil {
			t.Fatal(err)
		}
		<-f.gate.started
		sctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		if err := f.m.Stop(sctx); err != nil {
			t.Fatal(err)
		}
		got, err := f.m.Get(ctx, tk.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != Failed || got.StatusMessage != "interrupted" {
			t.Fatalf("task %+v result %+v, want failed as interrupted", got, got.Result)
		}
	})
}

// TestAcrossManagers: a task created, answered and cancelled through a
// Manager that runs nothing is run, resumed and cancelled by the Manager
// of another process on the same database.
func TestAcrossManagers(t *testing.T) {
	each(t, func(t *testing.T, db *sql.DB) {
		runner := newFixture(t, db, nil)
		runner.start(t)
		front := newFixture(t, db, nil) // not started: another replica's API
		ctx := as(ada())

		tk, err := front.m.Create(ctx, "album.rename", nil)
		if err != nil {
			t.Fatal(err)
		}
		if tk = wait(t, front.m, ctx, tk.ID); tk.Status != InputRequired {
			t.Fatalf("task %+v, want it waiting for input", tk)
		}
		if err := front.m.Answer(ctx, tk.ID, &tool.Elicitation{Action: "accept", Content: map[string]any{"name": "winter"}}); err != nil {
			t.Fatal(err)
		}
		if tk = wait(t, front.m, ctx, tk.ID); tk.Status != Completed || tk.Result.Outputs["name"] != "winter" {
			t.Fatalf("task %+v result %+v", tk, tk.Result)
		}

		tk, err = front.m.Create(ctx, "album.export", json.RawMessage(`{"album":"summer","hold":true}`))
		if err != nil {
			t.Fatal(err)
		}
		<-runner.gate.started
		if _, err := front.m.Cancel(ctx, tk.ID); err != nil {
			t.Fatal(err)
		}
		// The runner's worker notices within its poll interval and cancels
		// the method's context.
		waitRunning(t, runner.m, tk.ID)
		if got, _ := front.m.Get(ctx, tk.ID); got.Status != Cancelled {
			t.Errorf("status %s, want cancelled", got.Status)
		}
	})
}

// TestCancelWhileWaitingForInput: a task cancelled while it waits for an
// answer ends, and its question is gone.
func TestCancelWhileWaitingForInput(t *testing.T) {
	each(t, func(t *testing.T, db *sql.DB) {
		f := newFixture(t, db, nil)
		f.start(t)
		ctx := as(ada())
		tk, err := f.m.Create(ctx, "album.rename", nil)
		if err != nil {
			t.Fatal(err)
		}
		if tk = wait(t, f.m, ctx, tk.ID); tk.Status != InputRequired {
			t.Fatalf("task %+v, want it waiting", tk)
		}
		got, err := f.m.Cancel(ctx, tk.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != Cancelled || got.Question != nil {
			t.Fatalf("cancelled %+v", got)
		}
		waitRunning(t, f.m, tk.ID)
		if err := f.m.Answer(ctx, tk.ID, &tool.Elicitation{Action: "accept", Content: map[string]any{"name": "x"}}); err == nil {
			t.Errorf("Answer to a cancelled task succeeded")
		}
	})
}

func TestMigrateTwice(t *testing.T) {
	each(t, func(t *testing.T, db *sql.DB) {
		// each has migrated once.
		if err := Migrate(context.Background(), db); err != nil {
			t.Fatalf("second Migrate: %v", err)
		}
	})
}
