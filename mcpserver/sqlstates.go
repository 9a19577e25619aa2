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
// several processes serving one endpoint without sessions can share, so
// that a request state runs its tool once between them all. Its statements
// are plain SQL that PostgreSQL and SQLite both read.
type SQLStateStore struct {
	db    *sql.DB
	table string
	uses  atomic.Int64
	now   func() time.Time
}

var sqlIdentifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,62}$`)

// sweepEvery is how many uses of a SQLStateStore pass between two deletions
// of the expired states.
const sweepEvery = 1000

// NewSQLStateStore returns a SQLStateStore keeping the used states in the
// named table of db ("mcp_used_states" when empty; letters, digits and
// underscores), creating it when missing.
func NewSQLStateStore(ctx context.Context, db *sql.DB, table string) (*SQLStateStore, error) {
	if table == "" {
		table = "mcp_used_states"
	}
	if !sqlIdentifier.MatchString(table) {
		return nil, fmt.Errorf("mcpserver: table name %q: must be letters, digits and underscores, not starting with a digit", table)
	}
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS `+table+` (nonce TEXT PRIMARY KEY, expires_ns BIGINT NOT NULL)`); err != nil {
		return nil, fmt.Errorf("mcpserver: creating the table of used request states: %w", err)
	}
	return &SQLStateStore{db: db, table: table, now: time.Now}, nil
}

// Use implements [StateStore]: the first process to insert the nonce uses
// the state. Every thousandth use deletes the states that have expired.
func (s *SQLStateStore) Use(ctx context.Context, nonce string, expires time.Time) (bool, error) {
	if s.uses.Add(1)%sweepEvery == 0 {
		if _, err := s.db.ExecContext(ctx, `DELETE FROM `+s.table+` WHERE expires_ns < $1`, s.now().UnixNano()); err != nil {
			return false, fmt.Errorf("deleting expired request states: %w", err)
		}
	}
	res, err := s.db.ExecContext(ctx, `INSERT INTO `+s.table+` (nonce, expires_ns) VALUES ($1, $2) ON CONFLICT (nonce) DO NOTHING`, nonce, expires.UnixNano())
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, err
	}
	return n == 1, nil
}
