// Package audit keeps a trail of the runs of tools that change things, as
// middleware of a [tool.Registry]: every run of a write or trigger tool,
// and every run of any tool that is refused, from every caller. A check of
// inputs ([tool.Registry.Validate]) runs nothing and is not recorded.
//
//	store, err := audit.NewSQLStore(db, nil) // or any Store
//	if err != nil { ... }
//	if err := store.Migrate(ctx); err != nil { ... }
//	trail := audit.New(store, nil)
//	reg.Use(trail.Middleware())
//	defer trail.Close(ctx) // writes the counted refusals, ends runs under way
//
// A record says when the run started, for which account, which tool, its
// outcome, its failure category and the SHA-256 of its inputs (the
// canonical JSON of [tool.Call.InputsJSON], which leaves sensitive inputs
// out), never the inputs themselves. It says who put the run, from the
// [tool.Caller] the caller set: the channel (cli, mcp, explorer, funcall,
// an adapter), the client program, the agent acting for the account (an
// OAuth token's act claim or client) and the trace and call IDs.
//
// A [SQLStore] chains its records by hash: every write of a record (its
// start, and its end) appends a link holding the record's state and the
// hash of the link before. [SQLStore.Verify] finds the first place where
// a row or a link was edited, added or deleted.
//
// A run of a write or trigger tool is written to the trail once its inputs
// are decoded, before it starts, as "started" with the hash of its inputs,
// and completed when it ends: a run whose record cannot be written does not
// run (it fails as a runtime failure), so no change goes unrecorded. A run
// that ends before its inputs are decoded (bad inputs) is written when it
// ends. [Trail.Close] completes the records of runs still under way as
// "interrupted"; a record left "started" is a run whose end could not be
// recorded (the process died, or the store failed then).
//
// A run that ends to ask its caller for confirmation is recorded as
// "asked", not as a failure: the caller runs it again with the answer.
//
// Refused runs (failures of kind access) are written when they end, of
// every tool, but aggregated: the first refusal of an account for a tool
// is written at once, and the refusals that follow within
// [Options.RefusalWindow] only count, in that record's Runs, written when
// the window ends. A flood of refused calls so costs one row a minute per
// account and tool, and never slows the permitted runs.
package audit

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolapi/toolapi/tool"
)

// An Outcome is how a run ended.
type Outcome string

// Outcomes of runs.
const (
	// Started is the outcome of a run that has not ended, or whose end
	// could not be recorded.
	Started Outcome = "started"
	// Succeeded is the outcome of a run that succeeded.
	Succeeded Outcome = "success"
	// Failed is the outcome of a run that failed; its Failure says why.
	Failed Outcome = "failure"
	// Asked is the outcome of a run that ended to ask its caller to
	// confirm it; the caller runs it again with the answer.
	Asked Outcome = "asked"
	// Interrupted is the outcome of a run still under way when its
	// process shut down (see [Trail.Close]).
	Interrupted Outcome = "interrupted"
	// Replayed is the outcome of a call answered with the outcome of an
	// earlier run instead of running (a repeated idempotency key): nothing
	// ran. Its Failure is the earlier run's.
	Replayed Outcome = "replayed"
)

// Outcomes of the steps of a task (package task): a task's record of each
// step carries the step as its outcome, and its end one of the outcomes
// of a run (Succeeded, Failed, Interrupted).
const (
	// TaskCreated: a task was created; it runs later.
	TaskCreated Outcome = "task_created"
	// TaskStarted: a worker started running a task.
	TaskStarted Outcome = "task_started"
	// TaskAsked: a running task asked its caller a question.
	TaskAsked Outcome = "task_asked"
	// TaskAnswered: the caller answered a task's question.
	TaskAnswered Outcome = "task_answered"
	// TaskCancelled: a task was cancelled before it ended.
	TaskCancelled Outcome = "task_cancelled"
	// TaskAwaitsApproval: a task was created to wait for the approval of
	// another account; it runs once approved.
	TaskAwaitsApproval Outcome = "task_awaits_approval"
	// TaskApproved: an account approved a task's call (Approver names it;
	// the inputs hash is the approved inputs', which differ from the
	// creation's when the approver edited them).
	TaskApproved Outcome = "task_approved"
	// TaskRefused: an account refused a task's call; it did not run.
	TaskRefused Outcome = "task_refused"
	// ApprovalGranted and ApprovalRevoked: a standing approval of a tool
	// for an account was granted or revoked (Approver names who did it,
	// Account whom it is for, TaskID the standing approval's ID).
	ApprovalGranted Outcome = "approval_granted"
	ApprovalRevoked Outcome = "approval_revoked"
)

// A Record is one run in the trail.
type Record struct {
	// ID identifies the record in its store; the store sets it.
	ID string
	// Time is when the run started, in UTC.
	Time time.Time
	// Account is the ID of the account the run was for.
	Account string
	// Tool is the ID of the tool.
	Tool string
	// Operation is the tool's operation ("write", "trigger", ...).
	Operation string
	// Outcome is how the run ended.
	Outcome Outcome
	// Failure is the category of a failed run ("input", "access",
	// "runtime"); empty otherwise.
	Failure tool.Failure
	// InputsSHA256 is the hex SHA-256 of the run's inputs in canonical
	// JSON, sensitive inputs left out; empty when they could not be decoded
	// (or the run was refused before).
	InputsSHA256 string
	// Duration is how long the run took; zero while Started.
	Duration time.Duration
	// Runs is the number of runs the record stands for: 1, or for refused
	// runs aggregated (see [Options.RefusalWindow]) the refusals of its
	// account and tool within the window. Zero is read as 1.
	Runs int
	// Channel is how the run came ("cli", "mcp", "explorer", "funcall",
	// an adapter); Client names the program that sent it (an MCP client's
	// name and version); Agent the agent acting for the account (an OAuth
	// token's act claim or client); TraceID and CallID tie the run to its
	// trace and its call. Each is empty when the caller did not say (see
	// [tool.Caller]).
	Channel, Client, Agent, TraceID, CallID string
	// TaskID is the ID of the durable task the record is about (its
	// creation, start, answers, cancellation and outcome: see package
	// task); empty for a run that is no task.
	TaskID string
	// Approver is the ID of the account that approved or refused the
	// call, on the records of those steps (see package task); empty
	// elsewhere.
	Approver string
}

// A Store keeps a trail. Its methods must be safe for concurrent use.
type Store interface {
	// Add writes a new record and sets its ID.
	Add(ctx context.Context, r *Record) error
	// Complete writes the outcome, failure, inputs hash, duration and runs
	// of the record with r's ID.
	Complete(ctx context.Context, r *Record) error
	// List returns the records f selects, newest first.
	List(ctx context.Context, f *Filter) ([]Record, error)
}

// A Filter selects records of a trail; its zero value selects the newest
// [DefaultLimit].
type Filter struct {
	// Account, Tool and Agent, when not empty, select the records of that
	// account, that tool and that agent.
	Account, Tool, Agent string
	// Limit is the most records returned; zero means [DefaultLimit].
	Limit int
}

// DefaultLimit is the number of records [Filter] selects when its Limit
// is zero; MaxLimit is the most it selects.
const (
	DefaultLimit = 100
	MaxLimit     = 10_000
)

// Options configure [New] and [Middleware]; nil means the defaults of
// each field.
type Options struct {
	// Audited reports whether every run of t is recorded before it starts.
	// Nil means tools whose operation is write or trigger.
	Audited func(t *tool.Tool) bool
	// Logger receives records that could not be completed. Nil means
	// [slog.Default].
	Logger *slog.Logger
	// Now is the clock of the records. Nil means [time.Now].
	Now func() time.Time
	// RefusalWindow is how long the refused runs of one account for one
	// tool count in one record after the first is written. Zero means
	// [DefaultRefusalWindow]; a negative window writes every refusal.
	RefusalWindow time.Duration
}

// DefaultRefusalWindow is the [Options.RefusalWindow] of zero.
const DefaultRefusalWindow = time.Minute

// ErrNotRecorded is the cause logged for a run refused because its record
// could not be written.
var ErrNotRecorded = errors.New("audit: the run could not be recorded")

// A Trail is the middleware that keeps an audit trail in a [Store], with
// what it holds between writes: the counts of refused runs not yet
// written and the records of runs under way. Call [Trail.Close] when the
// process stops, so that neither is lost.
type Trail struct {
	store Store
	o     Options

	mu       sync.Mutex
	refusals map[refusalKey]*refusal
	running  map[*Record]struct{}
	closed   bool
}

type refusalKey struct{ account, tool string }

// A refusal is the aggregated record of an account's refused runs of a
// tool within one window.
type refusal struct {
	rec     Record // as added; ID set once added
	end     time.Time
	pending int // refusals counted since the record was last written
	timer   *time.Timer
}

// New returns a Trail writing to store.
func New(store Store, opts *Options) *Trail {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Audited == nil {
		o.Audited = func(t *tool.Tool) bool {
			op := t.EffectiveOperation()
			return op == tool.OpWrite || op == tool.OpTrigger
		}
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.RefusalWindow == 0 {
		o.RefusalWindow = DefaultRefusalWindow
	}
	return &Trail{store: store, o: o, refusals: make(map[refusalKey]*refusal), running: make(map[*Record]struct{})}
}

// Middleware returns the [tool.Middleware] of a new [Trail] writing to
// store. It cannot be closed: prefer New and [Trail.Middleware].
func Middleware(store Store, opts *Options) tool.Middleware {
	return New(store, opts).Middleware()
}

// inputsHash returns the hex SHA-256 of c's inputs, or "" before they are
// decoded.
func inputsHash(c *tool.Call) string {
	in := c.InputsJSON()
	if in == nil {
		return ""
	}
	sum := sha256.Sum256(in)
	return hex.EncodeToString(sum[:])
}

// Middleware returns the [tool.Middleware] that keeps the trail.
func (t *Trail) Middleware() tool.Middleware {
	o, store := &t.o, t.store
	return func(next tool.RunFunc) tool.RunFunc {
		return func(ctx context.Context, c *tool.Call) *tool.Result {
			if c.Check {
				return next(ctx, c) // a check of inputs is no run
			}
			start := o.Now()
			who := tool.CallerFrom(ctx)
			rec := &Record{
				Channel:   who.Channel,
				Client:    who.Client,
				Agent:     who.Agent,
				TraceID:   who.TraceID,
				CallID:    who.CallID,
				Time:      start.UTC(),
				Account:   c.Account.AccountID(),
				Tool:      c.Tool.ID,
				Operation: string(c.Tool.EffectiveOperation()),
				Outcome:   Started,
				Runs:      1,
			}
			// Records are written even when the run's context ends: a
			// cancelled run is still a run.
			wctx := context.WithoutCancel(ctx)
			audited, added := o.Audited(c.Tool), false
			if audited {
				prev := c.Decoded
				c.Decoded = func(ctx context.Context, c *tool.Call) *tool.Result {
					if prev != nil {
						if r := prev(ctx, c); r != nil {
							return r
						}
					}
					rec.InputsSHA256 = inputsHash(c)
					if err := store.Add(wctx, rec); err != nil {
						o.Logger.Error("run refused: its audit record cannot be written", "tool", c.Tool.ID, "account", rec.Account, "error", err.Error())
						return tool.Failed(c.Tool.Label+" did not run: it could not be recorded in the audit trail.", nil)
					}
					added = true
					t.track(rec)
					return nil
				}
			}
			var ask *asking
			if cf := tool.ConfirmerFrom(ctx); cf != nil {
				ask = &asking{Confirmer: cf}
				ctx = tool.WithConfirmer(ctx, ask)
			}
			r := next(ctx, c)
			done := *rec
			if added {
				t.untrack(rec)
			}
			done.Duration = o.Now().Sub(start)
			done.Outcome, done.Failure = Succeeded, ""
			if r == nil || !r.Success {
				done.Outcome, done.Failure = Failed, tool.FailureRuntime
				if r != nil && r.Failure != "" {
					done.Failure = r.Failure
				}
			}
			if ask != nil && ask.asked.Load() && done.Outcome == Failed && done.Failure == tool.FailureAccess {
				done.Outcome, done.Failure = Asked, ""
			}
			if c.Replayed {
				done.Outcome = Replayed
			}
			done.InputsSHA256 = inputsHash(c)
			switch {
			case added:
				if err := store.Complete(wctx, &done); err != nil {
					o.Logger.Error("the end of a run cannot be written to the audit trail; its record stays started",
						"tool", c.Tool.ID, "account", done.Account, "record", done.ID, "outcome", string(done.Outcome), "error", err.Error())
				}
			case done.Outcome == Failed && done.Failure == tool.FailureAccess:
				t.refused(wctx, &done)
			case audited, done.Outcome == Asked:
				// Ended before its inputs were decoded, or asked.
				if err := store.Add(wctx, &done); err != nil {
					o.Logger.Error("a run cannot be written to the audit trail",
						"tool", c.Tool.ID, "account", done.Account, "outcome", string(done.Outcome), "error", err.Error())
				}
			}
			return r
		}
	}
}

// asking is the [tool.Confirmer] of a run, watching whether the run ends
// to ask: the caller's Confirmer declines without error once the run's
// context is cancelled, which is how a caller without sessions (MCP's
// stateless HTTP) ends a run to put the question to its client.
type asking struct {
	tool.Confirmer
	asked atomic.Bool
}

func (a *asking) Confirm(ctx context.Context, t *tool.Tool, question string) (bool, error) {
	ok, err := a.Confirmer.Confirm(ctx, t, question)
	if !ok && err == nil && ctx.Err() != nil {
		a.asked.Store(true)
	}
	return ok, err
}

func (t *Trail) track(rec *Record) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.running[rec] = struct{}{}
}

func (t *Trail) untrack(rec *Record) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.running, rec)
}

// refused records a refused run: the first of its account and tool in a
// window at once, the rest counted and written when the window ends.
func (t *Trail) refused(ctx context.Context, rec *Record) {
	if t.o.RefusalWindow < 0 {
		t.add(ctx, rec)
		return
	}
	key := refusalKey{rec.Account, rec.Tool}
	now := t.o.Now()
	t.mu.Lock()
	if r := t.refusals[key]; r != nil && now.Before(r.end) && !t.closed {
		r.pending++
		if r.timer == nil {
			r.timer = time.AfterFunc(r.end.Sub(now), func() { t.flush(key, r) })
		}
		t.mu.Unlock()
		return
	}
	r := &refusal{rec: *rec, end: now.Add(t.o.RefusalWindow)}
	r.rec.Runs = 1
	if !t.closed {
		t.refusals[key] = r
	}
	t.mu.Unlock()
	added := r.rec
	if !t.add(ctx, &added) {
		return
	}
	t.mu.Lock()
	r.rec.ID = added.ID
	t.mu.Unlock()
}

// add adds rec to the store, logging a failure.
func (t *Trail) add(ctx context.Context, rec *Record) bool {
	if err := t.store.Add(ctx, rec); err != nil {
		t.o.Logger.Error("a refused run cannot be written to the audit trail",
			"tool", rec.Tool, "account", rec.Account, "runs", rec.Runs, "error", err.Error())
		return false
	}
	return true
}

// flush writes the refusals r counted since it was last written.
func (t *Trail) flush(key refusalKey, r *refusal) {
	t.mu.Lock()
	if t.refusals[key] == r && !t.o.Now().Before(r.end) {
		delete(t.refusals, key)
	}
	n := r.pending
	r.pending = 0
	r.timer = nil
	r.rec.Runs += n
	rec := r.rec
	t.mu.Unlock()
	if n == 0 {
		return
	}
	ctx := context.Background()
	if rec.ID == "" {
		// The first record could not be written: write the count anew.
		rec.Runs = n
		t.add(ctx, &rec)
		return
	}
	if err := t.store.Complete(ctx, &rec); err != nil {
		t.o.Logger.Error("refused runs cannot be counted in the audit trail",
			"tool", rec.Tool, "account", rec.Account, "record", rec.ID, "runs", n, "error", err.Error())
	}
}

// Close writes what the trail holds: the refused runs counted but not yet
// written, and, as [Interrupted], the records of runs still under way. The
// trail still records runs after Close, writing each refusal at once.
func (t *Trail) Close(ctx context.Context) error {
	t.mu.Lock()
	t.closed = true
	type pending struct {
		key refusalKey
		r   *refusal
	}
	var flush []pending
	for key, r := range t.refusals {
		if r.timer != nil {
			r.timer.Stop()
		}
		flush = append(flush, pending{key, r})
	}
	var running []Record
	for rec := range t.running {
		running = append(running, *rec)
	}
	t.mu.Unlock()
	for _, p := range flush {
		t.flush(p.key, p.r)
	}
	var errs []error
	now := t.o.Now()
	for _, rec := range running {
		rec.Outcome, rec.Failure = Interrupted, ""
		rec.Duration = now.Sub(rec.Time)
		if err := t.store.Complete(ctx, &rec); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
