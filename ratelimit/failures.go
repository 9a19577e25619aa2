package ratelimit

import (
	"crypto/sha256"
	"math"
	"sync"
	"time"
)

// Defaults of [FailureOptions].
const (
	// DefaultFailureBurst is how many failed checks of credentials a
	// client address may make in a row.
	DefaultFailureBurst = 10
	// DefaultFailureInterval is how often an address earns one more
	// failed check once its burst is spent: 2 a minute.
	DefaultFailureInterval = 30 * time.Second
	// DefaultTrustFor is how long a credential, once accepted, is never
	// refused by the limit.
	DefaultTrustFor = 10 * time.Minute
	// DefaultMaxAddresses bounds the addresses whose failures are kept,
	// and DefaultMaxTrusted the credentials remembered as accepted.
	DefaultMaxAddresses = 100_000
	DefaultMaxTrusted   = 100_000
)

// FailureOptions configure [NewFailures]; the zero value of each field is
// its default.
type FailureOptions struct {
	// Burst is how many checks of credentials that fail a client address
	// may make in a row. Zero means [DefaultFailureBurst] (10); negative
	// turns the limit off.
	Burst int
	// Interval is how often an address earns one more check once its
	// burst is spent. Zero means [DefaultFailureInterval] (30 seconds).
	Interval time.Duration
	// TrustFor is how long a credential that was accepted is let through
	// whatever its address's budget. Zero means [DefaultTrustFor] (10
	// minutes); negative trusts none.
	TrustFor time.Duration
	// MaxAddresses bounds the addresses whose budgets are kept; when a new
	// address comes with the table full, full budgets are forgotten (they
	// are as good as new), then, if that is not enough, half of the rest.
	// Zero means [DefaultMaxAddresses] (100,000).
	MaxAddresses int
	// MaxTrusted bounds the credentials remembered as accepted, as hashes;
	// past it the oldest are forgotten. Zero means [DefaultMaxTrusted]
	// (100,000).
	MaxTrusted int
}

// Failures limits the failed checks of credentials per client address: the
// one limit that every door of an application (the MCP endpoint, the
// explorer's sign-in) shares, so that guessing credentials costs time.
//
// Each address has a budget of Burst checks that refills one every
// Interval. A check spends one before it starts ([Failures.Begin]), so
// that many concurrent guesses cannot all get through; one that fails
// keeps it spent, one that succeeds or that could not be made (the store
// of accounts is down) gives it back. Two kinds of request are never
// refused: those that carry no credentials (they are anonymous), and
// those whose credential was accepted within TrustFor, so that people and
// clients sharing an address with a guesser (behind a proxy or a NAT) keep
// working. A nil *Failures limits nothing, as one made with a negative
// Burst does. It is safe for concurrent use.
type Failures struct {
	opts FailureOptions
	off  bool // Burst < 0
	now  func() time.Time

	mu      sync.Mutex
	budgets map[string]*failBudget
	trusted map[[sha256.Size]byte]time.Time // credential hash -> when last accepted
}

type failBudget struct {
	tokens float64
	at     time.Time // when tokens was last brought up to date
}

// NewFailures returns a limit of failed checks with opts; nil opts means
// the defaults. With a negative Burst it returns a limit that limits
// nothing.
func NewFailures(opts *FailureOptions) *Failures {
	f := &Failures{now: time.Now, budgets: map[string]*failBudget{}, trusted: map[[sha256.Size]byte]time.Time{}}
	if opts != nil {
		f.opts = *opts
	}
	o := &f.opts
	if o.Burst < 0 {
		f.off = true
	}
	if o.Burst == 0 {
		o.Burst = DefaultFailureBurst
	}
	if o.Interval <= 0 {
		o.Interval = DefaultFailureInterval
	}
	if o.TrustFor == 0 {
		o.TrustFor = DefaultTrustFor
	}
	if o.MaxAddresses <= 0 {
		o.MaxAddresses = DefaultMaxAddresses
	}
	if o.MaxTrusted <= 0 {
		o.MaxTrusted = DefaultMaxTrusted
	}
	return f
}

// An Attempt is one check of credentials that [Failures.Begin] let
// through. Exactly one of its methods should be called once the check is
// over; a nil *Attempt does nothing.
type Attempt struct {
	f       *Failures
	addr    string
	key     [sha256.Size]byte
	trusted bool // let through as accepted recently: nothing was spent
	done    bool
}

// Begin asks to check credential, which comes from the client address
// addr. It returns the attempt to report the outcome to, or, when addr
// has no check left, nil and how long until it has one (never zero).
// An empty credential (a request without one) is always let through,
// and so is one accepted within TrustFor; every other spends one check
// of addr's budget now.
func (f *Failures) Begin(addr, credential string) (*Attempt, time.Duration) {
	if f == nil || f.off || credential == "" {
		return nil, 0
	}
	a := &Attempt{f: f, addr: addr, key: sha256.Sum256([]byte(credential))}
	now := f.now()
	f.mu.Lock()
	defer f.mu.Unlock()
	if at, ok := f.trusted[a.key]; ok && now.Sub(at) < f.opts.TrustFor {
		a.trusted = true
		return a, 0
	}
	b := f.budget(addr, now)
	if b.tokens < 1 {
		wait := time.Duration(math.Ceil((1 - b.tokens) * float64(f.opts.Interval)))
		return nil, max(wait, time.Nanosecond)
	}
	b.tokens--
	return a, 0
}

// budget returns addr's budget brought up to now. f.mu is held.
func (f *Failures) budget(addr string, now time.Time) *failBudget {
	burst := float64(f.opts.Burst)
	b := f.budgets[addr]
	if b == nil {
		if len(f.budgets) >= f.opts.MaxAddresses {
			f.sweep(now)
		}
		b = &failBudget{tokens: burst, at: now}
		f.budgets[addr] = b
		return b
	}
	if now.After(b.at) {
		b.tokens = min(burst, b.tokens+float64(now.Sub(b.at))/float64(f.opts.Interval))
		b.at = now
	}
	return b
}

// sweep forgets the budgets that are full again, and, when that is not
// enough, half of the others. f.mu is held.
func (f *Failures) sweep(now time.Time) {
	full := time.Duration(f.opts.Burst) * f.opts.Interval
	for a, b := range f.budgets {
		if now.Sub(b.at) >= full {
			delete(f.budgets, a)
		}
	}
	for a := range f.budgets {
		if len(f.budgets) < f.opts.MaxAddresses/2 {
			break
		}
		delete(f.budgets, a)
	}
}

// Accepted reports that the credential was good: the check spent is given
// back, and the credential is let through for TrustFor from now on.
func (a *Attempt) Accepted() {
	if !a.finish() {
		return
	}
	f := a.f
	now := f.now()
	f.mu.Lock()
	defer f.mu.Unlock()
	if !a.trusted {
		f.giveBack(a.addr, now)
	}
	if f.opts.TrustFor < 0 {
		return
	}
	if _, ok := f.trusted[a.key]; !ok && len(f.trusted) >= f.opts.MaxTrusted {
		for k, at := range f.trusted {
			if now.Sub(at) >= f.opts.TrustFor {
				delete(f.trusted, k)
			}
		}
		// Still full: forget any half; they are checked again, no more.
		for k := range f.trusted {
			if len(f.trusted) < f.opts.MaxTrusted/2 {
				break
			}
			delete(f.trusted, k)
		}
	}
	f.trusted[a.key] = now
}

// Failed reports that the credential was refused: the check stays spent.
// A credential that was trusted is trusted no longer (it was revoked, or
// expired), and its failure is counted.
func (a *Attempt) Failed() {
	if !a.finish() {
		return
	}
	if !a.trusted {
		return
	}
	f := a.f
	now := f.now()
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.trusted, a.key)
	if b := f.budget(a.addr, now); b.tokens >= 1 {
		b.tokens--
	} else {
		b.tokens = 0
	}
}

// Unanswered reports that a third party that checks credentials (an
// OAuth issuer) failed to answer: the check of a credential not trusted
// stays spent, since an outage of the issuer must not make guessing free;
// a trusted credential stays trusted and costs nothing.
func (a *Attempt) Unanswered() {
	if !a.finish() || a.trusted {
		return
	}
	// An untrusted check was spent in Begin: it stays spent.
}

// Uncounted reports that the credential could not be checked (the
// application's store of accounts is unavailable): the check is given
// back, and nothing is learned about the credential.
func (a *Attempt) Uncounted() {
	if !a.finish() || a.trusted {
		return
	}
	f := a.f
	now := f.now()
	f.mu.Lock()
	defer f.mu.Unlock()
	f.giveBack(a.addr, now)
}

// finish marks a as reported, saying whether it needs reporting.
func (a *Attempt) finish() bool {
	if a == nil || a.done {
		return false
	}
	a.done = true
	return true
}

// giveBack returns one check to addr's budget. f.mu is held.
func (f *Failures) giveBack(addr string, now time.Time) {
	if b := f.budgets[addr]; b != nil {
		f.budget(addr, now)
		b.tokens = min(float64(f.opts.Burst), b.tokens+1)
	}
}
