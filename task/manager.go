package task

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
	"modernc.org/sqlite"

	"github.com/toolapi/toolapi/audit"
	"github.com/toolapi/toolapi/tool"
)

// A Dialect is the kind of SQL database the tasks are kept in.
type Dialect string

// The dialects a Manager supports.
const (
	// SQLite is an embedded SQLite database (modernc.org/sqlite).
	SQLite Dialect = "sqlite"
	// Postgres is a PostgreSQL server (through pgx's database/sql driver).
	Postgres Dialect = "postgres"
)

// Limits and defaults.
const (
	// DefaultTTL is how long a task is kept when its tool sets no TaskTTL.
	DefaultTTL = 24 * time.Hour
	// DefaultPollInterval is the poll interval when Options sets none.
	DefaultPollInterval = time.Second
	// DefaultListLimit is the page size of a list that asks for none, and
	// MaxListLimit the largest page size.
	DefaultListLimit = 50
	MaxListLimit     = 200
	// MaxQuestion is the most bytes the questions a task asks at once
	// (their messages and schemas as JSON) may take; more fail the ask.
	MaxQuestion = 64 << 10
	// MaxAnswer is the most bytes the answers to the questions a task asks
	// at once (as JSON) may take together.
	MaxAnswer = 64 << 10
)

// Options configure a [Manager]. The zero value of each field means its
// default.
type Options struct {
	// Dialect is the database's kind; empty means the kind of db's
	// driver (modernc.org/sqlite, or pgx's stdlib).
	Dialect Dialect
	// Workers is the most tasks a Manager runs at once; zero means 16 on
	// PostgreSQL and 4 on SQLite.
	Workers int
	// Account returns the account with the given ID, to run a task for
	// its account as it stands when the task starts (permissions may have
	// changed since it was created). Required.
	Account func(ctx context.Context, id string) (tool.Account, error)
	// Key encrypts the sensitive inputs of tasks (AES-256-GCM, 32 bytes);
	// they are never stored in clear. Nil refuses tasks of tools with
	// sensitive inputs ([ErrNoKey]).
	Key []byte
	// Viewers is a permission whose holders see, answer and cancel the
	// tasks of every account; empty means none does.
	Viewers string
	// TTL is how long a task is kept when its tool sets no TaskTTL; zero
	// means [DefaultTTL].
	TTL time.Duration
	// PollInterval is how often callers are told to poll, and how often a
	// worker reads a stored answer or cancellation of another process;
	// zero means [DefaultPollInterval].
	PollInterval time.Duration
	// ProgressEvery is the least time between two writes of a task's
	// progress; zero means one second. The last progress is always
	// written when the task ends.
	ProgressEvery time.Duration
	// StaleAfter is how long a running task may go without its worker's
	// heartbeat (written every StaleAfter/4) before it is marked failed as
	// interrupted: its process died. Zero means one minute.
	StaleAfter time.Duration
	// SweepEvery is how often expired tasks are deleted and stale ones
	// marked interrupted; zero means StaleAfter/2.
	SweepEvery time.Duration
	// ApprovalTTL is how long a call of a tool with an approver waits for
	// its approval before its task fails; zero means
	// [DefaultApprovalTTL].
	ApprovalTTL time.Duration
	// Audit, when set, records each task's creation, start, questions,
	// answers, cancellation and outcome.
	Audit audit.Store
	// TracerProvider gives the tracer of the tasks' spans: a span "task
	// {tool ID}" for each run of a task, linked to the span of the call
	// that created it, and parent of the run's own spans. Nil records no
	// span.
	TracerProvider trace.TracerProvider
	// Listener, on PostgreSQL, is a pool River takes one connection from
	// to LISTEN for new tasks, so that a worker of any process starts a
	// task as soon as it is created (one connection suffices: MaxConns 1).
	// Nil means workers poll for new tasks every 50 milliseconds. Unused
	// on SQLite.
	Listener *pgxpool.Pool
	// Logger logs what callers are not told; nil means the registry's.
	Logger *slog.Logger
}

// A Manager creates, runs and keeps the tasks of a registry's tools in a
// database, under the accounts that create them. Several Managers (one
// per process) may share a database: each task runs once, in one of them.
type Manager struct {
	reg     *tool.Registry
	db      *sql.DB
	dialect Dialect
	opts    Options
	aead    cipher.AEAD
	logger  *slog.Logger
	tracer  trace.Tracer
	client  *river.Client[*sql.Tx]

	mu        sync.Mutex
	running   map[string]context.CancelFunc // tasks running here, by ID
	changed   map[string]*waiters           // who waits for a change of a task here
	stopping  bool
	stopSweep context.CancelFunc
	sweepDone chan struct{}
	// stopListen ends, and listenDone is closed after, the listener of
	// the task changes of other processes (PostgreSQL only).
	stopListen context.CancelFunc
	listenDone chan struct{}

	ran func(id string) // called when a worker is done with a task; for tests
}

// New returns a Manager of reg's tools keeping its tasks in db, whose
// tables [Migrate] has made. Call [Manager.Start] to run tasks in this
// process; a Manager that is not started still creates, lists, answers
// and cancels them, and another process runs them.
func New(reg *tool.Registry, db *sql.DB, opts *Options) (*Manager, error) {
	m := &Manager{reg: reg, db: db, running: map[string]context.CancelFunc{}, changed: map[string]*waiters{}}
	if opts != nil {
		m.opts = *opts
	}
	o := &m.opts
	d, err := dialectOf(db, o.Dialect)
	if err != nil {
		return nil, err
	}
	m.dialect = d
	if o.Account == nil {
		return nil, errors.New("task: Account: required: the function that finds a task's account when it starts")
	}
	if o.Workers < 0 {
		return nil, fmt.Errorf("task: Workers: must not be negative, got %d", o.Workers)
	}
	if o.Workers == 0 {
		o.Workers = 16
		if d == SQLite {
			o.Workers = 4
		}
	}
	if o.Key != nil {
		if len(o.Key) != 32 {
			return nil, fmt.Errorf("task: Key: must be 32 bytes (AES-256), got %d", len(o.Key))
		}
		block, err := aes.NewCipher(o.Key)
		if err != nil {
			return nil, fmt.Errorf("task: Key: %w", err)
		}
		if m.aead, err = cipher.NewGCM(block); err != nil {
			return nil, fmt.Errorf("task: Key: %w", err)
		}
	}
	for _, c := range []struct {
		name string
		d    *time.Duration
		def  time.Duration
	}{
		{"TTL", &o.TTL, DefaultTTL},
		{"PollInterval", &o.PollInterval, DefaultPollInterval},
		{"ProgressEvery", &o.ProgressEvery, time.Second},
		{"StaleAfter", &o.StaleAfter, time.Minute},
		{"SweepEvery", &o.SweepEvery, 0},
	} {
		if *c.d < 0 {
			return nil, fmt.Errorf("task: %s: must not be negative, got %v", c.name, *c.d)
		}
		if *c.d == 0 {
			*c.d = c.def
		}
	}
	if o.SweepEvery == 0 {
		o.SweepEvery = o.StaleAfter / 2
	}
	m.logger = o.Logger
	if m.logger == nil {
		m.logger = reg.Logger()
	}
	tp := o.TracerProvider
	if tp == nil {
		tp = tracenoop.NewTracerProvider()
	}
	m.tracer = tp.Tracer("github.com/toolapi/toolapi/task")

	workers := river.NewWorkers()
	if err := river.AddWorkerSafely(workers, &worker{m: m}); err != nil {
		return nil, fmt.Errorf("task: %w", err)
	}
	cfg := &river.Config{
		Queues:      map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: o.Workers}},
		Workers:     workers,
		MaxAttempts: 1,
		// A task runs as long as it needs: its own heartbeat, not River's
		// timeout, tells a dead process from a long task.
		JobTimeout:           -1,
		RescueStuckJobsAfter: 24 * time.Hour * 365,
		// The task's own row keeps its outcome: River's row of a finished
		// job is not needed for long.
		CompletedJobRetentionPeriod: time.Hour,
		// Without a listener, new tasks are fetched by polling, often.
		FetchCooldown:     20 * time.Millisecond,
		FetchPollInterval: 50 * time.Millisecond,
		PollOnly:          d == SQLite || o.Listener == nil,
		Logger:            slog.New(warnings{m.logger.Handler()}),
	}
	var driver riverdriver.Driver[*sql.Tx]
	if d == Postgres && o.Listener != nil {
		driver = riverdatabasesql.NewWithPgxListener(db, o.Listener)
	} else {
		driver = driverOf(db, d)
	}
	m.client, err = river.NewClient(driver, cfg)
	if err != nil {
		return nil, fmt.Errorf("task: %w", err)
	}
	// Create reads the decoded inputs of its check of the arguments.
	reg.Use(captureCall)
	return m, nil
}

// dialectOf returns d, or when empty the dialect of db's driver.
func dialectOf(db *sql.DB, d Dialect) (Dialect, error) {
	switch d {
	case SQLite, Postgres:
		return d, nil
	case "":
	default:
		return "", fmt.Errorf("task: Dialect: must be %q or %q, got %q", SQLite, Postgres, d)
	}
	switch db.Driver().(type) {
	case *sqlite.Driver:
		return SQLite, nil
	case *stdlib.Driver:
		return Postgres, nil
	}
	return "", errors.New("task: Dialect: the database's driver is neither modernc.org/sqlite nor pgx's stdlib: set Options.Dialect")
}

func driverOf(db *sql.DB, d Dialect) riverdriver.Driver[*sql.Tx] {
	if d == SQLite {
		return riversqlite.New(db)
	}
	return riverdatabasesql.New(db)
}

// Migrate makes or updates the tables of tasks and of River's queue in db,
// of the dialect of db's driver; it may run any number of times.
func Migrate(ctx context.Context, db *sql.DB) error {
	d, err := dialectOf(db, "")
	if err != nil {
		return err
	}
	return MigrateDialect(ctx, db, d)
}

// MigrateDialect is [Migrate] for a database of the given dialect.
func MigrateDialect(ctx context.Context, db *sql.DB, d Dialect) error {
	d, err := dialectOf(db, d)
	if err != nil {
		return err
	}
	migrator, err := rivermigrate.New(driverOf(db, d), &rivermigrate.Config{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return fmt.Errorf("task: migrating River's tables: %w", err)
	}
	if _, err := migrator.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("task: migrating River's tables: %w", err)
	}
	for _, stmt := range append(schema, approvalSchema...) {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("task: creating the table of tasks: %w", err)
		}
	}
	return nil
}

// Start starts running tasks in this process: up to Options.Workers at
// once, and the sweep that deletes expired tasks and fails interrupted
// ones.
func (m *Manager) Start(ctx context.Context) error {
	if err := m.client.Start(ctx); err != nil {
		return fmt.Errorf("task: starting the workers: %w", err)
	}
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	m.mu.Lock()
	m.stopSweep = cancel
	m.sweepDone = make(chan struct{})
	m.mu.Unlock()
	go m.sweepLoop(sctx)
	if n := m.db.Stats().MaxOpenConnections; m.dialect == Postgres && n == 1 {
		// The listener would hold the only connection.
		m.logger.Warn("not listening for task changes of other processes: the database pool has one connection; they are seen at each poll")
	} else if m.dialect == Postgres {
		lctx, lcancel := context.WithCancel(context.WithoutCancel(ctx))
		m.mu.Lock()
		m.stopListen, m.listenDone = lcancel, make(chan struct{})
		m.mu.Unlock()
		go m.listen(lctx)
	}
	return nil
}

// Stop stops running tasks: it takes no new task and waits for those
// running to end; when ctx ends first, it cancels them, and they fail as
// interrupted.
func (m *Manager) Stop(ctx context.Context) error {
	m.mu.Lock()
	cancel, done := m.stopSweep, m.sweepDone
	lcancel, ldone := m.stopListen, m.listenDone
	m.stopSweep, m.stopListen = nil, nil
	m.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
	if lcancel != nil {
		lcancel()
		<-ldone
	}
	err := m.client.Stop(ctx)
	if err != nil && ctx.Err() != nil {
		m.mu.Lock()
		m.stopping = true
		m.mu.Unlock()
		cctx, ccancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer ccancel()
		err = m.client.StopAndCancel(cctx)
	}
	if err != nil {
		return fmt.Errorf("task: stopping the workers: %w", err)
	}
	return nil
}

// ttl returns the time to live of t's tasks.
func (m *Manager) ttl(t *tool.Tool) time.Duration {
	if t.TaskTTL > 0 {
		return t.TaskTTL
	}
	return m.opts.TTL
}

// signal wakes whoever waits for a change of the task id in this process.
func (m *Manager) signal(id string) {
	m.mu.Lock()
	if w, ok := m.changed[id]; ok {
		close(w.ch)
		delete(m.changed, id)
	}
	m.mu.Unlock()
}

// waiters are the goroutines of this process waiting for a change of one
// task.
type waiters struct {
	ch chan struct{} // closed at the change
	n  int
}

// changes returns a channel closed at the next change of the task id in
// this process, and the function to call once done waiting on it (the
// last one done forgets the task: waiting on IDs of other processes'
// tasks, or on none, leaves nothing behind).
func (m *Manager) changes(id string) (<-chan struct{}, func()) {
	m.mu.Lock()
	defer m.mu.Unlock()
	w, ok := m.changed[id]
	if !ok {
		w = &waiters{ch: make(chan struct{})}
		m.changed[id] = w
	}
	w.n++
	return w.ch, func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		if w.n--; w.n == 0 && m.changed[id] == w {
			delete(m.changed, id)
		}
	}
}

// jsonOf returns v as JSON, or nil for nil.
func jsonOf(v any) ([]byte, error) {
	if v == nil {
		return nil, nil
	}
	return json.Marshal(v)
}

// warnings is a slog.Handler that passes on warnings and errors only:
// River's own log, whose information is not the operator's.
type warnings struct{ slog.Handler }

func (w warnings) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelWarn && w.Handler.Enabled(ctx, l)
}

func (w warnings) WithAttrs(as []slog.Attr) slog.Handler { return warnings{w.Handler.WithAttrs(as)} }
func (w warnings) WithGroup(name string) slog.Handler    { return warnings{w.Handler.WithGroup(name)} }
