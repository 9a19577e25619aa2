package mcpserver

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolapi/toolapi/internal/hostcheck"
	"github.com/toolapi/toolapi/tool"
)

// Handler returns the streamable HTTP handler of s, to mount at "/mcp". In
// order, it refuses (403) a request under a Host it does not answer to
// (DNS rebinding; see [Options.AllowedHosts]) and a cross-origin
// browser request other than GET, HEAD and OPTIONS from an origin not
// trusted (see [Options.TrustedOrigins]); then it authenticates the request
// (see [Options.Authenticate]), answering 401 with a WWW-Authenticate:
// Bearer challenge when it cannot and anonymous access is not allowed; then
// it serves MCP for the account. A client address whose credentials failed
// too often is refused 429 before they are checked again (see
// [Options.AuthFailures]); HTTP sessions are closed when idle and
// capped (see [Options.SessionTimeout] and [Options.MaxSessions]), and so
// are their event streams (see [Options.MaxStreams]), which end with their
// session and close their connection as they end.
//
// Within a session every request must authenticate as the account that
// opened it, by [tool.Account.AccountID] (a request without credentials
// counts as [tool.Anonymous], "anonymous"); a request that does not is
// refused 403. An account that Authenticate returns with an empty ID is
// refused 401.
//
// A tools/call of protocol version 2026-07-28 or later must carry routing
// headers that agree with its body: Mcp-Method, Mcp-Name, and an
// Mcp-Param-NAME header for each input its listing marks with x-mcp-header
// NAME that the call sets (once, holding the same value, the text itself or
// wrapped in Base64 as =?base64?...?=), and none for a marked input absent
// or null. One that does not, or whose body repeats a member name, is
// answered 400 with the JSON-RPC error [mcp.CodeHeaderMismatch], and its
// tool does not run. The tool is found by its name or its ID, as tools/call
// finds it, so that both are checked against the same marks.
func (s *Server) Handler() http.Handler {
	s.httpOnce.Do(func() {
		handler := func(stateless bool) http.Handler {
			return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{
				Stateless:                  stateless,
				JSONResponse:               s.opts.JSONResponse,
				SessionTimeout:             s.opts.SessionTimeout,
				EventStore:                 s.opts.EventStore,
				DisableLocalhostProtection: true, // the handler checks the Host itself (see Options.AllowedHosts)
				Logger:                     s.quiet,
			})
		}
		origins := http.NewCrossOriginProtection()
		for _, o := range s.opts.TrustedOrigins {
			if err := origins.AddTrustedOrigin(o); err != nil {
				s.logger.Error("trusted origin ignored", "origin", o, "reason", err.Error())
			}
		}
		// The SDK carries the identity of an HTTP request to its handlers
		// as the TokenInfo that its bearer-token middleware stores, and
		// refuses requests whose identity differs from their session's.
		// The account is authenticated already; the verifier hands it over.
		withAccount := auth.RequireBearerToken(func(ctx context.Context, _ string, _ *http.Request) (*auth.TokenInfo, error) {
			info, _ := ctx.Value(tokenInfoKey{}).(*auth.TokenInfo)
			if info == nil {
				return nil, auth.ErrInvalidToken
			}
			return info, nil
		}, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})
		h := &httpHandler{s: s, origins: origins, stateless: withAccount(handler(true))}
		if !s.opts.Stateless {
			// Clients of protocol versions from 2026-07-28 on are served
			// without sessions, the others with (see servesStateless).
			h.sessions = withAccount(handler(false))
		}
		s.http = h
	})
	return s.http
}

type tokenInfoKey struct{}

type httpHandler struct {
	s         *Server
	origins   *http.CrossOriginProtection
	stateless http.Handler // the SDK's handler without sessions, behind the handover of the account
	sessions  http.Handler // the SDK's handler with sessions, likewise; nil for a stateless Server
}

func (h *httpHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !h.s.opts.DisableLocalhostProtection && !hostcheck.Allowed(r, h.s.opts.AllowedHosts) {
		http.Error(w, "Forbidden: invalid Host header", http.StatusForbidden)
		return
	}
	if err := h.origins.Check(r); err != nil {
		http.Error(w, "Forbidden: "+err.Error(), http.StatusForbidden)
		return
	}
	var acct tool.Account
	addr := h.s.opts.ClientAddress(r)
	if h.s.opts.Authenticate != nil {
		a, ok := h.authenticate(w, r)
		if !ok {
			return
		}
		acct = a
	}
	if acct == nil {
		if !h.s.opts.AllowAnonymous {
			w.Header().Set("WWW-Authenticate", h.challenge("", "", h.s.opts.ChallengeScope))
			http.Error(w, "Unauthorized: credentials required", http.StatusUnauthorized)
			return
		}
		acct = tool.Anonymous
	} else if acct.AccountID() == "" {
		// The SDK binds a session to the user ID of the request that opened
		// it only when there is one: an account without an ID could share
		// its sessions with anyone.
		h.s.logger.Error("account without an ID refused")
		w.Header().Set("WWW-Authenticate", h.challenge("invalid_token", "", ""))
		http.Error(w, "Unauthorized: the account has no ID", http.StatusUnauthorized)
		return
	}
	if !h.checkHeaders(w, r) {
		return
	}
	called, scope := h.stepUp(r, acct)
	if scope != "" {
		h.refuse(w, &AuthError{Status: http.StatusForbidden, Scope: scope, Description: "the token does not grant this tool"})
		return
	}
	info := &auth.TokenInfo{UserID: acct.AccountID(), Extra: map[string]any{accountExtra: acct, addressExtra: addr}}
	if called.tool != nil {
		info.Extra[calledExtra] = called
	}
	if !h.narrow(w, r, acct, info) {
		return
	}
	ctx := context.WithValue(r.Context(), tokenInfoKey{}, info)
	stateless := h.sessions == nil || servesStateless(r)
	if id := r.Header.Get(sessionIDHeader); r.Method == http.MethodGet && id != "" && !stateless {
		// An event stream holds its connection as long as it lasts: it
		// is counted within the limits, ends with its session, and its
		// HTTP/1 connection is closed when it ends rather than kept alive.
		if r.ProtoMajor == 1 {
			// HTTP/2 ends the stream alone; its connection is shared.
			w = &closingWriter{ResponseWriter: w}
			w.Header().Set("Connection", "close")
		}
		var end context.CancelFunc
		ctx, end = context.WithCancel(ctx)
		defer end()
		release, no := h.s.sessions.openStream(id, acct.AccountID(), addr, end)
		if no != nil {
			if no.status != http.StatusNotFound {
				w.Header().Set("Retry-After", strconv.Itoa(int(streamRetryAfter.Seconds())))
			}
			http.Error(w, no.msg, no.status)
			return
		}
		defer release()
	}
	r = r.WithContext(ctx)
	r.Header = r.Header.Clone()
	if _, ok := bearerToken(r); !ok {
		// The request is anonymous, or Authenticate accepted other
		// credentials (a cookie); the handover still goes through the
		// bearer-token middleware.
		r.Header.Set("Authorization", "Bearer authenticated")
	}
	if stateless {
		h.stateless.ServeHTTP(w, r)
		return
	}
	h.atNegotiatedVersion(r)
	if id := r.Header.Get(sessionIDHeader); id != "" && r.Method == http.MethodPost {
		// The session is busy until the response is written: a shutdown
		// closes it only then (see [sessions.end]).
		h.s.sessions.begin(id)
		defer h.s.sessions.end(id)
	}
	h.sessions.ServeHTTP(w, r)
}

// A closingWriter is the ResponseWriter of an event stream: whatever
// Connection header the SDK sets, the response says "Connection: close",
// so that the server closes the connection once the stream ends.
type closingWriter struct {
	http.ResponseWriter
	wrote bool
}

func (w *closingWriter) WriteHeader(code int) {
	if !w.wrote {
		w.wrote = true
		w.Header().Set("Connection", "close")
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *closingWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets [http.ResponseController] flush the stream.
func (w *closingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Headers of streamable HTTP.
const (
	sessionIDHeader       = "Mcp-Session-Id"
	protocolVersionHeader = "Mcp-Protocol-Version"
)

// atNegotiatedVersion makes a request of a session that names no protocol
// version, or an older one than its session negotiated, one of the
// negotiated version: the SDK decides by the header alone whether a
// stream opens with a priming event and closes with a retry delay (from
// 2025-11-25 on), and a client that negotiated 2025-11-25 can resume
// streams whatever its header says. The specification has a server rely
// on the negotiated version when the header is missing; an older header
// than the negotiated version is a client's mistake that is served as the
// version it agreed to. The header is never lowered.
func (h *httpHandler) atNegotiatedVersion(r *http.Request) {
	id := r.Header.Get(sessionIDHeader)
	if id == "" {
		return
	}
	if v := h.s.sessions.version(id); v != "" && r.Header.Get(protocolVersionHeader) < v {
		r.Header.Set(protocolVersionHeader, v)
	}
}

// bearerToken returns the bearer token of r.
func bearerToken(r *http.Request) (string, bool) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	token = strings.TrimSpace(token)
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" || strings.ContainsAny(token, " \t") {
		return "", false
	}
	return token, true
}

// ErrInvalidToken is returned by the Authenticate function of [Bearer] for
// a token that names no account.
var ErrInvalidToken = errors.New("invalid bearer token")

// Bearer returns an [Options.Authenticate] function that maps the bearer
// token of a request to an account with lookup. A request without a bearer
// token carries no credentials (nil, nil); a token for which lookup returns
// no account fails with [ErrInvalidToken], as does any error of lookup
// but one wrapping [tool.ErrUnavailable], which is answered 503.
func Bearer(lookup func(ctx context.Context, token string) (tool.Account, error)) func(*http.Request) (tool.Account, error) {
	return func(r *http.Request) (tool.Account, error) {
		if r.Header.Get("Authorization") == "" {
			return nil, nil
		}
		token, ok := bearerToken(r)
		if !ok {
			return nil, ErrInvalidToken
		}
		acct, err := lookup(r.Context(), token)
		if errors.Is(err, tool.ErrUnavailable) {
			return nil, &AuthError{Status: http.StatusServiceUnavailable, Err: err}
		}
		if err != nil {
			return nil, errors.Join(ErrInvalidToken, err)
		}
		if acct == nil {
			return nil, ErrInvalidToken
		}
		return acct, nil
	}
}
