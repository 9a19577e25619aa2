package idempotency_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/toolapi/toolapi/idempotency"
	"github.com/toolapi/toolapi/internal/testenv"
	"github.com/toolapi/toolapi/tool"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// databases returns, by name, functions opening a new SQLite database and
// a new PostgreSQL schema.
func databases() map[string]func(t testing.TB) *sql.DB {
	return map[string]func(t testing.TB) *sql.DB{
		"sqlite": func(t testing.TB) *sql.DB {
			db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "keys.db")+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			return db
		},
		"postgres": func(t testing.TB) *sql.DB {
			db, _ := testenv.PostgresSchema(t, "idem")
			return db
		},
	}
}

func newStore(t testing.TB, db *sql.DB) *idempotency.SQLStore {
	s, err := idempotency.NewSQLStore(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s
}

// fixture is a registry whose write tool "shop.order" inserts a row in
// the database's table orders and answers its number.
type fixture struct {
	reg   *tool.Registry
	db    *sql.DB
	ran   atomic.Int64
	gate  chan struct{} // when set, each run waits for it
	clock atomic.Pointer[time.Time]
}

func newFixture(t testing.TB, db *sql.DB, opts *idempotency.Options) *fixture {
	f := &fixture{db: db, reg: tool.NewRegistry(&tool.Options{Logger: quiet, Adjust: idempotency.AddInput})}
	if _, err := db.Exec(`CREATE TABLE orders (n BIGINT NOT NULL, item TEXT NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	order := &tool.Tool{
		ID: "shop.order", Label: "Order", Description: "Orders an item.", Operation: tool.OpWrite, Permission: "shop",
		Inputs: []*tool.Definition{
			{Name: "item", Type: "string", Required: true},
			{Name: "card", Type: "string", Sensitive: true},
		},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			if f.gate != nil {
				<-f.gate
			}
			if in.String("item") == "nothing" {
				return nil, tool.InputErrorf("item", "there is nothing to order")
			}
			n := f.ran.Add(1)
			if _, err := f.db.ExecContext(ctx, `INSERT INTO orders (n, item) VALUES ($1, $2)`, n, in.String("item")); err != nil {
				return nil, err
			}
			return tool.Succeeded(fmt.Sprintf("Order %d placed.", n), map[string]any{"order": n, "item": in.String("item")}), nil
		},
	}
	own := &tool.Tool{
		ID: "shop.own", Label: "Own", Description: "Has its own key.", Operation: tool.OpWrite, Permission: "shop",
		Inputs:  []*tool.Definition{{Name: idempotency.Input, Type: "integer"}},
		Handler: func(context.Context, *tool.Values) (*tool.Result, error) { return nil, nil },
	}
	look := &tool.Tool{
		ID: "shop.look", Label: "Look", Description: "Reads.", Operation: tool.OpRead, Permission: "shop",
		Handler: func(context.Context, *tool.Values) (*tool.Result, error) { return nil, nil },
	}
	if err := f.reg.Add(order, own, look); err != nil {
		t.Fatal(err)
	}
	var o idempotency.Options
	if opts != nil {
		o = *opts
	}
	o.Logger = quiet
	if o.Now == nil {
		now := time.Now()
		f.clock.Store(&now)
		o.Now = func() time.Time { return *f.clock.Load() }
	}
	f.reg.Use(idempotency.Middleware(newStore(t, db), &o))
	return f
}

func (f *fixture) advance(d time.Duration) {
	now := f.clock.Load().Add(d)
	f.clock.Store(&now)
}

var alice = &tool.User{ID: "alice", Permissions: []string{"shop"}}

func (f *fixture) run(t testing.TB, acct tool.Account, args string) *tool.Result {
	t.Helper()
	r, err := f.reg.RunJSON(tool.WithAccount(context.Background(), acct), "shop.order", []byte(args))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func (f *fixture) orders(t testing.TB) int {
	t.Helper()
	var n int
	if err := f.db.QueryRow(`SELECT count(*) FROM orders`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func answer(t testing.TB, r *tool.Result) string {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestInputAdded checks that write tools get the optional key input, last,
// and that a tool with an input of that name and a read tool do not.
func TestInputAdded(t *testing.T) {
	f := newFixture(t, databases()["sqlite"](t), nil)
	order, _ := f.reg.Tool("shop.order")
	if n := len(order.Inputs); n != 3 || order.Inputs[2].Name != idempotency.Input || order.Inputs[2].Required || !idempotency.Keyed(order) {
		t.Errorf("shop.order's inputs: %d, last %+v", n, order.Inputs[n-1])
	}
	own, _ := f.reg.Tool("shop.own")
	if len(own.Inputs) != 1 || own.Inputs[0].Type != "integer" || idempotency.Keyed(own) {
		t.Errorf("shop.own's own input was replaced or keyed: %+v", own.Inputs[0])
	}
	look, _ := f.reg.Tool("shop.look")
	if len(look.Inputs) != 0 {
		t.Errorf("a read tool got a key: %+v", look.Inputs)
	}
}

// TestRepeat checks, on SQLite and PostgreSQL, that a repeat with a key
// answers the first run's result without running, that a key is per
// account, that other inputs under one key are an input failure, and
// that runs without a key each run.
func TestRepeat(t *testing.T) {
	for name, open := range databases() {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, open(t), nil)
			first := f.run(t, alice, `{"item":"tea","card":"4111","idempotency_key":"k-1"}`)
			again := f.run(t, alice, `{"item":"tea","card":"4111","idempotency_key":"k-1"}`)
			if !first.Success || answer(t, first) != answer(t, again) {
				t.Fatalf("repeat: first %s, again %s", answer(t, first), answer(t, again))
			}
			if n := f.orders(t); n != 1 {
				t.Fatalf("orders after a repeat: %d, want 1", n)
			}
			// Another account's key of the same name is its own.
			if r := f.run(t, &tool.User{ID: "bob", Permissions: []string{"shop"}}, `{"item":"tea","card":"4111","idempotency_key":"k-1"}`); !r.Success || f.orders(t) != 2 {
				t.Fatalf("bob's k-1: %s, orders %d", answer(t, r), f.orders(t))
			}
			// Other inputs, or another card (a sensitive input), under one key.
			for _, args := range []string{`{"item":"coffee","card":"4111","idempotency_key":"k-1"}`, `{"item":"tea","card":"5500","idempotency_key":"k-1"}`} {
				r := f.run(t, alice, args)
				if r.Failure != tool.FailureInput || len(r.Violations) != 1 || r.Violations[0].Path != idempotency.Input || r.Violations[0].Rule != idempotency.RuleKeyReused {
					t.Errorf("%s: %s; want the violation %s of %s", args, answer(t, r), idempotency.RuleKeyReused, idempotency.Input)
				}
			}
			// Without a key every run runs.
			f.run(t, alice, `{"item":"tea"}`)
			f.run(t, alice, `{"item":"tea"}`)
			if n := f.orders(t); n != 4 {
				t.Fatalf("orders: %d, want 4", n)
			}
			var stored string
			if err := f.db.QueryRow(`SELECT request_sha256 || coalesce(result, '') FROM idempotency_keys WHERE idem_key = 'k-1' AND account = 'alice'`).Scan(&stored); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(stored, "4111") {
				t.Errorf("the sensitive input is kept: %s", stored)
			}
		})
	}
}

// TestBadKeys checks the limits of a key: 1 to 200 visible ASCII
// characters, each broken rule a violation of the key's input.
func TestBadKeys(t *testing.T) {
	f := newFixture(t, databases()["sqlite"](t), nil)
	for _, tc := range []struct{ key, rule string }{
		{strings.Repeat("k", 201), tool.RuleMaxLength},
		{"", tool.RuleMinLength},
		{"two words", tool.RulePattern},
		{"naïve", tool.RulePattern},
	} {
		b, _ := json.Marshal(map[string]any{"item": "tea", idempotency.Input: tc.key})
		r := f.run(t, alice, string(b))
		if r.Failure != tool.FailureInput || len(r.Violations) == 0 || r.Violations[0].Path != idempotency.Input || r.Violations[0].Rule != tc.rule {
			t.Errorf("key %q: %s; want the violation %s of %s", tc.key, answer(t, r), tc.rule, idempotency.Input)
		}
	}
	if n := f.orders(t); n != 0 {
		t.Errorf("orders: %d, want 0", n)
	}
	if r := f.run(t, alice, `{"item":"tea","idempotency_key":"`+strings.Repeat("k", 200)+`"}`); !r.Success {
		t.Errorf("a key of 200 characters: %s", answer(t, r))
	}
}

// TestRefusedReleases checks that a run that did not run the tool keeps
// no result: the same key then runs.
func TestRefusedReleases(t *testing.T) {
	f := newFixture(t, databases()["sqlite"](t), nil)
	if r := f.run(t, alice, `{"item":"nothing","idempotency_key":"k"}`); r.Failure != tool.FailureInput {
		t.Fatalf("ordering nothing: %s", answer(t, r))
	}
	if r := f.run(t, alice, `{"item":"nothing","idempotency_key":"k"}`); r.Failure != tool.FailureInput {
		t.Fatalf("ordering nothing again: %s", answer(t, r))
	}
	if r := f.run(t, alice, `{"item":"tea","idempotency_key":"k"}`); !r.Success || f.orders(t) != 1 {
		t.Fatalf("the released key: %s", answer(t, r))
	}
}

// TestExpiry checks that a key expires after its TTL: the same key then
// runs again, and expired keys are deleted.
func TestExpiry(t *testing.T) {
	f := newFixture(t, databases()["sqlite"](t), &idempotency.Options{TTL: time.Hour})
	f.run(t, alice, `{"item":"tea","idempotency_key":"k"}`)
	f.advance(59 * time.Minute)
	f.run(t, alice, `{"item":"tea","idempotency_key":"k"}`)
	if n := f.orders(t); n != 1 {
		t.Fatalf("orders within the TTL: %d, want 1", n)
	}
	f.advance(2 * time.Minute)
	f.run(t, alice, `{"item":"tea","idempotency_key":"k"}`)
	if n := f.orders(t); n != 2 {
		t.Fatalf("orders after the TTL: %d, want 2", n)
	}
	f.run(t, alice, `{"item":"tea","idempotency_key":"other"}`)
	f.advance(2 * time.Hour)
	f.run(t, alice, `{"item":"tea","idempotency_key":"late"}`) // purges in the background
	for range 200 {
		var n int
		if err := f.db.QueryRow(`SELECT count(*) FROM idempotency_keys`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 1 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("expired keys were not deleted")
}

// TestRepeatWhileRunning checks that a repeat while the first run still
// runs waits for its result, and when the wait is over is refused; the
// tool runs once.
func TestRepeatWhileRunning(t *testing.T) {
	for _, wait := range []time.Duration{time.Minute, -1} {
		t.Run(fmt.Sprint(wait), func(t *testing.T) {
			f := newFixture(t, databases()["sqlite"](t), &idempotency.Options{Wait: wait, Now: time.Now})
			f.gate = make(chan struct{})
			firstDone := make(chan *tool.Result)
			go func() { firstDone <- f.run(t, alice, `{"item":"tea","idempotency_key":"k"}`) }()
			// Wait until the first run holds the key.
			for {
				var n int
				f.db.QueryRow(`SELECT count(*) FROM idempotency_keys`).Scan(&n)
				if n == 1 {
					break
				}
				time.Sleep(5 * time.Millisecond)
			}
			repeatDone := make(chan *tool.Result)
			go func() { repeatDone <- f.run(t, alice, `{"item":"tea","idempotency_key":"k"}`) }()
			if wait < 0 {
				r := <-repeatDone
				if r.Success || r.Failure != tool.FailureRuntime || !strings.Contains(r.Message, "still running") {
					t.Errorf("repeat while running, no wait: %s", answer(t, r))
				}
				close(f.gate)
				<-firstDone
			} else {
				close(f.gate)
				first, repeat := <-firstDone, <-repeatDone
				if answer(t, first) != answer(t, repeat) {
					t.Errorf("first %s, repeat %s", answer(t, first), answer(t, repeat))
				}
			}
			if n := f.orders(t); n != 1 {
				t.Errorf("orders: %d, want 1", n)
			}
		})
	}
}

// TestThousandRepeats replays 1,000 identical write calls with one key
// from 16 goroutines through the registry and its middleware, on
// PostgreSQL: the tool runs once (one row in the database) and the 1,000
// answers are identical.
func TestThousandRepeats(t *testing.T) {
	testenv.NeedFull(t)
	db := databases()["postgres"](t)
	db.SetMaxOpenConns(16)
	f := newFixture(t, db, &idempotency.Options{Now: time.Now})
	const calls, clients = 1000, 16
	answers := make(chan string, calls)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range clients {
		wg.Go(func() {
			for next.Add(1) <= calls {
				answers <- answer(t, f.run(t, alice, `{"item":"tea","card":"4111","idempotency_key":"order-2026-12-04"}`))
			}
		})
	}
	wg.Wait()
	close(answers)
	seen := map[string]int{}
	for a := range answers {
		seen[a]++
	}
	if len(seen) != 1 {
		t.Errorf("%d different answers: %v", len(seen), seen)
	}
	for a, n := range seen {
		if n != calls || !strings.Contains(a, `"Success":true`) {
			t.Errorf("answer %s: %d times", a, n)
		}
	}
	if n := f.orders(t); n != 1 {
		t.Errorf("orders in the database: %d, want 1", n)
	}
}
