package mcpserver

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"sync/atomic"
	"time"
)

// A SQLStateStore is a [StateStore] in a table of an SQL database, which
// the processes serving one endpoint share, so that a request state runs
// its tool once between them all. Its statements are plain SQL that
// PostgreSQL and SQLite both read.
//
// Each account may hold a share of unexpired used states; the share is
// checked and a use recorded in one statement, so processes that record
// uses of one account at the same moment may pass it by as many.
type SQLStateStore struct {
	db         *sql.DB
	table      string
	perAccount int
	uses       atomic.Int64
	now        func() time.Time
}

var sqlIdentifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,62}$`)

// sweepEvery is how many uses of a SQLStateStore pass between two deletions
// of the expired states.
const sweepEvery = 1000

// DefaultStateTable is the table of a [SQLStateStore] when none is named.
const DefaultStateTable = "mcp_used_states"

// NewSQLStateStore returns a SQLStateStore keeping the used states in the
// named table of db ([DefaultStateTable] when empty; letters, digits and
// underscores), creating it and its index when missing, with a share of
// perAccount unexpired states per account (zero or less means
// [DefaultUsedStatesPerAccount]).
func NewSQLStateStore(ctx context.Context, db *sql.DB, table string, perAccount int) (*SQLStateStore, error) {
	if table == "" {
		table = DefaultStateTable
	}
	if !sqlIdentifier.MatchString(table) {
		return nil, fmt.Errorf("mcpserver: table name %q: must be letters, digits and underscores, not starting with a digit", table)
	}
	if perAccount <= 0 {
		perAccount = DefaultUsedStatesPerAccount
	}
	for _, stmt := range []string{
		`CREATE TABLE IF NOT EXISTS ` + table + ` (nonce TEXT PRIMARY KEY, account TEXT NOT NULL, expires_ns BIGINT NOT NULL)`,
		`CREATE INDEX IF NOT EXISTS ` + table + `_account ON ` + table + ` (account, expires_ns)`,
	} {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			return nil, fmt.Errorf("mcpserver: creating the table of used request states: %w", err)
		}
	}
	return &SQLStateStore{db: db, table: table, perAccount: perAccount, now: time.Now}, nil
}

// Use implements [StateStore]: the first process to insert the nonce uses
// the state, if the account's share has room. Every thousandth use
// deletes the states that have expired.
func (s *SQLStateStore) Use(ctx context.Context, account, nonce string, expires time.Time) (bool, error) {
	now := s.now().UnixNano()
	if s.uses.Add(1)%sweepEvery == 0 {
		if _, err := s.db.ExecContext(ctx, `DELETE FROM `+s.table+` WHERE expires_ns < $1`, now); err != nil {
			return false, fmt.Errorf("deleting expired request states: %w", err)
		}
	}
	res, err := s.db.ExecContext(ctx, `INSERT INTO `+s.table+` (nonce, account, expires_ns)
		SELECT CAST($1 AS TEXT), CAST($2 AS TEXT), CAST($3 AS BIGINT)
		WHERE (SELECT count(*) FROM `+s.table+` WHERE account = $2 AND expires_ns >= $4) < $5
		ON CONFLICT (nonce) DO NOTHING`, nonce, account, expires.UnixNano(), now, s.perAccount)
	if err != nil {
		return false, fmt.Errorf("recording a used request state: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("recording a used request state: %w", err)
	}
	if n == 1 {
		return true, nil
	}
	// Nothing inserted: the state was used, or the share is full.
	var one int
	switch err := s.db.QueryRowContext(ctx, `SELECT 1 FROM `+s.table+` WHERE nonce = $1`, nonce).Scan(&one); err {
	case nil:
		return false, nil
	case sql.ErrNoRows:
		return false, ErrTooManyStates
	default:
		return false, fmt.Errorf("reading a used request state: %w", err)
	}
}
