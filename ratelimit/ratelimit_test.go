package ratelimit

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolapi/toolapi/tool"
)

// registry returns a registry with one tool that counts its runs, limited
// by l.
func registry(t *testing.T, l *limiter) (*tool.Registry, *atomic.Int32) {
	t.Helper()
	var runs atomic.Int32
	reg := tool.NewRegistry(&tool.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err := reg.Add(&tool.Tool{
		ID: "counter.add", Label: "Add", Description: "Adds one.", Operation: tool.OpRead, Permission: "count",
		Handler: func(context.Context, *tool.Values) (*tool.Result, error) {
			runs.Add(1)
			return nil, nil
		},
	}); err != nil {
		t.Fatal(err)
	}
	reg.Use(l.middleware)
	return reg, &runs
}

func TestPerAccount(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	l := newLimiter(&Options{Rate: 1, Burst: 3}, func() time.Time { return now })
	reg, runs := registry(t, l)
	as := func(id string) context.Context {
		return tool.WithAccount(context.Background(), &tool.User{ID: id, Permissions: []string{"count"}})
	}
	run := func(ctx context.Context) *tool.Result {
		res, err := reg.RunJSON(ctx, "counter.add", []byte(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		return res
	}

	for i := range 3 {
		if res := run(as("ada")); !res.Success {
			t.Fatalf("run %d within the burst: %+v", i+1, res)
		}
	}
	res := run(as("ada"))
	if res.Success || res.Failure != tool.FailureAccess || !strings.Contains(res.Message, "try again in 1 s") {
		t.Errorf("the fourth run at once: %+v, want an access failure saying to try again in 1 s", res)
	}
	if got := runs.Load(); got != 3 {
		t.Errorf("the handler ran %d times, want 3: a refused run must not run", got)
	}
	if res := run(as("bob")); !res.Success {
		t.Errorf("another account's run: %+v, want it to run on its own budget", res)
	}
	now = now.Add(time.Second)
	if res := run(as("ada")); !res.Success {
		t.Errorf("a run a second later: %+v, want the budget refilled by one", res)
	}
	if res := run(as("ada")); res.Success {
		t.Errorf("a second run a second later: %+v, want it refused", res)
	}
}

func TestExempt(t *testing.T) {
	l := newLimiter(&Options{Rate: 1, Burst: 1, Exempt: func(a tool.Account) bool { return a.AccountID() == "service" }}, time.Now)
	reg, runs := registry(t, l)
	ctx := tool.WithAccount(context.Background(), &tool.User{ID: "service", Permissions: []string{"count"}})
	for range 5 {
		if res, _ := reg.RunJSON(ctx, "counter.add", []byte(`{}`)); !res.Success {
			t.Fatalf("an exempt account's run: %+v", res)
		}
	}
	if got := runs.Load(); got != 5 {
		t.Errorf("%d runs, want 5", got)
	}
}

// TestCheckSpendsNothing checks that checking inputs spends none of the
// account's budget.
func TestCheckSpendsNothing(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	l := newLimiter(&Options{Rate: 1, Burst: 1}, func() time.Time { return now })
	reg, runs := registry(t, l)
	ctx := tool.WithAccount(context.Background(), &tool.User{ID: "ada", Permissions: []string{"count"}})
	for i := range 5 {
		if _, vs, err := reg.ValidateJSON(ctx, "counter.add", []byte(`{}`)); err != nil || len(vs) > 0 {
			t.Fatalf("check %d: %v %v, want it let through", i+1, vs, err)
		}
	}
	if res, _ := reg.RunJSON(ctx, "counter.add", []byte(`{}`)); !res.Success {
		t.Errorf("the run after the checks: %+v, want the budget untouched", res)
	}
	if got := runs.Load(); got != 1 {
		t.Errorf("the handler ran %d times, want 1", got)
	}
}

// TestMaxAccounts checks that the table of budgets stays bounded: budgets
// full again are dropped for new accounts, and with none to drop a new
// account is refused.
func TestMaxAccounts(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	l := newLimiter(&Options{Rate: 1, Burst: 2, MaxAccounts: 2}, func() time.Time { return now })
	if _, ok := l.take("a"); !ok {
		t.Fatal("a")
	}
	if _, ok := l.take("b"); !ok {
		t.Fatal("b")
	}
	if wait, ok := l.take("c"); ok || wait != 0 {
		t.Errorf("a third account with the table full of busy budgets: %v %v, want refused", wait, ok)
	}
	now = now.Add(2 * time.Second) // both budgets full again
	if _, ok := l.take("c"); !ok {
		t.Error("a third account once the others' budgets are full again: refused")
	}
	if n := len(l.budgets); n > 2 {
		t.Errorf("%d budgets kept, want at most 2", n)
	}
}
