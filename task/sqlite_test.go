package task

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/toolapi/toolapi/internal/testenv"
	"github.com/toolapi/toolapi/tool"
)

// lockedBuffer is a log destination safe for concurrent writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestSQLiteFitness runs River's SQLite driver as an application's server
// opens its database: a pool of many connections (WAL, a busy timeout),
// two Managers on it (as after a restart overlapping the old process),
// and many tasks created, answered and cancelled at once. Every task must
// end, and nothing may be logged as an error or a warning.
//
// A pool of many connections whose transactions all begin IMMEDIATE
// (_txlock=immediate) fails this test: River's leader election and job
// cleaner wait on the write lock past their timeouts (SQLITE_BUSY), and
// creations fail with it; docs/serving.md says so.
func TestSQLiteFitness(t *testing.T) {
	testenv.NeedFull(t)
	for _, dsn := range []struct {
		name, params string
		conns        int
	}{
		{"one connection", "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)", 1},
		{"deferred", "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)", 16},
	} {
		t.Run(dsn.name, func(t *testing.T) {
			db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "tasks.db")+dsn.params)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			db.SetMaxOpenConns(dsn.conns)
			db.SetMaxIdleConns(dsn.conns)
			if err := Migrate(context.Background(), db); err != nil {
				t.Fatal(err)
			}
			var logs lockedBuffer
			logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
			var fs []*fixture
			for range 2 {
				f := newFixture(t, db, &Options{Key: testKey, PollInterval: 20 * time.Millisecond, Logger: logger})
				f.gate.open()
				f.start(t)
				fs = append(fs, f)
			}
			ctx := as(ada())
			const n = 100
			var wg sync.WaitGroup
			errs := make(chan error, 3*n)
			for i := range n {
				m := fs[i%2].m
				wg.Go(func() {
					tk, err := m.Create(ctx, "album.export", json.RawMessage(fmt.Sprintf(`{"album":"a%d","hold":%t}`, i, i%3 == 0)))
					if err != nil {
						errs <- err
						return
					}
					if i%5 == 0 {
						m.Cancel(ctx, tk.ID) // it may have ended already
					}
				})
				wg.Go(func() {
					tk, err := m.Create(ctx, "album.rename", nil)
					if err != nil {
						errs <- err
						return
					}
					wctx, cancel := context.WithTimeout(ctx, time.Minute)
					defer cancel()
					if tk, err = m.Wait(wctx, tk.ID); err != nil {
						errs <- err
						return
					}
					if err := m.Answer(ctx, tk.ID, &tool.Elicitation{Action: "accept", Content: map[string]any{"name": "n"}}); err != nil {
						errs <- fmt.Errorf("answer %s: %w", tk.Status, err)
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			deadline := time.Now().Add(time.Minute)
			for {
				var open int
				if err := db.QueryRow(`SELECT count(*) FROM toolapi_tasks WHERE status IN ('working', 'input_required')`).Scan(&open); err != nil {
					t.Fatal(err)
				}
				if open == 0 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("%d tasks have not ended; logged:\n%s", open, logs.String())
				}
				time.Sleep(20 * time.Millisecond)
			}
			var total int
			db.QueryRow(`SELECT count(*) FROM toolapi_tasks`).Scan(&total)
			if total != 2*n {
				t.Errorf("%d tasks, want %d", total, 2*n)
			}
			if s := logs.String(); s != "" {
				t.Errorf("logged:\n%s", s)
			}
		})
	}
}
