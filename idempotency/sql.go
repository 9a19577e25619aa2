package idempotency

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"time"
)

// A SQLStore keeps idempotency keys in a table of the application's SQL
// database (SQLite or PostgreSQL), which the processes serving one
// application share: a key is claimed with one INSERT ... ON CONFLICT DO
// NOTHING on the table's primary key (account, key), so exactly one
// process's run claims it.
type SQLStore struct {
	db    *sql.DB
	table string
}

// SQLOptions configure [NewSQLStore]; nil means the defaults.
type SQLOptions struct {
	// Table is the name of the table; empty means "idempotency_keys". It
	// must be a plain identifier (letters, digits and underscores).
	Table string
}

var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,62}$`)

// NewSQLStore returns a SQLStore keeping keys in db. Call
// [SQLStore.Migrate] once before using it.
func NewSQLStore(db *sql.DB, opts *SQLOptions) (*SQLStore, error) {
	s := &SQLStore{db: db, table: "idempotency_keys"}
	if opts != nil && opts.Table != "" {
		if !identifier.MatchString(opts.Table) {
			return nil, fmt.Errorf("idempotency: table name %q: must be letters, digits and underscores, not starting with a digit", opts.Table)
		}
		s.table = opts.Table
	}
	return s, nil
}

// Migrate creates the table and its index when they do not exist.
func (s *SQLStore) Migrate(ctx context.Context) error {
	for _, stmt := range []string{
		`CREATE TABLE IF NOT EXISTS ` + s.table + ` (
	account TEXT NOT NULL,
	idem_key TEXT NOT NULL,
	request_sha256 TEXT NOT NULL,
	owner TEXT NOT NULL,
	done BIGINT NOT NULL DEFAULT 0,
	result TEXT,
	started_ns BIGINT NOT NULL,
	expires_ns BIGINT NOT NULL,
	lease_ns BIGINT NOT NULL,
	PRIMARY KEY (account, idem_key)
)`,
		`CREATE INDEX IF NOT EXISTS ` + s.table + `_expires ON ` + s.table + ` (expires_ns)`,
	} {
		if _, err := s.db.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("idempotency: creating the table of keys: %w", err)
		}
	}
	return nil
}

// Claim implements [Store].
func (s *SQLStore) Claim(ctx context.Context, c *Claim, now time.Time) (bool, *Kept, error) {
	for range 3 {
		res, err := s.db.ExecContext(ctx, `INSERT INTO `+s.table+
			` (account, idem_key, request_sha256, owner, done, result, started_ns, expires_ns, lease_ns) VALUES ($1, $2, $3, $4, 0, NULL, $5, $6, $7)`+
			` ON CONFLICT (account, idem_key) DO NOTHING`,
			c.Account, c.Key, c.Request, c.Owner, c.Started.UnixNano(), c.Expires.UnixNano(), c.Lease.UnixNano())
		if err != nil {
			return false, nil, fmt.Errorf("idempotency: claiming a key: %w", err)
		}
		if n, err := res.RowsAffected(); err != nil || n == 1 {
			return err == nil, nil, err
		}
		// Taken: take it over if it expired, or its run's lease ended.
		res, err = s.db.ExecContext(ctx, `UPDATE `+s.table+
			` SET request_sha256 = $1, owner = $2, done = 0, result = NULL, started_ns = $3, expires_ns = $4, lease_ns = $5`+
			` WHERE account = $6 AND idem_key = $7 AND (expires_ns <= $8 OR (done = 0 AND lease_ns <= $8))`,
			c.Request, c.Owner, c.Started.UnixNano(), c.Expires.UnixNano(), c.Lease.UnixNano(), c.Account, c.Key, now.UnixNano())
		if err != nil {
			return false, nil, fmt.Errorf("idempotency: claiming a key: %w", err)
		}
		if n, err := res.RowsAffected(); err != nil || n == 1 {
			return err == nil, nil, err
		}
		kept, err := s.Look(ctx, c.Account, c.Key)
		if err != nil || kept != nil {
			return false, kept, err
		}
		// Released meanwhile: claim it again.
	}
	return false, nil, errors.New("idempotency: claiming a key: it changed hands three times")
}

// Look implements [Store].
func (s *SQLStore) Look(ctx context.Context, account, key string) (*Kept, error) {
	var k Kept
	var done, lease int64
	var result sql.NullString
	err := s.db.QueryRowContext(ctx, `SELECT request_sha256, done, result, lease_ns FROM `+s.table+` WHERE account = $1 AND idem_key = $2`,
		account, key).Scan(&k.Request, &done, &result, &lease)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("idempotency: reading a key: %w", err)
	}
	k.Done, k.Result, k.Lease = done == 1, []byte(result.String), time.Unix(0, lease)
	return &k, nil
}

// Finish implements [Store].
func (s *SQLStore) Finish(ctx context.Context, c *Claim, result []byte) error {
	res, err := s.db.ExecContext(ctx, `UPDATE `+s.table+` SET done = 1, result = $1 WHERE account = $2 AND idem_key = $3 AND owner = $4`,
		string(result), c.Account, c.Key, c.Owner)
	if err != nil {
		return fmt.Errorf("idempotency: keeping a result: %w", err)
	}
	if n, err := res.RowsAffected(); err == nil && n != 1 {
		return ErrNoClaim
	}
	return nil
}

// Release implements [Store].
func (s *SQLStore) Release(ctx context.Context, c *Claim) error {
	if _, err := s.db.ExecContext(ctx, `DELETE FROM `+s.table+` WHERE account = $1 AND idem_key = $2 AND owner = $3`,
		c.Account, c.Key, c.Owner); err != nil {
		return fmt.Errorf("idempotency: releasing a key: %w", err)
	}
	return nil
}

// Purge implements [Store].
func (s *SQLStore) Purge(ctx context.Context, now time.Time) error {
	if _, err := s.db.ExecContext(ctx, `DELETE FROM `+s.table+` WHERE expires_ns <= $1`, now.UnixNano()); err != nil {
		return fmt.Errorf("idempotency: deleting expired keys: %w", err)
	}
	return nil
}
