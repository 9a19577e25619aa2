package mcpserver_test

import (
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // PostgreSQL, for the stores' tests
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	_ "modernc.org/sqlite"

	"github.com/toolapi/toolapi/internal/testenv"
	"github.com/toolapi/toolapi/mcpserver"
	"github.com/toolapi/toolapi/tool"
)

// TestRequestState checks that a multi round-trip call takes an answer
// only with the request state of the question, signed by the server's key
// for the same tool, arguments and account, before it expires; any other
// answer or state is refused as invalid params without running the tool.
func TestRequestState(t *testing.T) {
	f := newFixture(t)
	preview := &tool.Tool{
		ID: "site.preview", Label: "Preview", Description: "Previews the site.",
		Operation: tool.OpWrite, Permission: "administer", Confirm: true,
		Inputs: []*tool.Definition{{Name: "note", Type: "string"}},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			f.mu.Lock()
			f.published++
			f.mu.Unlock()
			return nil, nil
		},
	}
	if err := f.reg.Add(preview); err != nil {
		t.Fatal(err)
	}
	key := []byte("an example key of thirty-two bytes")
	srv := mcpserver.New(f.reg, &mcpserver.Options{StateKey: key})
	var (
		clockMu sync.Mutex
		later   time.Duration // how far the server's clock is ahead
	)
	mcpserver.SetClock(srv, func() time.Time {
		clockMu.Lock()
		defer clockMu.Unlock()
		return time.Now().Add(later)
	})

	// The clients answer by hand: the SDK's own loop would answer at once.
	manual := &mcp.ClientOptions{
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			t.Error("the server sent an elicitation request")
			return &mcp.ElicitResult{Action: "decline"}, nil
		},
	}
	adminSession := connect(t, srv, admin, manual)
	otherAdmin := connect(t, srv, &tool.User{ID: "other-admin", Permissions: admin.Permissions}, manual)
	sameKey := connect(t, mcpserver.New(f.reg, &mcpserver.Options{StateKey: key}), admin, manual)
	otherKey := connect(t, mcpserver.New(f.reg, nil), admin, manual)

	spring := map[string]any{"note": "spring"}
	first := callTool(t, adminSession, "site.publish", spring)
	if !first.NeedsInput() || len(first.InputRequests) != 1 || first.RequestState == "" {
		t.Fatalf("the first call of site.publish: %s, want one question and a request state", mustJSON(t, first))
	}
	var question string
	for question = range first.InputRequests {
	}
	state := first.RequestState
	accept := mcp.InputResponseMap{question: &mcp.ElicitResult{Action: "accept"}}

	payload, mac, _ := strings.Cut(state, ".")
	decoded, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		t.Fatalf("request state %q: %v", state, err)
	}
	var fields map[string]any
	if err := json.Unmarshal(decoded, &fields); err != nil {
		t.Fatalf("request state %q: %v", state, err)
	}
	fields["answers"] = accept
	fields["pending"] = []string{}
	answered := base64.RawURLEncoding.EncodeToString(mustJSON(t, fields)) + "." + mac

	refused := []struct {
		name    string
		cs      *mcp.ClientSession
		tool    string
		args    any
		answers mcp.InputResponseMap
		state   string
		later   time.Duration
		want    string
	}{
		{"unsigned answers as state", adminSession, "site.publish", spring, nil,
			base64.RawURLEncoding.EncodeToString(mustJSON(t, accept)), 0, "request state"},
		{"answers added to the state", adminSession, "site.publish", spring, nil, answered, 0, "request state"},
		{"not a state", adminSession, "site.publish", spring, accept, "x", 0, "request state"},
		{"other arguments", adminSession, "site.publish", map[string]any{"note": "autumn"}, accept, state, 0, "request state"},
		{"no arguments", adminSession, "site.publish", nil, accept, state, 0, "request state"},
		{"other tool", adminSession, "site.preview", spring, accept, state, 0, "request state"},
		{"other account", otherAdmin, "site.publish", spring, accept, state, 0, "request state"},
		{"other key", otherKey, "site.publish", spring, accept, state, 0, "request state"},
		{"question not asked", adminSession, "site.publish", spring,
			mcp.InputResponseMap{question + "0": &mcp.ElicitResult{Action: "accept"}}, state, 0, "not asked"},
		{"expired", adminSession, "site.publish", spring, accept, state, 16 * time.Minute, "too late"},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			clockMu.Lock()
			later = tc.later
			clockMu.Unlock()
			res, err := tc.cs.CallTool(context.Background(), &mcp.CallToolParams{
				Name: tc.tool, Arguments: tc.args, InputResponses: tc.answers, RequestState: tc.state,
			})
			wantInvalidParams(t, res, err, tc.want)
			f.mu.Lock()
			defer f.mu.Unlock()
			if f.published != 0 {
				t.Fatalf("the tool ran")
			}
		})
	}

	// A confirmation is taken only with the state of its question: sent
	// without one, it is asked again and the tool does not run.
	t.Run("confirmation without a state", func(t *testing.T) {
		res, err := adminSession.CallTool(context.Background(), &mcp.CallToolParams{
			Name: "site.publish", Arguments: spring, InputResponses: accept,
		})
		if err != nil {
			t.Fatal(err)
		}
		if !res.NeedsInput() || res.InputRequests["confirm"] == nil || res.RequestState == "" {
			t.Errorf("result %s, want the confirmation asked again", mustJSON(t, res))
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.published != 0 {
			t.Fatalf("the tool ran")
		}
	})

	// askFresh returns a new request state of site.publish with spring,
	// and the answer accepting its question.
	askFresh := func(t *testing.T) (string, mcp.InputResponseMap) {
		t.Helper()
		clockMu.Lock()
		later = 0
		clockMu.Unlock()
		res := callTool(t, adminSession, "site.publish", spring)
		if !res.NeedsInput() || len(res.InputRequests) != 1 {
			t.Fatalf("site.publish: %s, want one question", mustJSON(t, res))
		}
		for q := range res.InputRequests {
			return res.RequestState, mcp.InputResponseMap{q: &mcp.ElicitResult{Action: "accept"}}
		}
		panic("unreachable")
	}
	ran := func() int {
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.published
	}

	accepted := []struct {
		name  string
		cs    *mcp.ClientSession
		args  any
		later time.Duration
	}{
		{"same server", adminSession, spring, 0},
		{"arguments encoded anew", adminSession, json.RawMessage(`{ "note" : "spring" }`), 0},
		{"another server with the same key", sameKey, spring, 0},
		{"just in time", adminSession, spring, 14 * time.Minute},
	}
	for i, tc := range accepted {
		t.Run(tc.name, func(t *testing.T) {
			state, accept := state, accept
			if i > 0 {
				state, accept = askFresh(t)
			}
			clockMu.Lock()
			later = tc.later
			clockMu.Unlock()
			res, err := tc.cs.CallTool(context.Background(), &mcp.CallToolParams{
				Name: "site.publish", Arguments: tc.args, InputResponses: accept, RequestState: state,
			})
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError || res.NeedsInput() {
				t.Errorf("result %s, want success", mustJSON(t, res))
			}
			if got := ran(); got != i+1 {
				t.Errorf("ran %d times in all, want %d", got, i+1)
			}
		})
	}

	// A state runs the tool once: replaying the call that used it, or
	// sending it with other answers, fails without running.
	t.Run("replayed", func(t *testing.T) {
		clockMu.Lock()
		later = 0
		clockMu.Unlock()
		before := ran()
		for range 3 {
			res, err := adminSession.CallTool(context.Background(), &mcp.CallToolParams{
				Name: "site.publish", Arguments: spring, InputResponses: accept, RequestState: state,
			})
			wantInvalidParams(t, res, err, "used by an earlier call")
		}
		if got := ran(); got != before {
			t.Errorf("replaying the call ran the tool %d more times", got-before)
		}
	})
}

// TestRequestStateSharedStore checks that processes sharing a store of used
// states run a state's tool once between them, and that a full store
// refuses states rather than forget used ones.
func TestRequestStateSharedStore(t *testing.T) {
	f := newFixture(t)
	key := []byte("an example key of thirty-two bytes")
	used := mcpserver.NewMemoryStateStore(2, 0)
	manual := &mcp.ClientOptions{
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "decline"}, nil
		},
	}
	one := connect(t, mcpserver.New(f.reg, &mcpserver.Options{StateKey: key, UsedStates: used}), admin, manual)
	two := connect(t, mcpserver.New(f.reg, &mcpserver.Options{StateKey: key, UsedStates: used}), admin, manual)
	args := map[string]any{"note": "spring"}

	answer := func(cs *mcp.ClientSession, first *mcp.CallToolResult) *mcp.CallToolResult {
		t.Helper()
		accept := mcp.InputResponseMap{}
		for q := range first.InputRequests {
			accept[q] = &mcp.ElicitResult{Action: "accept"}
		}
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{
			Name: "site.publish", Arguments: args, InputResponses: accept, RequestState: first.RequestState,
		})
		if err != nil {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}
		}
		return res
	}
	first := callTool(t, one, "site.publish", args)
	if res := answer(one, first); res.IsError {
		t.Fatalf("answered on the first server: %s, want success", mustJSON(t, res))
	}
	res, err := two.CallTool(context.Background(), &mcp.CallToolParams{
		Name: "site.publish", Arguments: args, InputResponses: mcp.InputResponseMap{"confirm": &mcp.ElicitResult{Action: "accept"}}, RequestState: first.RequestState,
	})
	wantInvalidParams(t, res, err, "used by an earlier call")
	second := callTool(t, two, "site.publish", args)
	if res := answer(two, second); res.IsError {
		t.Fatalf("a second state: %s, want success", mustJSON(t, res))
	}
	// Both unexpired states fill the store: a third is refused.
	third := callTool(t, one, "site.publish", args)
	if res := answer(one, third); !res.IsError || !strings.Contains(texts(res)[0], "did not run") {
		t.Errorf("a state beyond the store's size: %s, want a failure", mustJSON(t, res))
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.published != 2 {
		t.Errorf("ran %d times, want 2", f.published)
	}
}

// TestRequestStateAccountShare checks that an account sending request
// states back without answers fills its own share of the store of used
// states only: its next call with a state fails saying so, while another
// account's confirmation runs.
func TestRequestStateAccountShare(t *testing.T) {
	for _, store := range []string{"memory", "sqlite"} {
		t.Run(store, func(t *testing.T) {
			f := newFixture(t)
			var used mcpserver.StateStore = mcpserver.NewMemoryStateStore(0, 5)
			if store == "sqlite" {
				db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "states.db"))
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { db.Close() })
				if used, err = mcpserver.NewSQLStateStore(context.Background(), db, "", 5); err != nil {
					t.Fatal(err)
				}
			}
			srv := mcpserver.New(f.reg, &mcpserver.Options{UsedStates: used})
			manual := &mcp.ClientOptions{
				MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
				ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					return &mcp.ElicitResult{Action: "decline"}, nil
				},
			}
			flooder := connect(t, srv, admin, manual)
			other := connect(t, srv, &tool.User{ID: "other-admin", Permissions: admin.Permissions}, manual)
			args := map[string]any{"note": "spring"}

			// Each state sent back without answers is used and answered
			// with a fresh one: five fill the share.
			res := callTool(t, flooder, "site.publish", args)
			for i := range 5 {
				next, err := flooder.CallTool(context.Background(), &mcp.CallToolParams{Name: "site.publish", Arguments: args, RequestState: res.RequestState})
				if err != nil {
					t.Fatal(err)
				}
				if !next.NeedsInput() {
					t.Fatalf("state %d sent back without answers: %s, want the question again", i+1, mustJSON(t, next))
				}
				res = next
			}
			accept := mcp.InputResponseMap{}
			for q := range res.InputRequests {
				accept[q] = &mcp.ElicitResult{Action: "accept"}
			}
			refused, err := flooder.CallTool(context.Background(), &mcp.CallToolParams{Name: "site.publish", Arguments: args, InputResponses: accept, RequestState: res.RequestState})
			if err != nil {
				t.Fatal(err)
			}
			if !refused.IsError || !strings.Contains(texts(refused)[0], "too many questions open") {
				t.Errorf("the flooding account's answer: %s, want a failure saying it has too many questions open", mustJSON(t, refused))
			}

			first := callTool(t, other, "site.publish", args)
			accept = mcp.InputResponseMap{}
			for q := range first.InputRequests {
				accept[q] = &mcp.ElicitResult{Action: "accept"}
			}
			ok, err := other.CallTool(context.Background(), &mcp.CallToolParams{Name: "site.publish", Arguments: args, InputResponses: accept, RequestState: first.RequestState})
			if err != nil {
				t.Fatal(err)
			}
			if ok.IsError || ok.NeedsInput() {
				t.Errorf("another account's confirmed call: %s, want success", mustJSON(t, ok))
			}
			f.mu.Lock()
			defer f.mu.Unlock()
			if f.published != 1 {
				t.Errorf("ran %d times, want once (the other account's)", f.published)
			}
		})
	}
}

// eachDB runs test on a new SQLite database and, when TOOLAPI_TEST_POSTGRES
// holds a server's URL, on a new PostgreSQL schema (on CI a missing URL
// fails the test).
func eachDB(t *testing.T, test func(t *testing.T, db *sql.DB)) {
	t.Run("sqlite", func(t *testing.T) {
		db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "states.db")+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		test(t, db)
	})
	t.Run("postgres", func(t *testing.T) {
		db, _ := testenv.PostgresSchema(t, "mcpstates_")
		test(t, db)
	})
}

// TestSQLStateStore checks, on SQLite and PostgreSQL, that a state is
// used once through a table shared by two stores, that an account's share
// is its own, and that expired states are deleted and free the share.
func TestSQLStateStore(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sql.DB) {
		ctx := context.Background()
		if _, err := mcpserver.NewSQLStateStore(ctx, db, "bad name", 0); err == nil {
			t.Error("a table name with a space was accepted")
		}
		one, err := mcpserver.NewSQLStateStore(ctx, db, "", 3)
		if err != nil {
			t.Fatal(err)
		}
		two, err := mcpserver.NewSQLStateStore(ctx, db, "", 3)
		if err != nil {
			t.Fatal(err)
		}
		expires := time.Now().Add(time.Minute)
		for i, tc := range []struct {
			store   *mcpserver.SQLStateStore
			account string
			nonce   string
			fresh   bool
			err     error
		}{
			{one, "ann", "a", true, nil}, {one, "ann", "a", false, nil}, {two, "ann", "a", false, nil},
			{two, "ann", "b", true, nil}, {one, "ann", "c", true, nil},
			{two, "ann", "d", false, mcpserver.ErrTooManyStates}, // ann's share of 3 is full
			{one, "ann", "b", false, nil},                        // a replay is still told as one
			{one, "bob", "e", true, nil},                         // bob's share is his own
		} {
			fresh, err := tc.store.Use(ctx, tc.account, tc.nonce, expires)
			if fresh != tc.fresh || !errors.Is(err, tc.err) || (tc.err == nil && err != nil) {
				t.Errorf("use %d of %q by %s: fresh %v, %v; want %v, %v", i, tc.nonce, tc.account, fresh, err, tc.fresh, tc.err)
			}
		}
		for i := range 1000 {
			if _, err := one.Use(ctx, "carl", fmt.Sprint("old", i), time.Now().Add(-time.Minute)); err != nil && !errors.Is(err, mcpserver.ErrTooManyStates) {
				t.Fatal(err)
			}
		}
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM mcp_used_states`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 10 {
			t.Errorf("%d states kept, want the expired ones deleted", n)
		}
	})
}

// TestMemoryStateStoreShares checks that a MemoryStateStore keeps a share
// per account, that expired states free it, and that a replay is told as
// one even when the share is full.
func TestMemoryStateStoreShares(t *testing.T) {
	ctx := context.Background()
	store := mcpserver.NewMemoryStateStore(0, 2)
	past, future := time.Now().Add(-time.Minute), time.Now().Add(time.Minute)
	for i, tc := range []struct {
		account, nonce string
		expires        time.Time
		fresh          bool
		err            error
	}{
		{"ann", "a", past, true, nil},
		{"ann", "b", past, true, nil},
		{"ann", "c", future, true, nil}, // the share is full of expired states: they go
		{"ann", "d", future, true, nil},
		{"ann", "e", future, false, mcpserver.ErrTooManyStates},
		{"ann", "d", future, false, nil}, // a replay
		{"bob", "f", future, true, nil},  // bob's share is his own
	} {
		fresh, err := store.Use(ctx, tc.account, tc.nonce, tc.expires)
		if fresh != tc.fresh || !errors.Is(err, tc.err) || (tc.err == nil && err != nil) {
			t.Errorf("use %d of %q by %s: fresh %v, %v; want %v, %v", i, tc.nonce, tc.account, fresh, err, tc.fresh, tc.err)
		}
	}
}

// wantInvalidParams checks that a call was refused with a JSON-RPC invalid
// params error saying the tool did not run, and why.
func wantInvalidParams(t *testing.T, res *mcp.CallToolResult, err error, why string) {
	t.Helper()
	var jerr *jsonrpc.Error
	if !errors.As(err, &jerr) {
		t.Fatalf("result %s, error %v; want a JSON-RPC error saying %q", mustJSON(t, res), err, why)
	}
	if jerr.Code != jsonrpc.CodeInvalidParams || !strings.Contains(jerr.Message, "did not run") || !strings.Contains(jerr.Message, why) {
		t.Errorf("error %d %q, want invalid params (%d) saying %q", jerr.Code, jerr.Message, jsonrpc.CodeInvalidParams, why)
	}
}
