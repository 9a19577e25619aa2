package oauth_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/toolapi/toolapi/mcpserver"
	"github.com/toolapi/toolapi/oauth"
	"github.com/toolapi/toolapi/ratelimit"
	"github.com/toolapi/toolapi/tool"
)

// An issuer is an authorization server on loopback: it publishes its
// metadata and keys and signs tokens.
type issuer struct {
	*httptest.Server
	mu      sync.Mutex
	keys    map[string]*ecdsa.PrivateKey // by key ID, all published
	signing string                       // the key ID that signs
	fetches atomic.Int32                 // key set fetches
}

func newIssuer(t *testing.T) *issuer {
	iss := &issuer{keys: map[string]*ecdsa.PrivateKey{}}
	iss.rotate(t, "k1")
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]string{"issuer": iss.URL, "jwks_uri": iss.URL + "/keys"})
	})
	mux.HandleFunc("/keys", func(w http.ResponseWriter, r *http.Request) {
		iss.fetches.Add(1)
		iss.mu.Lock()
		defer iss.mu.Unlock()
		var set jose.JSONWebKeySet
		for id, k := range iss.keys {
			set.Keys = append(set.Keys, jose.JSONWebKey{Key: &k.PublicKey, KeyID: id, Algorithm: "ES256", Use: "sig"})
		}
		json.NewEncoder(w).Encode(set)
	})
	iss.Server = httptest.NewServer(mux)
	t.Cleanup(iss.Close)
	return iss
}

// rotate adds a key with the given ID and signs with it from now on.
func (iss *issuer) rotate(t *testing.T, id string) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	iss.mu.Lock()
	defer iss.mu.Unlock()
	iss.keys[id] = k
	iss.signing = id
}

// sign returns an access token (typ at+jwt) with the given claims, signed
// with the signing key.
func (iss *issuer) sign(t *testing.T, claims map[string]any) string {
	return iss.signTyped(t, "at+jwt", claims)
}

// signTyped returns a token of the given typ ("-" for none) with the given
// claims, signed with the signing key.
func (iss *issuer) signTyped(t *testing.T, typ string, claims map[string]any) string {
	iss.mu.Lock()
	key := iss.keys[iss.signing]
	opts := (&jose.SignerOptions{}).WithHeader("kid", iss.signing)
	if typ != "-" {
		opts = opts.WithType(jose.ContentType(typ))
	}
	iss.mu.Unlock()
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, opts)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := jwt.Signed(signer).Claims(claims).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

const resource = "http://127.0.0.1/mcp"

// claims returns good claims of a token from iss, with changes.
func (iss *issuer) claims(changes map[string]any) map[string]any {
	c := map[string]any{
		"iss": iss.URL, "sub": "ada", "aud": []string{resource}, "client_id": "agent",
		"exp": time.Now().Add(time.Hour).Unix(), "iat": time.Now().Unix(),
		"scope": "mcp album:read",
	}
	for k, v := range changes {
		if v == nil {
			delete(c, k)
		} else {
			c[k] = v
		}
	}
	return c
}

// serve serves a registry whose tools need "access content" and
// "administer" over /mcp, behind rs, with no limit on failed
// authentications (many tokens fail here on purpose).
func serve(t *testing.T, rs *oauth.ResourceServer) *httptest.Server {
	return serveWith(t, rs, ratelimit.NewFailures(&ratelimit.FailureOptions{Burst: -1}))
}

// serveWith serves as serve does, with the given limit on failed
// authentications (nil: the default one).
func serveWith(t *testing.T, rs *oauth.ResourceServer, failures *ratelimit.Failures) *httptest.Server {
	reg := tool.NewRegistry(&tool.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	for _, tt := range []struct {
		id, perm string
		groups   []string
	}{{"album.search", "access content", []string{"viewer"}}, {"site.publish", "administer", nil}} {
		if err := reg.Add(&tool.Tool{
			ID: tt.id, Label: tt.id, Description: "A tool.", Operation: tool.OpRead, Permission: tt.perm, Groups: tt.groups,
			Handler: func(context.Context, *tool.Values) (*tool.Result, error) { return nil, nil },
		}); err != nil {
			t.Fatal(err)
		}
	}
	srv := mcpserver.New(reg, &mcpserver.Options{
		Authenticate: rs.Authenticate, ResourceMetadataURL: rs.MetadataURL(), ChallengeScope: rs.ChallengeScope(), StepUp: rs.StepUp,
		AuthFailures: failures, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	mux := http.NewServeMux()
	mux.Handle(rs.MetadataPath(), rs.MetadataHandler())
	mux.Handle("/mcp", srv.Handler())
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	return ts
}

func newResourceServer(t *testing.T, issuerURL string, change func(*oauth.Options)) *oauth.ResourceServer {
	opts := &oauth.Options{
		Resource:       resource,
		Issuer:         issuerURL,
		Scopes:         map[string][]string{"album:read": {"access content"}, "site:admin": {"administer", "access content"}},
		RequiredScopes: []string{"mcp"},
		Logger:         slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	if change != nil {
		change(opts)
	}
	rs, err := oauth.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
const list = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`

// post sends body to url with a bearer token ("" for none) and returns
// the response and its body.
func post(t *testing.T, url, token, body string, header map[string]string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// TestTokens checks which tokens reach /mcp, and the status and challenge
// of those refused.
func TestTokens(t *testing.T) {
	iss := newIssuer(t)
	other := newIssuer(t)
	rs := newResourceServer(t, iss.URL, nil)
	ts := serve(t, rs)
	meta := `resource_metadata="` + rs.MetadataURL() + `"`

	for _, tc := range []struct {
		name      string
		token     string
		status    int
		challenge string // a part of the WWW-Authenticate header
	}{
		{"good", iss.sign(t, iss.claims(nil)), 200, ""},
		{"audience as a string", iss.sign(t, iss.claims(map[string]any{"aud": resource})), 200, ""},
		{"scp instead of scope", iss.sign(t, iss.claims(map[string]any{"scope": nil, "scp": []string{"mcp"}})), 200, ""},
		{"no token", "", 401, `Bearer scope="mcp", ` + meta},
		{"another audience", iss.sign(t, iss.claims(map[string]any{"aud": []string{"http://127.0.0.1/other"}})), 401, `error="invalid_token", error_description="the token is not for this resource", scope="mcp", ` + meta},
		{"expired", iss.sign(t, iss.claims(map[string]any{"exp": time.Now().Add(-time.Hour).Unix()})), 401, `error="invalid_token"`},
		{"not yet valid", iss.sign(t, iss.claims(map[string]any{"nbf": time.Now().Add(time.Hour).Unix()})), 401, `error="invalid_token"`},
		{"no expiry", iss.sign(t, iss.claims(map[string]any{"exp": nil})), 401, `error="invalid_token"`},
		{"no subject", iss.sign(t, iss.claims(map[string]any{"sub": nil})), 401, `error="invalid_token"`},
		{"another issuer's claim", iss.sign(t, iss.claims(map[string]any{"iss": other.URL})), 401, `error="invalid_token"`},
		{"signed by another issuer", other.sign(t, iss.claims(nil)), 401, `error="invalid_token"`},
		{"unsigned", unsigned(t, iss.claims(nil)), 401, `error="invalid_token"`},
		{"tampered", tamper(iss.sign(t, iss.claims(nil))), 401, `error="invalid_token"`},
		{"not a JWT", "opaque-token", 401, `error="invalid_token"`},
		{"without the required scope", iss.sign(t, iss.claims(map[string]any{"scope": "album:read"})), 403, `error="insufficient_scope", error_description="the token lacks the scope mcp", scope="mcp", ` + meta},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := post(t, ts.URL+"/mcp", tc.token, initialize, nil)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d (%s), want %d", resp.StatusCode, body, tc.status)
			}
			got := resp.Header.Get("WWW-Authenticate")
			if tc.challenge == "" && got != "" || !strings.Contains(got, tc.challenge) {
				t.Errorf("WWW-Authenticate %q, want it to hold %q", got, tc.challenge)
			}
			if tc.status == 401 && tc.token != "" && !strings.Contains(got, meta) {
				t.Errorf("WWW-Authenticate %q does not name the metadata", got)
			}
		})
	}
}

// unsigned returns a token with alg "none".
func unsigned(t *testing.T, claims map[string]any) string {
	enc := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	return enc(map[string]string{"alg": "none", "typ": "JWT"}) + "." + enc(claims) + "."
}

// tamper changes the subject of a signed token.
func tamper(tok string) string {
	parts := strings.Split(tok, ".")
	b, _ := base64.RawURLEncoding.DecodeString(parts[1])
	var c map[string]any
	json.Unmarshal(b, &c)
	c["sub"] = "admin"
	b, _ = json.Marshal(c)
	parts[1] = base64.RawURLEncoding.EncodeToString(b)
	return strings.Join(parts, ".")
}

// TestScopesGrantPermissions checks that a token's scopes decide the tools
// its client sees.
func TestScopesGrantPermissions(t *testing.T) {
	iss := newIssuer(t)
	ts := serve(t, newResourceServer(t, iss.URL, nil))
	for _, tc := range []struct {
		scope string
		want  []string
	}{
		{"mcp", nil},
		{"mcp album:read", []string{"album__search"}},
		{"mcp site:admin", []string{"album__search", "site__publish"}},
		{"mcp unknown", nil},
		// Scopes that narrow the connection: a toolset, reading only.
		{"mcp site:admin toolset:viewer", []string{"album__search"}},
		{"mcp site:admin toolset:editor", nil},
		{"mcp site:admin tools:read", []string{"album__search", "site__publish"}},
	} {
		token := iss.sign(t, iss.claims(map[string]any{"scope": tc.scope}))
		resp, _ := post(t, ts.URL+"/mcp", token, initialize, nil)
		session := resp.Header.Get("Mcp-Session-Id")
		post(t, ts.URL+"/mcp", token, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, map[string]string{"Mcp-Session-Id": session, "Mcp-Protocol-Version": "2025-11-25"})
		_, body := post(t, ts.URL+"/mcp", token, list, map[string]string{"Mcp-Session-Id": session, "Mcp-Protocol-Version": "2025-11-25"})
		var names []string
		for _, line := range strings.Split(body, "\n") {
			data, ok := strings.CutPrefix(line, "data: ")
			if !ok {
				continue
			}
			var msg struct {
				Result struct {
					Tools []struct{ Name string } `json:"tools"`
				} `json:"result"`
			}
			if err := json.Unmarshal([]byte(data), &msg); err != nil {
				t.Fatal(err)
			}
			for _, tl := range msg.Result.Tools {
				names = append(names, tl.Name)
			}
		}
		if diff := cmp.Diff(tc.want, names); diff != "" {
			t.Errorf("scope %q: tools (-want +got):\n%s", tc.scope, diff)
		}
	}
}

// TestKeyRotation checks that a token signed with a new key fetches the
// keys again, at most once per KeysMinInterval, and that a fetch that
// fails keeps the keys fetched before.
func TestKeyRotation(t *testing.T) {
	iss := newIssuer(t)
	rs := newResourceServer(t, iss.URL, func(o *oauth.Options) { o.KeysMinInterval = time.Hour })
	now := time.Now()
	oauth.SetClock(rs, func() time.Time { return now })
	ctx := context.Background()
	good := iss.sign(t, iss.claims(nil))
	for range 3 {
		if _, err := rs.Verify(ctx, good); err != nil {
			t.Fatal(err)
		}
	}
	if n := iss.fetches.Load(); n != 1 {
		t.Errorf("%d fetches of the key set for 3 tokens, want 1", n)
	}
	iss.rotate(t, "k2")
	rotated := iss.sign(t, iss.claims(nil))
	if _, err := rs.Verify(ctx, rotated); err == nil {
		t.Errorf("a token of a new key was accepted before the keys could be fetched again")
	}
	now = now.Add(time.Hour)
	if _, err := rs.Verify(ctx, rotated); err != nil {
		t.Errorf("a token of a new key, an hour later: %v", err)
	}
	if _, err := rs.Verify(ctx, good); err != nil {
		t.Errorf("a token of the old key, still published: %v", err)
	}
	if n := iss.fetches.Load(); n != 2 {
		t.Errorf("%d fetches, want 2", n)
	}
	iss.Close()
	now = now.Add(24 * time.Hour)
	if _, err := rs.Verify(ctx, iss.sign(t, iss.claims(map[string]any{"exp": now.Add(time.Hour).Unix()}))); err != nil {
		t.Errorf("with the issuer down: %v, want the keys fetched before used", err)
	}
}

// TestMetadata checks the protected resource metadata document, which
// lists every scope the resource knows (the required ones too), and that
// a 401 challenge names the scopes to ask for: the required ones, else
// every scope supported.
func TestMetadata(t *testing.T) {
	iss := newIssuer(t)
	rs := newResourceServer(t, iss.URL, nil)
	ts := serve(t, rs)
	if rs.MetadataPath() != "/.well-known/oauth-protected-resource/mcp" {
		t.Errorf("metadata path %q", rs.MetadataPath())
	}
	resp, err := http.Get(ts.URL + rs.MetadataPath())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got oauthex.ProtectedResourceMetadata
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	want := oauthex.ProtectedResourceMetadata{
		Resource: resource, AuthorizationServers: []string{iss.URL},
		ScopesSupported: []string{"album:read", "mcp", "site:admin"}, BearerMethodsSupported: []string{"header"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("metadata (-want +got):\n%s", diff)
	}

	for _, tc := range []struct {
		name     string
		required []string
		want     string
	}{
		{"required scopes", []string{"mcp"}, `scope="mcp"`},
		{"none required", nil, `scope="album:read site:admin"`},
	} {
		rs := newResourceServer(t, iss.URL, func(o *oauth.Options) { o.RequiredScopes = tc.required })
		ts := serve(t, rs)
		for _, token := range []string{"", "opaque-token"} {
			resp, _ := post(t, ts.URL+"/mcp", token, initialize, nil)
			if ch := resp.Header.Get("WWW-Authenticate"); resp.StatusCode != 401 || !strings.Contains(ch, tc.want) {
				t.Errorf("%s, token %q: %d %q, want 401 naming %s", tc.name, token, resp.StatusCode, ch, tc.want)
			}
		}
	}
}

// TestTokenTypes checks that only access tokens are accepted: typ at+jwt
// (with or without application/), or a type the options name; never a
// token with an ID token's claims, whatever its type.
func TestTokenTypes(t *testing.T) {
	iss := newIssuer(t)
	strict := newResourceServer(t, iss.URL, nil)
	lenient := newResourceServer(t, iss.URL, func(o *oauth.Options) { o.TokenTypes = []string{"JWT", ""} })
	ctx := context.Background()
	for _, tc := range []struct {
		name            string
		typ             string // "-" for none
		claims          map[string]any
		strict, lenient error
	}{
		{"at+jwt", "at+jwt", nil, nil, nil},
		{"application/at+jwt", "application/at+jwt", nil, nil, nil},
		{"AT+JWT", "AT+JWT", nil, nil, nil},
		{"JWT", "JWT", nil, oauth.ErrTokenType, nil},
		{"no typ", "-", nil, oauth.ErrTokenType, nil},
		{"an ID token's type", "id_token+jwt", nil, oauth.ErrTokenType, oauth.ErrTokenType},
		{"ID token claims: nonce", "JWT", map[string]any{"nonce": "n"}, oauth.ErrTokenType, oauth.ErrTokenType},
		{"ID token claims: at_hash", "at+jwt", map[string]any{"at_hash": "x"}, oauth.ErrTokenType, oauth.ErrTokenType},
		{"ID token claims: c_hash", "JWT", map[string]any{"c_hash": "x"}, oauth.ErrTokenType, oauth.ErrTokenType},
	} {
		tok := iss.signTyped(t, tc.typ, iss.claims(tc.claims))
		for _, c := range []struct {
			name string
			rs   *oauth.ResourceServer
			want error
		}{{"at+jwt only", strict, tc.strict}, {"with JWT and none", lenient, tc.lenient}} {
			_, err := c.rs.Verify(ctx, tok)
			if c.want == nil && err != nil || c.want != nil && !errors.Is(err, c.want) {
				t.Errorf("%s, %s: %v, want %v", tc.name, c.name, err, c.want)
			}
		}
	}
	resp, _ := post(t, serve(t, strict).URL+"/mcp", iss.signTyped(t, "JWT", iss.claims(map[string]any{"nonce": "n"})), initialize, nil)
	if ch := resp.Header.Get("WWW-Authenticate"); resp.StatusCode != 401 || !strings.Contains(ch, `error="invalid_token"`) {
		t.Errorf("an ID token at /mcp: %d %q, want 401 invalid_token", resp.StatusCode, ch)
	}
}

// TestOptions checks that bad options are refused.
func TestOptions(t *testing.T) {
	for _, o := range []*oauth.Options{
		nil,
		{Issuer: "https://login.example.com"},
		{Resource: "mcp", Issuer: "https://login.example.com"},
		{Resource: resource},
		{Resource: resource, Issuer: "https://login.example.com", Algorithms: []jose.SignatureAlgorithm{jose.HS256}},
	} {
		if _, err := oauth.New(o); err == nil {
			t.Errorf("New(%+v) succeeded", o)
		}
	}
}

// TestStepUp checks that a tools/call of a tool the token's scopes do not
// reach is answered 403 insufficient_scope naming the scopes that would,
// whether it names the tool by its name or its ID, and that a call the
// scopes reach goes on.
func TestStepUp(t *testing.T) {
	iss := newIssuer(t)
	rs := newResourceServer(t, iss.URL, nil)
	ts := serve(t, rs)
	token := iss.sign(t, iss.claims(map[string]any{"scope": "mcp album:read"}))
	resp, _ := post(t, ts.URL+"/mcp", token, initialize, nil)
	h := map[string]string{"Mcp-Session-Id": resp.Header.Get("Mcp-Session-Id"), "Mcp-Protocol-Version": "2025-11-25"}
	post(t, ts.URL+"/mcp", token, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, h)
	call := func(name string) *http.Response {
		resp, _ := post(t, ts.URL+"/mcp", token, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"`+name+`","arguments":{}}}`, h)
		return resp
	}
	// By its name, as tools/list gives it, and by its ID.
	for _, name := range []string{"site__publish", "site.publish"} {
		resp = call(name)
		want := `Bearer error="insufficient_scope", error_description="the token does not grant this tool", scope="mcp site:admin", resource_metadata="` + rs.MetadataURL() + `"`
		if resp.StatusCode != 403 || resp.Header.Get("WWW-Authenticate") != want {
			t.Errorf("tools/call of %s, a tool beyond the scopes: %d %q, want 403 %q", name, resp.StatusCode, resp.Header.Get("WWW-Authenticate"), want)
		}
	}
	for _, name := range []string{"album__search", "album.search"} {
		if resp = call(name); resp.StatusCode != 200 {
			t.Errorf("tools/call of %s, a tool within the scopes: %d, want 200", name, resp.StatusCode)
		}
	}
}
