package audit

import (
	"context"
	"crypto/rand"
	"database/sql"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/toolapi/toolapi/tool"
)

// A SQLStore keeps a trail in a table of an SQL database. Its statements
// are plain SQL with $N placeholders, which PostgreSQL and SQLite both
// read; times are stored as Unix nanoseconds, IDs as random text, so the
// one schema serves both.
type SQLStore struct {
	db    *sql.DB
	table string
}

// SQLOptions configure [NewSQLStore]; nil means the defaults.
type SQLOptions struct {
	// Table is the name of the table; empty means "audit_trail". It must
	// be a plain identifier (letters, digits and underscores).
	Table string
}

var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,62}$`)

// NewSQLStore returns a SQLStore keeping its trail in db. Call
// [SQLStore.Migrate] once before using it.
func NewSQLStore(db *sql.DB, opts *SQLOptions) (*SQLStore, error) {
	s := &SQLStore{db: db, table: "audit_trail"}
	if opts != nil && opts.Table != "" {
		if !identifier.MatchString(opts.Table) {
			return nil, fmt.Errorf("audit: table name %q: must be letters, digits and underscores, not starting with a digit", opts.Table)
		}
		s.table = opts.Table
	}
	return s, nil
}

// Migrate creates the table and its index when they do not exist.
func (s *SQLStore) Migrate(ctx context.Context) error {
	for _, stmt := range []string{
		`CREATE TABLE IF NOT EXISTS ` + s.table + ` (
	id TEXT PRIMARY KEY,
	started_ns BIGINT NOT NULL,
	account TEXT NOT NULL,
	tool TEXT NOT NULL,
	operation TEXT NOT NULL,
	outcome TEXT NOT NULL,
	failure TEXT NOT NULL,
	inputs_sha256 TEXT NOT NULL,
	duration_ns BIGINT NOT NULL,
	runs BIGINT NOT NULL DEFAULT 1
)`,
		`CREATE INDEX IF NOT EXISTS ` + s.table + `_started ON ` + s.table + ` (started_ns)`,
	} {
		if _, err := s.db.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("audit: creating the trail: %w", err)
		}
	}
	// A trail made before records counted runs gets the column.
	if rows, err := s.db.QueryContext(ctx, `SELECT runs FROM `+s.table+` WHERE 1 = 0`); err == nil {
		rows.Close()
		return nil
	}
	if _, err := s.db.ExecContext(ctx, `ALTER TABLE `+s.table+` ADD COLUMN runs BIGINT NOT NULL DEFAULT 1`); err != nil {
		return fmt.Errorf("audit: adding the column runs: %w", err)
	}
	return nil
}

// runs returns the runs a record stands for: r.Runs, at least 1.
func runs(r *Record) int64 { return int64(max(r.Runs, 1)) }

// Add implements [Store].
func (s *SQLStore) Add(ctx context.Context, r *Record) error {
	r.ID = rand.Text()
	_, err := s.db.ExecContext(ctx, `INSERT INTO `+s.table+
		` (id, started_ns, account, tool, operation, outcome, failure, inputs_sha256, duration_ns, runs) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
		r.ID, r.Time.UnixNano(), r.Account, r.Tool, r.Operation, string(r.Outcome), string(r.Failure), r.InputsSHA256, int64(r.Duration), runs(r))
	if err != nil {
		return fmt.Errorf("audit: adding a record: %w", err)
	}
	return nil
}

// Complete implements [Store].
func (s *SQLStore) Complete(ctx context.Context, r *Record) error {
	res, err := s.db.ExecContext(ctx, `UPDATE `+s.table+
		` SET outcome = $1, failure = $2, inputs_sha256 = $3, duration_ns = $4, runs = $5 WHERE id = $6`,
		string(r.Outcome), string(r.Failure), r.InputsSHA256, int64(r.Duration), runs(r), r.ID)
	if err != nil {
		return fmt.Errorf("audit: completing record %s: %w", r.ID, err)
	}
	if n, err := res.RowsAffected(); err == nil && n != 1 {
		return fmt.Errorf("audit: completing record %s: no such record", r.ID)
	}
	return nil
}

// List implements [Store].
func (s *SQLStore) List(ctx context.Context, f *Filter) ([]Record, error) {
	if f == nil {
		f = &Filter{}
	}
	limit := f.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	limit = min(limit, MaxLimit)
	var where []string
	var args []any
	if f.Account != "" {
		args = append(args, f.Account)
		where = append(where, fmt.Sprintf("account = $%d", len(args)))
	}
	if f.Tool != "" {
		args = append(args, f.Tool)
		where = append(where, fmt.Sprintf("tool = $%d", len(args)))
	}
	q := `SELECT id, started_ns, account, tool, operation, outcome, failure, inputs_sha256, duration_ns, runs FROM ` + s.table
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	args = append(args, limit)
	q += fmt.Sprintf(" ORDER BY started_ns DESC, id DESC LIMIT $%d", len(args))
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("audit: listing the trail: %w", err)
	}
	defer rows.Close()
	var out []Record
	for rows.Next() {
		var r Record
		var started, dur, n int64
		var outcome, failure string
		if err := rows.Scan(&r.ID, &started, &r.Account, &r.Tool, &r.Operation, &outcome, &failure, &r.InputsSHA256, &dur, &n); err != nil {
			return nil, fmt.Errorf("audit: listing the trail: %w", err)
		}
		r.Time = time.Unix(0, started).UTC()
		r.Outcome, r.Failure, r.Duration, r.Runs = Outcome(outcome), tool.Failure(failure), time.Duration(dur), int(n)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("audit: listing the trail: %w", err)
	}
	return out, nil
}
