package mcpserver

import (
	"context"
	"sort"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolapi/toolapi/ratelimit"
	"github.com/toolapi/toolapi/tool"
)

// Defaults of the session and stream limits of [Options].
const (
	// DefaultSessionTimeout is how long an HTTP session may stay idle
	// before it is closed, when [Options.SessionTimeout] is zero.
	DefaultSessionTimeout = 30 * time.Minute
	// DefaultMaxSessions is the number of HTTP sessions open at once when
	// [Options.MaxSessions] is zero.
	DefaultMaxSessions = 1000
	// DefaultMaxSessionsPerAccount is the number of HTTP sessions one
	// account may hold open at once when [Options.MaxSessionsPerAccount]
	// is zero; all anonymous clients together count as one account.
	DefaultMaxSessionsPerAccount = 100
	// DefaultMaxSessionsPerAddress is the number of anonymous HTTP
	// sessions one client address may hold open at once when
	// [Options.MaxSessionsPerAddress] is zero.
	DefaultMaxSessionsPerAddress = 10
	// DefaultMaxStreams is the number of event streams (GET requests of
	// sessions) open at once when [Options.MaxStreams] is zero.
	DefaultMaxStreams = 500
	// DefaultMaxStreamsPerAccount is the number of event streams one
	// signed-in account may hold open at once when
	// [Options.MaxStreamsPerAccount] is zero.
	DefaultMaxStreamsPerAccount = 10
	// DefaultMaxAnonymousStreams is the number of event streams all
	// anonymous clients together may hold open at once when
	// [Options.MaxAnonymousStreams] is zero.
	DefaultMaxAnonymousStreams = 100
	// DefaultMaxStreamsPerAddress is the number of anonymous event
	// streams one client address may hold open at once when
	// [Options.MaxStreamsPerAddress] is zero.
	DefaultMaxStreamsPerAddress = 4
	// streamRetryAfter is the Retry-After of a stream refused for a limit:
	// streams are long, so a slot frees up slowly.
	streamRetryAfter = 30 * time.Second
)

// codeTooManySessions is the JSON-RPC error code of an initialize request
// refused because the session limits are reached and every session is busy.
const codeTooManySessions = -32000

// anonymousID is the account ID of anonymous callers: the ID of
// [tool.Anonymous].
var anonymousID = tool.Anonymous.AccountID()

// limits are the caps of [sessions]; <= 0 means none.
type limits struct {
	sessions, sessionsPerAccount, sessionsPerAddress                int
	streams, streamsPerAccount, anonymousStreams, streamsPerAddress int
}

// sessions keeps the HTTP sessions open within their limits, and the event
// streams of those sessions within theirs.
//
// A new session that would pass its account's limit closes that account's
// session idle longest, and one that would pass the total closes the
// session idle longest of any account. Anonymous sessions are also held to
// a share per client address: a new one past its address's share closes
// that address's session idle longest, and one past the anonymous total
// (the limit of the anonymous account) closes the idlest session of the
// address holding the most, so that one address flooding initialize
// requests recycles its own sessions. A session is idle while no request of
// it runs; when every candidate is busy, the new session is refused.
//
// A stream ends with its session: closing, evicting or expiring a session
// ends its streams, and their connections close.
type sessions struct {
	lim limits

	mu         sync.Mutex
	closing    bool // Shutdown began: no new session or stream
	byID       map[string]*session
	byAccount  map[string]int // sessions by account ID
	byAddress  map[string]int // anonymous sessions by client address
	streams    int            // streams open
	anonymous  int            // anonymous streams open
	streamsBy  map[string]int // streams by account ID, and anonymous ones by "@"+address
	noSessions chan struct{}  // closed when closing and no session is left
}

// A session is an open HTTP session as [sessions] sees it.
type session struct {
	ss       *mcp.ServerSession
	account  string
	address  string    // the client address, for anonymous sessions
	busy     int       // requests running
	lastUsed time.Time // when the last request ended (or the session opened)
	version  string    // the protocol version negotiated, once initialized
	streams  map[*stream]bool
}

// A stream is an open event stream of a session.
type stream struct {
	end context.CancelFunc // ends its request
}

func newSessions(lim limits) *sessions {
	return &sessions{
		lim: lim, byID: make(map[string]*session), byAccount: make(map[string]int),
		byAddress: make(map[string]int), streamsBy: make(map[string]int),
	}
}

// addressExtra is the key of the client address in the TokenInfo of an
// HTTP request.
const addressExtra = "toolapi/address"

// addressOf returns the client address of the HTTP request that carried
// req, or "".
func addressOf(req mcp.Request) string {
	if extra := req.GetExtra(); extra != nil && extra.TokenInfo != nil {
		a, _ := extra.TokenInfo.Extra[addressExtra].(string)
		return a
	}
	return ""
}

// middleware is receiving middleware that admits each new session within
// the limits. The HTTP handler tracks when the requests of each session
// run ([sessions.begin], [sessions.end]), from the request to its response.
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
			if err := t.admit(ss, accountOf(ctx, req.GetExtra()).AccountID(), addressOf(req)); err != nil {
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
		return next(ctx, method, req)
	}
}

// admit makes room for ss, a new session of the account with the given ID
// from the given client address, and records it.
func (t *sessions) admit(ss *mcp.ServerSession, account, address string) error {
	var victims []*session
	refuse := func(msg string) error {
		// The victims chosen so far are forgotten already: close them.
		t.mu.Unlock()
		for _, v := range victims {
			v.ss.Close()
		}
		return &jsonrpc.Error{Code: codeTooManySessions, Message: msg}
	}
	t.mu.Lock()
	if t.closing {
		return refuse("the server is shutting down; try again later")
	}
	if t.byID[ss.ID()] != nil {
		t.mu.Unlock()
		return nil // a second initialize, which the SDK refuses
	}
	anonymous := account == anonymousID
	if !anonymous {
		address = ""
	}
	if anonymous && t.lim.sessionsPerAddress > 0 && t.byAddress[address] >= t.lim.sessionsPerAddress {
		v := t.idlest(func(s *session) bool { return s.account == account && s.address == address })
		if v == nil {
			return refuse("too many sessions from this address are busy; close one or try again later")
		}
		victims = append(victims, v)
	}
	if t.lim.sessionsPerAccount > 0 && t.byAccount[account] >= t.lim.sessionsPerAccount {
		var v *session
		if anonymous {
			v = t.idlestOfBusiestAddress()
		} else {
			v = t.idlest(func(s *session) bool { return s.account == account })
		}
		if v == nil {
			return refuse("too many sessions of this account are busy; close one or try again later")
		}
		victims = append(victims, v)
	}
	if t.lim.sessions > 0 && len(t.byID) >= t.lim.sessions {
		v := t.idlest(func(*session) bool { return true })
		if v == nil {
			return refuse("the server's sessions are all busy; try again later")
		}
		victims = append(victims, v)
	}
	t.byID[ss.ID()] = &session{ss: ss, account: account, address: address, lastUsed: time.Now()}
	t.byAccount[account]++
	if anonymous {
		t.byAddress[address]++
	}
	t.mu.Unlock()
	for _, v := range victims {
		v.ss.Close()
	}
	go func() {
		ss.Wait()
		t.remove(ss.ID())
	}()
	return nil
}

// idlest forgets and returns the session idle longest among those that
// match, or nil when all are busy. t.mu is held.
func (t *sessions) idlest(match func(*session) bool) *session {
	var oldest *session
	var oldestID string
	for id, s := range t.byID {
		if s.busy > 0 || !match(s) {
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
	return oldest
}

// idlestOfBusiestAddress forgets and returns the anonymous session idle
// longest of the client address holding the most anonymous sessions (of
// the next address when all of those are busy), or nil when every
// anonymous session is busy. t.mu is held.
func (t *sessions) idlestOfBusiestAddress() *session {
	addresses := make([]string, 0, len(t.byAddress))
	for a := range t.byAddress {
		addresses = append(addresses, a)
	}
	sort.Slice(addresses, func(i, j int) bool { return t.byAddress[addresses[i]] > t.byAddress[addresses[j]] })
	for i := 0; i < len(addresses); {
		// The addresses holding as many sessions as addresses[i] give way
		// together: the idlest session among them goes.
		n := t.byAddress[addresses[i]]
		tied := map[string]bool{}
		for ; i < len(addresses) && t.byAddress[addresses[i]] == n; i++ {
			tied[addresses[i]] = true
		}
		if v := t.idlest(func(s *session) bool { return s.account == anonymousID && tied[s.address] }); v != nil {
			return v
		}
	}
	return nil
}

// drop forgets the session with the given ID and ends its streams. t.mu is
// held.
func (t *sessions) drop(id string, s *session) {
	delete(t.byID, id)
	if t.byAccount[s.account]--; t.byAccount[s.account] <= 0 {
		delete(t.byAccount, s.account)
	}
	if s.account == anonymousID {
		if t.byAddress[s.address]--; t.byAddress[s.address] <= 0 {
			delete(t.byAddress, s.address)
		}
	}
	for st := range s.streams {
		st.end()
	}
	if t.closing && len(t.byID) == 0 && t.noSessions != nil {
		close(t.noSessions)
		t.noSessions = nil
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
		if t.closing && s.busy == 0 {
			// Shutting down: the session's last request is over.
			go s.ss.Close()
		}
	}
}

// shutdown refuses new sessions and streams from now on, ends every
// stream, closes the idle sessions (the busy ones close as their last
// request ends, see [sessions.end]) and returns a channel closed once no
// session is left.
func (t *sessions) shutdown() <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.closing = true
	if t.noSessions == nil {
		t.noSessions = make(chan struct{})
	}
	left := t.noSessions
	if len(t.byID) == 0 {
		close(t.noSessions)
		t.noSessions = nil
	}
	for _, s := range t.byID {
		for st := range s.streams {
			st.end()
		}
		if s.busy == 0 {
			go s.ss.Close()
		}
	}
	return left
}

// closeAll closes every session left, busy or not.
func (t *sessions) closeAll() {
	t.mu.Lock()
	var all []*mcp.ServerSession
	for _, s := range t.byID {
		all = append(all, s.ss)
	}
	t.mu.Unlock()
	for _, ss := range all {
		ss.Close()
	}
}

// count returns the number of sessions open, in total and of the account
// with the given ID.
func (t *sessions) count(account string) (total, ofAccount int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.byID), t.byAccount[account]
}

// A streamRefusal says why a stream was not opened.
type streamRefusal struct {
	status int // 404, 429 or 503
	msg    string
}

// openStream records a new event stream of the session with the given ID,
// for the account with the given ID from the given client address, whose
// request ends with end. It returns the function that forgets the stream
// once its request is over, or why the stream is refused.
func (t *sessions) openStream(id, account, address string, end context.CancelFunc) (func(), *streamRefusal) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.byID[id]
	switch {
	case t.closing:
		return nil, &streamRefusal{503, "Service Unavailable: the server is shutting down"}
	case s == nil || s.account != account:
		// Another account's session is answered as one that does not
		// exist, and charges nothing.
		return nil, &streamRefusal{404, "session not found"}
	}
	anonymous := account == anonymousID
	key := account
	if anonymous {
		key = "@" + address
	}
	switch {
	case anonymous && t.lim.streamsPerAddress > 0 && t.streamsBy[key] >= t.lim.streamsPerAddress:
		return nil, &streamRefusal{429, "Too Many Requests: too many event streams from this address; close one first"}
	case !anonymous && t.lim.streamsPerAccount > 0 && t.streamsBy[key] >= t.lim.streamsPerAccount:
		return nil, &streamRefusal{429, "Too Many Requests: too many event streams of this account; close one first"}
	case anonymous && t.lim.anonymousStreams > 0 && t.anonymous >= t.lim.anonymousStreams:
		return nil, &streamRefusal{503, "Service Unavailable: too many anonymous event streams; try again later or sign in"}
	case t.lim.streams > 0 && t.streams >= t.lim.streams:
		return nil, &streamRefusal{503, "Service Unavailable: too many event streams; try again later"}
	}
	st := &stream{end: end}
	if s.streams == nil {
		s.streams = make(map[*stream]bool)
	}
	s.streams[st] = true
	t.streams++
	t.streamsBy[key]++
	if anonymous {
		t.anonymous++
	}
	return func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		delete(s.streams, st)
		t.streams--
		if t.streamsBy[key]--; t.streamsBy[key] <= 0 {
			delete(t.streamsBy, key)
		}
		if anonymous {
			t.anonymous--
		}
	}, nil
}

// applyLimitDefaults sets the limits of s.opts left at zero to their
// defaults and builds what enforces them.
func (s *Server) applyLimitDefaults() {
	o := &s.opts
	if o.SessionTimeout == 0 {
		o.SessionTimeout = DefaultSessionTimeout
	}
	setInt := func(n *int, def int) {
		if *n == 0 {
			*n = def
		}
	}
	setInt(&o.MaxSessions, DefaultMaxSessions)
	setInt(&o.MaxSessionsPerAccount, DefaultMaxSessionsPerAccount)
	setInt(&o.MaxSessionsPerAddress, DefaultMaxSessionsPerAddress)
	setInt(&o.MaxStreams, DefaultMaxStreams)
	setInt(&o.MaxStreamsPerAccount, DefaultMaxStreamsPerAccount)
	setInt(&o.MaxAnonymousStreams, DefaultMaxAnonymousStreams)
	setInt(&o.MaxStreamsPerAddress, DefaultMaxStreamsPerAddress)
	if o.ClientAddress == nil {
		o.ClientAddress = ratelimit.ClientAddress(nil)
	}
	s.sessions = newSessions(limits{
		sessions: o.MaxSessions, sessionsPerAccount: o.MaxSessionsPerAccount, sessionsPerAddress: o.MaxSessionsPerAddress,
		streams: o.MaxStreams, streamsPerAccount: o.MaxStreamsPerAccount,
		anonymousStreams: o.MaxAnonymousStreams, streamsPerAddress: o.MaxStreamsPerAddress,
	})
	s.failures = o.AuthFailures
	if s.failures == nil {
		s.failures = ratelimit.NewFailures(nil)
	}
}
