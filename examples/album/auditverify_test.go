package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestAuditVerify checks, on both databases, that `album audit verify`
// passes on a trail written by the album's runs, and that after one row
// of the trail is edited with SQL it exits 1 naming that record and the
// field that differs.
func TestAuditVerify(t *testing.T) {
	eachDSN(t, func(t *testing.T, dsn string) {
		for _, title := range []string{"One", "Two"} {
			if code, out, errOut := runAlbum(t, dsn, "tool", "run", "album.add_track", "--user", "editor",
				"--input", "album=1", "--input", "title="+title, "--json", "--yes"); code != 0 {
				t.Fatalf("add_track: exit %d\n%s%s", code, out, errOut)
			}
		}
		code, out, errOut := runAlbum(t, dsn, "audit", "verify")
		if code != 0 || !strings.Contains(out, "chain holds") {
			t.Fatalf("album audit verify on an untouched trail: exit %d\n%s%s", code, out, errOut)
		}
		code, out, _ = runAlbum(t, dsn, "audit", "--format", "json")
		var listed struct {
			Runs []struct{ ID, Channel string }
		}
		if err := json.Unmarshal([]byte(out), &listed); err != nil || len(listed.Runs) != 2 {
			t.Fatalf("album audit: exit %d, %v\n%s", code, err, out)
		}
		if listed.Runs[0].Channel != "cli" {
			t.Errorf("channel of a CLI run: %q, want cli", listed.Runs[0].Channel)
		}
		victim := listed.Runs[1].ID

		s := mustOpen(t, dsn)
		if _, err := s.db.ExecContext(context.Background(), `UPDATE audit_trail SET account = 'someone_else' WHERE id = $1`, victim); err != nil {
			t.Fatal(err)
		}
		s.Close()
		code, out, errOut = runAlbum(t, dsn, "audit", "verify")
		if code != 1 || !strings.Contains(out, "record "+victim+": account is \"someone_else\" in the table but \"editor\"") {
			t.Fatalf("album audit verify after an UPDATE of %s: exit %d\n%s%s", victim, code, out, errOut)
		}
		t.Log(strings.TrimSpace(out))
	})
}
