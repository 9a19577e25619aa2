package oauth_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/toolapi/toolapi/internal/testenv"
	"github.com/toolapi/toolapi/mcpserver"
	"github.com/toolapi/toolapi/oauth"
	"github.com/toolapi/toolapi/tool"
)

// TestSDKClientOAuth connects the go-sdk's MCP client, with its own OAuth
// handler (auth.AuthorizationCodeHandler), to an endpoint behind a
// resource server that trusts the real OpenID provider, and lets the SDK
// do all of the OAuth: on the first 401 it reads the endpoint's protected
// resource metadata, the provider's metadata, signs in by the
// authorization code flow with PKCE (the test plays the person: it posts
// the provider's login form) and sends the token. It reads with the scopes
// the 401 named, then calls a tool those scopes do not reach: the endpoint
// answers 403 insufficient_scope naming a larger scope, the SDK signs in
// again asking for it and retries, and the call succeeds. It runs at
// protocol version 2026-07-28 (without a session) and 2025-11-25 (in a
// session).
//
// Two things of the example provider shape the setup. Its authorization
// code flow grants only the standard OpenID scopes and its custom_scope
// (any other scope asked for is dropped), so the resource server maps
// those to permissions: profile reads, custom_scope administers. And it
// issues a token for the client that signed in, whatever resource the
// client names (the SDK sends RFC 8707's resource parameter, which it
// ignores), with that client as the only audience, and tells only that
// client at introspection that the token is active: so the resource server
// introspects as that same client (web).
//
// One thing of the SDK's client does too: it finds the metadata of an
// issuer whose identifier ends in "/" (this provider's is
// http://localhost:PORT/) at well-known URLs that keep the "/"
// (/.well-known/openid-configuration/), where the provider has none, and
// then falls back to endpoints of its own invention (/authorize), which
// fail. So the resource server names the issuer without its final "/",
// under which the SDK finds the metadata and accepts its issuer.
func TestSDKClientOAuth(t *testing.T) {
	testenv.NeedFull(t)
	iss := provider(t)
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(version, func(t *testing.T) { testSDKClientOAuth(t, iss, version) })
	}
}

func testSDKClientOAuth(t *testing.T, iss, version string) {
	env := func(k string) string { return os.Getenv("TOOLAPI_TEST_OIDC_" + k) }
	web, webSecret := env("WEB_CLIENT"), env("WEB_SECRET")
	logs := new(strings.Builder)
	var logMu sync.Mutex
	logger := slog.New(slog.NewTextHandler(writerFunc(func(p []byte) (int, error) {
		logMu.Lock()
		defer logMu.Unlock()
		return logs.Write(p)
	}), nil))

	// The endpoint's URL is its resource identifier, so the server starts
	// before the resource server is made.
	var handler http.Handler
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { handler.ServeHTTP(w, r) }))
	defer ts.Close()
	rs, err := oauth.New(&oauth.Options{
		Resource:       ts.URL + "/mcp",
		Issuer:         strings.TrimSuffix(iss, "/"),
		Scopes:         map[string][]string{"profile": {"access content"}, "custom_scope": {"administer", "access content"}},
		RequiredScopes: []string{"openid", "profile"},
		Introspection:  &oauth.Introspection{ClientID: web, ClientSecret: webSecret},
		Logger:         logger,
	})
	if err != nil {
		t.Fatal(err)
	}
	reg := tool.NewRegistry(&tool.Options{Logger: logger})
	for _, tt := range []struct{ id, perm string }{{"album.search", "access content"}, {"site.publish", "administer"}} {
		err := reg.Add(&tool.Tool{
			ID: tt.id, Label: tt.id, Description: "A tool.", Operation: tool.OpRead, Permission: tt.perm,
			Outputs: []*tool.Definition{{Name: "by", Type: "string", Required: true}},
			Handler: func(ctx context.Context, _ *tool.Values) (*tool.Result, error) {
				return tool.Succeeded("", map[string]any{"by": tool.AccountFrom(ctx).AccountID()}), nil
			},
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	srv := mcpserver.New(reg, &mcpserver.Options{
		Authenticate: rs.Authenticate, ResourceMetadataURL: rs.MetadataURL(), ChallengeScope: rs.ChallengeScope(), StepUp: rs.StepUp,
		Logger: logger,
	})
	mux := http.NewServeMux()
	mux.Handle(rs.MetadataPath(), rs.MetadataHandler())
	mux.Handle("/mcp", srv.Handler())
	handler = mux

	// The person: each authorization the SDK asks for is a sign-in at the
	// provider, whose scope and resource the test keeps.
	var mu sync.Mutex
	var asked []url.Values
	fetch := func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
		u, err := url.Parse(args.URL)
		if err != nil {
			return nil, err
		}
		mu.Lock()
		asked = append(asked, u.Query())
		mu.Unlock()
		back, err := signInAt(ctx, iss, args.URL, env("USER"), env("PASSWORD"))
		if err != nil {
			return nil, err
		}
		q := back.Query()
		return &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
	}
	handlerOAuth, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
		PreregisteredClient: &oauthex.ClientCredentials{
			ClientID: web, ClientSecretAuth: &oauthex.ClientSecretAuth{ClientSecret: webSecret},
		},
		RedirectURL:              env("WEB_REDIRECT"),
		AuthorizationCodeFetcher: fetch,
	})
	if err != nil {
		t.Fatal(err)
	}
	// What the endpoint answered the client, refusals first.
	wire := &challengeRecorder{}
	ctx := t.Context()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", OAuthHandler: handlerOAuth, MaxRetries: -1,
			HTTPClient: &http.Client{Transport: wire}},
		&mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connecting: %v\nserver log:\n%s", err, logs)
	}
	defer cs.Close()
	if got := cs.InitializeResult().ProtocolVersion; got != version {
		t.Errorf("protocol version %s, want %s", got, version)
	}
	if (cs.ID() == "") != (version >= "2026-07-28") {
		t.Errorf("session ID %q at %s", cs.ID(), version)
	}
	if len(asked) != 1 {
		t.Fatalf("%d sign-ins to connect, want 1", len(asked))
	}
	first := strings.Fields(asked[0].Get("scope"))
	slices.Sort(first)
	if want := []string{"openid", "profile"}; !slices.Equal(first, want) {
		t.Errorf("first sign-in asked for %v, want the challenge's %v", first, want)
	}
	if got := asked[0].Get("resource"); got != ts.URL+"/mcp" {
		t.Errorf("sign-in named resource %q, want %q", got, ts.URL+"/mcp")
	}
	if asked[0].Get("code_challenge") == "" || asked[0].Get("code_challenge_method") != "S256" {
		t.Errorf("sign-in without PKCE: %v", asked[0])
	}

	// With the first token: the read tool only.
	var names []string
	for tl, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatalf("listing tools: %v", err)
		}
		names = append(names, tl.Name)
	}
	if !slices.Equal(names, []string{"album__search"}) {
		t.Errorf("tools with scope openid profile: %v, want [album__search]", names)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "album__search", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("album__search: %v %+v\nserver log:\n%s", err, res, logs)
	}
	if len(asked) != 1 {
		t.Errorf("%d sign-ins after a call within the scopes, want 1", len(asked))
	}

	// Step-up: site__publish needs custom_scope. The endpoint answers 403
	// insufficient_scope, the SDK signs in again for the union of the
	// scopes, and the call goes through with the new token.
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "site__publish", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("site__publish after step-up: %v %+v\nsign-ins: %v\nserver log:\n%s", err, res, asked, logs)
	}
	if len(asked) != 2 {
		t.Fatalf("%d sign-ins after the step-up, want 2", len(asked))
	}
	got := strings.Fields(asked[1].Get("scope"))
	slices.Sort(got)
	if want := []string{"custom_scope", "openid", "profile"}; !slices.Equal(got, want) {
		t.Errorf("step-up sign-in asked for %v, want %v (the scopes held and the challenge's)", got, want)
	}
	if by, _ := res.StructuredContent.(map[string]any)["by"].(string); by == "" {
		t.Errorf("site__publish ran for no named account: %v", res.StructuredContent)
	}
	// On the wire: a 401 naming the scopes to connect, then a 403
	// insufficient_scope naming the larger scope, each followed by the
	// same request with a new token.
	want := []string{
		`401 Bearer scope="openid profile", resource_metadata="` + rs.MetadataURL() + `"`,
		`403 Bearer error="insufficient_scope", error_description="the token does not grant this tool", scope="openid profile custom_scope", resource_metadata="` + rs.MetadataURL() + `"`,
	}
	if got := wire.refusals(); !slices.Equal(got, want) {
		t.Errorf("refusals:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The new token still reads, without another sign-in.
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "album__search", Arguments: map[string]any{}}); err != nil || res.IsError {
		t.Errorf("album__search after the step-up: %v %+v", err, res)
	}
	if len(asked) != 2 {
		t.Errorf("%d sign-ins in all, want 2", len(asked))
	}
}

// signInAt signs the provider's user in for the authorization request at
// authURL, posting the provider's login form as a person would, and
// returns the redirect back to the client, which carries the code.
func signInAt(ctx context.Context, iss, authURL, user, password string) (*url.URL, error) {
	base, err := url.Parse(iss)
	if err != nil {
		return nil, err
	}
	follow := func(req *http.Request) (*url.URL, error) {
		resp, err := noRedirects.Do(req.WithContext(ctx))
		if err != nil {
			return nil, err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		loc, err := resp.Location()
		if err != nil {
			return nil, fmt.Errorf("%s %s: %s, no redirect", req.Method, req.URL, resp.Status)
		}
		return base.ResolveReference(loc), nil
	}
	req, _ := http.NewRequest(http.MethodGet, authURL, nil)
	login, err := follow(req)
	if err != nil {
		return nil, err
	}
	form := url.Values{"id": {login.Query().Get("authRequestID")}, "username": {user}, "password": {password}}
	req, _ = http.NewRequest(http.MethodPost, base.ResolveReference(&url.URL{Path: "login/username"}).String(), strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	callback, err := follow(req)
	if err != nil {
		return nil, err
	}
	req, _ = http.NewRequest(http.MethodGet, callback.String(), nil)
	back, err := follow(req)
	if err != nil {
		return nil, err
	}
	if back.Query().Get("code") == "" {
		return nil, fmt.Errorf("the sign-in ended at %s, without a code", back)
	}
	return back, nil
}

// challengeRecorder is an http.RoundTripper that keeps the status and
// challenge of every answer of 400 and above.
type challengeRecorder struct {
	mu   sync.Mutex
	seen []string
}

func (c *challengeRecorder) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil && resp.StatusCode >= 400 {
		c.mu.Lock()
		c.seen = append(c.seen, fmt.Sprintf("%d %s", resp.StatusCode, resp.Header.Get("WWW-Authenticate")))
		c.mu.Unlock()
	}
	return resp, err
}

func (c *challengeRecorder) refusals() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.seen)
}

// writerFunc is an io.Writer of a function.
type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
