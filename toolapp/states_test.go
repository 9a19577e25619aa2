package toolapp

import (
	"context"
	"database/sql"
	"errors"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // PostgreSQL, for the tests of the used states
	"github.com/modelcontextprotocol/go-sdk/mcp"
	_ "modernc.org/sqlite"

	"github.com/toolapi/toolapi/internal/testenv"
	"github.com/toolapi/toolapi/mcpserver"
	"github.com/toolapi/toolapi/tool"
)

// TestServeSharesUsedStates checks, on SQLite and PostgreSQL, that two
// serve processes without sessions on one database create the table of used request states on
// start and run a confirmed call once between them: the answer replayed
// on the other process is refused.
func TestServeSharesUsedStates(t *testing.T) {
	eachDB(t, testServeSharesUsedStates)
}

func testServeSharesUsedStates(t *testing.T, db *sql.DB, hasTable func(name string) bool) {
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
	if !hasTable(mcpserver.DefaultStateTable) {
		t.Errorf("no table %s: want it created on start", mcpserver.DefaultStateTable)
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
	if err == nil || !strings.Contains(err.Error(), "used by an earlier call") {
		t.Errorf("the answer replayed on the second process: %v, %v; want an error saying its state was used", res, err)
	}
	if n := ran.Load(); n != 1 {
		t.Errorf("the confirmed call ran %d times, want once", n)
	}
}

// eachDB runs test on a new SQLite database and, when
// TOOLAPI_TEST_POSTGRES holds a server's URL, on a new PostgreSQL schema
// (on CI a missing URL fails the test), with a function that reports
// whether the database holds a table.
func eachDB(t *testing.T, test func(t *testing.T, db *sql.DB, hasTable func(name string) bool)) {
	t.Run("sqlite", func(t *testing.T) {
		db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "app.db")+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		test(t, db, func(name string) bool {
			var n int
			err := db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?`, name).Scan(&n)
			return err == nil && n == 1
		})
	})
	t.Run("postgres", func(t *testing.T) {
		db, schema := testenv.PostgresSchema(t, "toolapp_")
		test(t, db, func(name string) bool {
			var n int
			err := db.QueryRow(`SELECT count(*) FROM information_schema.tables WHERE table_schema = $1 AND table_name = $2`, schema, name).Scan(&n)
			return err == nil && n == 1
		})
	})
}

// TestServeShutdownPendingQuestion checks that serve --grace sets the
// grace period, and that a shutdown with a confirmation asked and never
// answered does not wait for it: the call fails, its tool does not run,
// and serve returns well within a grace period of an hour.
func TestServeShutdownPendingQuestion(t *testing.T) {
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
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out lockedBuffer
	served := make(chan int, 1)
	go func() {
		served <- Run(ctx, a.open, []string{"serve", "--addr", "127.0.0.1:0", "--grace", "1h"}, &Options{Name: "notes", Stdout: &out, Stderr: &out})
	}()
	var base string
	for deadline := time.Now().Add(30 * time.Second); base == ""; time.Sleep(10 * time.Millisecond) {
		if _, rest, ok := strings.Cut(out.String(), " on http://"); ok {
			base = "http://" + strings.Fields(rest)[0]
		} else if time.Now().After(deadline) {
			t.Fatalf("serve did not start: %s", out.String())
		}
	}
	asked := make(chan struct{}, 1)
	testOver := make(chan struct{})
	c := mcp.NewClient(&mcp.Implementation{Name: "toolapp-test", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked <- struct{}{}
			select { // the person never answers
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-testOver:
				return &mcp.ElicitResult{Action: "decline"}, nil
			}
		},
	})
	cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{
		Endpoint: base + "/mcp", HTTPClient: &http.Client{Transport: bearer{token}}, MaxRetries: -1,
	}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"}) // a session, where the server itself holds the question (from 2026-07-28 on, the call returns it instead)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	// Should the test fail, the question ends before the client closes.
	t.Cleanup(func() { close(testOver) })
	called := make(chan error, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "notes.purge"})
		if err == nil && !res.IsError {
			err = errors.New("the call succeeded")
		} else {
			err = nil
		}
		called <- err
	}()
	select {
	case <-asked:
	case <-time.After(30 * time.Second):
		t.Fatal("the person was never asked")
	}
	cancel()
	select {
	case code := <-served:
		if code != 0 {
			t.Errorf("serve exited with status %d: %s", code, out.String())
		}
	case <-time.After(time.Minute):
		t.Fatal("serve waits for the unanswered question")
	}
	if err := <-called; err != nil {
		t.Errorf("the call whose confirmation was pending: %v, want a failure", err)
	}
	if n := ran.Load(); n != 0 {
		t.Errorf("the tool ran %d times without confirmation", n)
	}
}
