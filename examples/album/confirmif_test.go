package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolapi/toolapi/tool"
)

// questions is a Confirmer that says yes and keeps the questions.
type questions struct {
	mu   sync.Mutex
	list []string
}

func (q *questions) Confirm(_ context.Context, _ *tool.Tool, question string) (bool, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.list = append(q.list, question)
	return true, nil
}

// emptyDraft adds an unpublished album without tracks owned by owner.
func emptyDraft(t *testing.T, s *Store, owner, title string) *Album {
	t.Helper()
	if _, err := s.DB().Exec(`INSERT INTO albums (owner_id, title, year, published) VALUES ($1, $2, $3, $4)`,
		mustUser(t, s, owner).ID, title, 2026, false); err != nil {
		t.Fatal(err)
	}
	return mustAlbum(t, s, title)
}

// album.delete asks a person only for an album that is published or has
// tracks, with the reason in the question; an empty draft goes at once,
// with no one there to ask.
func TestDeleteConfirmsOnlyFullAlbums(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		app, _ := newTestApp(t, s)
		acct := tool.WithAccount(context.Background(), mustUser(t, s, "editor"))
		draft := emptyDraft(t, s, "editor", "Sketchbook")
		if res, _ := app.Registry.Run(acct, "album.delete", albumArg(fmt.Sprint(draft.ID))); !res.Success {
			t.Fatalf("deleting an empty draft with no one to ask: %+v", res)
		}
		if hasAlbum(t, s, "Sketchbook") {
			t.Error("the empty draft is still there")
		}
		blue := mustAlbum(t, s, "Blue Hours")
		if res, _ := app.Registry.Run(acct, "album.delete", albumArg(fmt.Sprint(blue.ID))); res.Failure != tool.FailureAccess {
			t.Errorf("deleting a published album with no one to ask: %+v", res)
		}
		night := mustAlbum(t, s, "Night Studies")
		q := &questions{}
		if res, _ := app.Registry.Run(tool.WithConfirmer(acct, q), "album.delete", albumArg(fmt.Sprint(night.ID))); !res.Success {
			t.Fatalf("deleting a draft with tracks, confirmed: %+v", res)
		}
		want := fmt.Sprintf(`Run Delete (album.delete) with {"album":"%d"}? Reason: "Night Studies" has 2 tracks.`, night.ID)
		if len(q.list) != 1 || q.list[0] != want {
			t.Errorf("asked %q, want %q", q.list, want)
		}
	})
}

// Through MCP the client's person sees the reason, and an empty draft is
// deleted without a question.
func TestDeleteConfirmIfOverMCP(t *testing.T) {
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
	var mu sync.Mutex
	var asked []string
	c := mcp.NewClient(&mcp.Implementation{Name: "album-delete", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			mu.Lock()
			defer mu.Unlock()
			asked = append(asked, r.Params.Message)
			return &mcp.ElicitResult{Action: "accept"}, nil
		},
	})
	cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{
		Endpoint: base + "/mcp", HTTPClient: &http.Client{Transport: bearer{token}}, MaxRetries: -1, DisableStandaloneSSE: true,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	draft := emptyDraft(t, s, "editor", "Sketchbook")
	blue := mustAlbum(t, s, "Blue Hours")
	for _, a := range []*Album{draft, blue} {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "album__delete", Arguments: map[string]any{"album": fmt.Sprint(a.ID)}})
		if err != nil || res.IsError {
			t.Fatalf("deleting %q: %v %s", a.Title, err, contentText(res))
		}
	}
	want := fmt.Sprintf(`Run Delete (album.delete) with {"album":"%d"}? Reason: "Blue Hours" is published and has 3 tracks.`, blue.ID)
	if len(asked) != 1 || asked[0] != want {
		t.Errorf("asked %q, want only %q", asked, want)
	}
	if hasAlbum(t, s, "Sketchbook") || hasAlbum(t, s, "Blue Hours") {
		t.Error("an album is still there")
	}
}
