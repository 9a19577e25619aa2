// Package secrets collects the sensitive inputs of tool calls out of band:
// when a language model calls a tool without a sensitive input it needs
// (a password, an API key), the person behind the model enters the value
// on a page of the explorer instead, so that the value never passes
// through the model, and the call goes on with it.
//
// A [Desk] holds the open requests of one process. The MCP server
// (the Secrets option of package mcpserver) and the function-calling
// dispatcher (funcall's Toolset.WithSecrets) open them; the explorer (the
// Secrets option of package explorer) serves the page at /secrets/{id},
// where only the account that made the call may enter the values, once
// signed in. toolapp's serve sets all of this up. A request is
// answered once, and forgotten when it is answered, taken or expired
// ([DefaultTTL]): values are held in memory only, never written anywhere.
// The page and the call must reach the same process: behind a load
// balancer, route /secrets/ and /mcp to the same replica per account, or
// run one replica.
package secrets

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/toolapi/toolapi/tool"
)

// The limits of a [Desk].
const (
	// DefaultTTL is how long a request takes values, and how long values
	// given wait to be used.
	DefaultTTL = 10 * time.Minute
	// MaxTTL bounds Options.TTL.
	MaxTTL = time.Hour
	// DefaultMaxPerAccount is how many requests one account may have open.
	DefaultMaxPerAccount = 16
	// DefaultMaxOpen is how many requests a Desk holds in all.
	DefaultMaxOpen = 10000
	// MaxValue is the most bytes of one value.
	MaxValue = 4096
)

// Errors of a [Desk].
var (
	// ErrNotFound: no open request of that ID for the account (it never
	// existed, is another account's, was answered, or expired).
	ErrNotFound = errors.New("no such request")
	// ErrTooMany: the account, or the desk, has too many requests open.
	ErrTooMany = errors.New("too many requests for secret values are open")
	// ErrExpired: the request expired before the person answered.
	ErrExpired = errors.New("the request for secret values expired")
)

// A BadValueError refuses a value entered on the page.
type BadValueError struct {
	Input  string
	Reason string
}

func (e *BadValueError) Error() string { return e.Input + ": " + e.Reason }

// Options configure a [Desk]. The zero value uses the defaults.
type Options struct {
	// TTL is how long a request stays open ([DefaultTTL]; at most [MaxTTL]).
	TTL time.Duration
	// MaxPerAccount bounds the open requests of one account
	// ([DefaultMaxPerAccount]).
	MaxPerAccount int
	// MaxOpen bounds the open requests of the desk ([DefaultMaxOpen]).
	MaxOpen int
	// Shared reports whether an account is shared by people who have not
	// signed in (an application's anonymous account): nobody could tell
	// whose value a page of such an account takes, so its calls are not
	// collected out of band and must carry the value. Nil: the account
	// whose ID is [tool.Anonymous]'s.
	Shared func(ctx context.Context, acct tool.Account) bool
}

// A Desk holds the open requests for secret values of one process. It is
// safe for concurrent use.
type Desk struct {
	base   string
	ttl    time.Duration
	per    int
	max    int
	now    func() time.Time
	shared func(context.Context, tool.Account) bool

	mu      sync.Mutex
	byID    map[string]*Request
	byKey   map[string]*Request
	open    map[string]int // by account
	swept   time.Time
	changed chan struct{} // closed and replaced when a request is answered
}

// A Request asks the person of one account for the sensitive inputs of
// one call.
type Request struct {
	// ID is the request's unguessable name, in its page's address.
	ID string
	// Account made the call; only it may answer.
	Account string
	// Tool is the ID of the tool called, Label its label.
	Tool, Label string
	// Inputs are the inputs asked for.
	Inputs []*tool.Definition
	// Expires is when the request closes.
	Expires time.Time

	key    string
	values map[string]string // set once answered
}

// New returns a Desk whose pages are under base, the address people open
// the explorer at (such as "https://photos.example.com" or
// "http://127.0.0.1:8080/explorer"), without a final slash.
func New(base string, opts *Options) *Desk {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.TTL <= 0 {
		o.TTL = DefaultTTL
	}
	o.TTL = min(o.TTL, MaxTTL)
	if o.MaxPerAccount <= 0 {
		o.MaxPerAccount = DefaultMaxPerAccount
	}
	if o.MaxOpen <= 0 {
		o.MaxOpen = DefaultMaxOpen
	}
	if o.Shared == nil {
		o.Shared = func(_ context.Context, acct tool.Account) bool { return acct.AccountID() == tool.Anonymous.AccountID() }
	}
	return &Desk{
		base: strings.TrimSuffix(base, "/"), ttl: o.TTL, per: o.MaxPerAccount, max: o.MaxOpen, now: time.Now, shared: o.Shared,
		byID: make(map[string]*Request), byKey: make(map[string]*Request), open: make(map[string]int),
		changed: make(chan struct{}),
	}
}

// URL returns the address of r's page.
func (d *Desk) URL(r *Request) string { return d.base + "/secrets/" + r.ID }

// Link returns r as a [tool.SecretLink].
func (d *Desk) Link(r *Request) tool.SecretLink {
	names := make([]string, len(r.Inputs))
	for i, in := range r.Inputs {
		names[i] = in.Name
	}
	return tool.SecretLink{URL: d.URL(r), Inputs: names, Expires: r.Expires}
}

// Open returns the open request of the call key (see [tool.SecretAsker])
// of acct, the account in ctx, or opens one for the inputs of t. It fails
// with an error wrapping [ErrTooMany] (a [*tool.RunError] that says so)
// when acct or the desk has too many open, and with a [*tool.InputError]
// naming the first input when acct is shared (see [Options].Shared).
func (d *Desk) Open(ctx context.Context, t *tool.Tool, inputs []*tool.Definition, key string) (*Request, error) {
	acct := tool.AccountFrom(ctx)
	if d.shared(ctx, acct) && len(inputs) > 0 {
		return nil, &tool.InputError{Input: inputs[0].Name,
			Message: "is required: a caller that has not signed in gives it in the call, as nobody but a signed-in account may enter it on a page"}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	now := d.now()
	d.sweep(now)
	if r := d.byKey[key]; r != nil && now.Before(r.Expires) {
		return r, nil
	}
	id := acct.AccountID()
	if d.open[id] >= d.per || len(d.byID) >= d.max {
		// A RunError, so that a run that meets it says why.
		return nil, &tool.RunError{Message: "Too many requests for secret values are open for this account: enter or let expire those already asked for, then call again.", Err: ErrTooMany}
	}
	b := make([]byte, 18)
	rand.Read(b)
	r := &Request{ID: base64.RawURLEncoding.EncodeToString(b), Account: id, Tool: t.ID, Label: t.Label,
		Inputs: inputs, Expires: now.Add(d.ttl), key: key}
	if r.Label == "" {
		r.Label = t.ID
	}
	d.byID[r.ID] = r
	d.byKey[key] = r
	d.open[id]++
	// Forgotten at its expiry, values entered or not, whoever asks.
	time.AfterFunc(d.ttl, func() { d.Cancel(r) })
	return r, nil
}

// Cancel forgets r: its page takes no values any more, and values entered
// are dropped. The call that opened it cancels it when it ends without
// them (its person declined, or it was cancelled).
func (d *Desk) Cancel(r *Request) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.forget(r)
}

// Get returns the open, unanswered request id of acct, for its page.
func (d *Desk) Get(acct tool.Account, id string) (*Request, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.sweep(d.now())
	r := d.byID[id]
	if r == nil || r.Account != acct.AccountID() || r.values != nil || !d.now().Before(r.Expires) {
		return nil, ErrNotFound
	}
	return r, nil
}

// Answer gives the values of request id of acct, entered by its person:
// every input asked for, each at most [MaxValue] bytes of UTF-8, not blank,
// and within the input's length and pattern. A request is answered once.
func (d *Desk) Answer(acct tool.Account, id string, values map[string]string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.sweep(d.now())
	r := d.byID[id]
	if r == nil || r.Account != acct.AccountID() || r.values != nil || !d.now().Before(r.Expires) {
		return ErrNotFound
	}
	kept := make(map[string]string, len(r.Inputs))
	for _, in := range r.Inputs {
		v := values[in.Name]
		switch {
		case strings.TrimSpace(v) == "":
			return &BadValueError{Input: in.Name, Reason: "is required"}
		case len(v) > MaxValue:
			return &BadValueError{Input: in.Name, Reason: fmt.Sprintf("must be at most %d bytes", MaxValue)}
		case !utf8.ValidString(v):
			return &BadValueError{Input: in.Name, Reason: "must be UTF-8 text"}
		}
		if reason := breaks(in, v); reason != "" {
			return &BadValueError{Input: in.Name, Reason: reason}
		}
		kept[in.Name] = v
	}
	r.values = kept
	close(d.changed)
	d.changed = make(chan struct{})
	return nil
}

// Take returns the values of r and forgets r, if its person answered.
func (d *Desk) Take(r *Request) (map[string]string, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if r.values == nil || d.byID[r.ID] != r {
		return nil, false
	}
	values := r.values
	d.forget(r)
	return values, true
}

// Wait waits until r's person answers, and returns the values and forgets
// r; it fails with [ErrExpired] when r expires first, or ctx's error.
func (d *Desk) Wait(ctx context.Context, r *Request) (map[string]string, error) {
	for {
		d.mu.Lock()
		if r.values != nil && d.byID[r.ID] == r {
			values := r.values
			d.forget(r)
			d.mu.Unlock()
			return values, nil
		}
		if d.byID[r.ID] != r || !d.now().Before(r.Expires) {
			d.forget(r)
			d.mu.Unlock()
			return nil, ErrExpired
		}
		changed, left := d.changed, r.Expires.Sub(d.now())
		d.mu.Unlock()
		timer := time.NewTimer(left)
		select {
		case <-changed:
		case <-timer.C:
		case <-ctx.Done():
			timer.Stop()
			return nil, ctx.Err()
		}
		timer.Stop()
	}
}

// Len returns how many requests the desk holds.
func (d *Desk) Len() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.byID)
}

// forget drops r; d.mu is held.
func (d *Desk) forget(r *Request) {
	if d.byID[r.ID] != r {
		return
	}
	delete(d.byID, r.ID)
	if d.byKey[r.key] == r {
		delete(d.byKey, r.key)
	}
	if d.open[r.Account]--; d.open[r.Account] <= 0 {
		delete(d.open, r.Account)
	}
}

// sweep drops the expired requests, at most once a second; d.mu is held.
func (d *Desk) sweep(now time.Time) {
	if now.Sub(d.swept) < time.Second {
		return
	}
	d.swept = now
	for _, r := range d.byID {
		if !now.Before(r.Expires) {
			d.forget(r)
		}
	}
}

// breaks returns the rule of in's length or pattern that v breaks, in
// words, or "": the page refuses such a value at once rather than the run
// later, when it is used up.
func breaks(in *tool.Definition, v string) string {
	n := utf8.RuneCountInString(v)
	if b := in.Constraints.Length; b != nil {
		switch {
		case b.Min != nil && n < *b.Min:
			return fmt.Sprintf("must be at least %d characters", *b.Min)
		case b.Max != nil && n > *b.Max:
			return fmt.Sprintf("must be at most %d characters", *b.Max)
		}
	}
	if p := in.Constraints.Pattern; p != "" {
		if re, err := regexp.Compile(p); err == nil && !re.MatchString(v) {
			return "does not have the form the tool asks for"
		}
	}
	return ""
}

// AskSecrets implements [tool.SecretAsker] for a caller that cannot wait
// for the person (function calling, an MCP client without URL
// elicitation): it returns the values the person gave for this call, when
// they did, and else fails with a [*tool.SecretsPendingError] holding the
// link to the page, which the caller shows its person before calling
// again with the same inputs.
func (d *Desk) AskSecrets(ctx context.Context, t *tool.Tool, missing []*tool.Definition, key string) (map[string]string, error) {
	r, err := d.Open(ctx, t, missing, key)
	if err != nil {
		return nil, err
	}
	if values, ok := d.Take(r); ok {
		return values, nil
	}
	return nil, &tool.SecretsPendingError{Link: d.Link(r)}
}
