package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolapi/toolapi/audit"
)

// albumRows returns how many rows of each table belong to album a.
func albumRows(t *testing.T, s *Store, a *Album) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, q := range []struct{ table, col string }{
		{"albums", "id"}, {"tracks", "album_id"}, {"images", "album_id"}, {"notifications", "album_id"},
	} {
		var n int
		if err := s.DB().QueryRow(`SELECT COUNT(*) FROM `+q.table+` WHERE `+q.col+` = $1`, a.ID).Scan(&n); err != nil {
			t.Fatal(err)
		}
		out[q.table] = n
	}
	return out
}

// hasAlbum reports whether an album has the given title.
func hasAlbum(t *testing.T, s *Store, title string) bool {
	t.Helper()
	a, err := s.AlbumByTitle(context.Background(), title)
	if err != nil {
		t.Fatal(err)
	}
	return a != nil
}

// album.delete deletes an album with its tracks, images and notifications
// in one transaction: a failure at its last step deletes nothing.
func TestDeleteAlbum(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		app, logs := newTestApp(t, s)
		harbour := mustAlbum(t, s, "Harbour Lights") // has an image
		blue := mustAlbum(t, s, "Blue Hours")
		if res := runAs(t, app, "editor", "album.publish", albumArg(fmt.Sprint(mustAlbum(t, s, "Night Studies").ID))); !res.Success {
			t.Fatalf("publish: %s", res.Message)
		}
		before := albumRows(t, s, harbour)
		if before["images"] == 0 || before["tracks"] == 0 {
			t.Fatalf("the seed changed: Harbour Lights has %v", before)
		}
		otherBefore := counts(t, s)

		s.beforeCommit = func(context.Context) error { return errors.New("disk full") }
		res := runAs(t, app, "admin", "album.delete", albumArg(fmt.Sprint(harbour.ID)))
		s.beforeCommit = nil
		if res.Success || strings.Contains(res.Message, "disk full") {
			t.Errorf("a delete failing at commit: %+v", res)
		}
		if got := albumRows(t, s, harbour); fmt.Sprint(got) != fmt.Sprint(before) {
			t.Errorf("a failed delete left %v of %v", got, before)
		}

		res = runAs(t, app, "admin", "album.delete", albumArg(fmt.Sprint(harbour.ID)))
		if !res.Success || fmt.Sprint(res.Outputs["track_count"]) != fmt.Sprint(before["tracks"]) {
			t.Fatalf("delete: %+v; log:\n%s", res, logs)
		}
		for table, n := range albumRows(t, s, harbour) {
			if n != 0 {
				t.Errorf("%d rows of %s are left of the deleted album", n, table)
			}
		}
		after := counts(t, s)
		for table, n := range otherBefore {
			if want := n - before[table]; table != "users" && table != "config" && after[table] != want {
				t.Errorf("%s: %d rows after the delete, want %d", table, after[table], want)
			}
		}
		if got := albumRows(t, s, blue); got["albums"] != 1 || got["tracks"] == 0 {
			t.Errorf("another album changed: %v", got)
		}
		// Deleted already: the album input says so.
		if res := runAs(t, app, "admin", "album.delete", albumArg(fmt.Sprint(harbour.ID))); res.Success || res.Failure != "input" {
			t.Errorf("deleting it again: %+v", res)
		}
	})
}

// On the command line album.delete asks first: "no" deletes nothing,
// --yes deletes.
func TestDeleteAlbumCLI(t *testing.T) {
	db := filepath.Join(t.TempDir(), "album.db")
	s := mustOpen(t, db)
	id := fmt.Sprint(mustAlbum(t, s, "Blue Hours").ID)
	cli := func(stdin string, args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := run(context.Background(), append([]string{"--db", db, "--exports", t.TempDir(), "tool", "run", "album.delete", "--user", "editor", "--input", "album=" + id}, args...),
			strings.NewReader(stdin), &out, &errOut)
		return code, out.String(), errOut.String()
	}
	code, out, errOut := cli("no\n")
	if code == 0 || !strings.Contains(errOut, "Delete") {
		t.Errorf("answering no: exit %d, stdout %q, stderr %q; want a question and a failure", code, out, errOut)
	}
	if !hasAlbum(t, s, "Blue Hours") {
		t.Fatal("the album is gone after answering no")
	}
	code, out, errOut = cli("", "--yes")
	if code != 0 {
		t.Fatalf("--yes: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if hasAlbum(t, s, "Blue Hours") {
		t.Error("the album is still there after --yes")
	}
}

// In the explorer the form of album.delete runs only with its box ticked.
func TestDeleteAlbumExplorer(t *testing.T) {
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
	id := fmt.Sprint(mustAlbum(t, s, "Blue Hours").ID)
	p.get(base + "/tools/album.delete")
	status, body := p.post(base+"/tools/album.delete", url.Values{"action": {"run"}, "once": {p.once}, "in:album": {id}})
	// The form asks with the reason album.delete's own check gives.
	if status != http.StatusUnprocessableEntity || !strings.Contains(body, "This run needs your confirmation:") ||
		!strings.Contains(body, "is published and has 3 tracks. Tick the box to confirm") {
		t.Errorf("without the box: %d; want 422 asking to tick it, with the reason", status)
	}
	if !hasAlbum(t, s, "Blue Hours") {
		t.Fatal("the album is gone without the box ticked")
	}
	status, body = p.post(base+"/tools/album.delete", url.Values{"action": {"run"}, "once": {p.once}, "in:album": {id}, "confirm": {"yes"}})
	if status != http.StatusOK || !strings.Contains(body, "Delete completed.") {
		t.Errorf("with the box: %d; want the run's page", status)
	}
	if hasAlbum(t, s, "Blue Hours") {
		t.Error("the album is still there")
	}
}

// Through MCP without sessions album.delete asks the client's person: the
// run ends with the question, recorded in the audit trail as asked (not
// as a refusal), and the SDK's client runs it again with the answer. A
// declined question deletes nothing.
func TestAskedOutcome(t *testing.T) {
	s := newSQLiteStore(t)
	app, err := NewApp(s, t.TempDir(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if err := app.UseAuditTrail(context.Background()); err != nil {
		t.Fatal(err)
	}
	app.Stateless = true
	base := serveApp(t, app)
	token, err := s.IssueToken(context.Background(), "editor")
	if err != nil {
		t.Fatal(err)
	}
	var answer atomic.Value
	var asked atomic.Int32
	c := mcp.NewClient(&mcp.Implementation{Name: "album-delete", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked.Add(1)
			return &mcp.ElicitResult{Action: answer.Load().(string)}, nil
		},
	})
	cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{
		Endpoint: base + "/mcp", HTTPClient: &http.Client{Transport: bearer{token}}, MaxRetries: -1, DisableStandaloneSSE: true,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	del := func(title string) *mcp.CallToolResult {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "album__delete", Arguments: map[string]any{"album": fmt.Sprint(mustAlbum(t, s, title).ID)}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}

	answer.Store("decline")
	if res := del("Blue Hours"); !res.IsError {
		t.Errorf("declined: %s; want a failure", contentText(res))
	}
	if !hasAlbum(t, s, "Blue Hours") {
		t.Fatal("declined, yet the album is gone")
	}
	answer.Store("accept")
	if res := del("Night Studies"); res.IsError {
		t.Fatalf("accepted: %s", contentText(res))
	}
	if hasAlbum(t, s, "Night Studies") {
		t.Error("accepted, yet the album is still there")
	}
	if asked.Load() != 2 {
		t.Errorf("the person was asked %d times, want 2", asked.Load())
	}
	recs, err := app.Trail.List(context.Background(), &audit.Filter{Tool: "album.delete"})
	if err != nil {
		t.Fatal(err)
	}
	var outcomes []string
	for i := len(recs) - 1; i >= 0; i-- {
		r := recs[i]
		outcomes = append(outcomes, string(r.Outcome)+"/"+string(r.Failure))
		if r.InputsSHA256 == "" {
			t.Errorf("record %+v has no inputs hash", r)
		}
	}
	// Each call: the question, then the run with the answer.
	want := "asked/ failure/access asked/ success/"
	if got := strings.Join(outcomes, " "); got != want {
		t.Errorf("the trail of album.delete, oldest first: %s; want %s", got, want)
	}
}
