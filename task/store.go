package task

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/toolapi/toolapi/tool"
)

// schema makes the table of tasks; its statements read the same in
// PostgreSQL and SQLite.
var schema = []string{
	`CREATE TABLE IF NOT EXISTS toolapi_tasks (
		id TEXT PRIMARY KEY,
		tool TEXT NOT NULL,
		account TEXT NOT NULL,
		status TEXT NOT NULL,
		status_message TEXT NOT NULL DEFAULT '',
		args TEXT NOT NULL,
		sealed TEXT NOT NULL DEFAULT '',
		confirmed INTEGER NOT NULL DEFAULT 0,
		started INTEGER NOT NULL DEFAULT 0,
		progress TEXT,
		question TEXT,
		answer TEXT,
		result TEXT,
		trace TEXT NOT NULL DEFAULT '',
		ttl_ns BIGINT NOT NULL,
		created_ns BIGINT NOT NULL,
		updated_ns BIGINT NOT NULL,
		expires_ns BIGINT NOT NULL,
		heartbeat_ns BIGINT NOT NULL DEFAULT 0
	)`,
	`CREATE INDEX IF NOT EXISTS toolapi_tasks_account ON toolapi_tasks (account, created_ns, id)`,
	`CREATE INDEX IF NOT EXISTS toolapi_tasks_created ON toolapi_tasks (created_ns, id)`,
	`CREATE INDEX IF NOT EXISTS toolapi_tasks_expires ON toolapi_tasks (expires_ns)`,
	`CREATE INDEX IF NOT EXISTS toolapi_tasks_status ON toolapi_tasks (status, heartbeat_ns)`,
}

// taskColumns are the columns scan reads, in its order.
const taskColumns = `id, tool, account, status, status_message, progress, question, result, created_ns, updated_ns, expires_ns, answer`

// scanner is a *sql.Row or *sql.Rows.
type scanner interface{ Scan(dest ...any) error }

// scan reads a task of taskColumns.
func (m *Manager) scan(s scanner) (*Task, error) {
	var t Task
	var progress, question, result, answer sql.NullString
	var created, updated, expires int64
	if err := s.Scan(&t.ID, &t.Tool, &t.Account, &t.Status, &t.StatusMessage, &progress, &question, &result, &created, &updated, &expires, &answer); err != nil {
		return nil, err
	}
	if t.Status == InputRequired {
		qs, err := pendingQuestions(question, answer)
		if err != nil {
			return nil, fmt.Errorf("reading the questions of task %s: %w", t.ID, err)
		}
		if len(qs) == 0 {
			// Answered: the task resumes as soon as its worker reads the
			// answers.
			t.Status = Working
		} else {
			t.Questions, t.Question = qs, qs[0]
		}
	}
	t.Created, t.Updated, t.Expires = time.Unix(0, created).UTC(), time.Unix(0, updated).UTC(), time.Unix(0, expires).UTC()
	t.PollInterval = m.opts.PollInterval
	if progress.Valid {
		t.Progress = new(Progress)
		if err := json.Unmarshal([]byte(progress.String), t.Progress); err != nil {
			return nil, fmt.Errorf("reading the progress of task %s: %w", t.ID, err)
		}
	}
	if result.Valid {
		r, err := decodeResult([]byte(result.String))
		if err != nil {
			return nil, fmt.Errorf("reading the result of task %s: %w", t.ID, err)
		}
		t.Result = r
	}
	return &t, nil
}

// pendingQuestions returns the questions stored (a JSON array) that the
// answers stored (a JSON object by key, or NULL) do not answer yet.
func pendingQuestions(question, answer sql.NullString) ([]*Question, error) {
	if !question.Valid {
		return nil, nil
	}
	var qs []*Question
	if err := json.Unmarshal([]byte(question.String), &qs); err != nil {
		return nil, err
	}
	answers, err := storedAnswers(answer)
	if err != nil {
		return nil, err
	}
	pending := qs[:0]
	for _, q := range qs {
		if _, ok := answers[q.Key]; !ok {
			pending = append(pending, q)
		}
	}
	return pending, nil
}

// storedAnswers decodes the answers stored so far (NULL: none).
func storedAnswers(answer sql.NullString) (map[string]storedAnswer, error) {
	answers := map[string]storedAnswer{}
	if answer.Valid {
		if err := json.Unmarshal([]byte(answer.String), &answers); err != nil {
			return nil, err
		}
	}
	return answers, nil
}

// storedResult is a tool.Result as stored.
type storedResult struct {
	Success    bool             `json:"success"`
	Message    string           `json:"message,omitempty"`
	Outputs    map[string]any   `json:"outputs,omitempty"`
	Failure    tool.Failure     `json:"failure,omitempty"`
	Violations []tool.Violation `json:"violations,omitempty"`
	Internal   bool             `json:"internal,omitempty"`
}

func encodeResult(r *tool.Result) ([]byte, error) {
	return json.Marshal(storedResult{r.Success, r.Message, r.Outputs, r.Failure, r.Violations, r.Internal})
}

func decodeResult(b []byte) (*tool.Result, error) {
	var s storedResult
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber() // numbers come back exactly as the run gave them
	if err := dec.Decode(&s); err != nil {
		return nil, err
	}
	return &tool.Result{Success: s.Success, Message: s.Message, Outputs: s.Outputs, Failure: s.Failure, Violations: s.Violations, Internal: s.Internal}, nil
}

// newID returns an unguessable task ID.
func newID() string { return rand.Text() }

// seal encrypts plain for the task id.
func (m *Manager) seal(id string, plain []byte) string {
	nonce := make([]byte, m.aead.NonceSize())
	rand.Read(nonce)
	return base64.StdEncoding.EncodeToString(m.aead.Seal(nonce, nonce, plain, []byte(id)))
}

// unseal decrypts what seal encrypted for the task id.
func (m *Manager) unseal(id, sealed string) ([]byte, error) {
	if m.aead == nil {
		return nil, errors.New("the task's inputs are encrypted and the task manager has no key")
	}
	b, err := base64.StdEncoding.DecodeString(sealed)
	if err != nil {
		return nil, fmt.Errorf("decoding the encrypted inputs: %w", err)
	}
	n := m.aead.NonceSize()
	if len(b) < n {
		return nil, errors.New("the encrypted inputs are too short")
	}
	plain, err := m.aead.Open(nil, b[:n], b[n:], []byte(id))
	if err != nil {
		return nil, fmt.Errorf("decrypting the inputs: %w", err)
	}
	return plain, nil
}

// visible returns the SQL condition and its argument that select the
// tasks the account in ctx may see, numbered from $n.
func (m *Manager) visible(ctx context.Context, n int) (string, []any) {
	acct := tool.AccountFrom(ctx)
	if m.opts.Viewers != "" && acct.HasPermission(m.opts.Viewers) && !acct.Blocked() {
		return "TRUE", nil
	}
	return "account = $" + strconv.Itoa(n), []any{acct.AccountID()}
}

// get reads the task id if the account in ctx may see it.
func (m *Manager) get(ctx context.Context, id string) (*Task, error) {
	cond, args := m.visible(ctx, 2)
	row := m.db.QueryRowContext(ctx, `SELECT `+taskColumns+` FROM toolapi_tasks WHERE id = $1 AND `+cond, append([]any{id}, args...)...)
	t, err := m.scan(row)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("%w: %q", ErrNotFound, id)
	}
	if err != nil {
		return nil, fmt.Errorf("task: reading task: %w", err)
	}
	return t, m.withApproval(ctx, t)
}

// encodeCursor and decodeCursor turn a list's position (the creation
// time and ID of the last task given) into an opaque string and back.
func encodeCursor(created int64, id string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(created, 10) + "." + id))
}

func decodeCursor(c string) (int64, string, error) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return 0, "", ErrBadCursor
	}
	ns, id, ok := strings.Cut(string(b), ".")
	if !ok || id == "" {
		return 0, "", ErrBadCursor
	}
	n, err := strconv.ParseInt(ns, 10, 64)
	if err != nil {
		return 0, "", ErrBadCursor
	}
	return n, id, nil
}
