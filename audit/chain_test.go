package audit_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/toolapi/toolapi/audit"
	"github.com/toolapi/toolapi/internal/testenv"
	"github.com/toolapi/toolapi/tool"
)

// stores returns, by name, functions opening a migrated SQLStore on a new
// SQLite database and on a new PostgreSQL schema, with the database.
func stores() map[string]func(t *testing.T) (*audit.SQLStore, *sql.DB) {
	open := func(t *testing.T, db *sql.DB) *audit.SQLStore {
		s, err := audit.NewSQLStore(db, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Migrate(context.Background()); err != nil {
			t.Fatal(err)
		}
		return s
	}
	return map[string]func(t *testing.T) (*audit.SQLStore, *sql.DB){
		"sqlite": func(t *testing.T) (*audit.SQLStore, *sql.DB) {
			db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "audit.db")+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			return open(t, db), db
		},
		"postgres": func(t *testing.T) (*audit.SQLStore, *sql.DB) {
			db, _ := testenv.PostgresSchema(t, "auditchain")
			return open(t, db), db
		},
	}
}

// TestChainShowsTampering runs tools through a trail, checks that its
// chain holds, then edits rows with SQL and checks that Verify names the
// record and the field, on SQLite and PostgreSQL.
func TestChainShowsTampering(t *testing.T) {
	for name, open := range stores() {
		t.Run(name, func(t *testing.T) {
			store, db := open(t)
			f := newFixture(t, store)
			ctx := tool.WithCaller(tool.WithAccount(context.Background(), admin),
				tool.Caller{Channel: tool.ChannelMCP, Client: "claude-code/2.1", Agent: "research-bot", TraceID: "4bf92f3577b34da6a3ce929d0e0e4736", CallID: "call_7"})
			for i := range 3 {
				if r, err := f.reg.RunJSON(ctx, "site.publish", fmt.Appendf(nil, `{"note":"n%d"}`, i)); err != nil || !r.Success {
					t.Fatalf("run %d: %v %+v", i, err, r)
				}
			}
			run(t, f, nobody, "site.publish", `{"note":"x"}`) // refused: a record of its own
			recs, err := store.List(context.Background(), &audit.Filter{Agent: "research-bot"})
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) != 3 {
				t.Fatalf("records of agent research-bot: %d, want 3", len(recs))
			}
			got := recs[0]
			if got.Channel != "mcp" || got.Client != "claude-code/2.1" || got.Agent != "research-bot" || got.TraceID != "4bf92f3577b34da6a3ce929d0e0e4736" || got.CallID != "call_7" || got.Account != "admin" {
				t.Errorf("who did it: %+v", got)
			}
			if b, err := store.Verify(context.Background()); err != nil || b != nil {
				t.Fatalf("untouched trail: Verify = %v, %v; want nil, nil", b, err)
			}

			victim := recs[1].ID
			if _, err := db.Exec(`UPDATE audit_trail SET outcome = 'failure' WHERE id = $1`, victim); err != nil {
				t.Fatal(err)
			}
			b, err := store.Verify(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if b == nil || b.Record != victim || b.Field != "outcome" || b.Stored != "failure" || b.Chained != "success" || b.Breaks != 1 {
				t.Fatalf("after the UPDATE: Verify = %+v; want record %s, outcome stored failure, chained success", b, victim)
			}
			t.Log(b)

			// Rewriting the link too breaks the link's hash.
			if _, err := db.Exec(`UPDATE audit_trail_chain SET state = replace(state, '"success"', '"failure"') WHERE record_id = $1`, victim); err != nil {
				t.Fatal(err)
			}
			if b, _ := store.Verify(context.Background()); b == nil || b.Field != "link" || b.Record != victim {
				t.Fatalf("after rewriting the link: Verify = %+v; want a changed link of %s", b, victim)
			}

			// A row inserted outside the trail, and one deleted.
			if _, err := db.Exec(`INSERT INTO audit_trail (id, started_ns, account, tool, operation, outcome, failure, inputs_sha256, duration_ns) VALUES ('FORGED', 1, 'admin', 'site.publish', 'write', 'success', '', '', 0)`); err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec(`DELETE FROM audit_trail WHERE id = $1`, recs[0].ID); err != nil {
				t.Fatal(err)
			}
			if b, _ := store.Verify(context.Background()); b == nil || b.Breaks != 3 {
				t.Fatalf("after an insert and a delete: Verify = %+v; want 3 breaks", b)
			}
		})
	}
}

// TestChainDoesNotFork appends from many goroutines through two stores on
// one database (two replicas) and checks that the chain holds.
func TestChainDoesNotFork(t *testing.T) {
	for name, open := range stores() {
		t.Run(name, func(t *testing.T) {
			a, db := open(t)
			b, err := audit.NewSQLStore(db, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := b.Migrate(context.Background()); err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			errs := make(chan error, 64)
			for i := range 16 {
				s := a
				if i%2 == 1 {
					s = b
				}
				wg.Go(func() {
					for j := range 4 {
						r := &audit.Record{Time: time.Now(), Account: fmt.Sprint("u", i), Tool: "t", Operation: "write", Outcome: audit.Started}
						if err := s.Add(context.Background(), r); err != nil {
							errs <- err
							return
						}
						r.Outcome, r.Runs = audit.Succeeded, j+1
						if err := s.Complete(context.Background(), r); err != nil {
							errs <- err
							return
						}
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			var links int
			if err := db.QueryRow(`SELECT count(*) FROM audit_trail_chain`).Scan(&links); err != nil {
				t.Fatal(err)
			}
			if links != 128 {
				t.Errorf("links: %d, want 128", links)
			}
			if br, err := a.Verify(context.Background()); err != nil || br != nil {
				t.Fatalf("Verify = %v, %v", br, err)
			}
		})
	}
}

// TestChainStartsWithOldRecords migrates a trail made before records were
// chained (and before they named their caller): its records start the
// new chain, which then holds, and an edit of one of them is found.
func TestChainStartsWithOldRecords(t *testing.T) {
	for name, open := range stores() {
		t.Run(name, func(t *testing.T) {
			_, db := open(t)
			// The trail as an older version made it, with two records.
			for _, stmt := range []string{
				`DROP TABLE audit_trail_chain`, `DROP TABLE audit_trail`,
				`CREATE TABLE audit_trail (id TEXT PRIMARY KEY, started_ns BIGINT NOT NULL, account TEXT NOT NULL, tool TEXT NOT NULL,
					operation TEXT NOT NULL, outcome TEXT NOT NULL, failure TEXT NOT NULL, inputs_sha256 TEXT NOT NULL, duration_ns BIGINT NOT NULL,
					runs BIGINT NOT NULL DEFAULT 1)`,
				`INSERT INTO audit_trail VALUES ('OLD1', 1, 'ann', 'a.b', 'write', 'success', '', '', 5, 1)`,
				`INSERT INTO audit_trail VALUES ('OLD2', 2, 'bob', 'a.b', 'write', 'failure', 'access', '', 0, 3)`,
			} {
				if _, err := db.Exec(stmt); err != nil {
					t.Fatalf("%s: %v", stmt, err)
				}
			}
			s, err := audit.NewSQLStore(db, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Migrate(context.Background()); err != nil {
				t.Fatal(err)
			}
			if err := s.Migrate(context.Background()); err != nil { // a second start adds nothing
				t.Fatal(err)
			}
			if err := s.Add(context.Background(), &audit.Record{Time: time.Now(), Account: "cy", Tool: "a.b", Operation: "write", Outcome: audit.Started}); err != nil {
				t.Fatal(err)
			}
			var links int
			if err := db.QueryRow(`SELECT count(*) FROM audit_trail_chain`).Scan(&links); err != nil || links != 3 {
				t.Fatalf("links: %d, %v; want 3", links, err)
			}
			if b, err := s.Verify(context.Background()); b != nil || err != nil {
				t.Fatalf("Verify = %v, %v", b, err)
			}
			if _, err := db.Exec(`UPDATE audit_trail SET runs = 1 WHERE id = 'OLD2'`); err != nil {
				t.Fatal(err)
			}
			if b, _ := s.Verify(context.Background()); b == nil || b.Record != "OLD2" || b.Field != "runs" || b.Seq != 2 {
				t.Fatalf("after editing OLD2: Verify = %+v", b)
			}
		})
	}
}
