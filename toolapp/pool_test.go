package toolapp

import (
	"database/sql"
	"os"
	"runtime"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"
)

// The default pool follows the machine, within its bounds, and a
// PostgreSQL server's share per replica; --db-pool overrides it.
func TestPoolSize(t *testing.T) {
	machine := min(max(PoolPerCPU*runtime.GOMAXPROCS(0), MinPool), MaxPool)
	dsn := os.Getenv("TOOLAPI_TEST_POSTGRES")
	if dsn == "" {
		t.Skip("TOOLAPI_TEST_POSTGRES is not set; eval \"$(scripts/postgres.sh)\" starts a server")
	}
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var free int
	if err := db.QueryRow(`SELECT current_setting('max_connections')::int - current_setting('superuser_reserved_connections')::int
		- COALESCE(current_setting('reserved_connections', true), '0')::int`).Scan(&free); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		pool, replicas, want int
	}{
		{0, 1, min(machine, free)},
		{0, 0, min(machine, free/DefaultReplicas)},
		{0, 1000, 2}, // never below 2
		{7, 3, 7},
	} {
		if got := poolSize(t.Context(), db, c.pool, c.replicas); got != c.want {
			t.Errorf("poolSize(pool %d, replicas %d) = %d, want %d (machine %d, server %d free)", c.pool, c.replicas, got, c.want, machine, free)
		}
	}
	// A database that is no PostgreSQL, or does not answer, leaves the
	// machine's size.
	down, _ := sql.Open("pgx", "postgres://nobody@127.0.0.1:1/none?connect_timeout=1")
	defer down.Close()
	if got := poolSize(t.Context(), down, 0, 3); got != machine {
		t.Errorf("poolSize of an unreachable database = %d, want %d", got, machine)
	}
	// serve keeps every connection of the pool when idle.
	sizePool(db, 5)
	if s := db.Stats(); s.MaxOpenConnections != 5 {
		t.Errorf("MaxOpenConnections = %d, want 5", s.MaxOpenConnections)
	}
}

func TestPoolFlag(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int
		err  bool
	}{
		{"32", 32, false},
		{"1", 1, false},
		{"0", 0, true},
		{"-3", 0, true},
		{"12x", 0, true},
		{"many", 0, true},
	} {
		var p poolFlag
		err := p.Set(c.in)
		if (err != nil) != c.err || int(p) != c.want {
			t.Errorf("Set(%q) = %d, %v; want %d (error %v)", c.in, p, err, c.want, c.err)
		}
		if err != nil && !strings.Contains(err.Error(), "whole number") {
			t.Errorf("Set(%q): %v does not say the rule", c.in, err)
		}
	}
}
