package toolapp

import (
	"context"
	"database/sql"
	"fmt"
	"runtime"
	"time"
)

// The bounds of the default pool of [Options.Pool].
const (
	// PoolPerCPU is the number of connections the default pool holds per
	// GOMAXPROCS.
	PoolPerCPU = 8
	// MinPool and MaxPool bound the default pool.
	MinPool = 16
	MaxPool = 128
	// DefaultReplicas is the number of serve processes the default pool
	// expects to share one PostgreSQL server.
	DefaultReplicas = 3
	// DefaultStartTimeout is how long serve keeps trying to open its App
	// when [Options.StartTimeout] is zero.
	DefaultStartTimeout = 5 * time.Minute
	// ReadyTimeout bounds how long GET /readyz waits for the database.
	ReadyTimeout = 2 * time.Second
)

// poolSize returns the pool serve keeps to db: pool when it is positive,
// else [PoolPerCPU] per GOMAXPROCS within [MinPool]..[MaxPool], capped by
// what the server allows each of replicas processes (see [serverShare]).
func poolSize(ctx context.Context, db *sql.DB, pool, replicas int) int {
	if pool > 0 {
		return pool
	}
	n := min(max(PoolPerCPU*runtime.GOMAXPROCS(0), MinPool), MaxPool)
	if share, ok := serverShare(ctx, db, replicas); ok {
		n = min(n, share)
	}
	return n
}

// serverShare returns the connections a PostgreSQL server lets each of
// replicas processes open: its max_connections less those it reserves
// (for superusers, and on PostgreSQL 16 and later for reserved roles),
// divided by replicas, at least 2. It reports false for a database that
// is no PostgreSQL (SQLite has no such limit) or does not answer.
func serverShare(ctx context.Context, db *sql.DB, replicas int) (int, bool) {
	if replicas <= 0 {
		replicas = DefaultReplicas
	}
	ctx, cancel := context.WithTimeout(ctx, ReadyTimeout)
	defer cancel()
	var free int
	err := db.QueryRowContext(ctx, `SELECT current_setting('max_connections')::int
		- current_setting('superuser_reserved_connections')::int
		- COALESCE(current_setting('reserved_connections', true), '0')::int`).Scan(&free)
	if err != nil {
		return 0, false
	}
	return max(free/replicas, 2), true
}

// sizePool sets the pool of db to n connections, all of which may stay
// idle: a pool that closes idle connections makes the server open new ones
// under load, which costs PostgreSQL more than the queries.
func sizePool(db *sql.DB, n int) {
	db.SetMaxOpenConns(n)
	db.SetMaxIdleConns(n)
}

// poolFlag is the value of serve --db-pool: a whole number from 1.
type poolFlag int

func (p *poolFlag) String() string { return fmt.Sprint(int(*p)) }

func (p *poolFlag) Set(v string) error {
	var n int
	if _, err := fmt.Sscan(v, &n); err != nil || n < 1 || fmt.Sprint(n) != v {
		return fmt.Errorf("must be a whole number of connections from 1, not %q", v)
	}
	*p = poolFlag(n)
	return nil
}
