// Package oauth makes an MCP endpoint an OAuth 2.1 resource server, as the
// MCP authorization specification asks: clients find the authorization
// server through the endpoint's protected resource metadata (RFC 9728) and
// send access tokens: JWTs (RFC 9068) that the server checks against the
// issuer's published keys, or opaque tokens that it asks the issuer about
// at its introspection endpoint (RFC 7662, see [Options.Introspection]).
//
//	rs, err := oauth.New(&oauth.Options{
//		Resource: "https://mcp.example.com/mcp",
//		Issuer:   "https://login.example.com",
//		Scopes:   map[string][]string{"album:read": {"access content"}},
//	})
//	srv := mcpserver.New(reg, &mcpserver.Options{
//		Authenticate:        rs.Authenticate,
//		ResourceMetadataURL: rs.MetadataURL(),
//		ChallengeScope:      rs.ChallengeScope(),
//		StepUp:              rs.StepUp,
//	})
//	mux.Handle(rs.MetadataPath(), rs.MetadataHandler())
//	mux.Handle("/mcp", srv.Handler())
//
// A token is accepted when its signature verifies with a key of the
// issuer's JSON Web Key Set, its iss is the issuer, its aud names the
// resource, it has not expired, and it is an access token (typ at+jwt, or
// a type of [Options.TokenTypes], and none of an ID token's claims); its
// scopes grant the permissions [Options.Scopes] maps them to. An opaque token is accepted when the
// issuer's introspection endpoint answers that it is active, for a
// subject, with an expiry not passed, and an iss and aud, if it names
// them, of the issuer and of the resource (or of the client the resource
// server introspects as). A token that fails is answered 401 with a
// WWW-Authenticate challenge naming the metadata; one that lacks a scope
// of [Options.RequiredScopes] is answered 403 insufficient_scope, naming
// the scopes, so that the client can ask the person for more; so is a
// tools/call of a tool the token's scopes do not reach (see
// [ResourceServer.StepUp]). A 401 names the scopes to ask for (see
// [ResourceServer.ChallengeScope]), which the metadata lists as supported.
package oauth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/toolapi/toolapi/mcpserver"
	"github.com/toolapi/toolapi/tool"
)

// Options configure a [ResourceServer]; Resource and Issuer are required,
// the zero value of every other field is its default.
type Options struct {
	// Resource is the resource identifier of the endpoint: its canonical
	// URL ("https://mcp.example.com/mcp"). A token must name it in its
	// aud claim.
	Resource string
	// Issuer is the issuer identifier of the authorization server
	// ("https://login.example.com"). A token must carry it as its iss
	// claim.
	Issuer string
	// JWKSURL is the URL of the issuer's JSON Web Key Set. Empty means
	// the jwks_uri of the issuer's metadata, read from
	// /.well-known/openid-configuration, else
	// /.well-known/oauth-authorization-server, under Issuer.
	JWKSURL string
	// Scopes maps each scope to the permissions it grants. A token's
	// scopes that are not keys grant nothing. Nil grants none: every
	// token then acts for an account without permissions.
	Scopes map[string][]string
	// RequiredScopes are the scopes every token must carry to reach the
	// endpoint at all; a token without one is answered 403
	// insufficient_scope naming them. Nil requires none.
	RequiredScopes []string
	// Account returns the account a verified token acts for. Nil means a
	// [tool.User] whose ID is the token's subject and whose permissions
	// are those its scopes grant, narrowed by the scopes "toolset:NAME"
	// and "tools:read" (see [mcpserver.ScopeNarrowing]). An account of
	// its own narrows so by implementing [mcpserver.NarrowedAccount].
	Account func(ctx context.Context, t *Token) (tool.Account, error)
	// ResourceName is a name of the endpoint for people, published in the
	// metadata. Empty means none.
	ResourceName string

	// Logger receives what goes wrong fetching the issuer's keys. Nil
	// means [slog.Default].
	Logger *slog.Logger
	// HTTPClient fetches the issuer's metadata and keys. Nil means a
	// client with a 10-second timeout.
	HTTPClient *http.Client
	// KeysMaxAge is how long fetched keys are used before they are fetched
	// again. Zero means 10 minutes.
	KeysMaxAge time.Duration
	// KeysMinInterval is the least time between two fetches of the keys: a
	// token signed with a key not in the set fetches it again (the issuer
	// may have rotated its keys) at most that often. Zero means 30 seconds.
	KeysMinInterval time.Duration
	// Leeway is the clock skew allowed when checking exp, nbf and iat.
	// Zero means 30 seconds; negative means none.
	Leeway time.Duration
	// TokenTypes are the JWT types (the typ header) accepted besides
	// at+jwt, the type of access tokens (RFC 9068), for an issuer whose
	// documentation names another type for its access tokens ("JWT", say);
	// "" in it accepts tokens without a typ. Types are compared without
	// case and with or without "application/". Whatever the type, a token
	// carrying an ID token's claims (nonce, at_hash, c_hash) is refused:
	// an ID token says who signed in to a client, and is no access token.
	// Nil accepts at+jwt only.
	TokenTypes []string
	// Algorithms are the signature algorithms accepted. Nil means RS256,
	// RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512 and EdDSA;
	// "none" and the HMAC algorithms are never accepted.
	Algorithms []jose.SignatureAlgorithm

	// Introspection, when set, checks the tokens that are not signed JWTs
	// (opaque or encrypted access tokens) at the issuer's introspection
	// endpoint (RFC 7662). Nil refuses them.
	Introspection *Introspection
}

// A Token is a verified access token.
type Token struct {
	// Subject is the sub claim: whom the token acts for.
	Subject string
	// ClientID is the client_id claim (azp when absent): the client the
	// token was issued to.
	ClientID string
	// Scopes are the scopes of the scope claim (or scp).
	Scopes []string
	// Permissions are those [Options.Scopes] grants for Scopes, sorted.
	Permissions []string
	// Expiry is the exp claim.
	Expiry time.Time
	// Claims holds every claim of the token.
	Claims map[string]any
}

// Limits of what the server reads.
const (
	maxTokenBytes = 16 << 10 // a bearer token
	maxKeys       = 100      // keys of a key set
	maxDocBytes   = 1 << 20  // metadata and key set documents
)

// A ResourceServer checks the access tokens of an endpoint and publishes
// its protected resource metadata. It is safe for concurrent use.
type ResourceServer struct {
	opts  Options
	keys  *keySet
	intro *introspector // nil without Options.Introspection

	metaMu    sync.Mutex
	meta      *issuerMeta // the issuer's metadata, once read
	metaErr   error       // why the last read failed
	metaTried time.Time   // when it was last read
	metadata  *oauthex.ProtectedResourceMetadata
	metaURL   string
	metaPath  string
	required  string   // RequiredScopes joined
	types     []string // the token types accepted, normalized
	now       func() time.Time
}

// New returns a ResourceServer with opts. It fetches nothing yet: the
// issuer's keys are fetched when the first token comes.
func New(opts *Options) (*ResourceServer, error) {
	if opts == nil {
		return nil, errors.New("oauth: Options.Resource and Options.Issuer are required")
	}
	rs := &ResourceServer{opts: *opts, now: time.Now}
	o := &rs.opts
	res, err := url.Parse(o.Resource)
	if err != nil || (res.Scheme != "https" && res.Scheme != "http") || res.Host == "" || res.Fragment != "" {
		return nil, fmt.Errorf("oauth: Options.Resource %q: must be an absolute http(s) URL without a fragment", o.Resource)
	}
	if iss, err := url.Parse(o.Issuer); err != nil || (iss.Scheme != "https" && iss.Scheme != "http") || iss.Host == "" {
		return nil, fmt.Errorf("oauth: Options.Issuer %q: must be an absolute http(s) URL", o.Issuer)
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{Timeout: 10 * time.Second}
	}
	if o.KeysMaxAge <= 0 {
		o.KeysMaxAge = 10 * time.Minute
	}
	if o.KeysMinInterval <= 0 {
		o.KeysMinInterval = 30 * time.Second
	}
	if o.Leeway == 0 {
		o.Leeway = 30 * time.Second
	} else if o.Leeway < 0 {
		o.Leeway = 0
	}
	if o.Algorithms == nil {
		o.Algorithms = []jose.SignatureAlgorithm{
			jose.RS256, jose.RS384, jose.RS512, jose.PS256, jose.PS384, jose.PS512,
			jose.ES256, jose.ES384, jose.ES512, jose.EdDSA,
		}
	}
	for _, a := range o.Algorithms {
		if strings.HasPrefix(string(a), "HS") || a == "none" {
			return nil, fmt.Errorf("oauth: Options.Algorithms: %s is not accepted for access tokens", a)
		}
	}
	// RFC 9728, section 3.1: the metadata of a resource with a path lives
	// at the well-known path followed by the resource's path.
	rs.metaPath = "/.well-known/oauth-protected-resource" + strings.TrimSuffix(res.EscapedPath(), "/")
	rs.metaURL = (&url.URL{Scheme: res.Scheme, Host: res.Host, Path: rs.metaPath}).String()
	rs.types = []string{"at+jwt"}
	for _, typ := range o.TokenTypes {
		rs.types = append(rs.types, normalType(typ))
	}
	// Every scope the resource knows: those that grant permissions and
	// those it requires.
	scopes := slices.Sorted(func(yield func(string) bool) {
		for s := range o.Scopes {
			if !yield(s) {
				return
			}
		}
	})
	for _, s := range o.RequiredScopes {
		if !slices.Contains(scopes, s) {
			scopes = append(scopes, s)
		}
	}
	slices.Sort(scopes)
	rs.metadata = &oauthex.ProtectedResourceMetadata{
		Resource:               o.Resource,
		AuthorizationServers:   []string{o.Issuer},
		ScopesSupported:        scopes,
		BearerMethodsSupported: []string{"header"},
		ResourceName:           o.ResourceName,
	}
	rs.required = strings.Join(o.RequiredScopes, " ")
	rs.keys = &keySet{rs: rs}
	if o.Introspection != nil {
		if rs.intro, err = newIntrospector(rs, o.Introspection); err != nil {
			return nil, err
		}
	}
	return rs, nil
}

// MetadataPath returns the path at which to serve [ResourceServer.MetadataHandler]:
// /.well-known/oauth-protected-resource followed by the resource's path.
func (rs *ResourceServer) MetadataPath() string { return rs.metaPath }

// MetadataURL returns the URL of the protected resource metadata, for
// [mcpserver.Options.ResourceMetadataURL].
func (rs *ResourceServer) MetadataURL() string { return rs.metaURL }

// Metadata returns the protected resource metadata (RFC 9728) of the
// endpoint. The caller must not change it.
func (rs *ResourceServer) Metadata() *oauthex.ProtectedResourceMetadata { return rs.metadata }

// ChallengeScope returns the scopes, separated by spaces, that a 401
// answer names in its challenge (for [mcpserver.Options.ChallengeScope]):
// the required scopes, or when there are none, every scope the metadata
// lists as supported, so that a client asks for what the endpoint needs.
func (rs *ResourceServer) ChallengeScope() string {
	if rs.required != "" {
		return rs.required
	}
	return strings.Join(rs.metadata.ScopesSupported, " ")
}

// MetadataHandler serves the protected resource metadata as JSON, to any
// origin.
func (rs *ResourceServer) MetadataHandler() http.Handler {
	return auth.ProtectedResourceMetadataHandler(rs.metadata)
}

// Authenticate is an [mcpserver.Options.Authenticate] function: a request
// without an Authorization header carries no credentials; one whose bearer
// token [ResourceServer.Verify] accepts acts for the token's account; any
// other is refused with an [mcpserver.AuthError].
func (rs *ResourceServer) Authenticate(r *http.Request) (tool.Account, error) {
	h := r.Header.Get("Authorization")
	if h == "" {
		return nil, nil
	}
	scheme, raw, ok := strings.Cut(strings.TrimSpace(h), " ")
	raw = strings.TrimSpace(raw)
	if !ok || !strings.EqualFold(scheme, "Bearer") || raw == "" {
		return nil, &mcpserver.AuthError{Description: "a bearer token is required", Err: errNotBearer}
	}
	t, err := rs.Verify(r.Context(), raw)
	if err != nil {
		return nil, err
	}
	if rs.opts.Account != nil {
		acct, err := rs.opts.Account(r.Context(), t)
		if err != nil {
			return nil, &mcpserver.AuthError{Description: "the token's account is not known", Err: err}
		}
		if acct == nil {
			return nil, &mcpserver.AuthError{Description: "the token's account is not known"}
		}
		return acct, nil
	}
	acct := WithAgent(&tool.User{ID: t.Subject, Permissions: t.Permissions}, t)
	if n := mcpserver.ScopeNarrowing(t.Scopes); n != nil {
		return &narrowedUser{Account: acct, n: n, agent: AgentOf(t)}, nil
	}
	return acct, nil
}

// A narrowedUser is the account of a token whose scopes narrow it to some
// toolsets or to reading only (see [mcpserver.ScopeNarrowing]).
type narrowedUser struct {
	tool.Account
	n     *tool.Narrowing
	agent string
}

// Agent implements [tool.Agented]: the agent the token names, if any.
func (u *narrowedUser) Agent() string { return u.agent }

// Narrowing implements [mcpserver.NarrowedAccount].
func (u *narrowedUser) Narrowing() *tool.Narrowing { return u.n }

var errNotBearer = errors.New("not a bearer token")

// Reasons a token is refused; an [mcpserver.AuthError] of
// [ResourceServer.Verify] wraps one.
var (
	ErrMalformed    = errors.New("token is not a signed JWT")
	ErrSignature    = errors.New("token signature does not verify with the issuer's keys")
	ErrIssuer       = errors.New("token issued by another issuer")
	ErrAudience     = errors.New("token for another audience")
	ErrExpired      = errors.New("token expired or not yet valid")
	ErrNoExpiry     = errors.New("token without expiry")
	ErrNoSubject    = errors.New("token without subject")
	ErrScope        = errors.New("token lacks a required scope")
	ErrKeysUnusable = errors.New("issuer's keys cannot be fetched")
	ErrTokenType    = errors.New("token is not an access token")
)

// claims are the registered claims of an access token and its scopes.
type claims struct {
	jwt.Claims
	Scope    string   `json:"scope"`
	Scp      []string `json:"scp"`
	ClientID string   `json:"client_id"`
	AZP      string   `json:"azp"`
}

// Verify checks a bearer token: a JWT signed with a key of the issuer
// (fetched anew, at most every KeysMinInterval, when the token names a key
// not in the set), whose iss is the issuer, whose aud names the resource,
// with a subject and an exp that has not passed (nor an nbf or iat still
// ahead), of an access token's type (see [Options.TokenTypes]), carrying
// every required scope. A refused token gives an
// [mcpserver.AuthError] of status 401, or 403 for a missing scope, or 503
// when the keys cannot be fetched, wrapping one of the Err values.
func (rs *ResourceServer) Verify(ctx context.Context, raw string) (*Token, error) {
	if len(raw) > maxTokenBytes {
		return nil, &mcpserver.AuthError{Description: "the token is too long", Err: ErrMalformed}
	}
	tok, err := jwt.ParseSigned(raw, rs.opts.Algorithms)
	if err != nil && rs.intro != nil {
		return rs.intro.verify(ctx, raw)
	}
	if err != nil || len(tok.Headers) != 1 {
		return nil, &mcpserver.AuthError{Description: "the token is not a signed JWT", Err: ErrMalformed}
	}
	key, err := rs.keys.key(ctx, tok.Headers[0].KeyID, tok.Headers[0].Algorithm)
	if err != nil {
		if errors.Is(err, ErrKeysUnusable) {
			return nil, &mcpserver.AuthError{Status: http.StatusServiceUnavailable, Err: err}
		}
		return nil, &mcpserver.AuthError{Description: "the token is not signed by the issuer", Err: err}
	}
	var c claims
	var all map[string]any
	if err := tok.Claims(key, &c, &all); err != nil {
		return nil, &mcpserver.AuthError{Description: "the token is not signed by the issuer", Err: fmt.Errorf("%w: %w", ErrSignature, err)}
	}
	if c.Issuer != rs.opts.Issuer {
		return nil, &mcpserver.AuthError{Description: "the token is from another issuer", Err: ErrIssuer}
	}
	if c.Expiry == nil {
		return nil, &mcpserver.AuthError{Description: "the token has no expiry", Err: ErrNoExpiry}
	}
	if err := c.ValidateWithLeeway(jwt.Expected{Time: rs.now()}, rs.opts.Leeway); err != nil {
		return nil, &mcpserver.AuthError{Description: "the token expired", Err: fmt.Errorf("%w: %w", ErrExpired, err)}
	}
	if !c.Audience.Contains(rs.opts.Resource) {
		return nil, &mcpserver.AuthError{Description: "the token is not for this resource", Err: ErrAudience}
	}
	if c.Subject == "" {
		return nil, &mcpserver.AuthError{Description: "the token has no subject", Err: ErrNoSubject}
	}
	if err := rs.checkType(tok.Headers[0], all); err != nil {
		return nil, err
	}
	t := &Token{Subject: c.Subject, ClientID: c.ClientID, Expiry: c.Expiry.Time(), Claims: all}
	if t.ClientID == "" {
		t.ClientID = c.AZP
	}
	if c.Scope != "" {
		t.Scopes = strings.Fields(c.Scope)
	} else {
		t.Scopes = c.Scp
	}
	if err := rs.grant(t); err != nil {
		return nil, err
	}
	return t, nil
}

// checkType refuses a token that is not an access token: its typ is not
// at+jwt nor one of Options.TokenTypes, or it carries a claim only ID
// tokens carry.
func (rs *ResourceServer) checkType(h jose.Header, all map[string]any) error {
	typ, _ := h.ExtraHeaders[jose.HeaderType].(string)
	if !slices.Contains(rs.types, normalType(typ)) {
		return &mcpserver.AuthError{Description: "the token is not an access token (its type is not at+jwt)", Err: ErrTokenType}
	}
	for _, c := range []string{"nonce", "at_hash", "c_hash"} {
		if _, ok := all[c]; ok {
			return &mcpserver.AuthError{Description: "the token is an ID token, not an access token", Err: ErrTokenType}
		}
	}
	return nil
}

// normalType returns a JWT type in lower case without "application/"
// (RFC 7515, section 4.1.9).
func normalType(typ string) string {
	typ = strings.ToLower(strings.TrimSpace(typ))
	return strings.TrimPrefix(typ, "application/")
}

// grant checks that t carries every required scope and gives it the
// permissions its scopes grant.
func (rs *ResourceServer) grant(t *Token) error {
	for _, s := range rs.opts.RequiredScopes {
		if !slices.Contains(t.Scopes, s) {
			return &mcpserver.AuthError{
				Status: http.StatusForbidden, Scope: rs.required,
				Description: "the token lacks the scope " + s, Err: ErrScope,
			}
		}
	}
	for _, s := range t.Scopes {
		for _, p := range rs.opts.Scopes[s] {
			if !slices.Contains(t.Permissions, p) {
				t.Permissions = append(t.Permissions, p)
			}
		}
	}
	slices.Sort(t.Permissions)
	return nil
}

// ScopesFor returns the scopes that grant the named permission, sorted:
// what a client lacking it may ask for.
func (rs *ResourceServer) ScopesFor(permission string) []string {
	var out []string
	for s, perms := range rs.opts.Scopes {
		if slices.Contains(perms, permission) {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}

func (rs *ResourceServer) logf(format string, args ...any) {
	rs.opts.Logger.Warn(fmt.Sprintf(format, args...))
}

// StepUp is an [mcpserver.Options.StepUp] function: for a tool acct may not
// call, it names the required scopes and every scope that grants a
// permission the tool names, so that a token with them can call it; ""
// when no scope grants any (more scopes would not help).
func (rs *ResourceServer) StepUp(acct tool.Account, t *tool.Tool) string {
	var grant []string
	for _, p := range strings.FieldsFunc(t.Permission, func(r rune) bool { return r == ',' || r == '+' }) {
		for _, s := range rs.ScopesFor(strings.TrimSpace(p)) {
			if !slices.Contains(grant, s) {
				grant = append(grant, s)
			}
		}
	}
	if len(grant) == 0 {
		return ""
	}
	slices.Sort(grant)
	scopes := slices.Clone(rs.opts.RequiredScopes)
	for _, s := range grant {
		if !slices.Contains(scopes, s) {
			scopes = append(scopes, s)
		}
	}
	return strings.Join(scopes, " ")
}
