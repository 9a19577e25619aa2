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
	var got []string
	for _, r := range slices.Backward(recs) {
		got = append(got, r.Tool+" "+string(r.Outcome)+" "+string(r.Failure))
	}
	want := []string{
		"album.rename task_created ",
		"album.rename task_started ",
		"album.rename task_asked ",
		"album.rename task_answered ",
		"album.rename success ",
		"album.export task_created ",
		"album.export task_started ",
		"album.export task_cancelled ",
		"album.export failure input",
	}
	if !slices.Equal(got, want) {
		t.Errorf("trail:\n%q\nwant\n%q", got, want)
	}
}
