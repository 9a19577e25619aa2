package tool

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/toolapi/toolapi/internal/english"
)

// An Overflow says where the outputs of a run are kept when their JSON
// was over the tool's byte budget (see [Budget]): the result
// carries none of them, and the account that ran the tool reads them
// whole with [Registry.ReadOverflow] until Expires.
type Overflow struct {
	// ID names the kept outputs: random, opaque, unguessable.
	ID string
	// Tool is the ID of the tool that ran.
	Tool string
	// Bytes is the length of the outputs' JSON; Budget the tool's byte
	// budget it was over.
	Bytes, Budget int
	// Expires is when the outputs are forgotten.
	Expires time.Time
}

// ErrOverflowNotFound is the error of [Registry.ReadOverflow] for outputs
// that were never kept, have expired, were pushed out by newer ones, or
// were kept for another account.
var ErrOverflowNotFound = errors.New("tool: no such overflow")

// overflowMaxCount bounds how many outputs a registry keeps at once,
// whatever their size.
const overflowMaxCount = 10_000

// An overflowStore keeps outputs over their budget in memory, for a TTL,
// within a bound of bytes and of count: the oldest go first.
type overflowStore struct {
	ttl  time.Duration
	max  int
	now  func() time.Time
	mu   sync.Mutex
	used int
	kept map[string]*overflowItem
	fifo []*overflowItem // by age, so by expiry
}

type overflowItem struct {
	Overflow
	account string
	data    []byte
}

func newOverflowStore(ttl time.Duration, maxBytes int) *overflowStore {
	return &overflowStore{ttl: ttl, max: maxBytes, now: time.Now, kept: make(map[string]*overflowItem)}
}

// put keeps data for account, reporting false when it is over the store's
// whole bound.
func (s *overflowStore) put(account string, o Overflow, data []byte) (Overflow, bool) {
	if len(data) > s.max {
		return o, false
	}
	now := s.now()
	o.ID = rand.Text()
	o.Expires = now.Add(s.ttl)
	it := &overflowItem{Overflow: o, account: account, data: data}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expire(now)
	for len(s.fifo) > 0 && (s.used+len(data) > s.max || len(s.fifo) >= overflowMaxCount) {
		s.drop()
	}
	s.kept[o.ID] = it
	s.fifo = append(s.fifo, it)
	s.used += len(data)
	return o, true
}

// get returns what is kept under id for account.
func (s *overflowStore) get(account, id string) (*overflowItem, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expire(s.now())
	it, ok := s.kept[id]
	if !ok || it.account != account {
		return nil, false
	}
	return it, true
}

// expire drops what expired at now; s.mu is held.
func (s *overflowStore) expire(now time.Time) {
	for len(s.fifo) > 0 && !now.Before(s.fifo[0].Expires) {
		s.drop()
	}
}

// drop drops the oldest; s.mu is held.
func (s *overflowStore) drop() {
	it := s.fifo[0]
	s.fifo[0] = nil
	s.fifo = s.fifo[1:]
	delete(s.kept, it.ID)
	s.used -= len(it.data)
}

// overflow keeps the outputs of out, a result of e's tool for acct over
// its byte budget, and returns the result that says where they are
// instead: a success, or the same failure.
func (r *Registry) overflow(e *entry, acct Account, out *Result) *Result {
	t := e.tool
	data, err := json.Marshal(out.Outputs)
	if err != nil {
		return r.runtimeFailure(t, "tool outputs do not marshal to JSON", err)
	}
	var acctID string
	if acct != nil {
		acctID = acct.AccountID()
	}
	o, ok := r.overflows.put(acctID, Overflow{Tool: t.ID, Bytes: len(data), Budget: e.budget.Bytes}, data)
	if !ok {
		r.logger.Error("tool outputs over their budget are too big to keep", "tool", t.ID, "bytes", len(data), "limit", r.overflows.max)
		return &Result{Message: t.label() + " ran, but its outputs (" + english.Count(len(data), "byte") +
			") are too big to send or keep.", Failure: FailureRuntime}
	}
	return &Result{
		Success:    out.Success,
		Failure:    out.Failure,
		Internal:   out.Internal,
		Violations: out.Violations,
		Message: out.Message + " Its outputs are " + english.Count(len(data), "byte") + " of JSON, over its budget of " +
			english.Count(e.budget.Bytes, "byte") + ", so they are not in this result: they are kept whole for " +
			keptFor(r.overflows.ttl) + ".",
		Overflow: &o,
	}
}

// ReadOverflow returns the outputs, as JSON, kept under id for the
// account in ctx, and where they came from. Outputs kept for another
// account, expired or unknown give [ErrOverflowNotFound].
func (r *Registry) ReadOverflow(ctx context.Context, id string) ([]byte, *Overflow, error) {
	it, ok := r.overflows.get(AccountFrom(ctx).AccountID(), id)
	if !ok {
		return nil, nil, ErrOverflowNotFound
	}
	o := it.Overflow
	return it.data, &o, nil
}

// keptFor says how long outputs are kept: "15 minutes".
func keptFor(ttl time.Duration) string {
	if ttl%time.Minute == 0 {
		return english.Count(int(ttl/time.Minute), "minute")
	}
	return ttl.String()
}
