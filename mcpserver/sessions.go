package mcpserver

import (
	"context"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolapi/toolapi/ratelimit"
)

// Defaults of the session limits of [Options].
const (
	// DefaultSessionTimeout is how long an HTTP session may stay idle
	// before it is closed, when [Options.SessionTimeout] is zero.
	DefaultSessionTimeout = 30 * time.Minute
	// DefaultMaxSessions is the number of HTTP sessions open at once when
	// [Options.MaxSessions] is zero.
	DefaultMaxSessions = 1000
	// DefaultMaxSessionsPerAccount is the number of HTTP sessions one
	// account may hold open at once when [Options.MaxSessionsPerAccount]
	// is zero.
	DefaultMaxSessionsPerAccount = 100
)

// codeTooManySessions is the JSON-RPC error code of an initialize request
// refused because the session limits are reached and every session is busy.
const codeTooManySessions = -32000

// sessions keeps the HTTP sessions open within their limits: a new session
// that would pass its account's limit closes that account's session idle
// longest, and one that would pass the total closes the session idle
// longest of any account. A session is idle while no request of it runs;
// when every candidate is busy, the new session is refused.
type sessions struct {
	max, perAccount int // <= 0: no limit

	mu        sync.Mutex
	byID      map[string]*session
	byAccount map[string]int
}

// A session is an open HTTP session as [sessions] sees it.
type session struct {
	ss       *mcp.ServerSession
	account  string
	busy     int       // requests running
	lastUsed time.Time // when the last request ended (or the session opened)
	version  string    // the protocol version negotiated, once initialized
}

func newSessions(max, perAccount int) *sessions {
	return &sessions{max: max, perAccount: perAccount, byID: make(map[string]*session), byAccount: make(map[string]int)}
}

// middleware is receiving middleware that admits each new session within
// the limits and tracks when the requests of each session run.
func (t *sessions) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		ss, _ := req.GetSession().(*mcp.ServerSession)
		if ss == nil || ss.ID() == "" {
			// Sessions of stdio, of other transports and of stateless
			// requests are not kept by the HTTP handler.
			return next(ctx, method, req)
		}
		id := ss.ID()
		if method == "initialize" {
			if err := t.admit(ss, accountOf(ctx, req.GetExtra()).AccountID()); err != nil {
				return nil, err
			}
			res, err := next(ctx, method, req)
			if err != nil {
				t.remove(id)
			} else if ir, ok := res.(*mcp.InitializeResult); ok {
				t.negotiated(id, ir.ProtocolVersion)
			}
			return res, err
		}
		t.begin(id)
		defer t.end(id)
		return next(ctx, method, req)
	}
}

// admit makes room for ss, a new session of the account with the given ID,
// and records it.
func (t *sessions) admit(ss *mcp.ServerSession, account string) error {
	var victims []*mcp.ServerSession
	t.mu.Lock()
	if t.byID[ss.ID()] != nil {
		t.mu.Unlock()
		return nil // a second initialize, which the SDK refuses
	}
	if t.perAccount > 0 && t.byAccount[account] >= t.perAccount {
		v := t.idlest(account)
		if v == nil {
			t.mu.Unlock()
			return &jsonrpc.Error{Code: codeTooManySessions, Message: "too many sessions of this account are busy; close one or try again later"}
		}
		victims = append(victims, v)
	}
	if t.max > 0 && len(t.byID)-len(victims) >= t.max {
		v := t.idlest("")
		if v == nil {
			t.mu.Unlock()
			for _, v := range victims {
				v.Close()
			}
			return &jsonrpc.Error{Code: codeTooManySessions, Message: "the server's sessions are all busy; try again later"}
		}
		victims = append(victims, v)
	}
	t.byID[ss.ID()] = &session{ss: ss, account: account, lastUsed: time.Now()}
	t.byAccount[account]++
	t.mu.Unlock()
	for _, v := range victims {
		v.Close()
	}
	go func() {
		ss.Wait()
		t.remove(ss.ID())
	}()
	return nil
}

// idlest removes and returns the session idle longest of the account with
// the given ID (of any account for ""), or nil when all are busy. t.mu is
// held.
func (t *sessions) idlest(account string) *mcp.ServerSession {
	var oldest *session
	var oldestID string
	for id, s := range t.byID {
		if s.busy > 0 || (account != "" && s.account != account) {
			continue
		}
		if oldest == nil || s.lastUsed.Before(oldest.lastUsed) {
			oldest, oldestID = s, id
		}
	}
	if oldest == nil {
		return nil
	}
	t.drop(oldestID, oldest)
	return oldest.ss
}

// drop forgets the session with the given ID. t.mu is held.
func (t *sessions) drop(id string, s *session) {
	delete(t.byID, id)
	if t.byAccount[s.account]--; t.byAccount[s.account] <= 0 {
		delete(t.byAccount, s.account)
	}
}

// remove forgets the session with the given ID, once it is closed.
func (t *sessions) remove(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if s := t.byID[id]; s != nil {
		t.drop(id, s)
	}
}

// negotiated records the protocol version the session with the given ID
// negotiated.
func (t *sessions) negotiated(id, version string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if s := t.byID[id]; s != nil {
		s.version = version
	}
}

// version returns the protocol version the session with the given ID
// negotiated, or "" when no such session was initialized.
func (t *sessions) version(id string) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if s := t.byID[id]; s != nil {
		return s.version
	}
	return ""
}

func (t *sessions) begin(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if s := t.byID[id]; s != nil {
		s.busy++
	}
}

func (t *sessions) end(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if s := t.byID[id]; s != nil {
		s.busy--
		s.lastUsed = time.Now()
	}
}

// count returns the number of sessions open, in total and of the account
// with the given ID.
func (t *sessions) count(account string) (total, ofAccount int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.byID), t.byAccount[account]
}

// applyLimitDefaults sets the limits of s.opts left at zero to their
// defaults and builds what enforces them.
func (s *Server) applyLimitDefaults() {
	o := &s.opts
	if o.SessionTimeout == 0 {
		o.SessionTimeout = DefaultSessionTimeout
	}
	if o.MaxSessions == 0 {
		o.MaxSessions = DefaultMaxSessions
	}
	if o.MaxSessionsPerAccount == 0 {
		o.MaxSessionsPerAccount = DefaultMaxSessionsPerAccount
	}
	if o.ClientAddress == nil {
		o.ClientAddress = ratelimit.ClientAddress(nil)
	}
	s.sessions = newSessions(o.MaxSessions, o.MaxSessionsPerAccount)
	s.failures = o.AuthFailures
	if s.failures == nil {
		s.failures = ratelimit.NewFailures(nil)
	}
}
