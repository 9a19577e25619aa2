package explorer

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/toolapi/toolapi/tool"
)

// Sessions are kept on the server, in memory or in a [SessionStore]: the
// cookie holds only a random session ID, so signing out ends a session for
// good. Each session
// has a CSRF token, an HMAC of its ID, that every form carries. The
// sign-in form, used before there is a session, carries an HMAC of a
// random value held in a cookie of its own instead.

// maxSessions bounds the sessions kept at once; past it no session
// starts until some end. maxAccountSessions bounds those of one owner (an
// account): starting one more ends that owner's oldest, never another's.
// Guests share an account, so their sessions are owned by their client
// address: maxGuestsPerAddress bounds those of one address the same way,
// so that one guest cannot end the others', and maxGuests bounds the
// guests' sessions in all: past it no guest session starts until some
// end, so that guests from many addresses cannot fill the table.
const (
	maxSessions         = 100_000
	maxAccountSessions  = 1_000
	maxGuestsPerAddress = 20
	maxGuests           = 10_000
)

// guestOwner returns the owner of the sessions of the guests at a client
// address: a key no account ID is (IDs hold no control characters), that
// every database keeps as text.
func guestOwner(addr string) string { return "guest\x1f" + addr }

// signInCookie names the cookie whose value the sign-in form's token is
// made from.
const signInCookie = "toolapi_signin"

type session struct {
	id      string
	acct    tool.Account // nil when read from a SessionStore: found again by accountID
	account string
	csrf    string
	expires time.Time
	guest   bool // started by "continue as guest": shared by every guest, so it keeps no presets
}

type sessions struct {
	key      []byte
	lifetime time.Duration
	// store keeps the sessions when set; else they are kept in m.
	store SessionStore

	mu        sync.Mutex
	m         map[string]*session
	byAccount map[string][]string // session IDs by owner, oldest first
	guests    int                 // the guest sessions in m
	maxGuests int                 // maxGuests, but for tests
	sweepAt   int                 // sweep expired sessions when m grows this big
}

func newSessions(key []byte, lifetime time.Duration) *sessions {
	return &sessions{key: key, lifetime: lifetime, m: make(map[string]*session), byAccount: make(map[string][]string), sweepAt: 1024, maxGuests: maxGuests}
}

// token returns the CSRF token of a purpose ("session", "signin") and a
// value (a session ID, a sign-in nonce).
func (s *sessions) token(purpose, value string) string {
	mac := hmac.New(sha256.New, s.key)
	mac.Write([]byte(purpose))
	mac.Write([]byte{0})
	mac.Write([]byte(value))
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// start starts a session for acct, counted against owner's bound. It
// returns nil and no error when the table is full, or when guest is set
// and the guests' share of it is.
func (s *sessions) start(ctx context.Context, acct tool.Account, owner string, guest bool) (*session, error) {
	id := randomID()
	sess := &session{id: id, acct: acct, account: acct.AccountID(), csrf: s.token("session", id), expires: time.Now().Add(s.lifetime), guest: guest}
	perOwner := maxAccountSessions
	if guest {
		perOwner = maxGuestsPerAddress
	}
	if s.store != nil {
		if guest {
			if c, ok := s.store.(GuestCounter); ok {
				n, err := c.GuestSessions(ctx)
				if err != nil {
					return nil, err
				}
				if n >= s.maxGuests {
					return nil, nil
				}
			}
		}
		err := s.store.StartSession(ctx, &Session{ID: id, Owner: owner, Account: sess.account, Guest: guest, Expires: sess.expires}, perOwner)
		if errors.Is(err, ErrTooManySessions) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		return sess, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.m) >= s.sweepAt {
		// Sweeping costs a walk of the table: only when it has doubled.
		now := time.Now()
		for k, old := range s.m {
			if now.After(old.expires) {
				s.drop(k)
			}
		}
		s.sweepAt = max(1024, 2*len(s.m))
	}
	ids := slices.DeleteFunc(s.byAccount[owner], func(id string) bool { return s.m[id] == nil })
	for len(ids) >= perOwner {
		s.drop(ids[0])
		ids = ids[1:]
	}
	if len(s.m) >= maxSessions || guest && s.guests >= s.maxGuests {
		s.byAccount[owner] = ids
		return nil, nil
	}
	s.m[id] = sess
	if guest {
		s.guests++
	}
	s.byAccount[owner] = append(ids, id)
	return sess, nil
}

// drop forgets the session with the given ID. s.mu is held.
func (s *sessions) drop(id string) {
	if sess := s.m[id]; sess != nil {
		if sess.guest {
			s.guests--
		}
		delete(s.m, id)
	}
}

// get returns the live session with the given ID, or nil.
func (s *sessions) get(ctx context.Context, id string) (*session, error) {
	if id == "" || len(id) > 100 {
		return nil, nil
	}
	if s.store != nil {
		st, err := s.store.Session(ctx, id)
		if errors.Is(err, ErrNoSession) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		if time.Now().After(st.Expires) {
			return nil, s.store.EndSession(ctx, id)
		}
		return &session{id: id, account: st.Account, csrf: s.token("session", id), expires: st.Expires, guest: st.Guest}, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sess := s.m[id]
	if sess != nil && time.Now().After(sess.expires) {
		s.drop(id)
		return nil, nil
	}
	return sess, nil
}

// end ends the session with the given ID.
func (s *sessions) end(ctx context.Context, id string) error {
	if s.store != nil {
		return s.store.EndSession(ctx, id)
	}
	s.mu.Lock()
	s.drop(id)
	s.mu.Unlock()
	return nil
}

func randomID() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// A visit is who is asking for a page: the account and, once signed in,
// the session.
type visit struct {
	acct      tool.Account
	sess      *session
	narrowing *tool.Narrowing // of the page's query (see narrow); nil: none
}

// signedIn reports whether the visitor has a session.
func (v *visit) signedIn() bool { return v.sess != nil }

// csrf returns the token the visitor's forms carry, "" without a session.
func (v *visit) csrf() string {
	if v.sess == nil {
		return ""
	}
	return v.sess.csrf
}

// visitKey is the context key of the visit [server.withVisit] found.
type visitKey struct{}

// withVisit finds who makes r once, for every page of the request to
// share. When that cannot be told (the store of sessions or accounts is
// unavailable), it answers 503 with Retry-After, keeping the session, and
// reports false.
func (e *server) withVisit(w http.ResponseWriter, r *http.Request) (*http.Request, bool) {
	v, err := e.findVisit(r)
	if err != nil {
		e.logger.Error("explorer: the visitor cannot be told", "error", err.Error())
		e.unavailable(w, r, e.anonymous(r))
		return r, false
	}
	return r.WithContext(context.WithValue(r.Context(), visitKey{}, v)), true
}

// visit returns who makes r.
func (e *server) visit(r *http.Request) *visit {
	if v, ok := r.Context().Value(visitKey{}).(*visit); ok {
		return v
	}
	v, err := e.findVisit(r)
	if err != nil {
		e.logger.Error("explorer: the visitor cannot be told", "error", err.Error())
		return e.anonymous(r)
	}
	return v
}

// findVisit returns who makes r, or an error when that cannot be told: the
// session store fails, or the signed-in account's lookup fails with an
// error wrapping [tool.ErrUnavailable]. Any other failure of the lookup
// ends the session.
func (e *server) findVisit(r *http.Request) (*visit, error) {
	c, err := r.Cookie(e.opts.CookieName)
	if err != nil {
		return e.anonymous(r), nil
	}
	sess, err := e.sessions.get(r.Context(), c.Value)
	if err != nil {
		return nil, fmt.Errorf("loading a session: %w", err)
	}
	if sess == nil {
		return e.anonymous(r), nil
	}
	acct := sess.acct
	switch {
	case e.opts.Account != nil && !sess.guest:
		acct, err = e.opts.Account(r.Context(), sess.account)
	case acct == nil && sess.guest && e.opts.Anonymous != nil:
		acct, err = e.opts.Anonymous(r.Context())
	}
	if errors.Is(err, tool.ErrUnavailable) {
		return nil, fmt.Errorf("looking the account up: %w", err)
	}
	if err != nil || acct == nil || acct.AccountID() != sess.account {
		// The account is gone, or a session from the store cannot be
		// given its account again.
		e.endSession(r, sess.id)
		return e.anonymous(r), nil
	}
	return &visit{acct: acct, sess: sess}, nil
}

// endSession ends a session, logging what goes wrong.
func (e *server) endSession(r *http.Request, id string) {
	if err := e.sessions.end(r.Context(), id); err != nil {
		e.logger.Error("explorer: ending a session", "error", err.Error())
	}
}

// anonymous returns the visit of someone who has not signed in.
func (e *server) anonymous(r *http.Request) *visit {
	if e.opts.Anonymous != nil {
		acct, err := e.opts.Anonymous(r.Context())
		if err == nil && acct != nil {
			return &visit{acct: acct}
		}
		if err != nil {
			e.logger.Error("explorer: anonymous account", "error", err.Error())
		}
	}
	return &visit{acct: tool.Anonymous}
}

// maxForm bounds the size of a submitted form.
const maxForm = 4 << 20

// checkToken parses r's form and reports whether it carries the session's
// CSRF token. A visitor without a session has no valid token.
func (e *server) checkToken(w http.ResponseWriter, r *http.Request, v *visit) bool {
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	if err := r.ParseForm(); err != nil {
		return false
	}
	if v.sess == nil {
		return false
	}
	return hmac.Equal([]byte(r.PostForm.Get("csrf")), []byte(v.sess.csrf))
}

// forbidden answers 403 with a page saying why.
func (e *server) forbidden(w http.ResponseWriter, r *http.Request, why string) {
	e.renderStatus(w, r, http.StatusForbidden, "message", &page{
		Title:   "Refused",
		Message: why,
	}, e.visit(r))
}

func (e *server) cookie(r *http.Request, name, value string, maxAge int) *http.Cookie {
	return &http.Cookie{
		Name:     name,
		Value:    value,
		Path:     e.prefix,
		MaxAge:   maxAge,
		HttpOnly: true,
		Secure:   e.opts.Secure || r.TLS != nil,
		SameSite: http.SameSiteLaxMode,
	}
}

// signInToken returns the token of the sign-in form, setting the cookie it
// is made from when r has none.
func (e *server) signInToken(w http.ResponseWriter, r *http.Request) string {
	nonce := ""
	if c, err := r.Cookie(signInCookie); err == nil && len(c.Value) >= 32 {
		nonce = c.Value
	} else {
		nonce = randomID()
		http.SetCookie(w, e.cookie(r, signInCookie, nonce, 3600))
	}
	return e.sessions.token("signin", nonce)
}

// serveSignIn serves the sign-in page.
func (e *server) serveSignIn(w http.ResponseWriter, r *http.Request) {
	v := e.visit(r)
	e.renderSignIn(w, r, v, http.StatusOK, "", r.URL.Query().Get("next"))
}

func (e *server) renderSignIn(w http.ResponseWriter, r *http.Request, v *visit, status int, problem, next string) {
	p := &page{
		Title:         "Sign in",
		SignInToken:   e.signInToken(w, r),
		Problem:       problem,
		Next:          e.localPath(next),
		CanSignIn:     e.opts.Authenticate != nil,
		PasswordLabel: e.opts.PasswordLabel,
		SignInNote:    e.opts.SignInNote,
	}
	if e.opts.Anonymous != nil {
		if acct, err := e.opts.Anonymous(r.Context()); err == nil && acct != nil {
			p.Guest = acct.AccountID()
		}
	}
	e.renderStatus(w, r, status, "signin", p, v)
}

// postSignIn signs a person in: with a name and password, or as the
// anonymous account ("guest").
func (e *server) postSignIn(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	c, err := r.Cookie(signInCookie)
	if err := r.ParseForm(); err != nil || c == nil || len(c.Value) < 32 ||
		!hmac.Equal([]byte(r.PostForm.Get("csrf")), []byte(e.sessions.token("signin", c.Value))) {
		e.forbidden(w, r, "The sign-in form has expired or did not come from this site. Open the sign-in page again.")
		return
	}
	v := e.visit(r)
	next := r.PostForm.Get("next")
	addr := e.clientAddress(r)
	var acct tool.Account
	switch {
	case r.PostForm.Has("guest") && e.opts.Anonymous != nil:
		acct, err = e.opts.Anonymous(r.Context())
		if err != nil || acct == nil {
			e.logger.Error("explorer: anonymous account", "error", errString(err))
			e.renderSignIn(w, r, v, http.StatusInternalServerError, "Signing in failed; try again.", next)
			return
		}
	case e.opts.Authenticate != nil:
		name := strings.TrimSpace(r.PostForm.Get("name"))
		password := r.PostForm.Get("password")
		credential := ""
		if name != "" || password != "" {
			credential = name + "\x00" + password
		}
		attempt, wait := e.failures.Begin(addr, credential)
		if wait > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(max(1, int(math.Ceil(wait.Seconds())))))
			e.renderSignIn(w, r, v, http.StatusTooManyRequests, "Too many sign-ins from your address failed. Try again in "+
				waitText(wait)+".", next)
			return
		}
		acct, err = e.opts.Authenticate(r.Context(), name, password)
		if errors.Is(err, tool.ErrUnavailable) {
			attempt.Uncounted()
			e.logger.Error("explorer: signing in", "error", err.Error())
			w.Header().Set("Retry-After", strconv.Itoa(int(retryUnavailable/time.Second)))
			e.renderSignIn(w, r, v, http.StatusServiceUnavailable, "Signing in is not possible at the moment; try again in a few seconds.", next)
			return
		}
		if err != nil || acct == nil {
			attempt.Failed()
			e.renderSignIn(w, r, v, http.StatusUnauthorized, "The name or "+strings.ToLower(e.opts.PasswordLabel)+" is wrong.", next)
			return
		}
		attempt.Accepted()
	default:
		e.renderSignIn(w, r, v, http.StatusUnauthorized, "Signing in is not possible here.", next)
		return
	}
	if acct.Blocked() {
		e.renderSignIn(w, r, v, http.StatusForbidden, "The account "+acct.AccountID()+" is blocked.", next)
		return
	}
	if v.sess != nil {
		e.endSession(r, v.sess.id)
	}
	guest := r.PostForm.Has("guest") && e.opts.Anonymous != nil
	owner := acct.AccountID()
	if guest {
		// Guests share an account: their sessions are bounded per
		// address, so that one guest cannot end the others'.
		owner = guestOwner(addr)
	}
	sess, err := e.sessions.start(r.Context(), acct, owner, guest)
	if err != nil {
		e.logger.Error("explorer: starting a session", "error", err.Error())
		e.renderSignIn(w, r, v, http.StatusInternalServerError, "Signing in failed; try again.", next)
		return
	}
	if sess == nil {
		msg := "Too many people are signed in; try again later."
		if guest {
			msg = "Too many guests are signed in; try again later, or sign in with your own account."
		}
		e.renderSignIn(w, r, v, http.StatusServiceUnavailable, msg, next)
		return
	}
	// A new nonce: the sign-in form's token is good for one sign-in.
	http.SetCookie(w, e.cookie(r, signInCookie, "", -1))
	http.SetCookie(w, e.cookie(r, e.opts.CookieName, sess.id, int(e.opts.SessionLifetime/time.Second)))
	http.Redirect(w, r, e.localPath(next), http.StatusSeeOther)
}

// postSignOut ends the session.
func (e *server) postSignOut(w http.ResponseWriter, r *http.Request) {
	v := e.visit(r)
	if !e.checkToken(w, r, v) {
		e.forbidden(w, r, "The form did not carry this session's token.")
		return
	}
	e.endSession(r, v.sess.id)
	http.SetCookie(w, e.cookie(r, e.opts.CookieName, "", -1))
	http.Redirect(w, r, e.prefix, http.StatusSeeOther)
}

// localPath returns p when it is a path of the explorer, else the list's.
func (e *server) localPath(p string) string {
	u, err := url.Parse(p)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil ||
		!strings.HasPrefix(p, e.prefix) || strings.HasPrefix(p, "//") || strings.ContainsRune(p, '\\') {
		return e.prefix
	}
	for i := 0; i < len(p); i++ {
		if p[i] < 0x20 || p[i] == 0x7f {
			return e.prefix // browsers drop tabs and newlines: "/\t/evil" would become "//evil"
		}
	}
	return p
}

// plural returns n and the noun, in the plural unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

func errString(err error) string {
	if err == nil {
		return "no account"
	}
	return err.Error()
}
