// Package audit keeps a trail of the runs of tools that change things, as
// middleware of a [tool.Registry]: every run of a write or trigger tool,
// and every run of any tool that is refused, from every caller. A check of
// inputs ([tool.Registry.Validate]) runs nothing and is not recorded.
//
//	trail, err := audit.NewSQLStore(db, nil) // or any Store
//	if err != nil { ... }
//	if err := trail.Migrate(ctx); err != nil { ... }
//	reg.Use(audit.Middleware(trail, nil))
//
// A record says when the run started, for which account, which tool, its
// outcome, its failure category and the SHA-256 of its inputs (the
// canonical JSON of [tool.Call.InputsJSON], which leaves sensitive inputs
// out), never the inputs themselves.
//
// A run of a write or trigger tool is written to the trail before it
// starts, as "started", and completed when it ends: a run whose record
// cannot be written does not run (it fails as a runtime failure), so no
// change goes unrecorded; a record left "started" is a run whose end could
// not be recorded (the process stopped, or the store failed then). A
// refused run of another tool is written when it ends.
package audit

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"log/slog"
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
}

// A Store keeps a trail. Its methods must be safe for concurrent use.
type Store interface {
	// Add writes a new record and sets its ID.
	Add(ctx context.Context, r *Record) error
	// Complete writes the outcome, failure, inputs hash and duration of
	// the record with r's ID.
	Complete(ctx context.Context, r *Record) error
	// List returns the records f selects, newest first.
	List(ctx context.Context, f *Filter) ([]Record, error)
}

// A Filter selects records of a trail; its zero value selects the newest
// [DefaultLimit].
type Filter struct {
	// Account and Tool, when not empty, select the records of that account
	// and that tool.
	Account, Tool string
	// Limit is the most records returned; zero means [DefaultLimit].
	Limit int
}

// DefaultLimit is the number of records [Filter] selects when its Limit
// is zero; MaxLimit is the most it selects.
const (
	DefaultLimit = 100
	MaxLimit     = 10_000
)

// Options configure [Middleware]; nil means the defaults of each field.
type Options struct {
	// Audited reports whether every run of t is recorded before it starts.
	// Nil means tools whose operation is write or trigger.
	Audited func(t *tool.Tool) bool
	// Logger receives records that could not be completed. Nil means
	// [slog.Default].
	Logger *slog.Logger
	// Now is the clock of the records. Nil means [time.Now].
	Now func() time.Time
}

// ErrNotRecorded is the cause logged for a run refused because its record
// could not be written.
var ErrNotRecorded = errors.New("audit: the run could not be recorded")

// Middleware returns the [tool.Middleware] that keeps the trail in store.
func Middleware(store Store, opts *Options) tool.Middleware {
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
	return func(next tool.RunFunc) tool.RunFunc {
		return func(ctx context.Context, c *tool.Call) *tool.Result {
			if c.Check {
				return next(ctx, c) // a check of inputs is no run
			}
			start := o.Now()
			rec := &Record{
				Time:      start.UTC(),
				Account:   c.Account.AccountID(),
				Tool:      c.Tool.ID,
				Operation: string(c.Tool.EffectiveOperation()),
				Outcome:   Started,
			}
			audited := o.Audited(c.Tool)
			// Records are written even when the run's context ends: a
			// cancelled run is still a run.
			wctx := context.WithoutCancel(ctx)
			if audited {
				if err := store.Add(wctx, rec); err != nil {
					o.Logger.Error("run refused: its audit record cannot be written", "tool", c.Tool.ID, "account", rec.Account, "error", err.Error())
					return tool.Failed(c.Tool.Label+" did not run: it could not be recorded in the audit trail.", nil)
				}
			}
			r := next(ctx, c)
			rec.Duration = o.Now().Sub(start)
			rec.Outcome, rec.Failure = Succeeded, ""
			if r == nil || !r.Success {
				rec.Outcome, rec.Failure = Failed, tool.FailureRuntime
				if r != nil && r.Failure != "" {
					rec.Failure = r.Failure
				}
			}
			if in := c.InputsJSON(); in != nil {
				sum := sha256.Sum256(in)
				rec.InputsSHA256 = hex.EncodeToString(sum[:])
			}
			switch {
			case audited:
				if err := store.Complete(wctx, rec); err != nil {
					o.Logger.Error("the end of a run cannot be written to the audit trail; its record stays started",
						"tool", c.Tool.ID, "account", rec.Account, "record", rec.ID, "outcome", string(rec.Outcome), "error", err.Error())
				}
			case rec.Outcome == Failed && rec.Failure == tool.FailureAccess:
				if err := store.Add(wctx, rec); err != nil {
					o.Logger.Error("a refused run cannot be written to the audit trail",
						"tool", c.Tool.ID, "account", rec.Account, "error", err.Error())
				}
			}
			return r
		}
	}
}
