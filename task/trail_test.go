package task

import (
	"context"
	"database/sql"
	"encoding/json"
	"slices"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/toolapi/toolapi/audit"
	"github.com/toolapi/toolapi/telemetry"
	"github.com/toolapi/toolapi/tool"
)

// TestSpanLinksToCreator: the span of a task's run links to the span of
// the call that created it, and the run's own span (package telemetry's)
// is its child.
func TestSpanLinksToCreator(t *testing.T) {
	each(t, func(t *testing.T, db *sql.DB) {
		rec := tracetest.NewSpanRecorder()
		tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
		f := newFixture(t, db, &Options{Key: testKey, PollInterval: 20e6, TracerProvider: tp})
		tel, err := telemetry.New(&telemetry.Options{TracerProvider: tp})
		if err != nil {
			t.Fatal(err)
		}
		f.reg.Use(tel.Middleware())
		f.start(t)
		ctx, creating := tp.Tracer("test").Start(as(ada()), "create")
		tk, err := f.m.Create(ctx, "album.export", json.RawMessage(`{"album":"summer"}`))
		creating.End()
		if err != nil {
			t.Fatal(err)
		}
		if tk = wait(t, f.m, ctx, tk.ID); tk.Status != Completed {
			t.Fatalf("task %+v", tk)
		}
		f.m.Stop(context.Background()) // the spans have ended
		var taskSpan, runSpan sdktrace.ReadOnlySpan
		for _, s := range rec.Ended() {
			switch s.Name() {
			case "task album.export":
				taskSpan = s
			case "execute_tool album.export":
				runSpan = s
			}
		}
		if taskSpan == nil || runSpan == nil {
			t.Fatalf("spans %v, want the task's and the run's", rec.Ended())
		}
		links := taskSpan.Links()
		if len(links) != 1 || links[0].SpanContext.SpanID() != creating.SpanContext().SpanID() || links[0].SpanContext.TraceID() != creating.SpanContext().TraceID() {
			t.Errorf("task span links %+v, want the creating span %v", links, creating.SpanContext())
		}
		if runSpan.Parent().SpanID() != taskSpan.SpanContext().SpanID() {
			t.Errorf("run span's parent %v, want the task span %v", runSpan.Parent(), taskSpan.SpanContext())
		}
	})
}

// TestAuditTrail: a task's creation, start, question, answer and outcome,
// and a cancellation, are records of the audit trail.
func TestAuditTrail(t *testing.T) {
	db := openSQLite(t)
	if err := Migrate(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	store, err := audit.NewSQLStore(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, db, &Options{Key: testKey, PollInterval: 20e6, Audit: store})
	f.start(t)
	ctx := as(ada())
	tk, err := f.m.Create(ctx, "album.rename", nil)
	if err != nil {
		t.Fatal(err)
	}
	if tk = wait(t, f.m, ctx, tk.ID); tk.Status != InputRequired {
		t.Fatalf("task %+v", tk)
	}
	if err := f.m.Answer(ctx, tk.ID, &tool.Elicitation{Action: "accept", Content: map[string]any{"name": "x"}}); err != nil {
		t.Fatal(err)
	}
	if tk = wait(t, f.m, ctx, tk.ID); tk.Status != Completed {
		t.Fatalf("task %+v", tk)
	}
	held, err := f.m.Create(ctx, "album.export", json.RawMessage(`{"album":"a","hold":true}`))
	if err != nil {
		t.Fatal(err)
	}
	<-f.gate.started
	if _, err := f.m.Cancel(ctx, held.ID); err != nil {
		t.Fatal(err)
	}
	waitRunning(t, f.m, held.ID)
	if _, err := f.m.Create(ctx, "album.export", json.RawMessage(`{"album":""}`)); err == nil {
		t.Fatal("invalid task created")
	}
	recs, err := store.List(context.Background(), &audit.Filter{Account: "ada"})
	if err != nil {
		t.Fatal(err)
	}
	// Each record of a task names it: the renaming is task 1, the held
	// export task 2; the export refused before it was created has none.
	name := map[string]string{tk.ID: " 1", held.ID: " 2", "": ""}
	var got []string
	for _, r := range slices.Backward(recs) {
		got = append(got, r.Tool+" "+string(r.Outcome)+" "+string(r.Failure)+name[r.TaskID])
	}
	want := []string{
		"album.rename task_created  1",
		"album.rename task_started  1",
		"album.rename task_asked  1",
		"album.rename task_answered  1",
		"album.rename success  1",
		"album.export task_created  2",
		"album.export task_started  2",
		"album.export task_cancelled  2",
		"album.export failure input",
	}
	if !slices.Equal(got, want) {
		t.Errorf("trail:\n%q\nwant\n%q", got, want)
	}
	// The task IDs are links of the chain: the trail verifies, and a
	// task ID changed in the table breaks it there.
	if b, err := store.Verify(context.Background()); err != nil || b != nil {
		t.Fatalf("Verify = %+v, %v; want the chain whole", b, err)
	}
	if _, err := db.Exec(`UPDATE audit_trail SET task_id = 'FORGED' WHERE task_id = $1 AND outcome = 'task_answered'`, tk.ID); err != nil {
		t.Fatal(err)
	}
	if b, err := store.Verify(context.Background()); err != nil || b == nil || b.Field != "task_id" {
		t.Errorf("Verify after a forged task ID = %+v, %v; want a break at task_id", b, err)
	}
}
