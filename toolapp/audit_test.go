package toolapp_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/toolapi/toolapi/audit"
	"github.com/toolapi/toolapi/tool"
	"github.com/toolapi/toolapi/toolapp"
)

// TestAuditVerify runs "audit verify" on an application's trail: it holds
// (exit 0), then after one row is edited with SQL the command exits 1 and
// names the record and the field; without a trail it exits 1 saying so.
func TestAuditVerify(t *testing.T) {
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "app.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	trail, err := audit.NewSQLStore(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := trail.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	rec := &audit.Record{Account: "ada", Tool: "notes.add", Operation: "write", Outcome: audit.Succeeded}
	if err := trail.Add(context.Background(), rec); err != nil {
		t.Fatal(err)
	}
	withTrail := trail
	open := func(context.Context) (*toolapp.App, error) {
		return &toolapp.App{Registry: tool.NewRegistry(nil), Audit: withTrail}, nil
	}
	run := func() (int, string) {
		var out, errOut strings.Builder
		code := toolapp.Run(context.Background(), open, []string{"audit", "verify"}, &toolapp.Options{Name: "notes", Stdout: &out, Stderr: &errOut})
		return code, out.String() + errOut.String()
	}
	if code, out := run(); code != 0 || !strings.Contains(out, "chain holds") {
		t.Fatalf("untouched: exit %d\n%s", code, out)
	}
	if _, err := db.Exec(`UPDATE audit_trail SET tool = 'notes.delete' WHERE id = $1`, rec.ID); err != nil {
		t.Fatal(err)
	}
	code, out := run()
	if code != 1 || !strings.Contains(out, "record "+rec.ID+`: tool is "notes.delete" in the table but "notes.add"`) {
		t.Fatalf("after an UPDATE: exit %d\n%s", code, out)
	}
	withTrail = nil
	if code, out := run(); code != 1 || !strings.Contains(out, "keeps no audit trail") {
		t.Errorf("without a trail: exit %d\n%s", code, out)
	}
}
