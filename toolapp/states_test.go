package toolapp

import (
	"context"
	"database/sql"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	_ "modernc.org/sqlite"

	"github.com/toolapi/toolapi/mcpserver"
	"github.com/toolapi/toolapi/tool"
)

// TestServeSharesUsedStates checks that two serve processes without
// sessions on one database create the table of used request states on
// start and run a confirmed call once between them: the answer replayed
// on the other process is refused.
func TestServeSharesUsedStates(t *testing.T) {
	a := newTestApp(t)
	var ran atomic.Int64
	err := a.reg.Add(&tool.Tool{
		ID: "notes.purge", Label: "Purge notes", Description: "Deletes every note.",
		Operation: tool.OpWrite, Permission: "read notes", Confirm: true,
		Handler: func(context.Context, *tool.Values) (*tool.Result, error) {
			ran.Add(1)
			return nil, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	token, err := a.accounts.IssueToken(context.Background(), "ada")
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "app.db")+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	key := []byte("a state key shared by both serve processes")
	withDB := func(ctx context.Context) (*App, error) {
		app, err := a.open(ctx)
		if err != nil {
			return nil, err
		}
		app.DB = db
		app.StateKey = func(context.Context) ([]byte, error) { return key, nil }
		return app, nil
	}
	serveOne := func() string {
		t.Helper()
		return startServeApp(t, withDB, &Options{Stateless: true})
	}
	one, two := serveOne(), serveOne()

	// The client answers by hand: the SDK's own loop would answer at once.
	manual := &mcp.ClientOptions{
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "decline"}, nil
		},
	}
	connectNew := func(base string) *mcp.ClientSession {
		t.Helper()
		c := mcp.NewClient(&mcp.Implementation{Name: "toolapp-test", Version: "1"}, manual)
		cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{
			Endpoint: base + "/mcp", HTTPClient: &http.Client{Transport: bearer{token}}, MaxRetries: -1, DisableStandaloneSSE: true,
		}, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	csOne, csTwo := connectNew(one), connectNew(two)
	var tables int
	if err := db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?`, mcpserver.DefaultStateTable).Scan(&tables); err != nil || tables != 1 {
		t.Errorf("table %s: %d found, %v; want it created on start", mcpserver.DefaultStateTable, tables, err)
	}
	asked, err := csOne.CallTool(t.Context(), &mcp.CallToolParams{Name: "notes.purge"})
	if err != nil || !asked.NeedsInput() {
		t.Fatalf("notes.purge: %v, %v; want a question", asked, err)
	}
	answer := &mcp.CallToolParams{Name: "notes.purge", RequestState: asked.RequestState, InputResponses: mcp.InputResponseMap{}}
	for q := range asked.InputRequests {
		answer.InputResponses[q] = &mcp.ElicitResult{Action: "accept"}
	}
	if res, err := csOne.CallTool(t.Context(), answer); err != nil || res.IsError {
		t.Fatalf("the accepted answer on the first process: %v, %v; want success", res, err)
	}
	res, err := csTwo.CallTool(t.Context(), answer)
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "used by an earlier call") {
		t.Errorf("the answer replayed on the second process: %+v, want a failure saying its state was used", res.Content)
	}
	if n := ran.Load(); n != 1 {
		t.Errorf("the confirmed call ran %d times, want once", n)
	}
}
