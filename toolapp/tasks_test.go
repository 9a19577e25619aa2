package toolapp

import (
	"context"
	"database/sql"
	"net"
	"net/http"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/toolapi/toolapi/task"
	"github.com/toolapi/toolapi/tool"
)

// taskApp is an App on an SQLite file whose tool "job.hold", run only as
// a task, holds until release is closed (or its context ends) and counts
// its runs.
type taskApp struct {
	app     *App
	started chan struct{}
	release chan struct{}
	runs    atomic.Int32
	ada     tool.Account
}

func newTaskApp(t *testing.T) *taskApp {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "app.db")+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ta := &taskApp{started: make(chan struct{}, 4), release: make(chan struct{})}
	reg := tool.NewRegistry(nil)
	err = reg.Add(&tool.Tool{
		ID: "job.hold", Label: "Hold", Description: "Holds until released.", Permission: "jobs",
		Task: tool.TaskRequired, Destructive: new(bool),
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			ta.runs.Add(1)
			ta.started <- struct{}{}
			select {
			case <-ta.release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return tool.Succeeded("Held.", nil), nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	ta.ada = &tool.User{ID: "ada", Permissions: []string{"jobs"}}
	ta.app = &App{Registry: reg, DB: db, Accounts: NewStaticAccounts(nil, ta.ada),
		TaskOptions: &task.Options{PollInterval: 50 * time.Millisecond}}
	return ta
}

// serveTasks serves ta until the returned function is called, which
// returns what Serve returned. The task manager is made before, as
// every command makes it when it opens the App, so that the test may use
// it while Serve runs.
func serveTasks(t *testing.T, ta *taskApp, opts *Options) (stop func() error) {
	t.Helper()
	if err := ta.app.setUpTasks(t.Context()); err != nil || ta.app.Tasks == nil {
		t.Fatalf("setUpTasks: %v, %v", err, ta.app.Tasks)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- Serve(ctx, ln, ta.app, opts) }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if c, err := net.Dial("tcp", ln.Addr().String()); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("serve did not start")
		}
		time.Sleep(10 * time.Millisecond)
	}
	return func() error {
		cancel()
		return <-served
	}
}

// TestServeRunsTasks: serve makes the task manager on the App's database,
// runs its tasks under the account found again through Accounts, and, told
// to stop, lets a running task finish within the grace period.
func TestServeRunsTasks(t *testing.T) {
	ta := newTaskApp(t)
	stop := serveTasks(t, ta, &Options{ShutdownTimeout: 20 * time.Second, Stdout: nil})
	ctx := tool.WithAccount(t.Context(), ta.ada)
	tk, err := ta.app.Tasks.Create(ctx, "job.hold", nil)
	if err != nil {
		t.Fatal(err)
	}
	<-ta.started
	// Shut down while the task runs, releasing it once the shutdown began.
	go func() {
		time.Sleep(200 * time.Millisecond)
		close(ta.release)
	}()
	if err := stop(); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	got, err := ta.app.Tasks.Get(ctx, tk.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != task.Completed || ta.runs.Load() != 1 {
		t.Errorf("after a graceful stop: task %s (%s), %d runs; want completed once", got.Status, got.StatusMessage, ta.runs.Load())
	}
}

// TestServeStopInterruptsTasks: a task still running when the grace
// period ends fails as interrupted; none is left working.
func TestServeStopInterruptsTasks(t *testing.T) {
	ta := newTaskApp(t)
	stop := serveTasks(t, ta, &Options{ShutdownTimeout: 300 * time.Millisecond})
	ctx := tool.WithAccount(t.Context(), ta.ada)
	tk, err := ta.app.Tasks.Create(ctx, "job.hold", nil)
	if err != nil {
		t.Fatal(err)
	}
	<-ta.started
	if err := stop(); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	got, err := ta.app.Tasks.Get(ctx, tk.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != task.Failed || got.StatusMessage != "interrupted" {
		t.Errorf("a task cut off by the shutdown: %s (%q); want failed, interrupted", got.Status, got.StatusMessage)
	}
}

// TestServeMakesTaskManager: Serve makes the task manager of an App that
// has a database and task tools, as the commands do.
func TestServeMakesTaskManager(t *testing.T) {
	ta := newTaskApp(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	served := make(chan error, 1)
	go func() { served <- Serve(ctx, ln, ta.app, nil) }()
	// Serve answers once the App is ready.
	resp, err := http.Get("http://" + ln.Addr().String() + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	cancel()
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	if ta.app.Tasks == nil {
		t.Fatal("Serve made no task manager")
	}
	var n int
	if err := ta.app.DB.QueryRow(`SELECT count(*) FROM sqlite_master WHERE name = 'toolapi_tasks'`).Scan(&n); err != nil || n != 1 {
		t.Errorf("the task table after Serve: %d (%v)", n, err)
	}
}

// TestNoTasksWithoutTaskTools: an App whose tools never run as tasks gets
// no task manager and no task tables.
func TestNoTasksWithoutTaskTools(t *testing.T) {
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "app.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	app := &App{Registry: tool.NewRegistry(nil), DB: db}
	if err := app.setUpTasks(t.Context()); err != nil || app.Tasks != nil {
		t.Fatalf("setUpTasks = %v, Tasks %v", err, app.Tasks)
	}
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE name = 'toolapi_tasks'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("task tables made: %d (%v)", n, err)
	}
}
