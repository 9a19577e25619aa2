package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var summaryLine = regexp.MustCompile(`<li><a href="#[^"]*">([^<]*)</a></li>`)

// TestExplorerOnePass submits album.add_track's form with an album that
// does not exist, an empty title and a length that is no duration: one
// answer lists all three in plain words, suggests albums for a label
// typed in part, and adds no track.
func TestExplorerOnePass(t *testing.T) {
	s := newSQLiteStore(t)
	app, err := NewApp(s, t.TempDir(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	base := serveApp(t, app)
	token, err := s.IssueToken(context.Background(), "editor")
	if err != nil {
		t.Fatal(err)
	}
	p := newPerson(t)
	p.signIn(base, "editor", token)
	for _, c := range []struct {
		album, title, length string
		want                 []string
	}{
		{"No Such Album", "", "abc", []string{
			"album: no album has the label or ID “No Such Album”: type part of its label and choose Find by label",
			"title: is required",
			"length: must be a duration such as 1h30m, 90s or PT1H30M",
		}},
		{"Blue", "So What", "", []string{"album: no album is called “Blue”; did you mean “Blue Hours”?"}},
	} {
		p.get(base + "/tools/album.add_track")
		status, body := p.post(base+"/tools/album.add_track", url.Values{"action": {"run"}, "once": {p.once},
			"in:album": {c.album}, "in:title": {c.title}, "in:length": {c.length}})
		var got []string
		for _, m := range summaryLine.FindAllStringSubmatch(body, -1) {
			got = append(got, m[1])
		}
		if status != http.StatusUnprocessableEntity {
			t.Errorf("album %q: status %d, want 422", c.album, status)
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("album %q: the error summary (-want +got):\n%s", c.album, diff)
		}
	}
	tracks, err := s.Tracks(context.Background(), mustAlbum(t, s, "Blue Hours"))
	if err != nil || len(tracks) != 3 {
		t.Errorf("Blue Hours has %d tracks (%v), want the 3 seeded", len(tracks), err)
	}
}

// TestExplorerAuditTrail checks that admins see the album's audit trail
// in the explorer, with a run made there, and editors do not.
func TestExplorerAuditTrail(t *testing.T) {
	s := newSQLiteStore(t)
	app, err := NewApp(s, t.TempDir(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if err := app.UseAuditTrail(context.Background()); err != nil {
		t.Fatal(err)
	}
	base := serveApp(t, app)
	editor := newPerson(t)
	token, err := s.IssueToken(context.Background(), "editor")
	if err != nil {
		t.Fatal(err)
	}
	editor.signIn(base, "editor", token)
	editor.get(base + "/tools/album.add_track")
	if status, body := editor.post(base+"/tools/album.add_track", url.Values{"action": {"run"}, "once": {editor.once},
		"in:album": {"Blue Hours"}, "in:title": {"Audited"}}); status != http.StatusOK {
		t.Fatalf("adding a track: %d\n%s", status, body)
	}
	if status, _ := editor.get(base + "/audit"); status != http.StatusNotFound {
		t.Errorf("GET /audit as editor: %d, want 404", status)
	}

	admin := newPerson(t)
	token, err = s.IssueToken(context.Background(), "admin")
	if err != nil {
		t.Fatal(err)
	}
	admin.signIn(base, "admin", token)
	status, body := admin.get(base + "/audit")
	if status != http.StatusOK || !regexp.MustCompile(`<td data-label="Account">editor</td>\s*<td data-label="Agent"><span class="muted">none</span></td>\s*<td data-label="Via">explorer</td>\s*<td data-label="Tool"><code>album.add_track</code></td>\s*<td data-label="Outcome">✓ succeeded</td>`).MatchString(body) {
		t.Errorf("GET /audit as admin: %d, no successful album.add_track by editor:\n%s", status, body)
	}
}
