package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolapi/toolapi/audit"
	"github.com/toolapi/toolapi/tool"
)

// TestAuditTrail checks, on both databases, that the album's trail
// records its write runs and refused runs, and that `album audit` lists
// them.
func TestAuditTrail(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		app, err := NewApp(s, t.TempDir(), slog.New(slog.NewTextHandler(io.Discard, nil)))
		if err != nil {
			t.Fatal(err)
		}
		trail, err := s.AuditTrail(ctx)
		if err != nil {
			t.Fatal(err)
		}
		app.Registry.Use(audit.Middleware(trail, &audit.Options{Logger: app.Logger}))
		editor, err := s.User(ctx, "editor")
		if err != nil {
			t.Fatal(err)
		}
		as := func(acct tool.Account, id, args string) {
			t.Helper()
			if _, err := app.Registry.RunJSON(tool.WithAccount(ctx, acct), id, []byte(args)); err != nil {
				t.Fatal(err)
			}
		}
		as(editor, "album.add_track", `{"album":"1","title":"So What"}`)
		as(editor, "album.search", `{"word":"blue"}`)
		as(tool.Anonymous, "album.publish", `{"album":"1"}`)

		records, err := trail.List(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range records {
			got = append(got, r.Account+" "+r.Tool+" "+string(r.Outcome)+" "+string(r.Failure))
		}
		want := []string{"anonymous album.publish failure access", "editor album.add_track success "}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("trail (-want +got):\n%s", diff)
		}

		var out, errOut bytes.Buffer
		if code := listAudit(ctx, s, []string{"--format", "json", "--tool", "album.add_track"}, &out, &errOut); code != 0 {
			t.Fatalf("album audit: exit %d, %s", code, errOut.String())
		}
		var listed struct {
			Runs []struct {
				Account, Tool, Outcome string
				InputsSHA256           string `json:"inputs_sha256"`
			} `json:"runs"`
		}
		if err := json.Unmarshal(out.Bytes(), &listed); err != nil {
			t.Fatalf("album audit --format json: %v\n%s", err, out.String())
		}
		if len(listed.Runs) != 1 || listed.Runs[0].Tool != "album.add_track" || len(listed.Runs[0].InputsSHA256) != 64 {
			t.Errorf("album audit --tool album.add_track: %s", out.String())
		}
		out.Reset()
		if code := listAudit(ctx, s, nil, &out, &errOut); code != 0 || !strings.Contains(out.String(), "album.publish") {
			t.Errorf("album audit: exit %d\n%s", code, out.String())
		}
		if code := listAudit(ctx, s, []string{"--limit", "0"}, io.Discard, io.Discard); code != 2 {
			t.Errorf("album audit --limit 0: exit %d, want 2", code)
		}
	})
}
