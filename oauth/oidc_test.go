package oauth_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolapi/toolapi/oauth"
)

// The tests against a real OpenID provider read where it is from
// TOOLAPI_TEST_OIDC_* (scripts/oidc.sh starts the example provider of
// github.com/zitadel/oidc and prints them). On CI (CI=true) a missing
// provider fails the tests rather than skipping them quietly.
const issuerEnv = "TOOLAPI_TEST_OIDC_ISSUER"

// provider returns the issuer of the provider, or skips the test outside CI.
func provider(t *testing.T) string {
	t.Helper()
	iss := os.Getenv(issuerEnv)
	if iss == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not set: start the provider with eval \"$(scripts/oidc.sh)\"", issuerEnv)
		}
		t.Skipf("%s is not set: start the provider with eval \"$(scripts/oidc.sh)\"", issuerEnv)
	}
	return iss
}

// noRedirects is a client that returns redirects instead of following them.
var noRedirects = &http.Client{
	Timeout:       10 * time.Second,
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

// tokenResponse is the answer of the provider's token endpoint.
type tokenResponse struct {
	AccessToken string `json:"access_token"`
	IDToken     string `json:"id_token"`
	Error       string `json:"error"`
}

// token asks the provider's token endpoint with the client's credentials.
func token(t *testing.T, iss, client, secret string, form url.Values) *tokenResponse {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, iss+"oauth/token", strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(client, secret)
	resp, err := noRedirects.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var tr tokenResponse
	if err := json.NewDecoder(resp.Body).Decode(&tr); err != nil || resp.StatusCode != 200 {
		t.Fatalf("token endpoint: %s, %v %+v", resp.Status, err, tr)
	}
	return &tr
}

// redirect sends req and returns where it redirects to.
func redirect(t *testing.T, req *http.Request) *url.URL {
	t.Helper()
	resp, err := noRedirects.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	loc, err := resp.Location()
	if err != nil {
		t.Fatalf("%s %s: %s, no redirect", req.Method, req.URL, resp.Status)
	}
	return loc
}

// signIn signs the provider's user in to the web client by the
// authorization code flow, posting the provider's login form, and returns
// the tokens.
func signIn(t *testing.T, iss string) *tokenResponse {
	t.Helper()
	env := func(k string) string { return os.Getenv("TOOLAPI_TEST_OIDC_" + k) }
	q := url.Values{
		"client_id": {env("WEB_CLIENT")}, "redirect_uri": {env("WEB_REDIRECT")},
		"response_type": {"code"}, "scope": {"openid profile"}, "state": {"s"}, "nonce": {"n"},
	}
	req, _ := http.NewRequest(http.MethodGet, iss+"auth?"+q.Encode(), nil)
	login := redirect(t, req)
	form := url.Values{
		"id":       {login.Query().Get("authRequestID")},
		"username": {env("USER")}, "password": {env("PASSWORD")},
	}
	req, _ = http.NewRequest(http.MethodPost, iss+"login/username", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	callback := redirect(t, req)
	if !callback.IsAbs() {
		callback = (&url.URL{Scheme: "http", Host: strings.TrimPrefix(strings.TrimSuffix(iss, "/"), "http://")}).ResolveReference(callback)
	}
	req, _ = http.NewRequest(http.MethodGet, callback.String(), nil)
	back := redirect(t, req)
	code := back.Query().Get("code")
	if code == "" {
		t.Fatalf("the sign-in ended at %s, without a code", back)
	}
	return token(t, iss, env("WEB_CLIENT"), env("WEB_SECRET"), url.Values{
		"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {env("WEB_REDIRECT")},
	})
}

// TestOpenIDProvider checks the resource server against a real OpenID
// provider: it discovers the provider's keys from its metadata and checks
// real signatures, and refuses what the provider issues, since the
// example provider issues no JWT access token for another audience than
// its own clients: its access tokens are encrypted, opaque to anyone but
// itself, and its JWTs are ID tokens for the client that signed in.
func TestOpenIDProvider(t *testing.T) {
	iss := provider(t)
	rs := newResourceServer(t, iss, func(o *oauth.Options) {
		o.Issuer = iss
		o.RequiredScopes = nil
	})
	ts := serve(t, rs)
	ctx := context.Background()

	// The client credentials grant gives an opaque (encrypted) token.
	cc := token(t, iss, os.Getenv("TOOLAPI_TEST_OIDC_CLIENT"), os.Getenv("TOOLAPI_TEST_OIDC_SECRET"), url.Values{
		"grant_type": {"client_credentials"}, "scope": {"openid mcp"}, "resource": {resource}, "audience": {resource},
	})
	resp, body := post(t, ts.URL+"/mcp", cc.AccessToken, initialize, nil)
	if ch := resp.Header.Get("WWW-Authenticate"); resp.StatusCode != 401 || !strings.Contains(ch, `error="invalid_token"`) || !strings.Contains(ch, "resource_metadata=") {
		t.Errorf("client credentials token: %d %q (%s), want 401 with an invalid_token challenge naming the metadata", resp.StatusCode, ch, body)
	}
	if _, err := rs.Verify(ctx, cc.AccessToken); !errors.Is(err, oauth.ErrMalformed) {
		t.Errorf("client credentials token: %v, want ErrMalformed (it is encrypted, not signed)", err)
	}

	// The ID token is a JWT the provider signs with its published key,
	// for the web client: its signature and issuer verify, its audience
	// is not this resource.
	id := signIn(t, iss).IDToken
	resp, body = post(t, ts.URL+"/mcp", id, initialize, nil)
	if ch := resp.Header.Get("WWW-Authenticate"); resp.StatusCode != 401 || !strings.Contains(ch, `error="invalid_token"`) || !strings.Contains(ch, "resource_metadata=") {
		t.Errorf("ID token: %d %q (%s), want 401 with an invalid_token challenge", resp.StatusCode, ch, body)
	}
	if _, err := rs.Verify(ctx, id); !errors.Is(err, oauth.ErrAudience) {
		t.Errorf("ID token of the web client: %v, want ErrAudience", err)
	}
	later := newResourceServer(t, iss, func(o *oauth.Options) { o.Issuer = iss })
	oauth.SetClock(later, func() time.Time { return time.Now().Add(48 * time.Hour) })
	if _, err := later.Verify(ctx, id); !errors.Is(err, oauth.ErrExpired) {
		t.Errorf("ID token two days later: %v, want ErrExpired", err)
	}
	if _, err := rs.Verify(ctx, tamper(id)); !errors.Is(err, oauth.ErrSignature) {
		t.Errorf("ID token with another subject: %v, want ErrSignature", err)
	}
	otherIssuer := newResourceServer(t, iss, func(o *oauth.Options) {
		o.Issuer = "http://127.0.0.1:1/"
		o.JWKSURL = iss + "keys"
	})
	if _, err := otherIssuer.Verify(ctx, id); !errors.Is(err, oauth.ErrIssuer) {
		t.Errorf("ID token for a server trusting another issuer: %v, want ErrIssuer", err)
	}

	// The ID token names the provider as issuer and the web client as
	// audience: what decided the refusals above.
	payload, _ := base64.RawURLEncoding.DecodeString(strings.Split(id, ".")[1])
	var c struct {
		Iss string   `json:"iss"`
		Aud []string `json:"aud"`
	}
	json.Unmarshal(payload, &c)
	if c.Iss != iss || len(c.Aud) != 1 || c.Aud[0] != os.Getenv("TOOLAPI_TEST_OIDC_WEB_CLIENT") {
		t.Errorf("ID token claims %+v", c)
	}
}

// exchange trades the subject token for one of the requested type for
// the audience by token exchange (RFC 8693), as the web client.
func exchange(t *testing.T, iss, subject, requested, audience, scope string) string {
	t.Helper()
	tr := token(t, iss, os.Getenv("TOOLAPI_TEST_OIDC_WEB_CLIENT"), os.Getenv("TOOLAPI_TEST_OIDC_WEB_SECRET"), url.Values{
		"grant_type":           {"urn:ietf:params:oauth:grant-type:token-exchange"},
		"subject_token":        {subject},
		"subject_token_type":   {"urn:ietf:params:oauth:token-type:access_token"},
		"requested_token_type": {"urn:ietf:params:oauth:token-type:" + requested},
		"audience":             {audience},
		"scope":                {scope},
	})
	if tr.AccessToken == "" {
		t.Fatalf("token exchange for %s gave no token", audience)
	}
	return tr.AccessToken
}

// bearer adds a bearer token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestOpenIDProviderTokens calls /mcp with access tokens the real
// provider issues. Its access tokens are opaque: the resource server asks
// the provider about them at its introspection endpoint, authenticated
// as the client the provider knows the resource server by (api). The
// person signs in to the web client, which exchanges the person's token
// for one for the resource server (RFC 8693), with the scopes it needs.
func TestOpenIDProviderTokens(t *testing.T) {
	iss := provider(t)
	api, apiSecret := os.Getenv("TOOLAPI_TEST_OIDC_API_CLIENT"), os.Getenv("TOOLAPI_TEST_OIDC_API_SECRET")
	rs := newResourceServer(t, iss, func(o *oauth.Options) {
		o.Issuer = iss
		o.Introspection = &oauth.Introspection{ClientID: api, ClientSecret: apiSecret} // endpoint from the metadata
	})
	ts := serve(t, rs)
	ctx := context.Background()
	person := signIn(t, iss).AccessToken

	good := exchange(t, iss, person, "access_token", api, "openid mcp album:read")
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint: ts.URL + "/mcp", HTTPClient: &http.Client{Transport: bearer{good}},
	}, nil)
	if err != nil {
		t.Fatalf("connecting with the provider's token: %v", err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	if len(names) != 1 || names[0] != "album__search" {
		t.Errorf("tools listed for the scope album:read: %v, want [album__search]", names)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "album__search", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Errorf("calling album__search with the provider's token: %v %+v", err, res)
	}
	if got, err := rs.Verify(ctx, good); err != nil || got.Subject == "" || got.ClientID != os.Getenv("TOOLAPI_TEST_OIDC_WEB_CLIENT") {
		t.Errorf("Verify: %+v, %v; want the person as subject and the web client as client", got, err)
	}

	for _, tc := range []struct {
		name      string
		token     string
		status    int
		challenge string
	}{
		{"the person's own token, for the web client", person, 401, `error="invalid_token", error_description="the token is not active"`},
		{"a token for another audience", exchange(t, iss, person, "access_token", "native", "openid mcp album:read"), 401, `error="invalid_token"`},
		{"a token without the scope mcp", exchange(t, iss, person, "access_token", api, "openid album:read"), 403, `error="insufficient_scope", error_description="the token lacks the scope mcp", scope="mcp"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := post(t, ts.URL+"/mcp", tc.token, initialize, nil)
			ch := resp.Header.Get("WWW-Authenticate")
			if resp.StatusCode != tc.status || !strings.Contains(ch, tc.challenge) || !strings.Contains(ch, "resource_metadata=") {
				t.Errorf("%d %q (%s), want %d with %q naming the metadata", resp.StatusCode, ch, body, tc.status, tc.challenge)
			}
		})
	}

	// The provider's tokens live five minutes: two days on, the resource
	// server refuses a good one as expired, whatever the provider answers.
	later := newResourceServer(t, iss, func(o *oauth.Options) {
		o.Issuer = iss
		o.Introspection = &oauth.Introspection{ClientID: api, ClientSecret: apiSecret}
	})
	oauth.SetClock(later, func() time.Time { return time.Now().Add(48 * time.Hour) })
	if _, err := later.Verify(ctx, good); !errors.Is(err, oauth.ErrExpired) {
		t.Errorf("the provider's token two days later: %v, want ErrExpired", err)
	}

	// The provider signs JWTs too: exchanged for an ID token naming this
	// resource as audience, the signature, issuer and audience verify, but
	// an ID token is no access token: it is refused for its type.
	jwt := exchange(t, iss, person, "id_token", resource, "openid")
	if tk, err := rs.Verify(ctx, jwt); !errors.Is(err, oauth.ErrTokenType) {
		t.Errorf("the provider's ID token for this resource: %+v, %v; want ErrTokenType (signature, issuer and audience accepted)", tk, err)
	}
}
