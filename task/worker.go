package task

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/riverqueue/river"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/toolapi/toolapi/audit"
	"github.com/toolapi/toolapi/tool"
)

// jobArgs are the arguments of River's job of a task: only its ID; the
// task's own row holds the rest.
type jobArgs struct {
	Task string `json:"task"`
}

// Kind implements river.JobArgs.
func (jobArgs) Kind() string { return "toolapi_task" }

// worker runs the River jobs of tasks.
type worker struct {
	river.WorkerDefaults[jobArgs]
	m *Manager
}

// Work runs the task; its outcome is in the task's row, so the job itself
// always succeeds and is never retried.
func (w *worker) Work(ctx context.Context, job *river.Job[jobArgs]) error {
	w.m.run(ctx, job.Args.Task)
	if w.m.ran != nil {
		w.m.ran(job.Args.Task)
	}
	return nil
}

// errTaskEnded is the error of a question whose task ended (cancelled,
// expired) while it waited.
var errTaskEnded = errors.New("the task ended while it waited for an answer")

// run runs the task id once: it claims it (a task already started, or no
// longer working, is left alone), re-establishes its account, and runs its
// tool through the registry's run path.
func (m *Manager) run(ctx context.Context, id string) {
	bg := context.WithoutCancel(ctx)
	now := time.Now().UnixNano()
	var toolID, accountID, args, sealed, tp string
	var confirmed int
	err := m.db.QueryRowContext(bg, `UPDATE toolapi_tasks SET started = 1, heartbeat_ns = $2, updated_ns = $2
		WHERE id = $1 AND status = 'working' AND started = 0
		RETURNING tool, account, args, sealed, confirmed, trace`, id, now).
		Scan(&toolID, &accountID, &args, &sealed, &confirmed, &tp)
	if errors.Is(err, sql.ErrNoRows) {
		return // run already, cancelled, or deleted
	}
	if err != nil {
		m.logger.Error("claiming a task failed", "task", id, "error", err.Error())
		return
	}
	opts := []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindConsumer),
		trace.WithAttributes(attribute.String("toolapi.task.id", id), attribute.String("gen_ai.tool.name", toolID))}
	if sc, ok := parseTraceparent(tp); ok {
		opts = append(opts, trace.WithLinks(trace.Link{SpanContext: sc}))
	}
	ctx, span := m.tracer.Start(ctx, "task "+toolID, opts...)
	defer span.End()

	t, ok := m.reg.Tool(toolID)
	if !ok {
		m.finish(bg, id, failed("The tool "+toolID+" no longer exists."), Failed, "", nil)
		span.SetStatus(codes.Error, "tool gone")
		return
	}
	in := []byte(args)
	if sealed != "" {
		if in, err = m.unseal(id, sealed); err != nil {
			m.logger.Error("decrypting a task's inputs failed", "task", id, "error", err.Error())
			m.finish(bg, id, failed(label(t)+" failed: its inputs could not be read."), Failed, "", nil)
			span.SetStatus(codes.Error, "inputs unreadable")
			return
		}
	}
	acct, err := m.opts.Account(ctx, accountID)
	if err != nil || acct == nil {
		if err != nil {
			m.logger.Error("finding a task's account failed", "task", id, "account", accountID, "error", err.Error())
		}
		m.finish(bg, id, &tool.Result{Message: "The account " + accountID + " could not be found, so " + label(t) + " did not run.", Failure: tool.FailureAccess}, Failed, "", nil)
		span.SetStatus(codes.Error, "account")
		return
	}
	m.record(bg, t, id, accountID, []byte(args), audit.TaskStarted, "")

	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	m.mu.Lock()
	m.running[id] = cancel
	m.mu.Unlock()
	defer func() {
		m.mu.Lock()
		delete(m.running, id)
		m.mu.Unlock()
	}()
	watchDone := make(chan struct{})
	watchStopped := make(chan struct{})
	go func() {
		defer close(watchStopped)
		m.watch(rctx, id, cancel, watchDone)
	}()

	p := &progressWriter{m: m, id: id}
	a := &asker{m: m, id: id, t: t, account: accountID}
	var confirmer tool.Confirmer = a
	if confirmed == 1 {
		confirmer = tool.Confirmed
	}
	callCtx := tool.WithConfirmer(tool.WithClient(tool.WithReporter(tool.WithAccount(rctx, acct), p), a), confirmer)
	if t.Approver != "" {
		// Approved for exactly these inputs, or the run path refuses it.
		by, err := m.approvedBy(bg, id, in)
		if err != nil {
			m.logger.Error("reading a task's approval failed", "task", id, "error", err.Error())
		}
		if by != "" {
			callCtx = tool.WithApproval(callCtx, by)
		}
	}
	res, err := m.reg.RunJSON(callCtx, toolID, in)
	close(watchDone)
	<-watchStopped
	if err != nil {
		res = failed("The tool " + toolID + " no longer exists.")
	}
	if sealed != "" && res.Outputs != nil {
		// Sensitive inputs are never stored in clear: nor is an output
		// that repeats one.
		var args map[string]any
		if err := json.Unmarshal(in, &args); err == nil {
			if hidden := tool.Secrets(t.Inputs, args); len(hidden) > 0 {
				kept := *res
				kept.Outputs = tool.MaskSecrets(res.Outputs, hidden, tool.SecretMask).(map[string]any)
				res = &kept
			}
		}
	}
	status, msg := Completed, ""
	if !res.Success {
		status = Failed
	}
	m.mu.Lock()
	stopping := m.stopping
	m.mu.Unlock()
	if stopping && ctx.Err() != nil {
		status, msg = Failed, "interrupted"
		res = failed(label(t) + " was interrupted: its process stopped.")
	}
	if !res.Success {
		span.SetStatus(codes.Error, string(res.Failure))
	}
	if m.finish(bg, id, res, status, msg, p.last()) {
		outcome := audit.Succeeded
		if !res.Success {
			outcome = audit.Failed
		}
		m.record(bg, t, id, accountID, []byte(args), outcome, res.Failure)
	}
}

// failed returns an internal runtime failure saying msg: the task did not
// end by its tool's own word.
func failed(msg string) *tool.Result {
	return &tool.Result{Message: msg, Failure: tool.FailureRuntime, Internal: true}
}

// finish stores the outcome of the task id, if it has not ended, and
// reports whether it did.
func (m *Manager) finish(ctx context.Context, id string, res *tool.Result, status Status, msg string, p *Progress) bool {
	b, err := encodeResult(res)
	if err != nil {
		m.logger.Error("encoding a task's result failed", "task", id, "error", err.Error())
		b, _ = encodeResult(failed("The result could not be stored."))
		status = Failed
	}
	var progress sql.NullString
	if p != nil {
		pb, _ := json.Marshal(p)
		progress = sql.NullString{String: string(pb), Valid: true}
	}
	now := time.Now().UnixNano()
	r, err := m.db.ExecContext(ctx, `UPDATE toolapi_tasks SET status = $2, status_message = $3, result = $4,
		progress = COALESCE($5, progress), question = NULL, answer = NULL, updated_ns = $6, expires_ns = $6 + ttl_ns
		WHERE id = $1 AND status IN ('working', 'input_required')`, id, status, msg, string(b), progress, now)
	if err != nil {
		m.logger.Error("storing a task's outcome failed", "task", id, "error", err.Error())
		return false
	}
	m.notify(ctx, id)
	n, err := r.RowsAffected()
	return err == nil && n > 0
}

// watch writes the heartbeat of the running task id and cancels it
// (cancel) once it was cancelled, expired or deleted elsewhere, until done
// is closed.
func (m *Manager) watch(ctx context.Context, id string, cancel context.CancelFunc, done <-chan struct{}) {
	beat := m.opts.StaleAfter / 4
	every := min(m.opts.PollInterval, beat)
	ticker := time.NewTicker(every)
	defer ticker.Stop()
	last := time.Now()
	for {
		// A change told by this process or another (see notify) is looked
		// at at once; the ticker covers the changes no one told.
		ch, release := m.changes(id)
		select {
		case <-done:
			release()
			return
		case <-ctx.Done():
			release()
			return
		case <-ticker.C:
		case <-ch:
		}
		release()
		var status Status
		err := m.db.QueryRowContext(ctx, `SELECT status FROM toolapi_tasks WHERE id = $1`, id).Scan(&status)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			cancel()
			return
		case err != nil:
			if ctx.Err() == nil {
				m.logger.Warn("reading a running task failed", "task", id, "error", err.Error())
			}
			continue
		case status.Finished():
			cancel()
			return
		}
		if time.Since(last) >= beat {
			if _, err := m.db.ExecContext(ctx, `UPDATE toolapi_tasks SET heartbeat_ns = $2 WHERE id = $1`, id, time.Now().UnixNano()); err != nil {
				if ctx.Err() == nil {
					m.logger.Warn("writing a task's heartbeat failed", "task", id, "error", err.Error())
				}
				continue
			}
			last = time.Now()
		}
	}
}

// A progressWriter stores the progress a running task reports, at most
// once per Options.ProgressEvery.
type progressWriter struct {
	m  *Manager
	id string

	mu      sync.Mutex
	latest  *Progress
	written time.Time
}

// Progress implements tool.Reporter.
func (p *progressWriter) Progress(ctx context.Context, done, total float64, message string) {
	p.mu.Lock()
	p.latest = &Progress{Done: done, Total: total, Message: message}
	if time.Since(p.written) < p.m.opts.ProgressEvery {
		p.mu.Unlock()
		return
	}
	p.written = time.Now()
	b, _ := json.Marshal(p.latest)
	p.mu.Unlock()
	if _, err := p.m.db.ExecContext(ctx, `UPDATE toolapi_tasks SET progress = $2, updated_ns = $3 WHERE id = $1`, p.id, string(b), time.Now().UnixNano()); err != nil {
		if ctx.Err() == nil {
			p.m.logger.Warn("writing a task's progress failed", "task", p.id, "error", err.Error())
		}
		return
	}
	p.m.signal(p.id)
}

// Log implements tool.Reporter: a task's log messages go to the Manager's
// logger.
func (p *progressWriter) Log(ctx context.Context, level, message string) {
	p.m.logger.Info("task log", "task", p.id, "level", level, "message", message)
}

// last returns the latest progress reported, or nil.
func (p *progressWriter) last() *Progress {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.latest
}

// An asker turns a running task's confirmation and elicitations into
// questions stored with the task, and waits for their answers.
type asker struct {
	m       *Manager
	id      string
	t       *tool.Tool
	account string
	asks    int // questions asked without a key by tool.Ask in this run
}

// Confirm implements tool.Confirmer.
func (a *asker) Confirm(ctx context.Context, t *tool.Tool, question string) (bool, error) {
	ans, err := a.ask(ctx, []*Question{{Key: "confirm", Message: question, Confirm: true}})
	if err != nil {
		return false, err
	}
	return ans[0].Action == "accept", nil
}

// Elicit implements tool.Client.
func (a *asker) Elicit(ctx context.Context, message string, requested *jsonschema.Schema) (*tool.Elicitation, error) {
	ans, err := a.ask(ctx, []*Question{{Key: "q", Message: message, Schema: requested}})
	if err != nil {
		return nil, err
	}
	return ans[0], nil
}

// Sample implements tool.Client: a task has no model to ask.
func (a *asker) Sample(ctx context.Context, prompt string, maxTokens int) (string, error) {
	return "", tool.ErrUnsupported
}

// Ask implements tool.Asker: the task asks every question at once, and
// resumes once all are answered. A task asks only a person.
func (a *asker) Ask(ctx context.Context, questions []tool.Question) ([]tool.Answer, error) {
	qs := make([]*Question, len(questions))
	seen := map[string]bool{}
	for i, q := range questions {
		if q.Kind != tool.AskPerson {
			return nil, fmt.Errorf("%w: question %d asks %q, and a task asks only a person", tool.ErrUnsupported, i, q.Kind)
		}
		key := q.Key
		if key == "" {
			a.asks++
			key = "q" + strconv.Itoa(a.asks)
		} else if !validKey(key) {
			return nil, fmt.Errorf("question %d: key %q is not letters, digits, _ - . (at most 64), or is reserved (confirm, q, q1, q2, ...)", i, key)
		}
		if seen[key] {
			return nil, fmt.Errorf("question %d: key %q is asked twice at once", i, key)
		}
		seen[key] = true
		qs[i] = &Question{Key: key, Message: q.Message, Schema: q.Schema}
	}
	els, err := a.ask(ctx, qs)
	if err != nil {
		return nil, err
	}
	answers := make([]tool.Answer, len(els))
	for i, el := range els {
		answers[i].Elicitation = el
	}
	return answers, nil
}

// questionKey is the form of a tool's own question key; reservedKey
// matches the keys the task gives itself ("q", "q1", "q2", ...), and
// "confirm" is the confirmation's.
var (
	questionKey = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)
	reservedKey = regexp.MustCompile(`^q[0-9]*$`)
)

// validKey reports whether a tool's own question key may be used.
func validKey(k string) bool {
	return questionKey.MatchString(k) && !reservedKey.MatchString(k) && k != "confirm"
}

// ask stores qs as the task's questions and waits for every answer, on any
// process, until the task ends (it is cancelled, or expires) or ctx does.
// The answers are in the order of qs.
func (a *asker) ask(ctx context.Context, qs []*Question) ([]*tool.Elicitation, error) {
	m := a.m
	if els, ok, err := a.given(ctx, qs); ok || err != nil {
		return els, err
	}
	b, err := json.Marshal(qs)
	if err != nil {
		return nil, fmt.Errorf("encoding the questions: %w", err)
	}
	if len(b) > MaxQuestion {
		return nil, fmt.Errorf("the questions take %d bytes as JSON, more than the most a task may ask at once, %d", len(b), MaxQuestion)
	}
	r, err := m.db.ExecContext(ctx, `UPDATE toolapi_tasks SET status = 'input_required', question = $2, answer = NULL, updated_ns = $3
		WHERE id = $1 AND status = 'working'`, a.id, string(b), time.Now().UnixNano())
	if err != nil {
		return nil, fmt.Errorf("storing the questions: %w", err)
	}
	if n, err := r.RowsAffected(); err != nil || n == 0 {
		return nil, errTaskEnded
	}
	m.notify(ctx, a.id)
	m.record(context.WithoutCancel(ctx), a.t, a.id, a.account, nil, audit.TaskAsked, "")
	for {
		ans, done, err := a.answer(ctx, qs)
		if done || err != nil {
			return ans, err
		}
	}
}

// given returns the answers to qs given before the task was created (see
// WithAnswers), when they answer every one of them: ok is false when the
// task asked something since, or they do not.
func (a *asker) given(ctx context.Context, qs []*Question) ([]*tool.Elicitation, bool, error) {
	var status Status
	var question, answer sql.NullString
	err := a.m.db.QueryRowContext(ctx, `SELECT status, question, answer FROM toolapi_tasks WHERE id = $1`, a.id).Scan(&status, &question, &answer)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, false, errTaskEnded
	case err != nil:
		return nil, false, fmt.Errorf("reading the answers given: %w", err)
	case status != Working || question.Valid || !answer.Valid:
		return nil, false, nil
	}
	stored, err := storedAnswers(answer)
	if err != nil {
		return nil, false, fmt.Errorf("reading the answers given: %w", err)
	}
	els := make([]*tool.Elicitation, len(qs))
	for i, q := range qs {
		sa, ok := stored[q.Key]
		if !ok || q.Confirm {
			return nil, false, nil
		}
		els[i] = &tool.Elicitation{Action: sa.Action, Content: sa.Content}
	}
	// Used once: a question asked again goes to the person.
	r, err := a.m.db.ExecContext(ctx, `UPDATE toolapi_tasks SET answer = NULL WHERE id = $1 AND status = 'working' AND question IS NULL AND answer = $2`,
		a.id, answer.String)
	if err != nil {
		return nil, false, fmt.Errorf("using the answers given: %w", err)
	}
	if n, err := r.RowsAffected(); err != nil || n == 0 {
		return nil, false, nil
	}
	return els, true, nil
}

// answer reads the task's answers and, when some are missing, waits for
// its next change here or the poll interval; it reports whether the wait
// is over.
func (a *asker) answer(ctx context.Context, qs []*Question) ([]*tool.Elicitation, bool, error) {
	m := a.m
	ch, release := m.changes(a.id)
	defer release()
	var status Status
	var answer sql.NullString
	err := m.db.QueryRowContext(ctx, `SELECT status, answer FROM toolapi_tasks WHERE id = $1`, a.id).Scan(&status, &answer)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, true, errTaskEnded
	case err != nil && ctx.Err() != nil:
		return nil, true, ctx.Err()
	case err != nil:
		return nil, true, fmt.Errorf("reading the answers: %w", err)
	case status != InputRequired:
		return nil, true, errTaskEnded
	}
	stored, err := storedAnswers(answer)
	if err != nil {
		return nil, true, fmt.Errorf("reading the answers: %w", err)
	}
	if len(stored) >= len(qs) {
		els := make([]*tool.Elicitation, len(qs))
		for i, q := range qs {
			sa, ok := stored[q.Key]
			if !ok {
				return nil, true, fmt.Errorf("reading the answers: no answer to %q", q.Key)
			}
			els[i] = &tool.Elicitation{Action: sa.Action, Content: sa.Content}
		}
		r, err := m.db.ExecContext(ctx, `UPDATE toolapi_tasks SET status = 'working', question = NULL, answer = NULL, updated_ns = $2
				WHERE id = $1 AND status = 'input_required'`, a.id, time.Now().UnixNano())
		if err != nil {
			return nil, true, fmt.Errorf("resuming: %w", err)
		}
		if n, err := r.RowsAffected(); err != nil || n == 0 {
			return nil, true, errTaskEnded
		}
		m.signal(a.id)
		return els, true, nil
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

// record writes a step of the task id to the audit trail, if there is one
// (id is empty for a task refused before it was created).
func (m *Manager) record(ctx context.Context, t *tool.Tool, id, account string, inputs []byte, o audit.Outcome, f tool.Failure) {
	if m.opts.Audit == nil {
		return
	}
	r := &audit.Record{Time: time.Now().UTC(), Account: account, Tool: t.ID, Operation: string(t.EffectiveOperation()), Outcome: o, Failure: f, Runs: 1, TaskID: id}
	if inputs != nil {
		sum := sha256.Sum256(inputs)
		r.InputsSHA256 = hex.EncodeToString(sum[:])
	}
	if err := m.opts.Audit.Add(ctx, r); err != nil {
		m.logger.Error("writing a task's audit record failed", "tool", t.ID, "outcome", string(o), "error", err.Error())
	}
}

// recordBy writes a step of the task id that the account by took for the
// call of account (an approval, a refusal, a grant) to the audit trail.
func (m *Manager) recordBy(ctx context.Context, t *tool.Tool, id, account, by string, inputs []byte, o audit.Outcome, f tool.Failure) {
	if m.opts.Audit == nil {
		return
	}
	r := &audit.Record{Time: time.Now().UTC(), Account: account, Tool: t.ID, Operation: string(t.EffectiveOperation()), Outcome: o, Failure: f, Runs: 1,
		TaskID: id, Approver: by}
	if inputs != nil {
		r.InputsSHA256 = sum(inputs)
	}
	if err := m.opts.Audit.Add(ctx, r); err != nil {
		m.logger.Error("writing a task's audit record failed", "tool", t.ID, "outcome", string(o), "error", err.Error())
	}
}

// parseTraceparent reads a W3C traceparent as traceparent writes it.
func parseTraceparent(s string) (trace.SpanContext, bool) {
	if len(s) != 55 || s[:3] != "00-" || s[35] != '-' || s[52] != '-' {
		return trace.SpanContext{}, false
	}
	tid, err := trace.TraceIDFromHex(s[3:35])
	if err != nil {
		return trace.SpanContext{}, false
	}
	sid, err := trace.SpanIDFromHex(s[36:52])
	if err != nil {
		return trace.SpanContext{}, false
	}
	flags, err := hex.DecodeString(s[53:])
	if err != nil {
		return trace.SpanContext{}, false
	}
	return trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.TraceFlags(flags[0]), Remote: true}), true
}
