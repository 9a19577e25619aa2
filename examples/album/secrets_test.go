package main

import (
	"context"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestProtectOutOfBand walks album.protect as an assistant's person meets
// it on `album serve`: the assistant's MCP client calls it without the
// passphrase, the server sends the client the explorer's page (URL
// elicitation), the person signs in there and enters the passphrase, and
// the call goes on with it. The passphrase never appears in what the
// client receives, and the album then opens with it. A client without URL
// elicitation is given the link and calls again.
func TestProtectOutOfBand(t *testing.T) {
	db := filepath.Join(t.TempDir(), "album.db")
	base := startServe(t, db)
	store := mustOpen(t, db)
	token, err := store.IssueToken(context.Background(), "editor")
	if err != nil {
		t.Fatal(err)
	}
	night := mustAlbum(t, store, "Night Studies")
	const passphrase = "moonlit harbour 42"

	// The person's side: the page the client was sent, in a browser.
	enter := func(t *testing.T, page, passphrase string) {
		t.Helper()
		if !strings.HasPrefix(page, base+"/secrets/") {
			t.Fatalf("the page is at %q, want under %s/secrets/", page, base)
		}
		p := newPerson(t)
		if status, body := p.get(page); status != http.StatusOK || !strings.Contains(body, `name="next"`) {
			t.Fatalf("the page before signing in = %d, want the sign-in form:\n%s", status, body)
		}
		p.signIn(base, "editor", token)
		status, body := p.get(page)
		if status != http.StatusOK || !strings.Contains(body, "Secret inputs for Protect") || !strings.Contains(body, `type="password"`) {
			t.Fatalf("the page = %d:\n%s", status, body)
		}
		status, body = p.post(page, url.Values{"secret-passphrase": {passphrase}})
		if status != http.StatusOK || !strings.Contains(body, `id="secret-done"`) {
			t.Fatalf("entering the passphrase = %d:\n%s", status, body)
		}
	}

	pages := make(chan string, 1)
	hc := &http.Client{Transport: bearer{token}}
	c := mcp.NewClient(&mcp.Implementation{Name: "assistant", Version: "1"}, &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}},
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			if req.Params.Mode != "url" {
				return &mcp.ElicitResult{Action: "decline"}, nil
			}
			pages <- req.Params.URL // the client opens it for its person
			return &mcp.ElicitResult{Action: "accept"}, nil
		},
	})
	cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: hc, MaxRetries: -1},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	lt, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range lt.Tools {
		if tl.Name == "album__protect" {
			if s := (mustJSON(t, tl.InputSchema)); !strings.Contains(s, `"required":["album"]`) || !strings.Contains(s, "Leave this out") {
				t.Errorf("album__protect's input schema %s: want the passphrase left out", s)
			}
		}
	}

	type outcome struct {
		res *mcp.CallToolResult
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "album__protect", Arguments: map[string]any{"album": strconv.FormatInt(night.ID, 10)}})
		done <- outcome{res, err}
	}()
	enter(t, receive(t, pages, "the URL elicitation"), passphrase)
	o := receive(t, done, "the call")
	if o.err != nil || o.res.IsError || (mustJSON(t, o.res.StructuredContent)) != `{"replaced":false}` {
		t.Fatalf("album__protect = %s, %v", mustJSON(t, o.res), o.err)
	}
	if strings.Contains((mustJSON(t, o.res)), passphrase) {
		t.Fatal("the result repeats the passphrase")
	}
	for _, try := range []struct {
		phrase string
		want   bool
	}{{passphrase, true}, {"moonlit harbour 43", false}} {
		if ok, err := store.PassphraseMatches(t.Context(), night, try.phrase); err != nil || ok != try.want {
			t.Errorf("PassphraseMatches(%q) = %v, %v; want %v", try.phrase, ok, err, try.want)
		}
	}

	// A client that cannot open pages is given the link, and calls again.
	plain, err := connectMCP(t, base, token, false)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	// An album the editor may not change: refused before anyone is asked.
	winter := mustAlbum(t, store, "Winter Sketches")
	res, err := plain.CallTool(t.Context(), &mcp.CallToolParams{Name: "album__protect", Arguments: map[string]any{"album": strconv.FormatInt(winter.ID, 10)}})
	if err != nil {
		t.Fatal(err)
	}
	if refusal := mustJSON(t, res); !res.IsError || strings.Contains(refusal, "/secrets/") || !strings.Contains(refusal, "may not") {
		t.Fatalf("protecting another's album without the passphrase = %s, want a refusal and no page", refusal)
	}
	args := map[string]any{"album": strconv.FormatInt(night.ID, 10)}
	res, err = plain.CallTool(t.Context(), &mcp.CallToolParams{Name: "album__protect", Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	text := ""
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text += tc.Text
		}
	}
	i := strings.Index(text, base+"/secrets/")
	if !res.IsError || i < 0 {
		t.Fatalf("a call without the passphrase from a client without URL elicitation = %s, want the link", mustJSON(t, res))
	}
	enter(t, strings.TrimRight(strings.Fields(text[i:])[0], ".,"), "second passphrase")
	res, err = plain.CallTool(t.Context(), &mcp.CallToolParams{Name: "album__protect", Arguments: args})
	if err != nil || res.IsError || (mustJSON(t, res.StructuredContent)) != `{"replaced":true}` {
		t.Fatalf("the call again = %s, %v", mustJSON(t, res), err)
	}
	if ok, err := store.PassphraseMatches(t.Context(), night, "second passphrase"); err != nil || !ok {
		t.Errorf("the second passphrase does not open the album: %v, %v", ok, err)
	}
}

// receive returns the next value of ch, failing t after a minute.
func receive[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(time.Minute):
		t.Fatalf("no %s within a minute", what)
		panic("unreachable")
	}
}
