// Package tasktest makes task managers for tests: the tables of tasks
// made, the manager started, and stopped when the test ends.
//
//	db := tasktest.SQLite(t)
//	m := tasktest.Start(t, reg, db, &task.Options{Account: accounts})
//	tk, err := m.Create(ctx, "report.build", args)
package tasktest

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	_ "modernc.org/sqlite" // the embedded database of SQLite

	"github.com/toolapi/toolapi/task"
	"github.com/toolapi/toolapi/tool"
)

// StopTimeout is how long the cleanup of [Start] waits for the tasks
// still running to end before they are interrupted.
const StopTimeout = 10 * time.Second

// SQLite opens a new SQLite database in a file of the test's temporary
// directory, in WAL mode with a busy timeout as a server would open it,
// and closes it when the test ends.
func SQLite(t testing.TB) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "tasks.db")+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// New makes the tables of tasks in db ([task.Migrate]) and returns a
// Manager of reg's tools on it, configured by opts (whose Account is
// required). The Manager is not started: it creates, watches, answers and
// cancels tasks, and runs none (another process, or [Start], does).
func New(t testing.TB, reg *tool.Registry, db *sql.DB, opts *task.Options) *task.Manager {
	t.Helper()
	if err := task.Migrate(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	m, err := task.New(reg, db, opts)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Start is [New], and starts the Manager: it runs tasks in the test's
// process until the test ends, when it is stopped (waiting at most
// [StopTimeout] for the tasks still running). A failure to stop fails the
// test.
func Start(t testing.TB, reg *tool.Registry, db *sql.DB, opts *task.Options) *task.Manager {
	t.Helper()
	m := New(t, reg, db, opts)
	if err := m.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), StopTimeout)
		defer cancel()
		if err := m.Stop(ctx); err != nil {
			t.Errorf("stopping the task manager: %v", err)
		}
	})
	return m
}
