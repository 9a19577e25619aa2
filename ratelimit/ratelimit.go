// Package ratelimit limits how often each account runs tools, as
// [tool.Middleware]: every caller of a registry (CLI, MCP, function
// calling, the explorer) shares one budget per account.
//
//	reg.Use(ratelimit.PerAccount(&ratelimit.Options{Rate: 10, Burst: 20}))
//
// A run over the budget is refused before anything of it runs, as an
// access failure whose message says when to try again; the refusal goes
// through the middleware added before this one (an audit trail added
// first records it). A check of inputs ([tool.Registry.Validate]) runs
// nothing and spends no budget.
//
// [Failures] limits the failed checks of credentials per client address,
// the one limit that the doors of an application (the MCP endpoint, the
// explorer's sign-in) share; [ClientAddress] tells the address a request
// comes from, reading what trusted reverse proxies report.
package ratelimit

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/toolapi/toolapi/tool"
)

// Options configure [PerAccount]; the zero value of each field is its
// default.
type Options struct {
	// Rate is how many runs per second an account may start, on average.
	// Zero means 10.
	Rate float64
	// Burst is how many runs an account may start at once, after a pause.
	// Zero means 20.
	Burst int
	// MaxAccounts is how many accounts' budgets are kept at most; when a
	// new account comes with the table full, the budgets of accounts idle
	// long enough to be full again are dropped (they are as good as new),
	// and if none is, the account's run is refused. Zero means 100,000.
	MaxAccounts int
	// Exempt reports accounts without a limit (a trusted service
	// account, say). Nil exempts none.
	Exempt func(tool.Account) bool
}

// A limiter holds the budgets of the accounts.
type limiter struct {
	opts    Options
	refill  time.Duration // how long an empty budget takes to fill
	now     func() time.Time
	mu      sync.Mutex
	budgets map[string]*budget
}

type budget struct {
	lim  *rate.Limiter
	last time.Time // when the account last ran
}

// PerAccount returns middleware that gives each account (by
// [tool.Account.AccountID]; every anonymous caller is one account) a
// budget of runs that refills at opts.Rate per second up to opts.Burst.
// Nil opts means the defaults.
func PerAccount(opts *Options) tool.Middleware {
	return newLimiter(opts, time.Now).middleware
}

func newLimiter(opts *Options, now func() time.Time) *limiter {
	l := &limiter{now: now, budgets: map[string]*budget{}}
	if opts != nil {
		l.opts = *opts
	}
	if l.opts.Rate <= 0 {
		l.opts.Rate = 10
	}
	if l.opts.Burst <= 0 {
		l.opts.Burst = 20
	}
	if l.opts.MaxAccounts <= 0 {
		l.opts.MaxAccounts = 100_000
	}
	l.refill = time.Duration(float64(l.opts.Burst) / l.opts.Rate * float64(time.Second))
	return l
}

func (l *limiter) middleware(next tool.RunFunc) tool.RunFunc {
	return func(ctx context.Context, c *tool.Call) *tool.Result {
		if c.Check || l.opts.Exempt != nil && l.opts.Exempt(c.Account) {
			// A check of inputs runs nothing and costs no run.
			return next(ctx, c)
		}
		if wait, ok := l.take(c.Account.AccountID()); !ok {
			msg := "Too many runs for this account at the moment: try again later."
			if wait > 0 {
				msg = fmt.Sprintf("Too many runs for this account: try again in %d s.", int(math.Ceil(wait.Seconds())))
			}
			return &tool.Result{Message: msg, Failure: tool.FailureAccess}
		}
		return next(ctx, c)
	}
}

// take spends one run of the account's budget; when there is none, it
// reports how long until there is (zero when the table of budgets is
// full).
func (l *limiter) take(account string) (time.Duration, bool) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.budgets[account]
	if b == nil {
		if len(l.budgets) >= l.opts.MaxAccounts {
			for id, old := range l.budgets {
				if now.Sub(old.last) >= l.refill {
					delete(l.budgets, id)
				}
			}
			if len(l.budgets) >= l.opts.MaxAccounts {
				return 0, false
			}
		}
		b = &budget{lim: rate.NewLimiter(rate.Limit(l.opts.Rate), l.opts.Burst)}
		l.budgets[account] = b
	}
	b.last = now
	r := b.lim.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return d, false
	}
	return 0, true
}
