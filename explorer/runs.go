package explorer

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"time"

	"github.com/toolapi/toolapi/tool"
)

// Runs follow post/redirect/get: the form posts, the explorer runs the tool
// once, keeps the run under an ID and redirects to the tool's page showing
// that run (?run=ID). Reloading that page, or going back to it, shows the
// same run again instead of running the tool a second time.
//
// Each rendered form carries a one-time token ("once"). The ID of a run is
// derived from the session and that token, so a second submission of the
// same form (a double click, a resubmitted POST) finds the run of the first
// and is sent to it rather than running the tool again.
//
// A run lasts at most [Options.MaxRunDuration]: its context ends then. A
// run that its process abandons, because it shut down or died, ends as
// interrupted: each run names the process that runs it ([Options.Process]),
// and [InterruptRuns] ends that process's runs under way, which the server
// does as it shuts down and, for a process that died, as the next one with
// its name starts. A run still under way well past the longest a run may
// last is shown as interrupted too, whatever became of its process.

// A Run is one run of a tool from the explorer, as a [RunStore] keeps it.
type Run struct {
	// ID identifies the run among its owner's.
	ID string
	// Owner is the account that ran it (its [tool.Account.AccountID]), or
	// for a guest session an opaque key of that session.
	Owner string
	// Tool is the ID of the tool.
	Tool string
	// Inputs holds the form's values as typed, a JSON object by input
	// name; sensitive inputs are left out.
	Inputs json.RawMessage
	// Outcome holds what the run gave, as JSON the explorer reads back;
	// nil while the run is under way.
	Outcome json.RawMessage
	// Started is when the run started.
	Started time.Time
	// Process names the process that runs it (see [Options.Process]).
	Process string
}

// ErrRunExists is returned by [RunStore.StartRun] when a run with the
// same owner and ID was started already.
var ErrRunExists = errors.New("the run exists already")

// ErrNoRun is wrapped by [RunStore.Run] when there is no such run.
var ErrNoRun = errors.New("no such run")

// A RunStore keeps the runs of the explorer: the result a page shows after
// a run, and each account's history of runs. Implementations must be safe
// for concurrent use.
type RunStore interface {
	// StartRun records a run that starts now (its Outcome is nil), or
	// returns [ErrRunExists] when the owner has a run with that ID.
	StartRun(ctx context.Context, r *Run) error
	// FinishRun stores the Outcome of a run started with StartRun.
	FinishRun(ctx context.Context, r *Run) error
	// Run returns the owner's run with the given ID, or an error wrapping
	// [ErrNoRun].
	Run(ctx context.Context, owner, id string) (*Run, error)
	// Runs returns the owner's latest runs, newest first, at most limit;
	// with toolID set, only those of that tool.
	Runs(ctx context.Context, owner, toolID string, limit int) ([]Run, error)
}

// A RunInterrupter is a [RunStore] that can end the runs a process left
// under way; [SQLStore] is one.
type RunInterrupter interface {
	// InterruptRuns stores outcome as the Outcome of every run under way
	// (its Outcome nil) whose Process is process, and returns how many it
	// ended.
	InterruptRuns(ctx context.Context, process string, outcome json.RawMessage) (int, error)
}

// InterruptRuns ends as interrupted the runs under way in store that
// process started, when store is a [RunInterrupter], and returns how many
// it ended. A server calls it with its own process's name (see
// [Options.Process]) as it shuts down, once the requests in flight have
// had their time, and as it starts, for the runs that a process of the
// same name left when it died.
func InterruptRuns(ctx context.Context, store RunStore, process string) (int, error) {
	ri, ok := store.(RunInterrupter)
	if !ok || process == "" {
		return 0, nil
	}
	oc, err := json.Marshal(interrupted())
	if err != nil {
		return 0, err
	}
	return ri.InterruptRuns(ctx, process, oc)
}

// interrupted returns the outcome of a run that its process abandoned.
func interrupted() *outcome {
	return &outcome{Status: http.StatusInternalServerError, Interrupted: true, Problems: []string{
		"This run was interrupted: the server stopped before it ended, so its result is unknown. " +
			"Check whether it made its changes before you run it again."}}
}

// DefaultMaxRunDuration is the [Options.MaxRunDuration] of zero.
const DefaultMaxRunDuration = 5 * time.Minute

// staleAfter is how long past the longest a run may last a run still
// under way is taken for abandoned.
const staleAfter = time.Minute

// maxRun returns the longest an explorer run may last.
func (e *server) maxRun() time.Duration {
	if e.opts.MaxRunDuration > 0 {
		return e.opts.MaxRunDuration
	}
	return DefaultMaxRunDuration
}

// outcomeOf returns the outcome of run, or nil while it is under way. A
// run under way well past the longest a run may last was abandoned by a
// process that is gone: it is interrupted.
func (e *server) outcomeOf(run *Run) (*outcome, error) {
	if run.Outcome == nil {
		if time.Since(run.Started) > e.maxRun()+staleAfter {
			return interrupted(), nil
		}
		return nil, nil
	}
	var oc outcome
	if err := json.Unmarshal(run.Outcome, &oc); err != nil {
		return nil, err
	}
	return &oc, nil
}

func (m *memRuns) InterruptRuns(_ context.Context, process string, oc json.RawMessage) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, runs := range m.runs {
		for _, r := range runs {
			if r.Process == process && r.Outcome == nil {
				r.Outcome = slices.Clone(oc)
				n++
			}
		}
	}
	return n, nil
}

// maxOwnerRuns bounds the runs the in-memory store keeps per owner (the
// oldest go first), maxRunOwners the owners it keeps runs for.
const (
	maxOwnerRuns = 100
	maxRunOwners = 10_000
)

// memRuns is the in-memory [RunStore] of an explorer without one.
type memRuns struct {
	mu    sync.Mutex
	runs  map[string][]*Run // by owner, oldest first
	order []string          // owners, by first run
}

func newMemRuns() *memRuns { return &memRuns{runs: make(map[string][]*Run)} }

func (m *memRuns) StartRun(_ context.Context, r *Run) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	runs, ok := m.runs[r.Owner]
	for _, old := range runs {
		if old.ID == r.ID {
			return ErrRunExists
		}
	}
	if !ok {
		if len(m.order) >= maxRunOwners {
			delete(m.runs, m.order[0])
			m.order = m.order[1:]
		}
		m.order = append(m.order, r.Owner)
	}
	c := *r
	runs = append(runs, &c)
	if len(runs) > maxOwnerRuns {
		runs = runs[len(runs)-maxOwnerRuns:]
	}
	m.runs[r.Owner] = runs
	return nil
}

func (m *memRuns) FinishRun(_ context.Context, r *Run) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, old := range m.runs[r.Owner] {
		if old.ID == r.ID {
			old.Outcome = slices.Clone(r.Outcome)
			return nil
		}
	}
	return ErrNoRun
}

func (m *memRuns) Run(_ context.Context, owner, id string) (*Run, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, r := range m.runs[owner] {
		if r.ID == id {
			c := *r
			return &c, nil
		}
	}
	return nil, ErrNoRun
}

func (m *memRuns) Runs(_ context.Context, owner, toolID string, limit int) ([]Run, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Run
	runs := m.runs[owner]
	for i := len(runs) - 1; i >= 0 && len(out) < limit; i-- {
		if toolID == "" || runs[i].Tool == toolID {
			out = append(out, *runs[i])
		}
	}
	return out, nil
}

// An outcome is what a run gave, as a Run's Outcome holds it.
type outcome struct {
	Status   int          `json:"status"`
	Result   *tool.Result `json:"result,omitempty"`
	Problems []string     `json:"problems,omitempty"`
	// Interrupted marks a run that its process abandoned.
	Interrupted bool `json:"interrupted,omitempty"`
	// Task is the ID of the task the run started, for a tool that runs
	// as a task; its page shows how the task stands.
	Task string `json:"task,omitempty"`
}

// owner returns the key a visitor's runs are kept under.
func (e *server) owner(v *visit) string {
	if v.sess != nil && v.sess.guest {
		return "guest:" + e.sessions.token("guest", v.sess.id)[:22]
	}
	return v.acct.AccountID()
}

// runID returns the ID of the run a form submission asks for: derived
// from the session and the form's one-time token, or random without one.
func (e *server) runID(v *visit, once string) string {
	if once == "" || len(once) > 100 {
		return randomID()[:22]
	}
	return e.sessions.token("run", v.sess.id+"\x00"+once)[:22]
}

// runURL returns the address of the page showing a run.
func (e *server) runURL(t *tool.Tool, id string) string {
	return e.toolURL(t.ID) + "?" + url.Values{"run": {id}}.Encode()
}

// startRun runs t once for the form submission r and redirects to the page
// showing the run. It reports false, running nothing, when the inputs
// break the tool's rules or the run needs a confirmation that the form
// lacks; the violations returned are every problem of the inputs at once,
// entities that do not exist included, for the form to show.
func (e *server) startRun(w http.ResponseWriter, r *http.Request, v *visit, t *tool.Tool, fm *form, fv *formView, args map[string]any) (bool, []tool.Violation) {
	if args == nil {
		fm.compact()
		fm.resolveLabels()
		args = fm.args()
	}
	canonical, vs, err := e.reg.Validate(tool.WithAccount(r.Context(), v.acct), t.ID, args)
	if err != nil && !errors.Is(err, tool.ErrNotFound) {
		// The run reports a tool that is gone; anything else is kept
		// from the person.
		e.logger.Error("explorer: checking the inputs", "tool", t.ID, "error", err.Error())
		fv.Problems = append(fv.Problems, "The inputs could not be checked; try again.")
		return false, nil
	}
	if fv.NeedsConfirm && !fv.Confirmed {
		fv.ConfirmProblem = e.confirmProblem(r, v, t, canonical, len(vs) > 0)
	}
	if len(vs) > 0 || fv.ConfirmProblem != "" {
		return false, vs
	}
	if e.runsAsTask(t) && !taskOwner(v) {
		fv.Problems = append(fv.Problems, "This tool runs as a task, which is kept for an account: sign in with your own account to run it.")
		return false, nil
	}
	inputs, err := json.Marshal(fm.typedState())
	if err != nil {
		inputs = []byte("{}")
	}
	run := &Run{ID: e.runID(v, r.PostForm.Get("once")), Owner: e.owner(v), Tool: t.ID, Inputs: inputs, Started: time.Now().UTC(), Process: e.process}
	switch err := e.runs.StartRun(r.Context(), run); {
	case errors.Is(err, ErrRunExists):
		// The same form came twice: show the first submission's run.
		http.Redirect(w, r, e.runURL(t, run.ID), http.StatusSeeOther)
		return true, nil
	case err != nil:
		e.logger.Error("explorer: recording a run", "tool", t.ID, "error", err.Error())
		fv.Problems = append(fv.Problems, "The run could not be started; try again.")
		return false, nil
	}
	var oc *outcome
	if e.runsAsTask(t) {
		oc = e.startTask(r, v, t, canonical, fv.Confirmed)
	} else {
		oc = e.run(r, v, t, args, fv.Confirmed)
	}
	run.Outcome, err = json.Marshal(oc)
	if err == nil {
		// The run is over whatever happens to the request: its outcome is
		// stored even when the person has gone.
		err = e.runs.FinishRun(context.WithoutCancel(r.Context()), run)
	}
	if err != nil {
		e.logger.Error("explorer: recording a run", "tool", t.ID, "error", err.Error())
		fv.Problems = append(fv.Problems, "The tool ran, but its result could not be kept to show it.")
		return false, nil
	}
	if oc.Task != "" {
		http.Redirect(w, r, e.taskURL(oc.Task), http.StatusSeeOther)
		return true, nil
	}
	http.Redirect(w, r, e.runURL(t, run.ID), http.StatusSeeOther)
	return true, nil
}

// confirmProblem returns why the run of t with args (canonical JSON) for
// the form submission r cannot start without the confirmation box ticked,
// or "" when it can: a destructive tool, or one marked Confirm, always
// needs it; a tool whose ConfirmIf decides needs it when it asks for this
// run, and the problem then gives its reason. Inputs with violations
// (broken, when true) are not asked about: the form shows them first.
func (e *server) confirmProblem(r *http.Request, v *visit, t *tool.Tool, args json.RawMessage, broken bool) string {
	const tick = "This tool changes data: tick the box to confirm, then run it again."
	if broken {
		return tick
	}
	reason, ask, err := e.reg.NeedsConfirmingJSON(tool.WithAccount(r.Context(), v.acct), t.ID, args)
	if err != nil {
		// The run reports the failure, as it would without the box.
		e.logger.Error("explorer: deciding on a confirmation", "tool", t.ID, "error", err.Error())
	}
	switch {
	case reason != "":
		return "This run needs your confirmation: " + reason + " Tick the box to confirm, then run it again."
	case t.IsDestructive() || t.Confirm || ask:
		return tick
	}
	return ""
}

// run runs the tool with args and returns its outcome; confirmed says
// that the person ticked the confirmation box. The run's context ends
// after [Options.MaxRunDuration].
func (e *server) run(r *http.Request, v *visit, t *tool.Tool, args map[string]any, confirmed bool) *outcome {
	ctx, cancel := context.WithTimeout(r.Context(), e.maxRun())
	defer cancel()
	ctx = tool.WithCaller(tool.WithAccount(ctx, v.acct), tool.Caller{Channel: tool.ChannelExplorer})
	if confirmed && t.MayConfirm() {
		// The person ticked the box: that is the confirmation. Without
		// it, a run that asks after all is refused.
		ctx = tool.WithConfirmer(ctx, tool.Confirmed)
	}
	res, err := e.reg.Run(ctx, t.ID, args)
	if err != nil {
		return &outcome{Status: http.StatusNotFound, Problems: []string{"The tool is gone."}}
	}
	if hidden := tool.Secrets(t.Inputs, args); len(hidden) > 0 && res.Outputs != nil {
		// An output that repeats a secret is kept, and shown, masked.
		kept := *res
		kept.Outputs = tool.MaskSecrets(res.Outputs, hidden, masked).(map[string]any)
		res = &kept
	}
	oc := &outcome{Result: res, Status: http.StatusInternalServerError}
	switch res.Failure {
	case "":
		oc.Status = http.StatusOK
	case tool.FailureInput:
		oc.Status = http.StatusUnprocessableEntity
	case tool.FailureAccess:
		oc.Status = http.StatusForbidden
	}
	return oc
}

// runWait bounds how long a page waits for a run under way (started by
// another submission of the same form), below the time proxies give a
// response; runPoll is how often it looks.
const (
	runWait = 20 * time.Second
	runPoll = 100 * time.Millisecond
)

// loadRun returns the visitor's run with the given ID and its outcome once
// it is over; the run with a nil outcome when it is still under way after
// runWait; nil when there is none.
func (e *server) loadRun(r *http.Request, v *visit, t *tool.Tool, id string) (*Run, *outcome) {
	deadline := time.Now().Add(runWait)
	for {
		run, err := e.runs.Run(r.Context(), e.owner(v), id)
		if err != nil {
			if !errors.Is(err, ErrNoRun) {
				e.logger.Error("explorer: loading a run", "tool", t.ID, "error", err.Error())
			}
			return nil, nil
		}
		if run.Tool != t.ID {
			return nil, nil
		}
		oc, err := e.outcomeOf(run)
		if err != nil {
			e.logger.Error("explorer: loading a run", "tool", t.ID, "error", err.Error())
			return nil, nil
		}
		if oc != nil || time.Now().After(deadline) {
			return run, oc
		}
		select {
		case <-r.Context().Done():
			return run, nil
		case <-time.After(runPoll):
		}
	}
}
