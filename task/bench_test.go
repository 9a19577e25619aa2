package task

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"

	"github.com/toolapi/toolapi/internal/testenv"
	"github.com/toolapi/toolapi/tool"
)

// The benchmarks compare toolapi's tasks with River's own jobs on the same
// database in the same run, 16 workers each:
//
//	go test -run '^$' -bench . -benchtime 2000x ./task/
//
// (with TOOLAPI_TEST_POSTGRES set for the PostgreSQL ones).

const benchWorkers = 16

// benchBackends are the databases of the benchmarks: SQLite, and
// PostgreSQL polling for new tasks or listening for them.
var benchBackends = []struct {
	name   string
	open   func(b *testing.B) (*sql.DB, *pgxpool.Pool)
	listen bool
}{
	{"sqlite", func(b *testing.B) (*sql.DB, *pgxpool.Pool) { return openSQLite(b), nil }, false},
	{"postgres", func(b *testing.B) (*sql.DB, *pgxpool.Pool) { return openPostgres(b), nil }, false},
	{"postgres-listen", openPostgresListen, true},
}

// openPostgresListen returns a new schema and a pool on it for River's
// listener.
func openPostgresListen(b *testing.B) (*sql.DB, *pgxpool.Pool) {
	db, schema := testenv.PostgresSchema(b, "taskbench_")
	db.SetMaxOpenConns(32)
	db.SetMaxIdleConns(32)
	u, err := url.Parse(os.Getenv(testenv.PostgresEnv))
	if err != nil {
		b.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	q.Set("pool_max_conns", "1")
	u.RawQuery = q.Encode()
	pool, err := pgxpool.New(context.Background(), u.String())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pool.Close)
	return db, pool
}

// noopArgs are the arguments of River's trivial job.
type noopArgs struct {
	N int `json:"n"`
}

func (noopArgs) Kind() string { return "bench_noop" }

type noopWorker struct {
	river.WorkerDefaults[noopArgs]
	started func(n int)
	done    func()
}

func (w *noopWorker) Work(ctx context.Context, job *river.Job[noopArgs]) error {
	w.started(job.Args.N)
	w.done()
	return nil
}

// benchRegistry has one trivial task tool, which reports its start.
func benchRegistry(b *testing.B, started func(n int)) *tool.Registry {
	reg := tool.NewRegistry(nil)
	if err := reg.Add(&tool.Tool{
		ID: "bench.noop", Label: "Noop", Description: "Does nothing.", Permission: "export", Operation: tool.OpTransform,
		Task:    tool.TaskOptional,
		Inputs:  []*tool.Definition{{Name: "n", Type: "integer", Required: true}},
		Outputs: []*tool.Definition{{Name: "n", Type: "integer", Required: true}},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			started(int(in.Int("n")))
			return tool.Succeeded("", map[string]any{"n": in.Int("n")}), nil
		},
	}); err != nil {
		b.Fatal(err)
	}
	return reg
}

// drain inserts n items with insert from 4 goroutines and returns how
// long until done has been called n times.
func drain(b *testing.B, n int, insert func(i int) error, finished *atomic.Int64, all chan struct{}) time.Duration {
	start := time.Now()
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := g; i < n; i += 4 {
				if err := insert(i); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	select {
	case <-all:
	case <-time.After(5 * time.Minute):
		b.Fatalf("only %d of %d finished", finished.Load(), n)
	}
	return time.Since(start)
}

// BenchmarkThroughput drains b.N trivial River jobs, then b.N trivial
// tasks, on the same database with 16 workers each, and reports both
// rates and their ratio (toolapi's tasks per River's jobs).
func BenchmarkThroughput(b *testing.B) {
	for _, be := range benchBackends {
		b.Run(be.name, func(b *testing.B) {
			db, pool := be.open(b)
			ctx := context.Background()
			if err := Migrate(ctx, db); err != nil {
				b.Fatal(err)
			}
			n := b.N
			riverRate := float64(n) / benchRiver(b, db, pool, n, nil).Seconds()
			taskRate := float64(n) / benchTasks(b, db, pool, n, nil, nil).Seconds()
			b.ReportMetric(riverRate, "river-jobs/s")
			b.ReportMetric(taskRate, "tasks/s")
			b.ReportMetric(taskRate/riverRate, "tasks/river")
		})
	}
}

// benchRiver runs n trivial jobs on a River client of its own (16
// workers, polling as the Manager does, inserting outside transactions as
// a plain River application does) and returns how long they took;
// started, when set, is called as each starts.
func benchRiver(b *testing.B, db *sql.DB, pool *pgxpool.Pool, n int, started func(int)) time.Duration {
	var finished atomic.Int64
	all := make(chan struct{})
	workers := river.NewWorkers()
	river.AddWorker(workers, &noopWorker{
		started: func(i int) {
			if started != nil {
				started(i)
			}
		},
		done: func() {
			if finished.Add(1) == int64(n) {
				close(all)
			}
		},
	})
	d, _ := dialectOf(db, "")
	driver := driverOf(db, d)
	if pool != nil {
		driver = riverdatabasesqlWithListener(db, pool)
	}
	client, err := river.NewClient(driver, &river.Config{
		Queues:            map[string]river.QueueConfig{"bench": {MaxWorkers: benchWorkers}},
		Workers:           workers,
		MaxAttempts:       1,
		FetchCooldown:     20 * time.Millisecond,
		FetchPollInterval: 50 * time.Millisecond,
		PollOnly:          pool == nil,
	})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if err := client.Start(ctx); err != nil {
		b.Fatal(err)
	}
	defer client.Stop(ctx)
	return drain(b, n, func(i int) error {
		_, err := client.Insert(ctx, noopArgs{N: i}, &river.InsertOpts{Queue: "bench"})
		return err
	}, &finished, all)
}

// benchTasks runs n trivial tasks on a Manager of 16 workers and returns
// how long they took; started, when set, is called as each starts.
func benchTasks(b *testing.B, db *sql.DB, pool *pgxpool.Pool, n int, started func(int), held func()) time.Duration {
	var finished atomic.Int64
	all := make(chan struct{})
	reg := benchRegistry(b, func(i int) {
		if started != nil {
			started(i)
		}
	})
	m, err := New(reg, db, &Options{Workers: benchWorkers, Listener: pool, Account: benchAccount})
	if err != nil {
		b.Fatal(err)
	}
	m.ran = func(string) {
		if finished.Add(1) == int64(n) {
			close(all)
		}
	}
	ctx := context.Background()
	if err := m.Start(ctx); err != nil {
		b.Fatal(err)
	}
	defer m.Stop(ctx)
	actx := as(&tool.User{ID: "ada", Permissions: []string{"export"}})
	d := drain(b, n, func(i int) error {
		_, err := m.Create(actx, "bench.noop", json.RawMessage(fmt.Sprintf(`{"n":%d}`, i)))
		return err
	}, &finished, all)
	if held != nil {
		held()
	}
	return d
}

// BenchmarkStartLatency creates trivial jobs and tasks one at a time on
// idle workers and reports the time from the call that creates each to the
// start of its work: p50 and p99, River's and toolapi's.
func BenchmarkStartLatency(b *testing.B) {
	for _, be := range benchBackends {
		b.Run(be.name, func(b *testing.B) {
			db, pool := be.open(b)
			if err := Migrate(context.Background(), db); err != nil {
				b.Fatal(err)
			}
			n := b.N
			rp50, rp99 := latencies(b, n, func(started func(int)) func(int) error {
				return sequential(b, db, pool, started, true)
			})
			tp50, tp99 := latencies(b, n, func(started func(int)) func(int) error {
				return sequential(b, db, pool, started, false)
			})
			b.ReportMetric(float64(rp50.Microseconds())/1000, "river-p50-ms")
			b.ReportMetric(float64(rp99.Microseconds())/1000, "river-p99-ms")
			b.ReportMetric(float64(tp50.Microseconds())/1000, "task-p50-ms")
			b.ReportMetric(float64(tp99.Microseconds())/1000, "task-p99-ms")
		})
	}
}

// sequential returns a function that inserts the job or task i, on a
// client or Manager whose work calls started.
func sequential(b *testing.B, db *sql.DB, pool *pgxpool.Pool, started func(int), raw bool) func(int) error {
	ctx := context.Background()
	if raw {
		workers := river.NewWorkers()
		river.AddWorker(workers, &noopWorker{started: started, done: func() {}})
		d, _ := dialectOf(db, "")
		driver := driverOf(db, d)
		if pool != nil {
			driver = riverdatabasesqlWithListener(db, pool)
		}
		client, err := river.NewClient(driver, &river.Config{
			Queues:      map[string]river.QueueConfig{"bench": {MaxWorkers: benchWorkers}},
			Workers:     workers,
			MaxAttempts: 1, FetchCooldown: 20 * time.Millisecond, FetchPollInterval: 50 * time.Millisecond, PollOnly: pool == nil,
		})
		if err != nil {
			b.Fatal(err)
		}
		if err := client.Start(ctx); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { client.Stop(ctx) })
		return func(i int) error {
			_, err := client.Insert(ctx, noopArgs{N: i}, &river.InsertOpts{Queue: "bench"})
			return err
		}
	}
	m, err := New(benchRegistry(b, started), db, &Options{Workers: benchWorkers, Listener: pool, Account: benchAccount})
	if err != nil {
		b.Fatal(err)
	}
	if err := m.Start(ctx); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { m.Stop(ctx) })
	actx := as(&tool.User{ID: "ada", Permissions: []string{"export"}})
	return func(i int) error {
		_, err := m.Create(actx, "bench.noop", json.RawMessage(fmt.Sprintf(`{"n":%d}`, i)))
		return err
	}
}

// latencies inserts n items one at a time, each after the last started,
// and returns the p50 and p99 of the time from insert to start.
func latencies(b *testing.B, n int, setup func(started func(int)) func(int) error) (p50, p99 time.Duration) {
	ch := make(chan struct{}, 1)
	insert := setup(func(int) { ch <- struct{}{} })
	ds := make([]time.Duration, 0, n)
	for i := range n {
		start := time.Now()
		if err := insert(i); err != nil {
			b.Fatal(err)
		}
		select {
		case <-ch:
		case <-time.After(time.Minute):
			b.Fatal("no start within a minute")
		}
		ds = append(ds, time.Since(start))
	}
	slices.Sort(ds)
	return ds[len(ds)/2], ds[min(len(ds)-1, len(ds)*99/100)]
}

// BenchmarkTaskVsRun runs a trivial tool directly and as a task (created,
// then waited for until it ends), one at a time, and reports the time of
// each and what the task adds.
func BenchmarkTaskVsRun(b *testing.B) {
	for _, be := range benchBackends {
		b.Run(be.name, func(b *testing.B) {
			db, pool := be.open(b)
			ctx := context.Background()
			if err := Migrate(ctx, db); err != nil {
				b.Fatal(err)
			}
			reg := benchRegistry(b, func(int) {})
			m, err := New(reg, db, &Options{Workers: benchWorkers, Listener: pool, Account: benchAccount})
			if err != nil {
				b.Fatal(err)
			}
			if err := m.Start(ctx); err != nil {
				b.Fatal(err)
			}
			defer m.Stop(ctx)
			actx := as(&tool.User{ID: "ada", Permissions: []string{"export"}})
			args := json.RawMessage(`{"n":1}`)
			start := time.Now()
			for range b.N {
				if res, _ := reg.RunJSON(actx, "bench.noop", args); !res.Success {
					b.Fatal(res.Message)
				}
			}
			run := time.Since(start) / time.Duration(b.N)
			start = time.Now()
			for range b.N {
				tk, err := m.Create(actx, "bench.noop", args)
				if err != nil {
					b.Fatal(err)
				}
				if tk, err = m.Wait(actx, tk.ID); err != nil || tk.Status != Completed {
					b.Fatalf("%+v %v", tk, err)
				}
			}
			task := time.Since(start) / time.Duration(b.N)
			b.ReportMetric(float64(run)/1e6, "run-ms")
			b.ReportMetric(float64(task)/1e6, "task-ms")
			b.ReportMetric(float64(task-run)/1e6, "added-ms")
		})
	}
}

// BenchmarkHeldTasks runs 10,000 trivial tasks to their end and reports
// the heap they leave behind while they are kept (before they expire):
// they are on disk, not in memory.
func BenchmarkHeldTasks(b *testing.B) {
	for _, be := range benchBackends[:2] {
		b.Run(be.name, func(b *testing.B) {
			db, _ := be.open(b)
			if err := Migrate(context.Background(), db); err != nil {
				b.Fatal(err)
			}
			const n = 10000
			for range b.N {
				runtime.GC()
				var before runtime.MemStats
				runtime.ReadMemStats(&before)
				// Measured while the Manager that ran them still runs: its
				// own footprint counts too.
				var after runtime.MemStats
				benchTasks(b, db, nil, n, nil, func() {
					runtime.GC()
					runtime.ReadMemStats(&after)
				})
				var kept int
				if err := db.QueryRow(`SELECT count(*) FROM toolapi_tasks WHERE status = 'completed'`).Scan(&kept); err != nil {
					b.Fatal(err)
				}
				if kept < n {
					b.Fatalf("%d tasks kept, want %d", kept, n)
				}
				b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/n, "heap-B/task")
			}
		})
	}
}

func riverdatabasesqlWithListener(db *sql.DB, pool *pgxpool.Pool) riverdriver.Driver[*sql.Tx] {
	return riverdatabasesql.NewWithPgxListener(db, pool)
}

// benchAccount finds every account with the permission of the benchmarks'
// tool.
func benchAccount(ctx context.Context, id string) (tool.Account, error) {
	return &tool.User{ID: id, Permissions: []string{"export"}}, nil
}
