package explorer

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // PostgreSQL, for the store's tests
	"github.com/toolapi/toolapi/tool"
)

// The store's tests run on SQLite always and on PostgreSQL when
// TOOLAPI_TEST_POSTGRES holds a server's URL (scripts/postgres.sh starts
// one and prints it); on CI (CI=true) a missing URL fails them.
const postgresEnv = "TOOLAPI_TEST_POSTGRES"

// eachDB runs test on a new SQLite database and on a new PostgreSQL
// schema.
func eachDB(t *testing.T, test func(t *testing.T, db *sql.DB)) {
	t.Run("sqlite", func(t *testing.T) {
		db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "explorer.db")+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		test(t, db)
	})
	t.Run("postgres", func(t *testing.T) {
		base := os.Getenv(postgresEnv)
		if base == "" {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is not set on CI: run eval \"$(scripts/postgres.sh)\" before the tests", postgresEnv)
			}
			t.Skipf("%s is not set; eval \"$(scripts/postgres.sh)\" starts a server", postgresEnv)
		}
		admin, err := sql.Open("pgx", base)
		if err != nil {
			t.Fatal(err)
		}
		defer admin.Close()
		schema := "explorer_" + strings.ToLower(rand.Text()[:12])
		if _, err := admin.Exec(`CREATE SCHEMA ` + schema); err != nil {
			t.Fatalf("creating schema: %v", err)
		}
		t.Cleanup(func() {
			db, err := sql.Open("pgx", base)
			if err != nil {
				t.Error(err)
				return
			}
			defer db.Close()
			if _, err := db.Exec(`DROP SCHEMA ` + schema + ` CASCADE`); err != nil {
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
		test(t, db)
	})
}

// TestSQLStoreReplicas: two instances of an application share one
// database. A person signs in on one and runs on the other; presets and
// runs saved on one show on the other; a form submitted to both runs once.
func TestSQLStoreReplicas(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sql.DB) {
		lookup := func(_ context.Context, id string) (tool.Account, error) {
			if u, ok := testUsers[id]; ok {
				return u, nil
			}
			return nil, errors.New("no such user")
		}
		newInstance := func() *testEnv {
			st, err := NewSQLStore(t.Context(), db)
			if err != nil {
				t.Fatal(err)
			}
			return newTestEnv(t, &Options{Store: st, Presets: nil, Account: lookup})
		}
		a, b := newInstance(), newInstance()
		// newTestEnv gives each its in-memory presets unless told
		// otherwise: the store's are the ones under test.
		a.exp.opts.Presets, b.exp.opts.Presets = a.exp.opts.Store, b.exp.opts.Store

		person := a.browser(t)
		person.signIn("alice")
		// The cookie jar sends the session to the other instance too: both
		// listen on 127.0.0.1.
		onB := &browser{t: t, env: b, c: person.c}
		r := onB.get("/tools/demo.every")
		if !strings.Contains(r.body, "Signed in as <strong>alice</strong>") {
			t.Fatalf("the session started on one instance does not sign in on the other:\n%s", between(r.body, "<nav>", "</nav>"))
		}
		r = onB.post("/tools/demo.every", url.Values{"action": {"run"}, "once": {"t1"}, "in:title": {"From B"}})
		if r.status != http.StatusOK || !strings.Contains(r.body, "From B") {
			t.Fatalf("running on the other instance: %d", r.status)
		}
		// The run shows on the first instance.
		runs, err := a.exp.runs.Runs(t.Context(), "alice", "demo.every", 10)
		if err != nil || len(runs) != 1 {
			t.Fatalf("runs seen by the first instance: %v, %v", runs, err)
		}
		if r := person.get("/tools/demo.every?run=" + runs[0].ID); !strings.Contains(r.body, "✓") || !strings.Contains(r.body, "From B") {
			t.Error("the run made on one instance does not show on the other")
		}
		// A preset saved on one is there on the other.
		onB.post("/tools/demo.every", url.Values{"action": {"save"}, "preset_name": {"Shared"}, "in:title": {"Saved on B"}})
		if r := person.get("/tools/demo.every?preset=Shared"); !strings.Contains(r.body, `value="Saved on B"`) {
			t.Error("the preset saved on one instance does not fill the form on the other")
		}
		// One form submitted to both instances runs once.
		form := url.Values{"action": {"run"}, "confirm": {"yes"}, "once": {"same-form"}}
		person.post("/tools/demo.wipe", form)
		onB.csrf = person.csrf
		onB.post("/tools/demo.wipe", form)
		if got := a.wipes + b.wipes; got != 1 {
			t.Errorf("one form sent to two instances ran the tool %d times", got)
		}
		// Signing out on one ends the session on both.
		person.post("/signout", url.Values{})
		if r := onB.get("/"); strings.Contains(r.body, "Signed in as") {
			t.Error("the session outlived signing out on the other instance")
		}
	})
}
