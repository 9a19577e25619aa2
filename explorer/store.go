package explorer

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// A Session is a person's signed-in session as a [SessionStore] keeps it.
type Session struct {
	// ID is the random value of the session cookie. A store should keep a
	// hash of it rather than the value (the SQL store keeps its SHA-256).
	ID string
	// Owner is the key the sessions of one account (or of the guests of
	// one client address) are bounded by.
	Owner string
	// Account is the ID of the account, which [Options.Account] (or, for
	// a guest, [Options.Anonymous]) turns back into the account.
	Account string
	// Guest reports a session started as the anonymous account.
	Guest bool
	// Expires is when the session ends.
	Expires time.Time
}

// ErrNoSession is wrapped by [SessionStore.Session] when there is no
// such session.
var ErrNoSession = errors.New("no such session")

// ErrTooManySessions is returned by [SessionStore.StartSession] when no
// more sessions can be kept.
var ErrTooManySessions = errors.New("too many sessions")

// A SessionStore keeps the explorer's sessions, so that every instance of
// an application serving the same people knows them. Sessions read from a
// store need [Options.Account] to find their account again (guests need
// [Options.Anonymous]); without it they sign nobody in. Implementations
// must be safe for concurrent use.
type SessionStore interface {
	// StartSession stores s, then ends the oldest sessions of its owner
	// past the newest perOwner.
	StartSession(ctx context.Context, s *Session, perOwner int) error
	// Session returns the session with the given ID, or an error wrapping
	// [ErrNoSession].
	Session(ctx context.Context, id string) (*Session, error)
	// EndSession ends the session with the given ID; ending one that does
	// not exist is not an error.
	EndSession(ctx context.Context, id string) error
	// SessionKey returns the key that signs the tokens of forms, the same
	// for every instance sharing the store (made on first use).
	SessionKey(ctx context.Context) ([]byte, error)
}

// A GuestCounter is a [SessionStore] that counts the live sessions of
// guests, so that the explorer can bound them in all (see
// [Options.Anonymous]); a store that is not one bounds them only per
// client address.
type GuestCounter interface {
	// GuestSessions returns the number of unexpired guest sessions.
	GuestSessions(ctx context.Context) (int, error)
}

// A Store keeps all the explorer remembers between requests: sessions,
// presets and runs. [SQLStore] keeps them in the application's database.
type Store interface {
	SessionStore
	Presets
	RunStore
}

// An SQLStore is a [Store] in an SQL database, SQLite or PostgreSQL,
// through database/sql: tables explorer_sessions, explorer_presets,
// explorer_runs and explorer_keys, created by [NewSQLStore] when missing.
// Queries use $1-style parameters, which both databases' drivers accept.
type SQLStore struct {
	db *sql.DB
}

// sqlSchema creates the store's tables. explorer_presets keeps the layout
// applications have used for presets before, so their presets stay.
var sqlSchema = []string{
	`CREATE TABLE IF NOT EXISTS explorer_sessions (
		id_hash TEXT PRIMARY KEY,
		owner TEXT NOT NULL,
		account TEXT NOT NULL,
		guest BOOLEAN NOT NULL,
		started BIGINT NOT NULL,
		expires BIGINT NOT NULL
	)`,
	`CREATE INDEX IF NOT EXISTS explorer_sessions_owner ON explorer_sessions (owner, started)`,
	`CREATE TABLE IF NOT EXISTS explorer_presets (
		owner TEXT NOT NULL,
		tool TEXT NOT NULL,
		name TEXT NOT NULL,
		input_values TEXT NOT NULL,
		updated BIGINT NOT NULL,
		PRIMARY KEY (owner, tool, name)
	)`,
	`CREATE TABLE IF NOT EXISTS explorer_runs (
		owner TEXT NOT NULL,
		id TEXT NOT NULL,
		tool TEXT NOT NULL,
		inputs TEXT NOT NULL,
		outcome TEXT,
		started BIGINT NOT NULL,
		process TEXT NOT NULL DEFAULT '',
		PRIMARY KEY (owner, id)
	)`,
	`CREATE INDEX IF NOT EXISTS explorer_runs_started ON explorer_runs (owner, started)`,
	`CREATE TABLE IF NOT EXISTS explorer_keys (
		name TEXT PRIMARY KEY,
		value TEXT NOT NULL
	)`,
}

// NewSQLStore returns the store of db, creating its tables when they are
// missing.
func NewSQLStore(ctx context.Context, db *sql.DB) (*SQLStore, error) {
	for _, q := range sqlSchema {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return nil, fmt.Errorf("explorer: creating the store's tables: %w", err)
		}
	}
	// Runs made before they named their process get the column.
	if rows, err := db.QueryContext(ctx, `SELECT process FROM explorer_runs WHERE 1 = 0`); err == nil {
		rows.Close()
	} else if _, err := db.ExecContext(ctx, `ALTER TABLE explorer_runs ADD COLUMN process TEXT NOT NULL DEFAULT ''`); err != nil {
		return nil, fmt.Errorf("explorer: adding the column process: %w", err)
	}
	return &SQLStore{db: db}, nil
}

// idHash is what the store keeps of a session ID.
func idHash(id string) string {
	h := sha256.Sum256([]byte(id))
	return hex.EncodeToString(h[:])
}

// StartSession implements [SessionStore]. It also ends every expired
// session.
func (s *SQLStore) StartSession(ctx context.Context, se *Session, perOwner int) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	now := time.Now()
	if _, err := tx.ExecContext(ctx, `DELETE FROM explorer_sessions WHERE expires < $1`, now.UnixNano()); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO explorer_sessions (id_hash, owner, account, guest, started, expires) VALUES ($1, $2, $3, $4, $5, $6)`,
		idHash(se.ID), se.Owner, se.Account, se.Guest, now.UnixNano(), se.Expires.UnixNano()); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM explorer_sessions WHERE owner = $1 AND id_hash NOT IN
		(SELECT id_hash FROM explorer_sessions WHERE owner = $2 ORDER BY started DESC, id_hash LIMIT $3)`, se.Owner, se.Owner, perOwner); err != nil {
		return err
	}
	return tx.Commit()
}

// GuestSessions implements [GuestCounter].
func (s *SQLStore) GuestSessions(ctx context.Context) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM explorer_sessions WHERE guest AND expires >= $1`, time.Now().UnixNano()).Scan(&n)
	return n, err
}

// Session implements [SessionStore].
func (s *SQLStore) Session(ctx context.Context, id string) (*Session, error) {
	se := &Session{ID: id}
	var expires int64
	err := s.db.QueryRowContext(ctx, `SELECT owner, account, guest, expires FROM explorer_sessions WHERE id_hash = $1`, idHash(id)).
		Scan(&se.Owner, &se.Account, &se.Guest, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNoSession
	}
	if err != nil {
		return nil, err
	}
	se.Expires = time.Unix(0, expires)
	return se, nil
}

// EndSession implements [SessionStore].
func (s *SQLStore) EndSession(ctx context.Context, id string) error {
	_, err := s.db.ExecContext(ctx, `DELETE FROM explorer_sessions WHERE id_hash = $1`, idHash(id))
	return err
}

// SessionKey implements [SessionStore]: 32 random bytes kept in
// explorer_keys, made by the first instance that asks.
func (s *SQLStore) SessionKey(ctx context.Context) ([]byte, error) {
	fresh := make([]byte, 32)
	rand.Read(fresh)
	if _, err := s.db.ExecContext(ctx, `INSERT INTO explorer_keys (name, value) VALUES ('session', $1) ON CONFLICT (name) DO NOTHING`,
		base64.StdEncoding.EncodeToString(fresh)); err != nil {
		return nil, err
	}
	var v string
	if err := s.db.QueryRowContext(ctx, `SELECT value FROM explorer_keys WHERE name = 'session'`).Scan(&v); err != nil {
		return nil, err
	}
	return base64.StdEncoding.DecodeString(v)
}

// Presets implements [Presets].
func (s *SQLStore) Presets(ctx context.Context, owner, toolID string) ([]Preset, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT tool, name, input_values, updated FROM explorer_presets WHERE owner = $1 AND tool = $2 ORDER BY name`, owner, toolID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Preset
	for rows.Next() {
		p, err := scanPreset(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, *p)
	}
	return out, rows.Err()
}

// Preset implements [Presets].
func (s *SQLStore) Preset(ctx context.Context, owner, toolID, name string) (*Preset, error) {
	p, err := scanPreset(s.db.QueryRowContext(ctx, `SELECT tool, name, input_values, updated FROM explorer_presets WHERE owner = $1 AND tool = $2 AND name = $3`, owner, toolID, name))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("preset %q of %s: %w", name, toolID, ErrNoPreset)
	}
	return p, err
}

func scanPreset(sc interface{ Scan(...any) error }) (*Preset, error) {
	var p Preset
	var values string
	var updated int64
	if err := sc.Scan(&p.Tool, &p.Name, &values, &updated); err != nil {
		return nil, err
	}
	p.Values = []byte(values)
	p.Updated = time.Unix(updated, 0).UTC()
	return &p, nil
}

// SavePreset implements [Presets].
func (s *SQLStore) SavePreset(ctx context.Context, owner string, p *Preset) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO explorer_presets (owner, tool, name, input_values, updated) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (owner, tool, name) DO UPDATE SET input_values = excluded.input_values, updated = excluded.updated`,
		owner, p.Tool, p.Name, string(p.Values), p.Updated.Unix())
	return err
}

// DeletePreset implements [Presets].
func (s *SQLStore) DeletePreset(ctx context.Context, owner, toolID, name string) error {
	_, err := s.db.ExecContext(ctx, `DELETE FROM explorer_presets WHERE owner = $1 AND tool = $2 AND name = $3`, owner, toolID, name)
	return err
}

// StartRun implements [RunStore]; it keeps the owner's newest
// maxOwnerRuns runs.
func (s *SQLStore) StartRun(ctx context.Context, r *Run) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `INSERT INTO explorer_runs (owner, id, tool, inputs, started, process) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (owner, id) DO NOTHING`,
		r.Owner, r.ID, r.Tool, string(r.Inputs), r.Started.UnixNano(), r.Process)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return ErrRunExists
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM explorer_runs WHERE owner = $1 AND id NOT IN
		(SELECT id FROM explorer_runs WHERE owner = $2 ORDER BY started DESC, id LIMIT $3)`, r.Owner, r.Owner, maxOwnerRuns); err != nil {
		return err
	}
	return tx.Commit()
}

// FinishRun implements [RunStore].
func (s *SQLStore) FinishRun(ctx context.Context, r *Run) error {
	res, err := s.db.ExecContext(ctx, `UPDATE explorer_runs SET outcome = $1 WHERE owner = $2 AND id = $3`, string(r.Outcome), r.Owner, r.ID)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return ErrNoRun
	}
	return err
}

// InterruptRuns implements [RunInterrupter].
func (s *SQLStore) InterruptRuns(ctx context.Context, process string, outcome json.RawMessage) (int, error) {
	res, err := s.db.ExecContext(ctx, `UPDATE explorer_runs SET outcome = $1 WHERE process = $2 AND outcome IS NULL`, string(outcome), process)
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return int(n), err
}

// Run implements [RunStore].
func (s *SQLStore) Run(ctx context.Context, owner, id string) (*Run, error) {
	r, err := scanRun(s.db.QueryRowContext(ctx, `SELECT owner, id, tool, inputs, outcome, started, process FROM explorer_runs WHERE owner = $1 AND id = $2`, owner, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("run %s: %w", id, ErrNoRun)
	}
	return r, err
}

// Runs implements [RunStore].
func (s *SQLStore) Runs(ctx context.Context, owner, toolID string, limit int) ([]Run, error) {
	q := `SELECT owner, id, tool, inputs, outcome, started, process FROM explorer_runs WHERE owner = $1 ORDER BY started DESC LIMIT $2`
	args := []any{owner, limit}
	if toolID != "" {
		q = `SELECT owner, id, tool, inputs, outcome, started, process FROM explorer_runs WHERE owner = $1 AND tool = $2 ORDER BY started DESC LIMIT $3`
		args = []any{owner, toolID, limit}
	}
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Run
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, *r)
	}
	return out, rows.Err()
}

func scanRun(sc interface{ Scan(...any) error }) (*Run, error) {
	var r Run
	var inputs string
	var oc sql.NullString
	var started int64
	if err := sc.Scan(&r.Owner, &r.ID, &r.Tool, &inputs, &oc, &started, &r.Process); err != nil {
		return nil, err
	}
	r.Inputs = []byte(inputs)
	if oc.Valid {
		r.Outcome = []byte(oc.String)
	}
	r.Started = time.Unix(0, started).UTC()
	return &r, nil
}
