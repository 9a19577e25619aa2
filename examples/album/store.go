package main

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
	"modernc.org/sqlite"               // registers the "sqlite" driver
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/toolapi/toolapi/explorer"
)

// A Store keeps the application's data in SQLite or PostgreSQL. Both run
// the same SQL: queries use $N placeholders, which SQLite reads as
// positional too, and the schema differs only in how IDs are generated.
// Every write runs in a transaction, so a write that fails changes
// nothing.
//
// A Store is safe for concurrent use.
type Store struct {
	db *sql.DB
	// taskDB is a second handle on an SQLite file, without immediate
	// transactions, for the task queue (see [Store.TaskDB]); nil on
	// PostgreSQL.
	taskDB   *sql.DB
	postgres bool
	// explorer keeps the tool explorer's sessions, presets and runs in
	// the tables explorer_*, made by migrate.
	explorer *explorer.SQLStore
	// beforeCommit, when set, runs at the end of every write transaction;
	// an error from it rolls the transaction back. Tests use it to make a
	// write fail at its last step.
	beforeCommit func(ctx context.Context) error
}

// OpenStore opens the database dsn names: a postgres:// or postgresql://
// URL for PostgreSQL, anything else the path of an SQLite file, created
// with its folder when missing. It creates the schema and, on first use,
// seeds the demo data.
func OpenStore(ctx context.Context, dsn string) (*Store, error) {
	s, err := openStore(dsn)
	if err != nil {
		return nil, err
	}
	if !s.postgres {
		if err := s.useWAL(ctx); err != nil {
			s.Close()
			return nil, fmt.Errorf("opening %s: %w", dsn, err)
		}
	}
	if err := s.migrate(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("creating the schema: %w", err)
	}
	if _, err := s.Seed(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("seeding the database: %w", err)
	}
	return s, nil
}

var registerUnicodeLower sync.Once

func openStore(dsn string) (*Store, error) {
	if isPostgres(dsn) {
		db, err := sql.Open("pgx", dsn)
		if err != nil {
			return nil, err
		}
		return &Store{db: db, postgres: true}, nil
	}
	if dsn == "" {
		return nil, errors.New("no database given")
	}
	if err := notAPath(dsn); err != nil {
		return nil, err
	}
	if strings.ContainsAny(dsn, "?#") {
		return nil, fmt.Errorf("database path %q: '?' and '#' are not allowed in the path", dsn)
	}
	if err := os.MkdirAll(filepath.Dir(dsn), 0o755); err != nil {
		return nil, err
	}
	registerUnicodeLower.Do(func() {
		// SQLite's lower() folds ASCII only; PostgreSQL's folds every
		// letter. Searches ("Été" finds "été") must behave the same on
		// both, so lower() on SQLite is Go's strings.ToLower.
		sqlite.MustRegisterDeterministicScalarFunction("lower", 1, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
			switch v := args[0].(type) {
			case string:
				return strings.ToLower(v), nil
			case []byte:
				return strings.ToLower(string(v)), nil
			}
			return args[0], nil
		})
	})
	// Writers take the lock when they begin (immediate), so two writers
	// never both read and then collide; they queue on the busy timeout.
	db, err := sql.Open("sqlite", dsn+"?_busy_timeout=30000&_foreign_keys=1&_txlock=immediate")
	if err != nil {
		return nil, err
	}
	// The task queue runs transactions in the background that mostly read
	// (its leader election, its cleaner): with immediate transactions each
	// would take the one write lock and wait on every write. They get a
	// handle of their own on the same file, with deferred transactions.
	taskDB, err := sql.Open("sqlite", dsn+"?_busy_timeout=30000&_foreign_keys=1")
	if err != nil {
		db.Close()
		return nil, err
	}
	return &Store{db: db, taskDB: taskDB}, nil
}

// useWAL puts an SQLite database in WAL mode, which lets readers run
// beside the one writer. The mode is stored in the file, so this is done
// once per open rather than per connection: switching needs the database
// to itself and fails at once, without waiting, while another process
// opening the same new file holds it, so it is retried a while.
func (s *Store) useWAL(ctx context.Context) error {
	var err error
	for attempt := range 40 {
		var mode string
		if err = s.db.QueryRowContext(ctx, `PRAGMA journal_mode = WAL`).Scan(&mode); err == nil {
			return nil
		}
		var se *sqlite.Error
		if !errors.As(err, &se) || se.Code()&0xff != sqlite3.SQLITE_BUSY {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(attempt+1) * 5 * time.Millisecond):
		}
	}
	return err
}

// notAPath refuses a database name that is neither a PostgreSQL URL nor a
// path: a URL of another scheme, or a key=value connection string, which
// would otherwise name an SQLite file (holding its password in its name).
// The error never quotes dsn, which may hold a password.
func notAPath(dsn string) error {
	if scheme, _, ok := strings.Cut(dsn, "://"); ok {
		if len(scheme) > 20 || strings.ContainsAny(scheme, "/\\ ") {
			scheme = "another"
		}
		return fmt.Errorf("database: a %s:// URL is not taken: give a postgres:// URL, or the path of an SQLite file", scheme)
	}
	if key, _, ok := strings.Cut(strings.TrimSpace(dsn), "="); ok && key != "" && !strings.ContainsAny(key, "/\\. ") {
		return errors.New("database: a key=value connection string is not taken: give a postgres:// URL, or the path of an SQLite file")
	}
	return nil
}

func isPostgres(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// Close closes the database.
func (s *Store) Close() error {
	if s.taskDB != nil {
		return errors.Join(s.taskDB.Close(), s.db.Close())
	}
	return s.db.Close()
}

// TaskDB returns the database handle of the task queue: on SQLite a
// second handle on the same file, without immediate transactions; on
// PostgreSQL the one of [Store.DB].
func (s *Store) TaskDB() *sql.DB {
	if s.taskDB != nil {
		return s.taskDB
	}
	return s.db
}

// DB returns the database handle.
func (s *Store) DB() *sql.DB { return s.db }

// Dialect returns "postgres" or "sqlite".
func (s *Store) Dialect() string {
	if s.postgres {
		return "postgres"
	}
	return "sqlite"
}

// forUpdate returns the clause that locks the selected rows until the
// transaction ends. SQLite needs none: a write transaction holds the
// database from its start.
func (s *Store) forUpdate() string {
	if s.postgres {
		return " FOR UPDATE"
	}
	return ""
}

// A querier is what both *sql.DB and *sql.Tx offer.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// write runs f in a transaction and commits it when f succeeds; otherwise
// nothing f did is kept.
func (s *Store) write(ctx context.Context, f func(tx *sql.Tx) error) (err error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	committed := false
	defer func() {
		// Also when f panics: an open transaction would hold the
		// database's write lock.
		if !committed {
			tx.Rollback()
		}
	}()
	if err = f(tx); err != nil {
		return err
	}
	if s.beforeCommit != nil {
		if err = s.beforeCommit(ctx); err != nil {
			return err
		}
	}
	if err = tx.Commit(); err != nil {
		return err
	}
	committed = true
	return nil
}

// schema is the database schema; {{id}} is the dialect's generated ID
// column.
var schema = []string{
	`CREATE TABLE IF NOT EXISTS users (
		id {{id}},
		name TEXT NOT NULL UNIQUE,
		role TEXT NOT NULL,
		permissions TEXT NOT NULL DEFAULT '',
		blocked BOOLEAN NOT NULL DEFAULT FALSE,
		token_hash TEXT UNIQUE
	)`,
	`CREATE TABLE IF NOT EXISTS albums (
		id {{id}},
		owner_id BIGINT NOT NULL REFERENCES users (id),
		title TEXT NOT NULL,
		year INTEGER NOT NULL,
		published BOOLEAN NOT NULL DEFAULT FALSE
	)`,
	`CREATE TABLE IF NOT EXISTS tracks (
		id {{id}},
		album_id BIGINT NOT NULL REFERENCES albums (id),
		position INTEGER NOT NULL,
		title TEXT NOT NULL,
		seconds BIGINT NOT NULL DEFAULT 0,
		UNIQUE (album_id, position)
	)`,
	`CREATE TABLE IF NOT EXISTS images (
		id {{id}},
		album_id BIGINT NOT NULL REFERENCES albums (id),
		title TEXT NOT NULL,
		caption TEXT NOT NULL DEFAULT '',
		alt TEXT NOT NULL DEFAULT '',
		url TEXT NOT NULL,
		created BIGINT NOT NULL
	)`,
	`CREATE INDEX IF NOT EXISTS images_album ON images (album_id)`,
	`CREATE INDEX IF NOT EXISTS images_created ON images (created)`,
	`CREATE TABLE IF NOT EXISTS notifications (
		id {{id}},
		album_id BIGINT NOT NULL REFERENCES albums (id),
		message TEXT NOT NULL,
		created BIGINT NOT NULL
	)`,
	`CREATE TABLE IF NOT EXISTS config (
		name TEXT PRIMARY KEY,
		value TEXT NOT NULL
	)`,
	`CREATE TABLE IF NOT EXISTS album_passphrases (
		album_id BIGINT PRIMARY KEY REFERENCES albums (id),
		salt TEXT NOT NULL,
		hash TEXT NOT NULL
	)`,
}

// migrate creates whatever part of the schema is missing, the tool
// explorer's tables included. On PostgreSQL it holds an advisory lock
// meanwhile, so several processes starting on one database at once do not
// trip over each other.
func (s *Store) migrate(ctx context.Context) error {
	id := "INTEGER PRIMARY KEY"
	if s.postgres {
		id = "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		if s.postgres {
			if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(7431)`); err != nil {
				return err
			}
		}
		for _, stmt := range schema {
			if _, err := tx.ExecContext(ctx, strings.ReplaceAll(stmt, "{{id}}", id)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	// The explorer creates its tables on connections of its own, under the
	// same lock.
	return s.schemaLocked(ctx, s.openExplorer)
}

// openExplorer opens the tool explorer's store in the database. Its
// explorer_presets table has the layout the album's presets had before
// the explorer kept sessions and runs too, so presets saved then stay.
func (s *Store) openExplorer(ctx context.Context) error {
	es, err := explorer.NewSQLStore(ctx, s.db)
	if err != nil {
		return err
	}
	s.explorer = es
	return nil
}

// Explorer returns the store of the tool explorer's sessions, presets and
// runs, in the album's database: every serve process on one database
// shares them.
func (s *Store) Explorer() *explorer.SQLStore { return s.explorer }

// insertID runs an INSERT ... RETURNING id and returns the new ID.
func insertID(ctx context.Context, q querier, query string, args ...any) (int64, error) {
	var id int64
	err := q.QueryRowContext(ctx, query+" RETURNING id", args...).Scan(&id)
	return id, err
}

// maskDSN returns a database name fit for messages: a PostgreSQL URL with
// its user information and the value of every parameter whose name ends in
// "password" (password, sslpassword; percent-encoded names included)
// replaced by "…". An SQLite path is returned as it is.
func maskDSN(dsn string) string {
	if !isPostgres(dsn) {
		return dsn
	}
	scheme, rest, _ := strings.Cut(dsn, "://")
	head, query, hasQuery := strings.Cut(rest, "?")
	if at := strings.LastIndexByte(head, '@'); at >= 0 {
		head = "…" + head[at:]
	}
	if !hasQuery {
		return scheme + "://" + head
	}
	query, fragment, hasFragment := strings.Cut(query, "#")
	params := strings.Split(query, "&")
	for i, p := range params {
		name, _, hasValue := strings.Cut(p, "=")
		if n, err := url.QueryUnescape(name); err == nil {
			name = n
		}
		if hasValue && strings.HasSuffix(strings.ToLower(name), "password") {
			params[i] = p[:strings.IndexByte(p, '=')] + "=…"
		}
	}
	masked := scheme + "://" + head + "?" + strings.Join(params, "&")
	if hasFragment {
		masked += "#" + fragment
	}
	return masked
}
