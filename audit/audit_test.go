package audit_test

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"io"
	"log/slog"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	_ "modernc.org/sqlite"

	"github.com/toolapi/toolapi/audit"
	"github.com/toolapi/toolapi/tool"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// newSQLite returns a SQLStore on a new SQLite database.
func newSQLite(t testing.TB) *audit.SQLStore {
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "audit.db")+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	s, err := audit.NewSQLStore(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s
}

// fixture is a registry of a write tool and a read tool, audited.
type fixture struct {
	reg  *tool.Registry
	ran  atomic.Int32 // runs of the write tool's handler
	fail atomic.Bool  // the write tool's handler fails
}

func newFixture(t *testing.T, store audit.Store) *fixture {
	f := &fixture{reg: tool.NewRegistry(&tool.Options{Logger: quiet})}
	publish := &tool.Tool{
		ID: "site.publish", Label: "Publish", Description: "Publishes the site.", Operation: tool.OpWrite, Permission: "administer",
		Inputs: []*tool.Definition{
			{Name: "note", Type: "string", Required: true},
			{Name: "password", Type: "string", Sensitive: true},
		},
		Handler: func(context.Context, *tool.Values) (*tool.Result, error) {
			f.ran.Add(1)
			if f.fail.Load() {
				return nil, errors.New("disk full")
			}
			return nil, nil
		},
	}
	search := &tool.Tool{
		ID: "site.search", Label: "Search", Description: "Searches the site.", Operation: tool.OpRead, Permission: "access content",
		Inputs:  []*tool.Definition{{Name: "word", Type: "string"}},
		Handler: func(context.Context, *tool.Values) (*tool.Result, error) { return nil, nil },
	}
	if err := f.reg.Add(publish, search); err != nil {
		t.Fatal(err)
	}
	f.reg.Use(audit.Middleware(store, &audit.Options{Logger: quiet}))
	return f
}

var (
	admin  = &tool.User{ID: "admin", Permissions: []string{"administer", "access content"}}
	reader = &tool.User{ID: "reader", Permissions: []string{"access content"}}
	nobody = &tool.User{ID: "nobody"}
)

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func run(t *testing.T, f *fixture, acct tool.Account, id, args string) *tool.Result {
	t.Helper()
	r, err := f.reg.RunJSON(tool.WithAccount(context.Background(), acct), id, []byte(args))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestTrail checks what is recorded of each kind of run.
func TestTrail(t *testing.T) {
	store := newSQLite(t)
	f := newFixture(t, store)
	run(t, f, admin, "site.publish", `{"note":"spring","password":"one"}`)
	run(t, f, admin, "site.publish", `{"note":"spring","password":"two"}`)
	run(t, f, admin, "site.publish", `{}`)
	run(t, f, reader, "site.publish", `{"note":"spring"}`)
	f.fail.Store(true)
	run(t, f, admin, "site.publish", `{"note":"autumn"}`)
	run(t, f, reader, "site.search", `{"word":"x"}`) // a read that runs: not recorded
	run(t, f, nobody, "site.search", `{"word":"x"}`) // a refused read: recorded

	got, err := store.List(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	spring := sha(`{"note":"spring"}`)
	want := []audit.Record{
		{Account: "nobody", Tool: "site.search", Operation: "read", Outcome: audit.Failed, Failure: tool.FailureAccess, Runs: 1},
		{Account: "admin", Tool: "site.publish", Operation: "write", Outcome: audit.Failed, Failure: tool.FailureRuntime, InputsSHA256: sha(`{"note":"autumn"}`), Runs: 1},
		{Account: "reader", Tool: "site.publish", Operation: "write", Outcome: audit.Failed, Failure: tool.FailureAccess, Runs: 1},
		{Account: "admin", Tool: "site.publish", Operation: "write", Outcome: audit.Failed, Failure: tool.FailureInput, Runs: 1},
		// The sensitive password is left out of the hash: both runs hash
		// the same.
		{Account: "admin", Tool: "site.publish", Operation: "write", Outcome: audit.Succeeded, InputsSHA256: spring, Runs: 1},
		{Account: "admin", Tool: "site.publish", Operation: "write", Outcome: audit.Succeeded, InputsSHA256: spring, Runs: 1},
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(audit.Record{}, "ID", "Time", "Duration")); diff != "" {
		t.Errorf("trail (-want +got):\n%s", diff)
	}
	for _, r := range got {
		if r.ID == "" || r.Time.IsZero() || time.Since(r.Time) > time.Hour {
			t.Errorf("record %+v: no ID or no time", r)
		}
	}
	only, err := store.List(context.Background(), &audit.Filter{Account: "reader", Tool: "site.publish", Limit: 5})
	if err != nil || len(only) != 1 || only[0].Account != "reader" {
		t.Errorf("the reader's records: %+v, %v", only, err)
	}
}

// failing is a Store whose writes fail as told.
type failing struct {
	audit.Store
	add, complete bool
}

func (s *failing) Add(ctx context.Context, r *audit.Record) error {
	if s.add {
		return errors.New("database down")
	}
	return s.Store.Add(ctx, r)
}

func (s *failing) Complete(ctx context.Context, r *audit.Record) error {
	if s.complete {
		return errors.New("database down")
	}
	return s.Store.Complete(ctx, r)
}

// TestUnrecorded checks that a run that cannot be recorded does not run,
// and that a run whose end cannot be recorded stays started.
func TestUnrecorded(t *testing.T) {
	sqlite := newSQLite(t)
	store := &failing{Store: sqlite, add: true}
	f := newFixture(t, store)
	r := run(t, f, admin, "site.publish", `{"note":"spring"}`)
	if r.Success || f.ran.Load() != 0 {
		t.Errorf("with the trail down: success %v, handler ran %d times; want a failure without running", r.Success, f.ran.Load())
	}
	store.add, store.complete = false, true
	r = run(t, f, admin, "site.publish", `{"note":"spring"}`)
	if !r.Success || f.ran.Load() != 1 {
		t.Errorf("with completion failing: success %v, ran %d; want the run done", r.Success, f.ran.Load())
	}
	got, err := sqlite.List(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Outcome != audit.Started || got[0].InputsSHA256 != sha(`{"note":"spring"}`) {
		t.Errorf("trail %+v, want one record left started, with its inputs' hash", got)
	}
}

// A run's record is written once its inputs are decoded, before it runs:
// while it runs, the trail shows it started with the hash of its inputs.
func TestStartedCarriesHash(t *testing.T) {
	store := newSQLite(t)
	reg := tool.NewRegistry(&tool.Options{Logger: quiet})
	var during []audit.Record
	err := reg.Add(&tool.Tool{
		ID: "site.publish", Label: "Publish", Description: "Publishes the site.", Operation: tool.OpWrite, Permission: "administer",
		Inputs: []*tool.Definition{{Name: "note", Type: "string", Required: true}},
		Handler: func(ctx context.Context, _ *tool.Values) (*tool.Result, error) {
			var err error
			during, err = store.List(ctx, nil)
			return nil, err
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	reg.Use(audit.Middleware(store, &audit.Options{Logger: quiet}))
	if r, _ := reg.RunJSON(tool.WithAccount(context.Background(), admin), "site.publish", []byte(`{"note":"spring"}`)); !r.Success {
		t.Fatalf("run: %s", r.Message)
	}
	if len(during) != 1 || during[0].Outcome != audit.Started || during[0].InputsSHA256 != sha(`{"note":"spring"}`) {
		t.Errorf("the trail while the run ran: %+v; want it started with its inputs' hash", during)
	}
	after, err := store.List(context.Background(), nil)
	if err != nil || len(after) != 1 || after[0].Outcome != audit.Succeeded || after[0].ID != during[0].ID {
		t.Errorf("the trail after the run: %+v, %v; want the one record succeeded", after, err)
	}
}

// counting is a Store that counts its writes.
type counting struct {
	audit.Store
	adds, completes atomic.Int32
}

func (s *counting) Add(ctx context.Context, r *audit.Record) error {
	s.adds.Add(1)
	return s.Store.Add(ctx, r)
}

func (s *counting) Complete(ctx context.Context, r *audit.Record) error {
	s.completes.Add(1)
	return s.Store.Complete(ctx, r)
}

// A thousand refused runs of one account for one tool within a window are
// one record counting them all: written once at the first, and completed
// with the count when the trail closes. Another account's refusals have
// their own record; permitted runs are recorded as ever.
func TestRefusalsAggregated(t *testing.T) {
	sqlite := newSQLite(t)
	store := &counting{Store: sqlite}
	trail := audit.New(store, &audit.Options{Logger: quiet})
	nf := newFixture(t, newSQLite(t)) // for its tools
	reg := tool.NewRegistry(&tool.Options{Logger: quiet})
	for _, id := range []string{"site.publish", "site.search"} {
		tl, _ := nf.reg.Tool(id)
		c := *tl
		if err := reg.Add(&c); err != nil {
			t.Fatal(err)
		}
	}
	reg.Use(trail.Middleware())
	ctx := context.Background()
	for range 1000 {
		if r, _ := reg.RunJSON(tool.WithAccount(ctx, nobody), "site.publish", []byte(`{"note":"x"}`)); r.Success || r.Failure != tool.FailureAccess {
			t.Fatalf("nobody's run: %+v", r)
		}
	}
	reg.RunJSON(tool.WithAccount(ctx, reader), "site.publish", []byte(`{"note":"x"}`))
	reg.RunJSON(tool.WithAccount(ctx, admin), "site.publish", []byte(`{"note":"x"}`))
	if n := store.adds.Load(); n != 3 {
		t.Errorf("%d records added for 1000 + 1 refusals and a run, want 3", n)
	}
	if err := trail.Close(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := sqlite.List(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	runs := map[string]int{}
	for _, r := range got {
		runs[r.Account+" "+string(r.Outcome)] += r.Runs
	}
	want := map[string]int{"nobody failure": 1000, "reader failure": 1, "admin success": 1}
	if diff := cmp.Diff(want, runs); diff != "" || len(got) != 3 {
		t.Errorf("%d records; runs by account and outcome (-want +got):\n%s", len(got), diff)
	}
	// After Close, each refusal is written at once.
	reg.RunJSON(tool.WithAccount(ctx, nobody), "site.publish", []byte(`{"note":"x"}`))
	if got, _ := sqlite.List(ctx, &audit.Filter{Account: "nobody"}); len(got) != 2 {
		t.Errorf("after Close: %d records of nobody, want 2", len(got))
	}
}

// The refusals counted in a window are written when it ends, without a
// Close.
func TestRefusalWindowEnds(t *testing.T) {
	sqlite := newSQLite(t)
	f := newFixture(t, sqlite)
	f.reg = tool.NewRegistry(&tool.Options{Logger: quiet})
	src := newFixture(t, newSQLite(t))
	tl, _ := src.reg.Tool("site.publish")
	c := *tl
	if err := f.reg.Add(&c); err != nil {
		t.Fatal(err)
	}
	f.reg.Use(audit.Middleware(sqlite, &audit.Options{Logger: quiet, RefusalWindow: 100 * time.Millisecond}))
	for range 5 {
		run(t, f, nobody, "site.publish", `{}`)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		got, err := sqlite.List(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 1 && got[0].Runs == 5 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("trail %+v; want one record of 5 runs once the window ended", got)
		}
		time.Sleep(20 * time.Millisecond)
	}
	run(t, f, nobody, "site.publish", `{}`) // a new window: a new record
	if got, _ := sqlite.List(context.Background(), nil); len(got) != 2 || got[0].Runs != 1 {
		t.Errorf("after the window: %+v; want a new record of 1 run", got)
	}
}

// Close completes the records of runs under way as interrupted.
func TestCloseInterrupts(t *testing.T) {
	store := newSQLite(t)
	reg := tool.NewRegistry(&tool.Options{Logger: quiet})
	started, release := make(chan struct{}), make(chan struct{})
	err := reg.Add(&tool.Tool{
		ID: "site.publish", Label: "Publish", Description: "Publishes the site.", Operation: tool.OpWrite, Permission: "administer",
		Handler: func(ctx context.Context, _ *tool.Values) (*tool.Result, error) {
			close(started)
			<-release
			return nil, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	trail := audit.New(store, &audit.Options{Logger: quiet})
	reg.Use(trail.Middleware())
	done := make(chan struct{})
	go func() {
		defer close(done)
		reg.RunJSON(tool.WithAccount(context.Background(), admin), "site.publish", nil)
	}()
	<-started
	if err := trail.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	got, err := store.List(context.Background(), nil)
	if err != nil || len(got) != 1 || got[0].Outcome != audit.Interrupted {
		t.Errorf("after Close: %+v, %v; want the run interrupted", got, err)
	}
	close(release)
	<-done
}

// TestCheckUnrecorded checks that a check of inputs is not recorded, and
// is let through even while the trail cannot be written.
func TestCheckUnrecorded(t *testing.T) {
	sqlite := newSQLite(t)
	store := &failing{Store: sqlite, add: true}
	f := newFixture(t, store)
	ctx := tool.WithAccount(context.Background(), admin)
	if _, vs, err := f.reg.ValidateJSON(ctx, "site.publish", []byte(`{"note":"spring"}`)); err != nil || len(vs) > 0 {
		t.Errorf("a valid check with the trail down: %v %v, want it let through", vs, err)
	}
	if _, vs, err := f.reg.ValidateJSON(ctx, "site.publish", []byte(`{}`)); err != nil || len(vs) != 1 {
		t.Errorf("an invalid check: %v %v, want one violation", vs, err)
	}
	got, err := sqlite.List(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 0 || f.ran.Load() != 0 {
		t.Errorf("trail %+v, handler ran %d times; want neither", got, f.ran.Load())
	}
}

// TestSQLStoreOptions checks that a table name that is not an identifier
// is refused.
func TestSQLStoreOptions(t *testing.T) {
	for _, name := range []string{"audit; DROP TABLE x", "1st", "a-b"} {
		if _, err := audit.NewSQLStore(nil, &audit.SQLOptions{Table: name}); err == nil {
			t.Errorf("table %q accepted", name)
		}
	}
}
