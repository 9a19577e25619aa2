package task

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/riverqueue/river"

	"github.com/toolapi/toolapi/audit"
	"github.com/toolapi/toolapi/tool"
)

// AwaitingApproval is the [Task.StatusMessage] of a task whose call waits
// for the approval of another account (see [tool.Tool.Approver]).
const AwaitingApproval = "awaiting approval"

// Limits and defaults of approvals.
const (
	// DefaultApprovalTTL is how long a call waits for its approval when
	// Options sets no ApprovalTTL; after it the task fails as expired.
	DefaultApprovalTTL = 24 * time.Hour
	// MaxPendingApprovals is the most calls one account may have waiting
	// for approval at once; more are refused until some are decided.
	MaxPendingApprovals = 100
	// MaxNote is the most characters an approver's note or a refusal's
	// reason may have.
	MaxNote = 500
	// DefaultStanding and MaxStanding are how long a standing approval
	// lasts when its grant says nothing, and at most.
	DefaultStanding = 24 * time.Hour
	MaxStanding     = 30 * 24 * time.Hour
	// MaxStandingPerTool is the most standing approvals of one tool one
	// account may hold in force at once (for any inputs or for exact
	// ones); a further grant is refused until one is revoked or expires.
	MaxStandingPerTool = 20
)

// Errors of approvals. Test for them with [errors.Is].
var (
	// ErrNotAwaiting: the task's call does not wait for approval (it
	// needs none, was approved or refused already, expired, or the task
	// was cancelled). An approval is used once.
	ErrNotAwaiting = errors.New("task: the task's call does not wait for approval")
	// ErrApprovalExpired: the call waited longer than the approval's time
	// to live; the task has failed.
	ErrApprovalExpired = errors.New("task: the approval of the task's call has expired")
	// ErrOwnCall: an account may not approve its own call, nor grant
	// itself a standing approval.
	ErrOwnCall = errors.New("task: an account may not approve its own calls")
	// ErrMayNotApprove: the account does not hold the tool's approver
	// permission (or the tool has no approver).
	ErrMayNotApprove = errors.New("task: the account may not approve calls of the tool")
	// ErrTooManyPending: the account has MaxPendingApprovals calls
	// waiting for approval already.
	ErrTooManyPending = errors.New("task: too many calls wait for approval")
	// ErrBadApproval: the approval or grant is malformed (a note too long,
	// a duration out of range, an account that does not exist or may not
	// run the tool, edited inputs of a tool with sensitive inputs); the
	// error says which and why.
	ErrBadApproval = errors.New("task: approval")
)

// A BadApprovalError is an approval, refusal or grant refused for one of
// its values; it wraps [ErrBadApproval]. Field names the value ("note",
// "reason", "args", "account", "for") and Reason says the rule broken, in
// words for the person who gave it.
type BadApprovalError struct {
	Field, Reason string
}

func (e *BadApprovalError) Error() string {
	return ErrBadApproval.Error() + ": " + e.Field + ": " + e.Reason
}

func (e *BadApprovalError) Unwrap() error { return ErrBadApproval }

func badApproval(field, reason string) error { return &BadApprovalError{Field: field, Reason: reason} }

// Bounds of what an approval or grant names: an account's ID, and the
// inputs a grant limits itself to or an approval edits.
const (
	maxAccountID    = 256
	maxApprovalArgs = 64 << 10
)

// approvalSchema makes the tables of approvals.
var approvalSchema = []string{
	`CREATE TABLE IF NOT EXISTS toolapi_task_approvals (
		task_id TEXT PRIMARY KEY,
		tool TEXT NOT NULL,
		account TEXT NOT NULL,
		status TEXT NOT NULL,
		reason TEXT NOT NULL DEFAULT '',
		inputs_sha256 TEXT NOT NULL,
		approved_sha256 TEXT NOT NULL DEFAULT '',
		original TEXT NOT NULL DEFAULT '',
		decided_by TEXT NOT NULL DEFAULT '',
		note TEXT NOT NULL DEFAULT '',
		standing TEXT NOT NULL DEFAULT '',
		created_ns BIGINT NOT NULL,
		expires_ns BIGINT NOT NULL,
		decided_ns BIGINT NOT NULL DEFAULT 0
	)`,
	`CREATE INDEX IF NOT EXISTS toolapi_task_approvals_pending ON toolapi_task_approvals (status, tool, created_ns)`,
	`CREATE INDEX IF NOT EXISTS toolapi_task_approvals_account ON toolapi_task_approvals (account, status)`,
	`CREATE TABLE IF NOT EXISTS toolapi_standing_approvals (
		id TEXT PRIMARY KEY,
		tool TEXT NOT NULL,
		account TEXT NOT NULL,
		inputs_sha256 TEXT NOT NULL DEFAULT '',
		args TEXT NOT NULL DEFAULT '',
		granted_by TEXT NOT NULL,
		created_ns BIGINT NOT NULL,
		expires_ns BIGINT NOT NULL,
		revoked_by TEXT NOT NULL DEFAULT '',
		revoked_ns BIGINT NOT NULL DEFAULT 0
	)`,
	`CREATE INDEX IF NOT EXISTS toolapi_standing_approvals_tool ON toolapi_standing_approvals (tool, account)`,
}

// An Approval is where the approval of a task's call stands.
type Approval struct {
	// Permission is the approver permission of the task's tool.
	Permission string `json:"permission"`
	// Status is "pending", "approved", "refused" or "expired".
	Status string `json:"status"`
	// Reason says why the call needs approval, when the tool says why.
	Reason string `json:"reason,omitempty"`
	// Args are the call's inputs as canonical JSON, sensitive ones left
	// out: the approved ones once approved.
	Args json.RawMessage `json:"args"`
	// Original are the inputs the caller sent, when the approver edited
	// them; nil otherwise.
	Original json.RawMessage `json:"original,omitempty"`
	// DecidedBy is the account that approved or refused; for a call
	// approved by a standing approval, the account that granted it.
	DecidedBy string `json:"decidedBy,omitempty"`
	// Standing is the ID of the standing approval that approved the call.
	Standing string `json:"standing,omitempty"`
	// Note is the approver's note, or the reason of a refusal.
	Note string `json:"note,omitempty"`
	// Requested is when the call was made; Expires when it stops waiting;
	// Decided when it was approved or refused (zero until then).
	Requested time.Time `json:"requested"`
	Expires   time.Time `json:"expires"`
	Decided   time.Time `json:"decided,omitzero"`
}

// A Pending is a call waiting for approval, as its approvers see it.
type Pending struct {
	Task *Task `json:"task"`
	// Account is the account whose call it is.
	Account  string    `json:"account"`
	Approval *Approval `json:"approval"`
}

// awaiting is the approval a new task's call waits for, or the standing
// approval that approved it at once.
type awaiting struct {
	hash, reason string
	expires      time.Time
	// standing and grantedBy name the standing approval that approved the
	// call, if one did.
	standing, grantedBy string
}

func (a *awaiting) insert(ctx context.Context, tx *sql.Tx, id string, now time.Time) error {
	status, approved, decidedNS := "pending", "", int64(0)
	if a.standing != "" {
		status, approved, decidedNS = "approved", a.hash, now.UnixNano()
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO toolapi_task_approvals (task_id, tool, account, status, reason, inputs_sha256, approved_sha256,
		decided_by, standing, created_ns, expires_ns, decided_ns) SELECT $1, tool, account, $2, $3, $4, $5, $6, $7, $8, $9, $10 FROM toolapi_tasks WHERE id = $1`,
		id, status, a.reason, a.hash, approved, a.grantedBy, a.standing, now.UnixNano(), a.expires.UnixNano(), decidedNS)
	if err != nil {
		return fmt.Errorf("task: storing the approval: %w", err)
	}
	return nil
}

// sum returns the hex SHA-256 of b.
func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// approvalTTL returns how long a call waits for its approval.
func (m *Manager) approvalTTL() time.Duration {
	if m.opts.ApprovalTTL > 0 {
		return m.opts.ApprovalTTL
	}
	return DefaultApprovalTTL
}

// createAwaiting creates the task of a call of t that needs approval: it
// runs at once if a standing approval covers it, and otherwise waits.
func (m *Manager) createAwaiting(ctx context.Context, t *tool.Tool, public, canonical []byte, reason string) (*Task, error) {
	acct := tool.AccountFrom(ctx).AccountID()
	a := &awaiting{hash: sum(canonical), reason: reason, expires: time.Now().Add(m.approvalTTL())}
	standing, grantedBy, err := m.standingFor(ctx, t, acct, a.hash)
	if err != nil {
		return nil, err
	}
	if standing != "" {
		a.standing, a.grantedBy = standing, grantedBy
		return m.store(ctx, t, public, canonical, true, a)
	}
	var n int
	if err := m.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM toolapi_task_approvals a JOIN toolapi_tasks t ON t.id = a.task_id
		WHERE a.account = $1 AND a.status = 'pending' AND t.status = 'working' AND a.expires_ns > $2`, acct, time.Now().UnixNano()).Scan(&n); err != nil {
		return nil, fmt.Errorf("task: counting the calls waiting for approval: %w", err)
	}
	if n >= MaxPendingApprovals {
		return nil, m.refused(ctx, t, &tool.Result{Message: fmt.Sprintf("%s was not started: %d of your calls wait for approval already, the most there may be.",
			label(t), MaxPendingApprovals), Failure: tool.FailureAccess})
	}
	return m.store(ctx, t, public, canonical, false, a)
}

// standingFor returns the standing approval that covers a call of t by
// acct with inputs of hash, and who granted it; "" if none does. A grant
// whose granter no longer holds the approver permission covers nothing.
func (m *Manager) standingFor(ctx context.Context, t *tool.Tool, acct, hash string) (id, grantedBy string, err error) {
	rows, err := m.db.QueryContext(ctx, `SELECT id, granted_by FROM toolapi_standing_approvals
		WHERE tool = $1 AND account = $2 AND revoked_ns = 0 AND expires_ns > $3 AND (inputs_sha256 = '' OR inputs_sha256 = $4)
		ORDER BY created_ns LIMIT `+strconv.Itoa(10*MaxStandingPerTool), t.ID, acct, time.Now().UnixNano(), hash)
	if err != nil {
		return "", "", fmt.Errorf("task: reading standing approvals: %w", err)
	}
	type grant struct{ id, by string }
	var gs []grant
	for rows.Next() {
		var g grant
		if err := rows.Scan(&g.id, &g.by); err != nil {
			rows.Close()
			return "", "", fmt.Errorf("task: reading standing approvals: %w", err)
		}
		gs = append(gs, g)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return "", "", fmt.Errorf("task: reading standing approvals: %w", err)
	}
	for _, g := range gs {
		granter, err := m.opts.Account(ctx, g.by)
		if err != nil || granter == nil || !t.MayApprove(granter) {
			continue
		}
		return g.id, g.by, nil
	}
	return "", "", nil
}

// decision is a task waiting for approval, as read to decide it.
type decision struct {
	t                *tool.Tool
	account, args    string
	sealed, status   string
	approval, hash   string
	expires, created int64
}

// deciding reads the task id for the account in ctx to approve or refuse
// its call. A task the account may not approve is not found, as one that
// does not exist.
func (m *Manager) deciding(ctx context.Context, id string) (*decision, error) {
	var d decision
	var toolID string
	err := m.db.QueryRowContext(ctx, `SELECT t.tool, t.account, t.args, t.sealed, t.status, a.status, a.inputs_sha256, a.expires_ns, a.created_ns
		FROM toolapi_tasks t JOIN toolapi_task_approvals a ON a.task_id = t.id WHERE t.id = $1`, id).
		Scan(&toolID, &d.account, &d.args, &d.sealed, &d.status, &d.approval, &d.hash, &d.expires, &d.created)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("%w: %q", ErrNotFound, id)
	}
	if err != nil {
		return nil, fmt.Errorf("task: reading the task's approval: %w", err)
	}
	t, ok := m.reg.Tool(toolID)
	acct := tool.AccountFrom(ctx)
	if !ok || !t.MayApprove(acct) {
		return nil, fmt.Errorf("%w: %q", ErrNotFound, id)
	}
	d.t = t
	switch {
	case d.account == acct.AccountID():
		return nil, fmt.Errorf("%w: task %q is a call of yours", ErrOwnCall, id)
	case d.approval != "pending" || d.status != string(Working):
		return nil, fmt.Errorf("%w: task %q is %s", ErrNotAwaiting, id, d.approval)
	case time.Now().UnixNano() > d.expires:
		m.expireApprovals(ctx)
		return nil, fmt.Errorf("%w: task %q", ErrApprovalExpired, id)
	}
	return &d, nil
}

// checkNote checks an approver's note or a refusal's reason.
func checkNote(what, note string) error {
	if n := utf8.RuneCountInString(note); n > MaxNote {
		return badApproval(what, fmt.Sprintf("must be at most %d characters, got %d", MaxNote, n))
	}
	if !utf8.ValidString(note) {
		return badApproval(what, "must be text (UTF-8)")
	}
	return nil
}

// ApproveOptions are what an approver may add to an approval; nil means
// none.
type ApproveOptions struct {
	// Args, when set, replace the call's inputs (a JSON object): the edited
	// call is decoded, validated and access-checked again, for the
	// caller's account, and runs instead. The audit trail keeps the hash
	// of both. A tool with sensitive inputs cannot be edited.
	Args json.RawMessage
	// Note says why, for the caller and the trail; at most [MaxNote]
	// characters.
	Note string
}

// Approve approves the call of the task id, by the account in ctx, which
// must hold the tool's approver permission and not be the call's account
// ([ErrOwnCall]): the task is queued and runs, once, with the inputs
// approved (the worker checks they are those whose hash was approved). A
// task the account may not approve wraps [ErrNotFound], as one that does
// not exist; one that does not wait for approval (decided already, or
// cancelled) [ErrNotAwaiting]; one that waited too long
// [ErrApprovalExpired]. Edited inputs that a run would refuse are a
// [*RefusedError].
func (m *Manager) Approve(ctx context.Context, id string, opts *ApproveOptions) (*Task, error) {
	var o ApproveOptions
	if opts != nil {
		o = *opts
	}
	if err := checkNote("note", o.Note); err != nil {
		return nil, err
	}
	if len(o.Args) > maxApprovalArgs {
		return nil, badApproval("args", fmt.Sprintf("must be at most %d bytes, got %d", maxApprovalArgs, len(o.Args)))
	}
	d, err := m.deciding(ctx, id)
	if err != nil {
		return nil, err
	}
	approver := tool.AccountFrom(ctx).AccountID()
	args, sealed, hash, original := d.args, d.sealed, d.hash, ""
	if a := bytes.TrimSpace(o.Args); len(a) > 0 && string(a) == d.args {
		// The inputs as the call stored them (a form sends them back
		// unchanged): no edit.
		o.Args = nil
	}
	if len(o.Args) > 0 {
		if d.sealed != "" {
			return nil, badApproval("args", label(d.t)+" has sensitive inputs, so its call cannot be edited; refuse it, and the caller calls again")
		}
		caller, err := m.opts.Account(ctx, d.account)
		if err != nil || caller == nil {
			return nil, badApproval("args", fmt.Sprintf("the account %q of the call could not be found", d.account))
		}
		call, canonical, err := m.check(tool.WithAccount(ctx, caller), d.t, o.Args)
		if err != nil {
			return nil, err
		}
		public := call.InputsJSON()
		if string(public) != string(canonical) {
			return nil, badApproval("args", label(d.t)+" has sensitive inputs, so its call cannot be edited")
		}
		if string(public) != d.args {
			original, args, hash = d.args, string(public), sum(canonical)
		}
	}
	if d.sealed == "" && sum([]byte(args)) != hash {
		return nil, fmt.Errorf("task: approving: the stored inputs of %q do not match the hash requested", id)
	}
	now := time.Now()
	tx, err := m.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("task: approving: %w", err)
	}
	defer tx.Rollback()
	// Only over the pending row: of two approvals at once, one wins.
	r, err := tx.ExecContext(ctx, `UPDATE toolapi_task_approvals SET status = 'approved', approved_sha256 = $2, original = $3, decided_by = $4,
		note = $5, decided_ns = $6 WHERE task_id = $1 AND status = 'pending' AND expires_ns >= $6`, id, hash, original, approver, o.Note, now.UnixNano())
	if err != nil {
		return nil, fmt.Errorf("task: approving: %w", err)
	}
	if n, err := r.RowsAffected(); err == nil && n == 0 {
		if now.UnixNano() > d.expires {
			// It expired while the edited inputs were checked.
			return nil, fmt.Errorf("%w: task %q", ErrApprovalExpired, id)
		}
		return nil, fmt.Errorf("%w: task %q", ErrNotAwaiting, id)
	}
	r, err = tx.ExecContext(ctx, `UPDATE toolapi_tasks SET args = $2, sealed = $3, confirmed = 1, status_message = '', updated_ns = $4, expires_ns = $4 + ttl_ns
		WHERE id = $1 AND status = 'working' AND started = 0`, id, args, sealed, now.UnixNano())
	if err != nil {
		return nil, fmt.Errorf("task: approving: %w", err)
	}
	if n, err := r.RowsAffected(); err == nil && n == 0 {
		return nil, fmt.Errorf("%w: task %q", ErrNotAwaiting, id)
	}
	if _, err := m.client.InsertTx(ctx, tx, jobArgs{Task: id}, &river.InsertOpts{MaxAttempts: 1}); err != nil {
		return nil, fmt.Errorf("task: queueing the task: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("task: approving: %w", err)
	}
	m.notify(ctx, id)
	m.recordBy(ctx, d.t, id, d.account, approver, []byte(args), audit.TaskApproved, "")
	return m.asDecider(ctx, id)
}

// Refuse refuses the call of the task id, by the account in ctx, as
// [Manager.Approve] would approve it: the task fails, its Result an access
// failure saying who refused it and reason (at most [MaxNote]
// characters), and the call never runs.
func (m *Manager) Refuse(ctx context.Context, id, reason string) (*Task, error) {
	if err := checkNote("reason", reason); err != nil {
		return nil, err
	}
	d, err := m.deciding(ctx, id)
	if err != nil {
		return nil, err
	}
	approver := tool.AccountFrom(ctx).AccountID()
	msg := label(d.t) + " was refused by " + approver + "."
	if r := strings.TrimSpace(reason); r != "" {
		msg = label(d.t) + " was refused by " + approver + ": " + r
	}
	res, err := encodeResult(&tool.Result{Message: msg, Failure: tool.FailureAccess})
	if err != nil {
		return nil, fmt.Errorf("task: refusing: %w", err)
	}
	now := time.Now().UnixNano()
	tx, err := m.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("task: refusing: %w", err)
	}
	defer tx.Rollback()
	r, err := tx.ExecContext(ctx, `UPDATE toolapi_task_approvals SET status = 'refused', decided_by = $2, note = $3, decided_ns = $4
		WHERE task_id = $1 AND status = 'pending'`, id, approver, reason, now)
	if err != nil {
		return nil, fmt.Errorf("task: refusing: %w", err)
	}
	if n, err := r.RowsAffected(); err == nil && n == 0 {
		return nil, fmt.Errorf("%w: task %q", ErrNotAwaiting, id)
	}
	r, err = tx.ExecContext(ctx, `UPDATE toolapi_tasks SET status = 'failed', status_message = '', result = $2, updated_ns = $3, expires_ns = $3 + ttl_ns
		WHERE id = $1 AND status = 'working' AND started = 0`, id, string(res), now)
	if err != nil {
		return nil, fmt.Errorf("task: refusing: %w", err)
	}
	if n, err := r.RowsAffected(); err == nil && n == 0 {
		// Cancelled meanwhile: nothing to refuse.
		return nil, fmt.Errorf("%w: task %q", ErrNotAwaiting, id)
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("task: refusing: %w", err)
	}
	m.notify(ctx, id)
	m.recordBy(ctx, d.t, id, d.account, approver, []byte(d.args), audit.TaskRefused, tool.FailureAccess)
	return m.asDecider(ctx, id)
}

// asDecider reads the task id with its approval for the approver who just
// decided it (who may not see the task otherwise).
func (m *Manager) asDecider(ctx context.Context, id string) (*Task, error) {
	t, err := m.scan(m.db.QueryRowContext(ctx, `SELECT `+taskColumns+` FROM toolapi_tasks WHERE id = $1`, id))
	if err != nil {
		return nil, fmt.Errorf("task: reading task: %w", err)
	}
	return t, m.withApproval(ctx, t)
}

// withApproval reads the approval of t's call into t.Approval, if its
// call needed one.
func (m *Manager) withApproval(ctx context.Context, t *Task) error {
	var a Approval
	var args, original string
	var created, expires, decided int64
	err := m.db.QueryRowContext(ctx, `SELECT a.status, a.reason, a.inputs_sha256, a.approved_sha256, a.original, a.decided_by, a.note, a.standing,
		a.created_ns, a.expires_ns, a.decided_ns, t.args FROM toolapi_task_approvals a JOIN toolapi_tasks t ON t.id = a.task_id WHERE a.task_id = $1`, t.ID).
		Scan(&a.Status, &a.Reason, new(string), new(string), &original, &a.DecidedBy, &a.Note, &a.Standing, &created, &expires, &decided, &args)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("task: reading the approval of %s: %w", t.ID, err)
	}
	if tl, ok := m.reg.Tool(t.Tool); ok {
		a.Permission = tl.Approver
	}
	a.Args = json.RawMessage(args)
	if original != "" {
		a.Original = json.RawMessage(original)
	}
	a.Requested, a.Expires = time.Unix(0, created).UTC(), time.Unix(0, expires).UTC()
	if decided != 0 {
		a.Decided = time.Unix(0, decided).UTC()
	}
	t.Approval = &a
	return nil
}

// Approvals returns the calls waiting for approval that the account in ctx
// may approve (it holds their tools' approver permission, and they are not
// its own), oldest first, at most [MaxListLimit].
func (m *Manager) Approvals(ctx context.Context) ([]*Pending, error) {
	acct := tool.AccountFrom(ctx)
	var tools []any
	var marks []string
	for _, t := range m.reg.List(nil) {
		if t.MayApprove(acct) {
			tools = append(tools, t.ID)
			marks = append(marks, "$"+strconv.Itoa(len(tools)+2))
		}
	}
	out := []*Pending{}
	if len(tools) == 0 {
		return out, nil
	}
	args := append([]any{acct.AccountID(), time.Now().UnixNano()}, tools...)
	args = append(args, MaxListLimit)
	rows, err := m.db.QueryContext(ctx, `SELECT t.id FROM toolapi_task_approvals a JOIN toolapi_tasks t ON t.id = a.task_id
		WHERE a.status = 'pending' AND t.status = 'working' AND a.account <> $1 AND a.expires_ns > $2 AND a.tool IN (`+strings.Join(marks, ", ")+`)
		ORDER BY a.created_ns, a.task_id LIMIT $`+strconv.Itoa(len(args)), args...)
	if err != nil {
		return nil, fmt.Errorf("task: listing approvals: %w", err)
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, fmt.Errorf("task: listing approvals: %w", err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("task: listing approvals: %w", err)
	}
	for _, id := range ids {
		t, err := m.asDecider(ctx, id)
		if err != nil {
			return nil, err
		}
		out = append(out, &Pending{Task: t, Account: t.Account, Approval: t.Approval})
	}
	return out, nil
}

// expireApprovals fails the tasks whose call waited for approval longer
// than its time to live.
func (m *Manager) expireApprovals(ctx context.Context) {
	now := time.Now().UnixNano()
	rows, err := m.db.QueryContext(ctx, `SELECT task_id, tool, account FROM toolapi_task_approvals WHERE status = 'pending' AND expires_ns < $1 LIMIT 1000`, now)
	if err != nil {
		if ctx.Err() == nil {
			m.logger.Error("finding expired approvals failed", "error", err.Error())
		}
		return
	}
	type expired struct{ id, tool, account string }
	var es []expired
	for rows.Next() {
		var e expired
		if err := rows.Scan(&e.id, &e.tool, &e.account); err == nil {
			es = append(es, e)
		}
	}
	rows.Close()
	for _, e := range es {
		name := e.tool
		t, ok := m.reg.Tool(e.tool)
		if ok {
			name = label(t)
		}
		res, _ := encodeResult(&tool.Result{Message: name + " was not approved in time, so it did not run.", Failure: tool.FailureAccess})
		tx, err := m.db.BeginTx(ctx, nil)
		if err != nil {
			return
		}
		r, err := tx.ExecContext(ctx, `UPDATE toolapi_task_approvals SET status = 'expired', decided_ns = $2 WHERE task_id = $1 AND status = 'pending'`, e.id, now)
		if err == nil {
			if n, _ := r.RowsAffected(); n == 1 {
				_, err = tx.ExecContext(ctx, `UPDATE toolapi_tasks SET status = 'failed', status_message = '', result = $2, updated_ns = $3, expires_ns = $3 + ttl_ns
					WHERE id = $1 AND status = 'working' AND started = 0`, e.id, string(res), now)
			}
		}
		if err != nil {
			tx.Rollback()
			if ctx.Err() == nil {
				m.logger.Error("expiring an approval failed", "task", e.id, "error", err.Error())
			}
			continue
		}
		if err := tx.Commit(); err == nil {
			m.notify(ctx, e.id)
		}
	}
}

// approvedBy returns who approved the call of the task id with inputs
// whose hash is hash; "" when its call needed no approval or the approval
// does not bind these inputs.
func (m *Manager) approvedBy(ctx context.Context, id string, canonical []byte) (string, error) {
	var by, approved string
	err := m.db.QueryRowContext(ctx, `SELECT decided_by, approved_sha256 FROM toolapi_task_approvals WHERE task_id = $1 AND status = 'approved'`, id).
		Scan(&by, &approved)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	if approved != sum(canonical) {
		return "", nil
	}
	return by, nil
}

// A Standing is a standing approval: the calls of Tool by Account (with
// exactly Args, when set) need no one else's approval until Expires,
// unless revoked.
type Standing struct {
	ID      string `json:"id"`
	Tool    string `json:"tool"`
	Account string `json:"account"`
	// Args, when set, are the only inputs it covers (canonical JSON).
	Args      json.RawMessage `json:"args,omitempty"`
	GrantedBy string          `json:"grantedBy"`
	Created   time.Time       `json:"created"`
	Expires   time.Time       `json:"expires"`
	// RevokedBy names who revoked it; empty while it stands.
	RevokedBy string    `json:"revokedBy,omitempty"`
	Revoked   time.Time `json:"revoked,omitzero"`
}

// A Grant asks for a standing approval.
type Grant struct {
	// Tool is the ID of a tool with an approver.
	Tool string
	// Account is the ID of the account whose calls it approves.
	Account string
	// Args, when set (a JSON object), limit it to calls with exactly these
	// inputs.
	Args json.RawMessage
	// For is how long it stands: zero means [DefaultStanding], more than
	// [MaxStanding] is an error.
	For time.Duration
}

// Grant grants a standing approval, by the account in ctx, which must hold
// the tool's approver permission ([ErrMayNotApprove]) and not be the
// account it is for ([ErrOwnCall]). The account must exist and be allowed
// to run the tool, and Args, when set, must be inputs a run of that
// account would take ([ErrBadApproval], or a [*RefusedError] saying what
// a run would have said). An unknown tool wraps [tool.ErrNotFound].
func (m *Manager) Grant(ctx context.Context, g *Grant) (*Standing, error) {
	t, ok := m.reg.Tool(g.Tool)
	if !ok {
		return nil, fmt.Errorf("%w: %q", tool.ErrNotFound, g.Tool)
	}
	granter := tool.AccountFrom(ctx)
	switch {
	case !t.MayApprove(granter):
		return nil, fmt.Errorf("%w: %s", ErrMayNotApprove, t.ID)
	case g.Account == granter.AccountID():
		return nil, fmt.Errorf("%w: a standing approval for yourself", ErrOwnCall)
	case len(g.Account) > maxAccountID || len(g.Args) > maxApprovalArgs:
		return nil, badApproval("account", fmt.Sprintf("the account name must be at most %d bytes and the inputs at most %d", maxAccountID, maxApprovalArgs))
	case g.For < 0 || g.For > MaxStanding:
		return nil, badApproval("for", fmt.Sprintf("must be between 0 (the default, %s) and %s, got %s", DefaultStanding, MaxStanding, g.For))
	}
	d := g.For
	if d == 0 {
		d = DefaultStanding
	}
	acct, err := m.opts.Account(ctx, g.Account)
	if err != nil || acct == nil {
		return nil, badApproval("account", fmt.Sprintf("no account %q", g.Account))
	}
	if acct.AccountID() == granter.AccountID() {
		return nil, fmt.Errorf("%w: a standing approval for yourself", ErrOwnCall)
	}
	g = &Grant{Tool: g.Tool, Account: acct.AccountID(), Args: g.Args, For: g.For}
	if acct.Blocked() || !t.Allowed(acct) {
		return nil, badApproval("account", fmt.Sprintf("%q may not run %s, so a standing approval would approve nothing", g.Account, t.ID))
	}
	var hash, args string
	if len(g.Args) > 0 {
		call, canonical, err := m.check(tool.WithAccount(ctx, acct), t, g.Args)
		if err != nil {
			return nil, err
		}
		hash, args = sum(canonical), string(call.InputsJSON())
	}
	now := time.Now()
	s := &Standing{ID: newID(), Tool: t.ID, Account: g.Account, GrantedBy: granter.AccountID(), Created: now.UTC(), Expires: now.Add(d).UTC()}
	if args != "" {
		s.Args = json.RawMessage(args)
	}
	// Stored only while the account holds fewer than the most in force,
	// counted by the statement that stores it.
	r, err := m.db.ExecContext(ctx, `INSERT INTO toolapi_standing_approvals (id, tool, account, inputs_sha256, args, granted_by, created_ns, expires_ns)
		SELECT $1, $2, $3, $4, $5, $6, CAST($7 AS BIGINT), CAST($8 AS BIGINT)
		WHERE (SELECT COUNT(*) FROM toolapi_standing_approvals WHERE tool = $2 AND account = $3 AND revoked_ns = 0 AND expires_ns > $7) < $9`,
		s.ID, s.Tool, s.Account, hash, args, s.GrantedBy, now.UnixNano(), now.Add(d).UnixNano(), MaxStandingPerTool)
	if err != nil {
		return nil, fmt.Errorf("task: granting: %w", err)
	}
	if n, err := r.RowsAffected(); err != nil {
		return nil, fmt.Errorf("task: granting: %w", err)
	} else if n == 0 {
		return nil, badApproval("account", fmt.Sprintf("%q already holds %d standing approvals of %s in force, the most: revoke one first", g.Account, MaxStandingPerTool, t.ID))
	}
	m.recordBy(ctx, t, s.ID, s.Account, s.GrantedBy, []byte(args), audit.ApprovalGranted, "")
	return s, nil
}

// Revoke revokes the standing approval id, by the account in ctx, which
// must hold its tool's approver permission. One the account may not
// revoke wraps [ErrNotFound], as one that does not exist; one revoked or
// expired already, [ErrNotAwaiting].
func (m *Manager) Revoke(ctx context.Context, id string) (*Standing, error) {
	s, err := m.standing(ctx, id)
	if err != nil {
		return nil, err
	}
	t, ok := m.reg.Tool(s.Tool)
	by := tool.AccountFrom(ctx)
	if !ok || !t.MayApprove(by) {
		return nil, fmt.Errorf("%w: standing approval %q", ErrNotFound, id)
	}
	now := time.Now().UnixNano()
	r, err := m.db.ExecContext(ctx, `UPDATE toolapi_standing_approvals SET revoked_by = $2, revoked_ns = $3 WHERE id = $1 AND revoked_ns = 0 AND expires_ns > $3`,
		id, by.AccountID(), now)
	if err != nil {
		return nil, fmt.Errorf("task: revoking: %w", err)
	}
	if n, err := r.RowsAffected(); err == nil && n == 0 {
		return nil, fmt.Errorf("%w: standing approval %q was revoked or has expired", ErrNotAwaiting, id)
	}
	m.recordBy(ctx, t, id, s.Account, by.AccountID(), nil, audit.ApprovalRevoked, "")
	return m.standing(ctx, id)
}

const standingColumns = `id, tool, account, args, granted_by, created_ns, expires_ns, revoked_by, revoked_ns`

func scanStanding(s scanner) (*Standing, error) {
	var st Standing
	var args string
	var created, expires, revoked int64
	if err := s.Scan(&st.ID, &st.Tool, &st.Account, &args, &st.GrantedBy, &created, &expires, &st.RevokedBy, &revoked); err != nil {
		return nil, err
	}
	if args != "" {
		st.Args = json.RawMessage(args)
	}
	st.Created, st.Expires = time.Unix(0, created).UTC(), time.Unix(0, expires).UTC()
	if revoked != 0 {
		st.Revoked = time.Unix(0, revoked).UTC()
	}
	return &st, nil
}

// standing reads the standing approval id.
func (m *Manager) standing(ctx context.Context, id string) (*Standing, error) {
	s, err := scanStanding(m.db.QueryRowContext(ctx, `SELECT `+standingColumns+` FROM toolapi_standing_approvals WHERE id = $1`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("%w: standing approval %q", ErrNotFound, id)
	}
	if err != nil {
		return nil, fmt.Errorf("task: reading a standing approval: %w", err)
	}
	return s, nil
}

// StandingApprovals returns the standing approvals in force that the
// account in ctx may see: those for it, and those of the tools it may
// approve; newest first, at most [MaxListLimit].
func (m *Manager) StandingApprovals(ctx context.Context) ([]*Standing, error) {
	acct := tool.AccountFrom(ctx)
	args := []any{acct.AccountID(), time.Now().UnixNano()}
	var marks []string
	for _, t := range m.reg.List(nil) {
		if t.MayApprove(acct) {
			args = append(args, t.ID)
			marks = append(marks, "$"+strconv.Itoa(len(args)))
		}
	}
	cond := "account = $1"
	if len(marks) > 0 {
		cond = "(account = $1 OR tool IN (" + strings.Join(marks, ", ") + "))"
	}
	args = append(args, MaxListLimit)
	rows, err := m.db.QueryContext(ctx, `SELECT `+standingColumns+` FROM toolapi_standing_approvals WHERE `+cond+
		` AND revoked_ns = 0 AND expires_ns > $2 ORDER BY created_ns DESC, id LIMIT $`+strconv.Itoa(len(args)), args...)
	if err != nil {
		return nil, fmt.Errorf("task: listing standing approvals: %w", err)
	}
	defer rows.Close()
	out := []*Standing{}
	for rows.Next() {
		s, err := scanStanding(rows)
		if err != nil {
			return nil, fmt.Errorf("task: listing standing approvals: %w", err)
		}
		out = append(out, s)
	}
	return out, rows.Err()
}
