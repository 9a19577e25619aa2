package testenv

import (
	"crypto/rand"
	"database/sql"
	"net/url"
	"os"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
)

// PostgresEnv is the environment variable holding the URL of the
// PostgreSQL server the storage tests use (scripts/postgres.sh starts one).
const PostgresEnv = "TOOLAPI_TEST_POSTGRES"

// PostgresSchema returns a connection to a new schema, named prefix and
// random letters, on the server PostgresEnv names, and the schema's name;
// the schema is dropped when t ends. Without the variable it skips t, or
// fails it when CI is "true".
func PostgresSchema(t testing.TB, prefix string) (*sql.DB, string) {
	t.Helper()
	base := os.Getenv(PostgresEnv)
	if base == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal(PostgresEnv + " is not set on CI: run eval \"$(scripts/postgres.sh)\" before the tests")
		}
		t.Skip(PostgresEnv + " is not set; eval \"$(scripts/postgres.sh)\" starts a server")
	}
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	schema := prefix + strings.ToLower(rand.Text()[:12])
	if _, err := admin.Exec(`CREATE SCHEMA ` + schema); err != nil {
		t.Fatalf("creating schema: %v", err)
	}
	t.Cleanup(func() {
		if _, err := admin.Exec(`DROP SCHEMA ` + schema + ` CASCADE`); err != nil {
			t.Errorf("dropping schema: %v", err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	db, err := sql.Open("pgx", u.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, schema
}
