package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolapi/toolapi/audit"
	"github.com/toolapi/toolapi/idempotency"
)

// TestUploadRepeatSafe adds a track through /mcp with the Go SDK's client,
// twice with one idempotency key: the album gets one track and both calls
// answer alike; the tool's input schema offers the key; the audit trail
// names the person, the channel and the MCP client of each call.
func TestUploadRepeatSafe(t *testing.T) {
	s := newSQLiteStore(t)
	app, err := NewApp(s, t.TempDir(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if err := app.UseAuditTrail(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := app.UseIdempotencyKeys(context.Background()); err != nil {
		t.Fatal(err)
	}
	base := serveApp(t, app)
	token, err := s.IssueToken(context.Background(), "editor")
	if err != nil {
		t.Fatal(err)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "upload-agent", Version: "3.1"}, nil)
	cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{
		Endpoint: base + "/mcp", HTTPClient: &http.Client{Transport: bearer{token}}, MaxRetries: -1, DisableStandaloneSSE: true,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools.Tools {
		if tl.Name != "album__add_track" {
			continue
		}
		b, _ := json.Marshal(tl.InputSchema)
		var schema struct {
			Properties map[string]json.RawMessage
			Required   []string
		}
		json.Unmarshal(b, &schema)
		if _, ok := schema.Properties[idempotency.Input]; !ok {
			t.Errorf("album__add_track's input schema lacks %s: %s", idempotency.Input, b)
		}
		for _, r := range schema.Required {
			if r == idempotency.Input {
				t.Errorf("%s is required: %s", idempotency.Input, b)
			}
		}
	}

	album := mustAlbum(t, s, "Blue Hours")
	before, err := s.Tracks(context.Background(), album)
	if err != nil {
		t.Fatal(err)
	}
	add := func() string {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "album__add_track", Arguments: map[string]any{
			"album": fmt.Sprint(album.ID), "title": "Retried upload", idempotency.Input: "upload-7f3a"}})
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError {
			t.Fatalf("add_track: %s", contentText(res))
		}
		b, _ := json.Marshal(res.StructuredContent)
		return string(b)
	}
	first, again := add(), add()
	if first != again {
		t.Errorf("answers differ:\n%s\n%s", first, again)
	}
	after, err := s.Tracks(context.Background(), album)
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != len(before)+1 {
		t.Errorf("tracks: %d before, %d after two calls with one key; want one more", len(before), len(after))
	}

	recs, err := app.Trail.List(context.Background(), &audit.Filter{Tool: "album.add_track"})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 {
		t.Fatalf("records: %d, want 2 (the run and the repeat)", len(recs))
	}
	// Newest first: the repeat is marked as replayed, nothing ran for it.
	for i, want := range []audit.Outcome{audit.Replayed, audit.Succeeded} {
		if r := recs[i]; r.Account != "editor" || r.Channel != "mcp" || r.Client != "upload-agent/3.1" || r.Outcome != want {
			t.Errorf("record %d: %+v; want outcome %s", i, r, want)
		}
	}
	if b, err := app.Trail.Verify(context.Background()); err != nil || b != nil {
		t.Errorf("Verify = %v, %v", b, err)
	}
}

// TestUploadKeyInExplorer checks that the explorer's form of a write tool
// offers the idempotency key as an optional field, and that two runs of
// the form with one key add one track.
func TestUploadKeyInExplorer(t *testing.T) {
	s := newSQLiteStore(t)
	app, err := NewApp(s, t.TempDir(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if err := app.UseIdempotencyKeys(context.Background()); err != nil {
		t.Fatal(err)
	}
	base := serveApp(t, app)
	editor := newPerson(t)
	token, err := s.IssueToken(context.Background(), "editor")
	if err != nil {
		t.Fatal(err)
	}
	editor.signIn(base, "editor", token)
	_, page := editor.get(base + "/tools/album.add_track")
	if !strings.Contains(page, `name="in:`+idempotency.Input+`"`) {
		t.Fatalf("the form of album.add_track has no field %s:\n%s", idempotency.Input, page)
	}
	album := mustAlbum(t, s, "Blue Hours")
	before, _ := s.Tracks(context.Background(), album)
	for range 2 {
		editor.get(base + "/tools/album.add_track")
		if status, body := editor.post(base+"/tools/album.add_track", url.Values{"action": {"run"}, "once": {editor.once},
			"in:album": {"Blue Hours"}, "in:title": {"Sent twice"}, "in:" + idempotency.Input: {"form-1"}}); status != http.StatusOK {
			t.Fatalf("adding a track: %d\n%s", status, body)
		}
	}
	after, _ := s.Tracks(context.Background(), album)
	if len(after) != len(before)+1 {
		t.Errorf("tracks: %d before, %d after two runs of the form with one key; want one more", len(before), len(after))
	}
}
