package task

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/riverqueue/river"
	"go.opentelemetry.io/otel/trace"

	"github.com/toolapi/toolapi/audit"
	"github.com/toolapi/toolapi/tool"
)

// ErrBadAnswer is wrapped by [Manager.Answer] for an answer that does not
// answer the question: an unknown action, or content the question's schema
// refuses (the error says which rule).
var ErrBadAnswer = errors.New("task: answer")

// callKey carries, into a check of the inputs, where to put the call.
type callKey struct{}

// captureCall is middleware that hands a check's call, with its decoded
// inputs, to [Manager.Create].
func captureCall(next tool.RunFunc) tool.RunFunc {
	return func(ctx context.Context, c *tool.Call) *tool.Result {
		res := next(ctx, c)
		if p, ok := ctx.Value(callKey{}).(**tool.Call); ok && c.Check {
			*p = c
		}
		return res
	}
}

// label returns t's label, or its ID.
func label(t *tool.Tool) string {
	if t.Label != "" {
		return t.Label
	}
	return t.ID
}

// Create creates a task of the tool toolID with args (a JSON object, null
// or empty), for the account in ctx, to run in the background. Before the
// task exists its arguments are decoded and validated, the account's
// permission and access are checked, and a tool that needs confirmation is
// confirmed by the [tool.Confirmer] in ctx, exactly as a run would: a
// refusal is a [*RefusedError] holding the Result a run would have given,
// and nothing is stored. When ctx carries no Confirmer, the task asks for
// the confirmation when it starts (its status is then InputRequired).
//
// An unknown tool wraps [tool.ErrNotFound]; a tool whose Task mode is
// never, [ErrNotTaskTool]; a tool with sensitive inputs when the Manager
// has no key, [ErrNoKey]. Any other error is the database's: log it, and
// tell the caller only that the task could not be created.
func (m *Manager) Create(ctx context.Context, toolID string, args json.RawMessage) (*Task, error) {
	t, ok := m.reg.Tool(toolID)
	if !ok {
		return nil, fmt.Errorf("%w: %q", tool.ErrNotFound, toolID)
	}
	if t.Task == tool.TaskNever {
		return nil, fmt.Errorf("%w: %q", ErrNotTaskTool, toolID)
	}
	call, canonical, err := m.check(ctx, t, args)
	if err != nil {
		return nil, err
	}
	public := call.InputsJSON()
	if t.Approver != "" {
		// Whether the run needs confirming decides whether it needs
		// approval; the caller's own confirmation never stands in for it.
		reason, need, err := t.NeedsApproval(ctx, call.Inputs)
		if err != nil {
			m.logger.Error("approval check failed", "tool", toolID, "error", err.Error())
			return nil, m.refused(ctx, t, &tool.Result{Message: label(t) + " failed.", Failure: tool.FailureRuntime})
		}
		first, err := m.askFirst(ctx, t)
		if err != nil {
			return nil, err
		}
		ctx = WithAnswers(ctx, first)
		if need {
			return m.createAwaiting(ctx, t, public, canonical, reason)
		}
		return m.store(ctx, t, public, canonical, true, nil)
	}
	reason, ask, err := t.NeedsConfirming(ctx, call.Inputs)
	if err != nil {
		m.logger.Error("confirmation check failed", "tool", toolID, "error", err.Error())
		return nil, m.refused(ctx, t, &tool.Result{Message: label(t) + " failed.", Failure: tool.FailureRuntime})
	}
	confirmed := !ask
	if ask {
		if c := tool.ConfirmerFrom(ctx); c != nil {
			ok, err := c.Confirm(tool.WithConfirmReason(ctx, reason), t, tool.WithReason(confirmQuestion(t, public), reason))
			if err != nil {
				m.logger.Error("confirmation failed", "tool", toolID, "error", err.Error())
				return nil, m.refused(ctx, t, &tool.Result{Message: label(t) + " failed.", Failure: tool.FailureRuntime})
			}
			if !ok {
				return nil, m.refused(ctx, t, &tool.Result{Message: label(t) + " was not confirmed, so it did not run.", Failure: tool.FailureAccess})
			}
			confirmed = true
		}
	}
	first, err := m.askFirst(ctx, t)
	if err != nil {
		return nil, err
	}
	return m.store(WithAnswers(ctx, first), t, public, canonical, confirmed, nil)
}

// askFirst asks t's AskFirst questions, when the caller in ctx can ask
// them now, and returns their answers by key (nil: the task asks them).
func (m *Manager) askFirst(ctx context.Context, t *tool.Tool) (map[string]*tool.Elicitation, error) {
	if len(t.AskFirst) == 0 {
		return nil, nil
	}
	as, err := tool.Ask(ctx, t.AskFirst...)
	switch {
	case errors.Is(err, tool.ErrUnsupported):
		return nil, nil
	case err != nil && ctx.Err() != nil:
		return nil, err // the caller asks in a later request, or is gone
	case err != nil:
		m.logger.Error("asking before the task failed", "tool", t.ID, "error", err.Error())
		return nil, m.refused(ctx, t, &tool.Result{Message: label(t) + " failed.", Failure: tool.FailureRuntime})
	}
	out := make(map[string]*tool.Elicitation, len(as))
	for i, a := range as {
		if a.Elicitation == nil {
			return nil, nil
		}
		out[t.AskFirst[i].Key] = a.Elicitation
	}
	return out, nil
}

type answersKey struct{}

// WithAnswers returns a context in which [Manager.Create] stores answers
// (by question key) with the task it creates, as given before it: the
// run's first questions, when answers holds every one of their keys, are
// answered at once. [tool.Tool.AskFirst] questions are carried so.
func WithAnswers(ctx context.Context, answers map[string]*tool.Elicitation) context.Context {
	if len(answers) == 0 {
		return ctx
	}
	return context.WithValue(ctx, answersKey{}, answers)
}

// givenAnswers returns the answers of ctx (see WithAnswers) as they are
// stored, or NULL.
func givenAnswers(ctx context.Context) (sql.NullString, error) {
	answers, _ := ctx.Value(answersKey{}).(map[string]*tool.Elicitation)
	if len(answers) == 0 {
		return sql.NullString{}, nil
	}
	stored := make(map[string]storedAnswer, len(answers))
	for k, a := range answers {
		if a == nil {
			continue
		}
		stored[k] = storedAnswer{Action: a.Action, Content: a.Content}
	}
	b, err := json.Marshal(stored)
	if err != nil {
		return sql.NullString{}, err
	}
	if len(b) > MaxAnswer {
		return sql.NullString{}, fmt.Errorf("%w: the answers given before the task must be at most %d bytes as JSON, got %d", ErrBadAnswer, MaxAnswer, len(b))
	}
	return sql.NullString{String: string(b), Valid: true}, nil
}

// check decodes and validates args for a call of t by the account in ctx,
// checks the account's permission, its access to the entities and t's
// access method, through the registry's checks of a run (see
// [tool.WithEntityAccess]), and returns the checked call and its
// canonical JSON (sensitive inputs included). A refusal is a
// [*RefusedError] holding the Result a run would have given.
func (m *Manager) check(ctx context.Context, t *tool.Tool, args json.RawMessage) (*tool.Call, []byte, error) {
	acct := tool.AccountFrom(ctx)
	if acct.Blocked() || !t.Allowed(acct) {
		// A run refuses such an account before it decodes anything: let it
		// say so, in its words, through the registry's middleware.
		res, err := m.reg.RunJSON(ctx, t.ID, args)
		if err != nil {
			return nil, nil, err
		}
		return nil, nil, &RefusedError{Result: res}
	}
	var call *tool.Call
	var refusal *tool.AccessError
	canonical, vs, err := m.reg.ValidateJSON(tool.WithEntityAccess(context.WithValue(ctx, callKey{}, &call)), t.ID, args)
	switch {
	case errors.Is(err, tool.ErrNotFound):
		return nil, nil, err
	case errors.As(err, &refusal):
		return nil, nil, m.refused(ctx, t, &tool.Result{Message: refusal.Reason, Failure: tool.FailureAccess})
	case err != nil:
		m.logger.Error("checking the inputs of a task failed", "tool", t.ID, "error", err.Error())
		return nil, nil, m.refused(ctx, t, &tool.Result{Message: "The inputs of " + label(t) + " could not be checked.", Failure: tool.FailureRuntime})
	case len(vs) > 0:
		return nil, nil, m.refused(ctx, t, inputFailure(t, vs))
	case call == nil || call.Inputs == nil:
		return nil, nil, m.refused(ctx, t, &tool.Result{Message: "The inputs of " + label(t) + " could not be checked.", Failure: tool.FailureRuntime})
	}
	return call, canonical, nil
}

// store stores a new task of t for the account in ctx with the inputs
// public (canonical JSON without the sensitive ones) and canonical, and
// queues it to run unless it waits for approval (a is not nil: the
// approval's row is written in the same transaction).
func (m *Manager) store(ctx context.Context, t *tool.Tool, public, canonical []byte, confirmed bool, a *awaiting) (*Task, error) {
	id := newID()
	var sealed string
	if !bytes.Equal(public, canonical) {
		if m.aead == nil {
			return nil, fmt.Errorf("%w: %q", ErrNoKey, t.ID)
		}
		sealed = m.seal(id, canonical)
	}
	now := time.Now()
	ttl := m.ttl(t)
	expires := now.Add(ttl)
	task := &Task{ID: id, Tool: t.ID, Account: tool.AccountFrom(ctx).AccountID(), Status: Working, Created: now.UTC(), Updated: now.UTC(),
		PollInterval: m.opts.PollInterval}
	if a != nil && a.standing == "" {
		// Kept while it waits, and its time to live once approved.
		expires = a.expires.Add(ttl)
		task.StatusMessage = AwaitingApproval
	}
	task.Expires = expires.UTC()
	given, err := givenAnswers(ctx)
	if err != nil {
		return nil, fmt.Errorf("task: storing the answers given: %w", err)
	}
	tx, err := m.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("task: storing the task: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `INSERT INTO toolapi_tasks (id, tool, account, status, status_message, args, sealed, confirmed, trace, ttl_ns, created_ns, updated_ns, expires_ns, answer)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11, $12, $13)`,
		id, t.ID, task.Account, Working, task.StatusMessage, string(public), sealed, boolInt(confirmed), traceparent(ctx), int64(ttl), now.UnixNano(), expires.UnixNano(), given); err != nil {
		return nil, fmt.Errorf("task: storing the task: %w", err)
	}
	if a != nil {
		if err := a.insert(ctx, tx, id, now); err != nil {
			return nil, err
		}
	}
	if a == nil || a.standing != "" {
		if _, err := m.client.InsertTx(ctx, tx, jobArgs{Task: id}, &river.InsertOpts{MaxAttempts: 1}); err != nil {
			return nil, fmt.Errorf("task: queueing the task: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("task: storing the task: %w", err)
	}
	switch {
	case a == nil:
		m.record(ctx, t, task.ID, task.Account, public, audit.TaskCreated, "")
	case a.standing != "":
		m.record(ctx, t, task.ID, task.Account, public, audit.TaskCreated, "")
		m.recordBy(ctx, t, task.ID, task.Account, a.grantedBy, public, audit.TaskApproved, "")
	default:
		m.record(ctx, t, task.ID, task.Account, public, audit.TaskAwaitsApproval, "")
	}
	return task, nil
}

// refused records and returns the refusal of a task before it was created.
func (m *Manager) refused(ctx context.Context, t *tool.Tool, res *tool.Result) error {
	m.record(ctx, t, "", tool.AccountFrom(ctx).AccountID(), nil, audit.Failed, res.Failure)
	return &RefusedError{Result: res}
}

func inputFailure(t *tool.Tool, vs []tool.Violation) *tool.Result {
	msg := "Invalid input for " + label(t) + ":"
	for i, v := range vs {
		if i > 0 {
			msg += ";"
		}
		if v.Path != "" {
			msg += " " + v.Path + ":"
		}
		msg += " " + v.Message
	}
	return &tool.Result{Message: msg, Failure: tool.FailureInput, Violations: vs}
}

// confirmQuestion is the question a run asks to confirm t with the
// inputs of public (canonical JSON without the sensitive ones).
func confirmQuestion(t *tool.Tool, public []byte) string {
	what := label(t) + " (" + t.ID + ")"
	if len(public) == 0 || string(public) == "{}" {
		return "Run " + what + "?"
	}
	return "Run " + what + " with " + string(public) + "?"
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// traceparent returns the W3C traceparent of ctx's span, or "".
func traceparent(ctx context.Context) string {
	sc := trace.SpanContextFromContext(ctx)
	if !sc.IsValid() {
		return ""
	}
	return "00-" + sc.TraceID().String() + "-" + sc.SpanID().String() + "-" + sc.TraceFlags().String()
}

// Get returns the task id as it stands, if the account in ctx may see it.
func (m *Manager) Get(ctx context.Context, id string) (*Task, error) {
	return m.get(ctx, id)
}

// ListOptions select a page of tasks; nil means the first page of
// [DefaultListLimit].
type ListOptions struct {
	// Limit is the most tasks on the page: zero means DefaultListLimit,
	// more than [MaxListLimit] is an error.
	Limit int
	// Cursor is the Next of the previous page; empty means the first.
	Cursor string
}

// A Page is a page of tasks, newest first.
type Page struct {
	Tasks []*Task
	// Next is the cursor of the next page; empty on the last.
	Next string
}

// List returns a page of the tasks the account in ctx may see, newest
// first. A cursor not from a list wraps [ErrBadCursor].
func (m *Manager) List(ctx context.Context, opts *ListOptions) (*Page, error) {
	var o ListOptions
	if opts != nil {
		o = *opts
	}
	switch {
	case o.Limit < 0:
		return nil, fmt.Errorf("task: limit: must not be negative, got %d", o.Limit)
	case o.Limit > MaxListLimit:
		return nil, fmt.Errorf("task: limit: must be at most %d, got %d", MaxListLimit, o.Limit)
	case o.Limit == 0:
		o.Limit = DefaultListLimit
	}
	cond, args := m.visible(ctx, 1)
	if o.Cursor != "" {
		ns, id, err := decodeCursor(o.Cursor)
		if err != nil {
			return nil, err
		}
		n := len(args)
		cond += fmt.Sprintf(" AND (created_ns < $%d OR (created_ns = $%d AND id < $%d))", n+1, n+1, n+2)
		args = append(args, ns, id)
	}
	args = append(args, o.Limit+1)
	rows, err := m.db.QueryContext(ctx, `SELECT `+taskColumns+` FROM toolapi_tasks WHERE `+cond+
		fmt.Sprintf(` ORDER BY created_ns DESC, id DESC LIMIT $%d`, len(args)), args...)
	if err != nil {
		return nil, fmt.Errorf("task: listing tasks: %w", err)
	}
	defer rows.Close()
	p := &Page{Tasks: []*Task{}}
	for rows.Next() {
		t, err := m.scan(rows)
		if err != nil {
			return nil, fmt.Errorf("task: listing tasks: %w", err)
		}
		p.Tasks = append(p.Tasks, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("task: listing tasks: %w", err)
	}
	if len(p.Tasks) > o.Limit {
		p.Tasks = p.Tasks[:o.Limit]
		last := p.Tasks[o.Limit-1]
		p.Next = encodeCursor(last.Created.UnixNano(), last.ID)
	}
	return p, nil
}

// Cancel cancels the task id, wherever it runs: it is cancelled at once
// (its method's context is cancelled as soon as its worker notices, within
// the poll interval), and its Result says so. A task that has ended wraps
// [ErrFinished].
func (m *Manager) Cancel(ctx context.Context, id string) (*Task, error) {
	t, err := m.get(ctx, id)
	if err != nil {
		return nil, err
	}
	if t.Status.Finished() {
		return nil, fmt.Errorf("%w: %q is %s", ErrFinished, id, t.Status)
	}
	tl, _ := m.reg.Tool(t.Tool)
	name := t.Tool
	if tl != nil {
		name = label(tl)
	}
	res, err := encodeResult(&tool.Result{Message: name + " was cancelled.", Failure: tool.FailureRuntime})
	if err != nil {
		return nil, fmt.Errorf("task: cancelling: %w", err)
	}
	now := time.Now().UnixNano()
	r, err := m.db.ExecContext(ctx, `UPDATE toolapi_tasks SET status = $2, status_message = $3, result = $4, question = NULL, answer = NULL,
		updated_ns = $5, expires_ns = $5 + ttl_ns WHERE id = $1 AND status IN ('working', 'input_required')`,
		id, Cancelled, "cancelled by "+tool.AccountFrom(ctx).AccountID(), string(res), now)
	if err != nil {
		return nil, fmt.Errorf("task: cancelling: %w", err)
	}
	if n, err := r.RowsAffected(); err == nil && n == 0 {
		return nil, fmt.Errorf("%w: %q", ErrFinished, id)
	}
	m.mu.Lock()
	cancel := m.running[id]
	m.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	m.notify(ctx, id)
	if tl != nil {
		m.record(ctx, tl, id, tool.AccountFrom(ctx).AccountID(), nil, audit.TaskCancelled, "")
	}
	return m.get(ctx, id)
}

// Answer answers the first question the task id asks ([Task.Question]),
// as [Manager.AnswerKey] does.
func (m *Manager) Answer(ctx context.Context, id string, a *tool.Elicitation) error {
	return m.AnswerKey(ctx, id, "", a)
}

// AnswerKey answers the question of the task id under key (empty: the
// first question still unanswered). Once every question the task asks at
// once is answered, the task resumes, on whichever process runs it; until
// then it keeps waiting for the others. The task's own account answers,
// and so does one holding the [Options.Viewers] permission (a supervisor
// answering for a person, say); the audit record names who answered. An action other than "accept", "decline" or "cancel", or
// accepted content that the question's schema refuses, wraps
// [ErrBadAnswer]; a task that does not wait for an answer, or whose
// question of that key is not asked or was answered already,
// [ErrNotWaiting].
func (m *Manager) AnswerKey(ctx context.Context, id, key string, a *tool.Elicitation) error {
	if a == nil || (a.Action != "accept" && a.Action != "decline" && a.Action != "cancel") {
		return fmt.Errorf("%w: action: must be accept, decline or cancel", ErrBadAnswer)
	}
	acct := tool.AccountFrom(ctx).AccountID()
	cond, args := m.visible(ctx, 2)
	var question, answer sql.NullString
	var status Status
	var toolID string
	err := m.db.QueryRowContext(ctx, `SELECT status, question, answer, tool FROM toolapi_tasks WHERE id = $1 AND `+cond,
		append([]any{id}, args...)...).Scan(&status, &question, &answer, &toolID)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("%w: %q", ErrNotFound, id)
	}
	if err != nil {
		return fmt.Errorf("task: answering: %w", err)
	}
	if status != InputRequired || !question.Valid {
		return fmt.Errorf("%w: %q is %s", ErrNotWaiting, id, status)
	}
	pending, err := pendingQuestions(question, answer)
	if err != nil {
		return fmt.Errorf("task: answering: reading the questions: %w", err)
	}
	var q *Question
	for _, p := range pending {
		if key == "" || p.Key == key {
			q = p
			break
		}
	}
	if q == nil {
		return fmt.Errorf("%w: %q asks no question %q that is still unanswered", ErrNotWaiting, id, key)
	}
	content := a.Content
	if a.Action != "accept" || q.Schema == nil {
		content = nil
	} else if err := validateAnswer(q.Schema, content); err != nil {
		return err
	}
	answers, err := storedAnswers(answer)
	if err != nil {
		return fmt.Errorf("task: answering: reading the answers: %w", err)
	}
	answers[q.Key] = storedAnswer{Action: a.Action, Content: content}
	b, err := json.Marshal(answers)
	if err != nil {
		return fmt.Errorf("%w: content: %v", ErrBadAnswer, err)
	}
	if len(b) > MaxAnswer {
		return fmt.Errorf("%w: content: the answers must be at most %d bytes as JSON, got %d", ErrBadAnswer, MaxAnswer, len(b))
	}
	// Written only over the answers read: of two answers at once, the
	// later finds the row changed and is refused as not waiting.
	r, err := m.db.ExecContext(ctx, `UPDATE toolapi_tasks SET answer = $2, updated_ns = $3
		WHERE id = $1 AND status = 'input_required' AND question = $4 AND COALESCE(answer, '') = $5`,
		id, string(b), time.Now().UnixNano(), question.String, answer.String)
	if err != nil {
		return fmt.Errorf("task: answering: %w", err)
	}
	if n, err := r.RowsAffected(); err == nil && n == 0 {
		return fmt.Errorf("%w: %q", ErrNotWaiting, id)
	}
	m.notify(ctx, id)
	if t, ok := m.reg.Tool(toolID); ok {
		m.record(ctx, t, id, acct, nil, audit.TaskAnswered, "")
	}
	return nil
}

// storedAnswer is an answer as stored.
type storedAnswer struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}

// validateAnswer checks content against the schema of a question.
func validateAnswer(s *jsonschema.Schema, content map[string]any) error {
	rs, err := s.Resolve(nil)
	if err != nil {
		return fmt.Errorf("%w: the question's schema cannot be used", ErrBadAnswer)
	}
	if content == nil {
		content = map[string]any{}
	}
	// Validate sees JSON values: round-trip the content.
	b, err := json.Marshal(content)
	if err != nil {
		return fmt.Errorf("%w: content: %v", ErrBadAnswer, err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("%w: content: %v", ErrBadAnswer, err)
	}
	if err := rs.Validate(v); err != nil {
		return fmt.Errorf("%w: content: %v", ErrBadAnswer, err)
	}
	return nil
}

// Wait waits until the task id has ended or waits for an answer, or ctx
// ends, and returns it as it then stands.
func (m *Manager) Wait(ctx context.Context, id string) (*Task, error) {
	for {
		t, done, err := m.waitOnce(ctx, id)
		if done || err != nil {
			return t, err
		}
	}
}

// waitOnce reads the task id and, unless it has ended or waits for input,
// waits for its next change here or the poll interval; it reports whether
// the wait is over.
func (m *Manager) waitOnce(ctx context.Context, id string) (*Task, bool, error) {
	ch, release := m.changes(id)
	defer release()
	t, err := m.get(ctx, id)
	if err != nil {
		return nil, true, err
	}
	if t.Status.Finished() || t.Status == InputRequired {
		return t, true, nil
	}
	timer := time.NewTimer(m.opts.PollInterval)
	defer timer.Stop()
	select {
	case <-ch:
	case <-timer.C:
	case <-ctx.Done():
		return nil, true, ctx.Err()
	}
	return nil, false, nil
}
