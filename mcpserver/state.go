package mcpserver

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// stateLifetime is how long the request state of a multi round-trip call
// stays valid: the time the client has to answer a question.
const stateLifetime = 15 * time.Minute

// A roundState is what the request state of a multi round-trip call
// carries from one round to the next: the answers so far and the questions
// of the round that ended, bound to the call. The client sees it but
// cannot change it: the Server signs it (see [Server.signState]).
type roundState struct {
	Nonce   string               `json:"nonce"` // random, so each state is used once
	Tool    string               `json:"tool"`
	Args    []byte               `json:"args"`    // SHA-256 of the canonical arguments
	Account string               `json:"account"` // the account's ID
	Expires int64                `json:"expires"` // Unix time
	Answers mcp.InputResponseMap `json:"answers,omitempty"`
	Pending []string             `json:"pending"` // questions asked and not yet answered
}

// Reasons a request state is refused.
var (
	errStateInvalid  = errors.New("request state not signed by this server")
	errStateMismatch = errors.New("request state of another call")
	errStateExpired  = errors.New("request state expired")
	errNotAsked      = errors.New("answer to a question not asked")
	errStateUsed     = errors.New("request state used already")
	// errStateUnchecked wraps the error of a StateStore that could not
	// record a use: ErrTooManyStates, or a store out of reach.
	errStateUnchecked = errors.New("the use of the request state not recorded")
)

// stateContext separates the signatures of request states from any other
// use of the key.
const stateContext = "toolapi/mcpserver request state\x00"

// signState returns the request state of a call of the tool with the given
// ID with arguments of the given digest (see [argsDigest]), for the account
// with the given ID, that asked the pending questions after the given
// answers.
func (s *Server) signState(toolID string, digest []byte, accountID string, answers mcp.InputResponseMap, pending mcp.InputRequestMap) (string, error) {
	st := roundState{
		Nonce:   rand.Text(),
		Tool:    toolID,
		Args:    digest,
		Account: accountID,
		Expires: s.now().Add(stateLifetime).Unix(),
		Answers: answers,
		Pending: slices.Sorted(maps.Keys(pending)),
	}
	payload, err := json.Marshal(st)
	if err != nil {
		return "", err
	}
	enc := base64.RawURLEncoding
	return enc.EncodeToString(payload) + "." + enc.EncodeToString(s.mac(payload)), nil
}

// answers returns the answers that a call of the tool with the given ID
// with params p, for the account with the given ID, carries (digest gives
// the digest of its arguments, see [argsDigest]): those of its
// request state, which must be one that s signed for the same tool,
// arguments and account, that has not expired and that no call used
// before (see [Options.UsedStates]), and its input responses, which must
// answer questions the state holds as pending. A call without a state
// starts afresh: its input responses are kept by key for the questions the
// run asks, except a confirmation, which is never taken without its state.
func (s *Server) answers(ctx context.Context, toolID, accountID string, p *mcp.CallToolParamsRaw, digest func() []byte) (mcp.InputResponseMap, error) {
	answers := mcp.InputResponseMap{}
	var pending []string
	if p.RequestState != "" {
		st, err := s.verifyState(p.RequestState)
		if err != nil {
			return nil, err
		}
		if st.Tool != toolID || st.Account != accountID || !hmac.Equal(st.Args, digest()) {
			return nil, errStateMismatch
		}
		if s.now().Unix() > st.Expires {
			return nil, errStateExpired
		}
		for id := range p.InputResponses {
			if !slices.Contains(st.Pending, id) {
				return nil, fmt.Errorf("%w: %q", errNotAsked, id)
			}
		}
		// The state is good for one call: replaying it would run the tool
		// again with answers given once.
		fresh, err := s.used.Use(ctx, st.Account, st.Nonce, time.Unix(st.Expires, 0))
		if err != nil {
			return nil, fmt.Errorf("%w: %w", errStateUnchecked, err)
		}
		if !fresh {
			return nil, errStateUsed
		}
		for id, a := range st.Answers {
			answers[id] = a
		}
		pending = st.Pending
	}
	for id, a := range p.InputResponses {
		switch {
		case slices.Contains(pending, id):
			answers[id] = a
		case p.RequestState != "":
			return nil, fmt.Errorf("%w: %q", errNotAsked, id)
		case id != confirmKey:
			// Without a state, an answer is taken for the question of its
			// key if the run asks it, and ignored otherwise; a
			// confirmation only ever comes with the state of its question.
			answers[id] = a
		}
	}
	return answers, nil
}

// verifyState returns the request state that state encodes, if s signed it.
func (s *Server) verifyState(state string) (*roundState, error) {
	enc := base64.RawURLEncoding
	p, m, ok := strings.Cut(state, ".")
	if !ok {
		return nil, errStateInvalid
	}
	payload, err := enc.DecodeString(p)
	if err != nil {
		return nil, errStateInvalid
	}
	mac, err := enc.DecodeString(m)
	if err != nil || !hmac.Equal(mac, s.mac(payload)) {
		return nil, errStateInvalid
	}
	var st roundState
	if err := json.Unmarshal(payload, &st); err != nil {
		// Signed, so written by a server with the same key, yet not a
		// state this server reads.
		return nil, fmt.Errorf("%w: %w", errStateInvalid, err)
	}
	return &st, nil
}

// mac returns the signature of a request state's payload.
func (s *Server) mac(payload []byte) []byte {
	h := hmac.New(sha256.New, s.stateKey)
	io.WriteString(h, stateContext)
	h.Write(payload)
	return h.Sum(nil)
}

// argsDigest returns the SHA-256 of the arguments of a call in a canonical
// form (object keys sorted, no spaces; empty and null as {}), so that a
// client that encodes the same arguments anew gets the same digest.
// Arguments that are not JSON are taken as they are.
func argsDigest(args json.RawMessage) []byte {
	b := bytes.TrimSpace(args)
	var v any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if len(b) == 0 {
		b = []byte("{}")
	} else if err := d.Decode(&v); err == nil && d.Decode(new(any)) == io.EOF {
		if v == nil {
			v = map[string]any{}
		}
		if c, err := json.Marshal(v); err == nil {
			b = c
		}
	}
	sum := sha256.Sum256(b)
	return sum[:]
}

// A StateStore remembers which request states of multi round-trip calls
// have been used, so that each is used by one call: the answers it
// carries, a person's confirmation among them, then run the tool once.
// See [Options.UsedStates].
type StateStore interface {
	// Use records that the state with the given nonce, signed for the
	// account with the given ID, is used, to be remembered until expires
	// (after which the state is refused as expired anyway). It reports
	// false when the state was used before, [ErrTooManyStates] when the
	// account holds as many unexpired used states as it may, and any
	// other error when it cannot tell; an error refuses the call.
	Use(ctx context.Context, account, nonce string, expires time.Time) (fresh bool, err error)
}

// Defaults of the stores of used request states.
const (
	// DefaultUsedStates is the number of unexpired used request states a
	// [MemoryStateStore] remembers in all when its size is not given.
	DefaultUsedStates = 100_000
	// DefaultUsedStatesPerAccount is the number of unexpired used request
	// states a store remembers for one account when its share is not
	// given. A state lives 15 minutes: a person answering a question every
	// second stays under it.
	DefaultUsedStatesPerAccount = 1000
)

// ErrTooManyStates is the error of a [StateStore] whose share for an
// account is full: that account's calls with a request state fail, saying
// so, until some of its states expire; other accounts are not held back.
var ErrTooManyStates = errors.New("too many request states of this account in use")

// errStatesFull is the error of a [MemoryStateStore] that is full.
var errStatesFull = errors.New("too many request states in use")

// A MemoryStateStore is a [StateStore] in the memory of one process,
// remembering at most a fixed number of unexpired states in all and per
// account. When an account's share or the whole store is full, it forgets
// the expired states; when none has expired, it refuses new ones (the
// calls that bring them fail) rather than forget one that could then be
// used again.
type MemoryStateStore struct {
	max, perAccount int
	now             func() time.Time

	mu        sync.Mutex
	total     int
	byAccount map[string]*accountStates
}

// accountStates are the used states of one account.
type accountStates struct {
	expires map[string]time.Time // by nonce
	soonest time.Time            // no state expires before
}

// NewMemoryStateStore returns a MemoryStateStore remembering up to max
// states, and up to perAccount of one account. Zero or less means
// [DefaultUsedStates] and [DefaultUsedStatesPerAccount].
func NewMemoryStateStore(max, perAccount int) *MemoryStateStore {
	if max <= 0 {
		max = DefaultUsedStates
	}
	if perAccount <= 0 {
		perAccount = DefaultUsedStatesPerAccount
	}
	return &MemoryStateStore{max: max, perAccount: perAccount, now: time.Now, byAccount: make(map[string]*accountStates)}
}

// Use implements [StateStore].
func (m *MemoryStateStore) Use(_ context.Context, account, nonce string, expires time.Time) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	a := m.byAccount[account]
	if a != nil {
		if _, ok := a.expires[nonce]; ok {
			return false, nil
		}
	}
	now := m.now()
	if a != nil && len(a.expires) >= m.perAccount {
		m.sweep(account, a, now)
		if len(a.expires) >= m.perAccount {
			return false, ErrTooManyStates
		}
	}
	if m.total >= m.max {
		for id, other := range m.byAccount {
			m.sweep(id, other, now)
		}
		if m.total >= m.max {
			return false, errStatesFull
		}
	}
	if a = m.byAccount[account]; a == nil {
		a = &accountStates{expires: make(map[string]time.Time), soonest: expires}
		m.byAccount[account] = a
	}
	a.expires[nonce] = expires
	a.soonest = minTime(a.soonest, expires)
	m.total++
	return true, nil
}

// sweep forgets the expired states of the account with the given ID. m.mu
// is held.
func (m *MemoryStateStore) sweep(account string, a *accountStates, now time.Time) {
	if !now.After(a.soonest) {
		return
	}
	a.soonest = time.Time{}
	for n, e := range a.expires {
		if now.After(e) {
			delete(a.expires, n)
			m.total--
		} else if a.soonest.IsZero() || e.Before(a.soonest) {
			a.soonest = e
		}
	}
	if len(a.expires) == 0 {
		delete(m.byAccount, account)
	}
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}
