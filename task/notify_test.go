package task

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/toolapi/toolapi/tool"
)

// TestNotifyAcrossManagers: on PostgreSQL, two Managers on one database
// tell each other of changes, so that a cancellation given on one reaches
// the task running on the other, an answer given on one resumes it, and a
// wait on one returns once the task ends on the other, though both poll
// only once an hour.
func TestNotifyAcrossManagers(t *testing.T) {
	db := openPostgres(t)
	if err := Migrate(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	slow := &Options{Key: testKey, PollInterval: time.Hour, StaleAfter: time.Hour}
	a, b := newFixture(t, db, cloneOptions(slow)), newFixture(t, db, cloneOptions(slow))
	a.start(t)
	b.start(t)
	ctx := as(ada())

	// Whichever runs it, the other cancels it.
	tk, err := a.m.Create(ctx, "album.export", json.RawMessage(`{"album":"summer","hold":true}`))
	if err != nil {
		t.Fatal(err)
	}
	runner, other := a, b
	select {
	case <-a.gate.started:
	case <-b.gate.started:
		runner, other = b, a
	case <-time.After(20 * time.Second):
		t.Fatal("the task did not start")
	}
	if _, err := other.m.Cancel(ctx, tk.ID); err != nil {
		t.Fatal(err)
	}
	waitRunning(t, runner.m, tk.ID) // fails after 20 s: only a notification ends it sooner than the poll

	// A question asked where it runs is answered on either; the wait on
	// the one that did not create it ends with the outcome.
	tk, err = b.m.Create(ctx, "album.rename", nil)
	if err != nil {
		t.Fatal(err)
	}
	if tk = wait(t, a.m, ctx, tk.ID); tk.Status != InputRequired {
		t.Fatalf("task %+v, want it waiting for input", tk)
	}
	if err := b.m.Answer(ctx, tk.ID, &tool.Elicitation{Action: "accept", Content: map[string]any{"name": "winter"}}); err != nil {
		t.Fatal(err)
	}
	if tk = wait(t, a.m, ctx, tk.ID); tk.Status != Completed || tk.Result.Outputs["name"] != "winter" {
		t.Fatalf("task %+v result %+v", tk, tk.Result)
	}
}

func cloneOptions(o *Options) *Options {
	c := *o
	return &c
}
