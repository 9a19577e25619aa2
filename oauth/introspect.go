package oauth

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/toolapi/toolapi/mcpserver"
)

// Introspection configures the check of opaque access tokens at the
// issuer's token introspection endpoint (RFC 7662). Many authorization
// servers issue access tokens that only they can read: a resource server
// asks the issuer whether such a token is active, for whom, and with which
// scopes, authenticating as a client the issuer knows.
type Introspection struct {
	// URL is the introspection endpoint. Empty means the
	// introspection_endpoint of the issuer's metadata.
	URL string
	// ClientID and ClientSecret authenticate the resource server to the
	// endpoint (HTTP Basic, RFC 6749 section 2.3.1). Both are required.
	ClientID     string
	ClientSecret string
	// CacheFor is how long an answer that a token is active is reused
	// before the endpoint is asked again, never past the token's expiry.
	// Zero means one minute; negative means every request asks.
	CacheFor time.Duration
	// RefusalCacheFor is how long an answer that refuses a token (not
	// active, for another resource, expired...) is reused, so that a token
	// sent again and again reaches the endpoint once. Zero means 10
	// seconds; negative means every request asks.
	RefusalCacheFor time.Duration
	// MaxCached is how many answers are kept at most, of both kinds. Zero
	// means 10,000.
	MaxCached int
	// MaxConcurrent bounds the questions asked of the endpoint at once;
	// a request past it waits for one to end (or for its own end). Zero
	// means 8.
	MaxConcurrent int
}

// Defaults of [Introspection].
const (
	DefaultIntrospectionCacheFor = time.Minute
	DefaultRefusalCacheFor       = 10 * time.Second
	DefaultMaxConcurrent         = 8
)

// ErrInactive is the reason an introspected token is refused: the issuer
// answers that it is not active (unknown, revoked, expired, or not issued
// for this resource).
var ErrInactive = errors.New("token is not active")

// ErrIntrospectionUnusable is the reason a token cannot be checked: the
// introspection endpoint cannot be reached or gives no answer it can read.
var ErrIntrospectionUnusable = errors.New("issuer's introspection endpoint cannot be used")

// introspection is the answer of an introspection endpoint (RFC 7662,
// section 2.2).
type introspection struct {
	Active   bool     `json:"active"`
	Scope    string   `json:"scope"`
	ClientID string   `json:"client_id"`
	Subject  string   `json:"sub"`
	Issuer   string   `json:"iss"`
	Audience audience `json:"aud"`
	Expiry   int64    `json:"exp"`
	NotAfter int64    `json:"nbf"`
}

// audience is an aud member: one string or a list of them.
type audience []string

func (a *audience) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*a = audience{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return err
	}
	*a = many
	return nil
}

// introspector asks the endpoint about tokens and caches the answers.
type introspector struct {
	rs   *ResourceServer
	opts Introspection

	asking chan struct{} // one value per question being asked

	mu     sync.Mutex
	cached map[[sha256.Size]byte]cachedToken
}

// A cachedToken is an answer kept: the token accepted, or why it was
// refused.
type cachedToken struct {
	token   *Token
	refusal error
	until   time.Time
}

func newIntrospector(rs *ResourceServer, o *Introspection) (*introspector, error) {
	if o.ClientID == "" || o.ClientSecret == "" {
		return nil, fmt.Errorf("oauth: Options.Introspection: ClientID and ClientSecret are required")
	}
	if o.URL != "" {
		if u, err := url.Parse(o.URL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return nil, fmt.Errorf("oauth: Options.Introspection.URL %q: must be an absolute http(s) URL", o.URL)
		}
	}
	in := &introspector{rs: rs, opts: *o, cached: map[[sha256.Size]byte]cachedToken{}}
	if in.opts.CacheFor == 0 {
		in.opts.CacheFor = DefaultIntrospectionCacheFor
	}
	if in.opts.RefusalCacheFor == 0 {
		in.opts.RefusalCacheFor = DefaultRefusalCacheFor
	}
	if in.opts.MaxCached <= 0 {
		in.opts.MaxCached = 10_000
	}
	if in.opts.MaxConcurrent <= 0 {
		in.opts.MaxConcurrent = DefaultMaxConcurrent
	}
	in.asking = make(chan struct{}, in.opts.MaxConcurrent)
	return in, nil
}

// verify checks an opaque token at the endpoint, reusing a recent answer
// about it.
func (in *introspector) verify(ctx context.Context, raw string) (*Token, error) {
	key := sha256.Sum256([]byte(raw))
	now := in.rs.now()
	in.mu.Lock()
	if c, ok := in.cached[key]; ok && now.Before(c.until) {
		in.mu.Unlock()
		if c.refusal != nil {
			return nil, c.refusal
		}
		return c.token, nil
	}
	in.mu.Unlock()

	ans, err := in.ask(ctx, raw)
	if err != nil {
		return nil, err
	}
	t, err := in.check(ans, now)
	if err != nil {
		var ae *mcpserver.AuthError
		if in.opts.RefusalCacheFor > 0 && errors.As(err, &ae) && ae.Status != http.StatusForbidden {
			in.keep(key, cachedToken{refusal: err, until: now.Add(in.opts.RefusalCacheFor)}, now)
		}
		return nil, err
	}
	if in.opts.CacheFor > 0 {
		until := now.Add(in.opts.CacheFor)
		if t.Expiry.Before(until) {
			until = t.Expiry
		}
		in.keep(key, cachedToken{token: t, until: until}, now)
	}
	return t, nil
}

// check reads the endpoint's answer about a token.
func (in *introspector) check(ans *introspection, now time.Time) (*Token, error) {
	if !ans.Active {
		return nil, &mcpserver.AuthError{Description: "the token is not active", Err: ErrInactive}
	}
	if ans.Issuer != "" && strings.TrimSuffix(ans.Issuer, "/") != strings.TrimSuffix(in.rs.opts.Issuer, "/") {
		return nil, &mcpserver.AuthError{Description: "the token is from another issuer", Err: ErrIssuer}
	}
	// The issuer answers active only for a token this client may accept;
	// an aud it names anyway must name the resource or this client.
	if len(ans.Audience) > 0 && !slices.Contains(ans.Audience, in.rs.opts.Resource) && !slices.Contains(ans.Audience, in.opts.ClientID) {
		return nil, &mcpserver.AuthError{Description: "the token is not for this resource", Err: ErrAudience}
	}
	if ans.Expiry == 0 {
		return nil, &mcpserver.AuthError{Description: "the token has no expiry", Err: ErrNoExpiry}
	}
	exp := time.Unix(ans.Expiry, 0)
	if now.After(exp.Add(in.rs.opts.Leeway)) || ans.NotAfter != 0 && now.Add(in.rs.opts.Leeway).Before(time.Unix(ans.NotAfter, 0)) {
		return nil, &mcpserver.AuthError{Description: "the token expired", Err: ErrExpired}
	}
	if ans.Subject == "" {
		return nil, &mcpserver.AuthError{Description: "the token has no subject", Err: ErrNoSubject}
	}
	t := &Token{
		Subject: ans.Subject, ClientID: ans.ClientID, Expiry: exp, Scopes: strings.Fields(ans.Scope),
		Claims: map[string]any{"sub": ans.Subject, "client_id": ans.ClientID, "scope": ans.Scope, "exp": ans.Expiry},
	}
	if err := in.rs.grant(t); err != nil {
		return nil, err
	}
	return t, nil
}

// keep caches an answer. When the cache is full, answers past their time
// are dropped; if none is, c is not kept.
func (in *introspector) keep(key [sha256.Size]byte, c cachedToken, now time.Time) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if len(in.cached) >= in.opts.MaxCached {
		for k, old := range in.cached {
			if !now.Before(old.until) {
				delete(in.cached, k)
			}
		}
		if len(in.cached) >= in.opts.MaxCached {
			return
		}
	}
	in.cached[key] = c
}

// ask posts the token to the endpoint and reads its answer.
func (in *introspector) ask(ctx context.Context, raw string) (*introspection, error) {
	unusable := func(err error) error {
		return &mcpserver.AuthError{Status: http.StatusServiceUnavailable, Err: fmt.Errorf("%w: %w", ErrIntrospectionUnusable, err)}
	}
	select {
	case in.asking <- struct{}{}:
		defer func() { <-in.asking }()
	case <-ctx.Done():
		return nil, unusable(fmt.Errorf("waiting for one of the %d questions being asked to end: %w", in.opts.MaxConcurrent, ctx.Err()))
	}
	endpoint, err := in.endpoint(ctx)
	if err != nil {
		return nil, unusable(err)
	}
	form := url.Values{"token": {raw}, "token_type_hint": {"access_token"}}
	req, err := http.NewRequestWithContext(context.WithoutCancel(ctx), http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, unusable(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	req.SetBasicAuth(url.QueryEscape(in.opts.ClientID), url.QueryEscape(in.opts.ClientSecret))
	resp, err := in.rs.opts.HTTPClient.Do(req)
	if err != nil {
		return nil, unusable(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, unusable(fmt.Errorf("POST %s: %s", endpoint, resp.Status))
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxDocBytes+1))
	if err != nil {
		return nil, unusable(fmt.Errorf("POST %s: %w", endpoint, err))
	}
	if len(b) > maxDocBytes {
		return nil, unusable(fmt.Errorf("POST %s: more than %d bytes", endpoint, maxDocBytes))
	}
	var ans introspection
	if err := json.Unmarshal(b, &ans); err != nil {
		return nil, unusable(fmt.Errorf("POST %s: %w", endpoint, err))
	}
	return &ans, nil
}

// endpoint returns the introspection endpoint: Introspection.URL, else
// that of the issuer's metadata.
func (in *introspector) endpoint(ctx context.Context) (string, error) {
	if in.opts.URL != "" {
		return in.opts.URL, nil
	}
	meta, err := in.rs.issuerMetadata(ctx)
	if err != nil {
		return "", err
	}
	if meta.IntrospectionEndpoint == "" {
		return "", errors.New("the issuer's metadata names no introspection_endpoint")
	}
	return meta.IntrospectionEndpoint, nil
}
