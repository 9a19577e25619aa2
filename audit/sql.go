package audit

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/toolapi/toolapi/tool"
)

// A SQLStore keeps a trail in a table of an SQL database, hash-chained in
// a second table (see [SQLStore.Verify]). Its statements are plain SQL
// with $N placeholders, which PostgreSQL and SQLite both read; times are
// stored as Unix nanoseconds, IDs as random text, so the one schema serves
// both.
type SQLStore struct {
	db       *sql.DB
	table    string
	chain    string // the table of the chain: table + "_chain"
	postgres bool   // set by Migrate: appends take an advisory lock
	lockKey  int64  // the advisory lock of the chain on PostgreSQL
}

// SQLOptions configure [NewSQLStore]; nil means the defaults.
type SQLOptions struct {
	// Table is the name of the table; empty means "audit_trail". It must
	// be a plain identifier (letters, digits and underscores). Its chain
	// is kept in the table of the same name followed by "_chain".
	Table string
}

var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,56}$`)

// NewSQLStore returns a SQLStore keeping its trail in db. Call
// [SQLStore.Migrate] once before using it.
func NewSQLStore(db *sql.DB, opts *SQLOptions) (*SQLStore, error) {
	s := &SQLStore{db: db, table: "audit_trail"}
	if opts != nil && opts.Table != "" {
		if !identifier.MatchString(opts.Table) {
			return nil, fmt.Errorf("audit: table name %q: must be at most 57 letters, digits and underscores, not starting with a digit", opts.Table)
		}
		s.table = opts.Table
	}
	s.chain = s.table + "_chain"
	sum := sha256.Sum256([]byte("toolapi audit chain " + s.table))
	s.lockKey = int64(binary.BigEndian.Uint64(sum[:8]))
	return s, nil
}

// columns are the record's columns added since the first schema, with
// their definitions: a trail made before gets them on Migrate.
var columns = []struct{ name, def string }{
	{"runs", "BIGINT NOT NULL DEFAULT 1"},
	{"channel", "TEXT NOT NULL DEFAULT ''"},
	{"client", "TEXT NOT NULL DEFAULT ''"},
	{"agent", "TEXT NOT NULL DEFAULT ''"},
	{"trace_id", "TEXT NOT NULL DEFAULT ''"},
	{"call_id", "TEXT NOT NULL DEFAULT ''"},
	{"task_id", "TEXT NOT NULL DEFAULT ''"},
	{"approver", "TEXT NOT NULL DEFAULT ''"},
}

// Migrate creates the tables and their indexes when they do not exist,
// and adds the columns a trail made by an older version lacks. A chain
// created for a trail that has records already starts with those records,
// oldest first.
func (s *SQLStore) Migrate(ctx context.Context) error {
	var version string
	s.postgres = s.db.QueryRowContext(ctx, `SELECT current_setting('server_version')`).Scan(&version) == nil
	if _, err := s.db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS `+s.table+` (
	id TEXT PRIMARY KEY,
	started_ns BIGINT NOT NULL,
	account TEXT NOT NULL,
	tool TEXT NOT NULL,
	operation TEXT NOT NULL,
	outcome TEXT NOT NULL,
	failure TEXT NOT NULL,
	inputs_sha256 TEXT NOT NULL,
	duration_ns BIGINT NOT NULL
)`); err != nil {
		return fmt.Errorf("audit: creating the trail: %w", err)
	}
	for _, c := range columns {
		if rows, err := s.db.QueryContext(ctx, `SELECT `+c.name+` FROM `+s.table+` WHERE 1 = 0`); err == nil {
			rows.Close()
			continue
		}
		if _, err := s.db.ExecContext(ctx, `ALTER TABLE `+s.table+` ADD COLUMN `+c.name+` `+c.def); err != nil {
			return fmt.Errorf("audit: adding the column %s: %w", c.name, err)
		}
	}
	var chained bool
	if rows, err := s.db.QueryContext(ctx, `SELECT seq FROM `+s.chain+` WHERE 1 = 0`); err == nil {
		rows.Close()
		chained = true
	}
	for _, stmt := range []string{
		`CREATE INDEX IF NOT EXISTS ` + s.table + `_started ON ` + s.table + ` (started_ns)`,
		`CREATE INDEX IF NOT EXISTS ` + s.table + `_agent ON ` + s.table + ` (agent)`,
		`CREATE TABLE IF NOT EXISTS ` + s.chain + ` (
	seq BIGINT PRIMARY KEY,
	record_id TEXT NOT NULL,
	state TEXT NOT NULL,
	prev_sha256 TEXT NOT NULL,
	sha256 TEXT NOT NULL
)`,
	} {
		if _, err := s.db.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("audit: creating the trail: %w", err)
		}
	}
	if chained {
		return nil
	}
	// A new chain: the records written before start it.
	rs, err := s.list(ctx, `SELECT `+recordColumns+` FROM `+s.table+` ORDER BY started_ns, id`)
	if err != nil {
		return err
	}
	for i := range rs {
		if err := s.write(ctx, &rs[i], "", nil); err != nil {
			return err
		}
	}
	return nil
}

// runs returns the runs a record stands for: r.Runs, at least 1.
func runs(r *Record) int64 { return int64(max(r.Runs, 1)) }

// Add implements [Store]: it inserts the record and appends it to the
// chain, in one transaction.
func (s *SQLStore) Add(ctx context.Context, r *Record) error {
	r.ID = rand.Text()
	err := s.write(ctx, r, `INSERT INTO `+s.table+
		` (id, started_ns, account, tool, operation, outcome, failure, inputs_sha256, duration_ns, runs, channel, client, agent, trace_id, call_id, task_id, approver)`+
		` VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)`,
		[]any{r.ID, r.Time.UnixNano(), r.Account, r.Tool, r.Operation, string(r.Outcome), string(r.Failure), r.InputsSHA256, int64(r.Duration), runs(r),
			r.Channel, r.Client, r.Agent, r.TraceID, r.CallID, r.TaskID, r.Approver})
	if err != nil {
		return fmt.Errorf("audit: adding a record: %w", err)
	}
	return nil
}

// Complete implements [Store]: it updates the record and appends its new
// state to the chain, in one transaction.
func (s *SQLStore) Complete(ctx context.Context, r *Record) error {
	err := s.write(ctx, r, `UPDATE `+s.table+
		` SET outcome = $1, failure = $2, inputs_sha256 = $3, duration_ns = $4, runs = $5 WHERE id = $6`,
		[]any{string(r.Outcome), string(r.Failure), r.InputsSHA256, int64(r.Duration), runs(r), r.ID})
	if err != nil {
		return fmt.Errorf("audit: completing record %s: %w", r.ID, err)
	}
	return nil
}

// write runs stmt with args (nil: none) and appends the record's state as
// the table then holds it to the chain, in one transaction. On
// PostgreSQL the append holds an advisory lock, so that the processes
// sharing a trail append one after the other; on SQLite the transaction
// holds the database's write lock from its first statement. The chain's
// primary key refuses a second link of one position in any case: the
// chain cannot fork.
func (s *SQLStore) write(ctx context.Context, r *Record, stmt string, args []any) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if stmt != "" {
		res, err := tx.ExecContext(ctx, stmt, args...)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err == nil && n != 1 {
			return errNoRecord
		}
	}
	if s.postgres {
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, s.lockKey); err != nil {
			return err
		}
	}
	row := tx.QueryRowContext(ctx, `SELECT `+recordColumns+` FROM `+s.table+` WHERE id = $1`, r.ID)
	stored, err := scanRecord(row)
	if err != nil {
		return err
	}
	var seq int64
	var prev string
	err = tx.QueryRowContext(ctx, `SELECT seq, sha256 FROM `+s.chain+` ORDER BY seq DESC LIMIT 1`).Scan(&seq, &prev)
	if err != nil && err != sql.ErrNoRows {
		return err
	}
	state := stateOf(&stored)
	if _, err := tx.ExecContext(ctx, `INSERT INTO `+s.chain+` (seq, record_id, state, prev_sha256, sha256) VALUES ($1, $2, $3, $4, $5)`,
		seq+1, r.ID, state, prev, link(prev, state)); err != nil {
		return err
	}
	return tx.Commit()
}

var errNoRecord = fmt.Errorf("no such record")

// recordColumns are the columns of a record, in the order scanRecord reads.
const recordColumns = `id, started_ns, account, tool, operation, outcome, failure, inputs_sha256, duration_ns, runs, channel, client, agent, trace_id, call_id, task_id, approver`

// scanRecord reads a record of recordColumns.
func scanRecord(row interface{ Scan(...any) error }) (Record, error) {
	var r Record
	var started, dur, n int64
	var outcome, failure string
	if err := row.Scan(&r.ID, &started, &r.Account, &r.Tool, &r.Operation, &outcome, &failure, &r.InputsSHA256, &dur, &n,
		&r.Channel, &r.Client, &r.Agent, &r.TraceID, &r.CallID, &r.TaskID, &r.Approver); err != nil {
		return r, err
	}
	r.Time = time.Unix(0, started).UTC()
	r.Outcome, r.Failure, r.Duration, r.Runs = Outcome(outcome), tool.Failure(failure), time.Duration(dur), int(n)
	return r, nil
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
	for _, c := range []struct{ col, v string }{{"account", f.Account}, {"tool", f.Tool}, {"agent", f.Agent}} {
		if c.v != "" {
			args = append(args, c.v)
			where = append(where, fmt.Sprintf("%s = $%d", c.col, len(args)))
		}
	}
	q := `SELECT ` + recordColumns + ` FROM ` + s.table
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	args = append(args, limit)
	q += fmt.Sprintf(" ORDER BY started_ns DESC, id DESC LIMIT $%d", len(args))
	return s.list(ctx, q, args...)
}

// list returns the records query q selects.
func (s *SQLStore) list(ctx context.Context, q string, args ...any) ([]Record, error) {
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("audit: listing the trail: %w", err)
	}
	defer rows.Close()
	var out []Record
	for rows.Next() {
		r, err := scanRecord(rows)
		if err != nil {
			return nil, fmt.Errorf("audit: listing the trail: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("audit: listing the trail: %w", err)
	}
	return out, nil
}
