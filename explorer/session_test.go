package explorer

import (
	"context"
	"errors"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolapi/toolapi/tool"
)

func sessionCookie(t *testing.T, h http.Header) *http.Cookie {
	t.Helper()
	for _, c := range (&http.Response{Header: h}).Cookies() {
		if c.Name == "toolapi_session" {
			return c
		}
	}
	return nil
}

func TestSignIn(t *testing.T) {
	env := newTestEnv(t, nil)
	b := env.browser(t)
	b.c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	page := b.get("/signin?next=/tools/demo.every")
	if !strings.Contains(page.body, `<input type="hidden" name="next" value="/tools/demo.every">`) {
		t.Errorf("sign-in page:\n%s", page.body)
	}

	r := b.post("/signin", url.Values{"name": {"alice"}, "password": {"wrong"}})
	if r.status != http.StatusUnauthorized || !strings.Contains(r.body, "The name or password is wrong.") || sessionCookie(t, r.header) != nil {
		t.Errorf("a wrong password: %d, cookie %v", r.status, sessionCookie(t, r.header))
	}
	r = b.post("/signin", url.Values{"name": {"eve"}, "password": {testPassword}})
	if r.status != http.StatusForbidden || !strings.Contains(r.body, "The account eve is blocked.") || sessionCookie(t, r.header) != nil {
		t.Errorf("a blocked account: %d", r.status)
	}

	r = b.post("/signin", url.Values{"name": {"alice"}, "password": {testPassword}, "next": {"/tools/demo.every"}})
	c := sessionCookie(t, r.header)
	if r.status != http.StatusSeeOther || r.header.Get("Location") != "/tools/demo.every" || c == nil {
		t.Fatalf("signing in: %d, Location %q, cookie %v", r.status, r.header.Get("Location"), c)
	}
	if !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Secure || c.Path != "/" || len(c.Value) < 40 {
		t.Errorf("session cookie %+v: want HttpOnly, SameSite=Lax, not Secure over plain HTTP, path /", c)
	}
	if r := b.get("/"); !strings.Contains(r.body, "Signed in as <strong>alice</strong>") {
		t.Error("the session does not sign the next request in")
	}

	// Signing in again starts a new session and ends the old one.
	b.get("/signin")
	r = b.post("/signin", url.Values{"name": {"bob"}, "password": {testPassword}, "next": {"//evil.example/"}})
	if r.header.Get("Location") != "/" {
		t.Errorf("a next address off the site was followed: %q", r.header.Get("Location"))
	}
	if c2 := sessionCookie(t, r.header); c2 == nil || c2.Value == c.Value {
		t.Error("signing in again kept the session ID")
	}
	if sess, _ := env.exp.sessions.get(context.Background(), c.Value); sess != nil {
		t.Error("the first session outlived the second sign-in")
	}
}

func TestSecureCookies(t *testing.T) {
	env := newTestEnv(t, nil)
	tls := httptest.NewTLSServer(env.exp)
	defer tls.Close()
	c := tls.Client()
	c.Jar, _ = cookiejar.New(nil)
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	b := &browser{t: t, env: &testEnv{srv: tls}, c: c}
	b.get("/signin")
	r := b.post("/signin", url.Values{"name": {"alice"}, "password": {testPassword}})
	if ck := sessionCookie(t, r.header); ck == nil || !ck.Secure {
		t.Errorf("session cookie over TLS: %+v, want Secure", ck)
	}

	env = newTestEnv(t, &Options{Secure: true, CookieName: "toolapi_session"})
	b = env.browser(t)
	b.c.CheckRedirect = c.CheckRedirect
	b.get("/signin")
	// The jar keeps Secure cookies from plain HTTP requests out, so read the
	// header.
	req, _ := http.NewRequest("POST", env.srv.URL+"/signin", strings.NewReader(url.Values{"name": {"alice"}, "password": {testPassword}, "csrf": {b.csrf}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for _, ck := range b.c.Jar.Cookies(req.URL) {
		req.AddCookie(ck)
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if ck := sessionCookie(t, resp.Header); ck == nil || !ck.Secure {
		t.Errorf("session cookie with Options.Secure: %+v, want Secure", ck)
	}
}

// TestCSRF checks that no form is accepted without the session's token.
func TestCSRF(t *testing.T) {
	env := newTestEnv(t, nil)
	alice := env.browser(t)
	alice.signIn("alice")
	alice.get("/tools/demo.wipe")
	token := alice.csrf
	bob := env.browser(t)
	bob.signIn("bob")
	anon := env.browser(t)

	run := url.Values{"action": {"run"}, "confirm": {"yes"}}
	withToken := func(tok string) url.Values {
		v := url.Values{}
		for k, vs := range run {
			v[k] = vs
		}
		if tok != "" {
			v.Set("csrf", tok)
		}
		return v
	}
	tests := []struct {
		name string
		b    *browser
		form url.Values
	}{
		{"no token", alice, withToken("")},
		{"a wrong token", alice, withToken(token + "x")},
		{"another session's token", alice, withToken(bob.csrf)},
		{"no session", anon, withToken(token)},
	}
	for _, tt := range tests {
		r := tt.b.postRaw("/tools/demo.wipe", tt.form)
		if r.status != http.StatusForbidden || !strings.Contains(r.body, "<h1>Refused</h1>") {
			t.Errorf("%s: %d, want 403", tt.name, r.status)
		}
	}
	// A cross-site request is refused even with the token.
	req, _ := http.NewRequest("POST", env.srv.URL+"/tools/demo.wipe", strings.NewReader(withToken(token).Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	if r := alice.do(req); r.status != http.StatusForbidden {
		t.Errorf("a cross-site POST: %d, want 403", r.status)
	}
	// Presets and sign-out need the token too.
	if r := alice.postRaw("/tools/demo.every", url.Values{"action": {"save"}, "preset_name": {"p"}}); r.status != http.StatusForbidden {
		t.Errorf("saving a preset without the token: %d", r.status)
	}
	if r := alice.postRaw("/signout", url.Values{}); r.status != http.StatusForbidden {
		t.Errorf("signing out without the token: %d", r.status)
	}
	if env.wipes != 0 || len(env.presets.names("alice", "demo.every")) != 0 {
		t.Fatalf("a refused form changed something: %d wipes, presets %v", env.wipes, env.presets.names("alice", "demo.every"))
	}
	// The sign-in form has a token of its own.
	fresh := env.browser(t)
	if r := fresh.postRaw("/signin", url.Values{"name": {"alice"}, "password": {testPassword}}); r.status != http.StatusForbidden {
		t.Errorf("signing in without the form's token: %d", r.status)
	}
	if r := fresh.postRaw("/signin", url.Values{"name": {"alice"}, "password": {testPassword}, "csrf": {token}}); r.status != http.StatusForbidden {
		t.Errorf("signing in with a session's token instead of the form's: %d", r.status)
	}
	// With the token, the run happens.
	if r := alice.post("/tools/demo.wipe", url.Values{"action": {"run"}, "confirm": {"yes"}}); r.status != http.StatusOK || env.wipes != 1 {
		t.Errorf("a run with the token: %d, %d wipes", r.status, env.wipes)
	}
}

func TestSignOut(t *testing.T) {
	env := newTestEnv(t, nil)
	b := env.browser(t)
	b.signIn("alice")
	u, _ := url.Parse(env.srv.URL)
	old := b.c.Jar.Cookies(u)
	token := b.csrf
	r := b.post("/signout", url.Values{})
	if r.status != http.StatusOK || !strings.Contains(r.body, "Browsing as anonymous") {
		t.Fatalf("after signing out: %d", r.status)
	}
	// The old cookie and token no longer work: the session is gone.
	replay := env.browser(t)
	replay.c.Jar.SetCookies(u, old)
	if r := replay.get("/"); !strings.Contains(r.body, "Browsing as anonymous") {
		t.Error("the cookie of an ended session still signs in")
	}
	if r := replay.postRaw("/tools/demo.wipe", url.Values{"action": {"run"}, "confirm": {"yes"}, "csrf": {token}}); r.status != http.StatusForbidden {
		t.Errorf("a run with an ended session: %d", r.status)
	}
}

func TestSessionExpires(t *testing.T) {
	env := newTestEnv(t, &Options{SessionLifetime: time.Hour})
	b := env.browser(t)
	b.signIn("alice")
	env.exp.sessions.mu.Lock()
	for _, s := range env.exp.sessions.m {
		if time.Until(s.expires) > time.Hour || time.Until(s.expires) < 59*time.Minute {
			t.Errorf("session ends in %v, want an hour", time.Until(s.expires))
		}
		s.expires = time.Now().Add(-time.Second)
	}
	env.exp.sessions.mu.Unlock()
	if r := b.get("/"); !strings.Contains(r.body, "Browsing as anonymous") {
		t.Error("an expired session still signs in")
	}
	if n := len(env.exp.sessions.m); n != 0 {
		t.Errorf("%d sessions kept after expiry", n)
	}
}

// TestAccountReload: with Options.Account, a block applies to a running
// session at once.
func TestAccountReload(t *testing.T) {
	var mu sync.Mutex
	blocked := false
	env := newTestEnv(t, &Options{Account: func(_ context.Context, id string) (tool.Account, error) {
		mu.Lock()
		defer mu.Unlock()
		if blocked {
			return nil, errors.New("blocked")
		}
		return testUsers[id], nil
	}})
	b := env.browser(t)
	b.signIn("alice")
	mu.Lock()
	blocked = true
	mu.Unlock()
	if r := b.get("/"); !strings.Contains(r.body, "Browsing as anonymous") {
		t.Error("the session of a blocked account goes on")
	}
	if r := b.post("/tools/demo.wipe", url.Values{"action": {"run"}, "confirm": {"yes"}}); r.status != http.StatusForbidden || env.wipes != 0 {
		t.Errorf("a blocked account ran a tool: %d", r.status)
	}
}

func TestGuestSession(t *testing.T) {
	env := newTestEnv(t, &Options{
		Anonymous: func(context.Context) (tool.Account, error) {
			return &tool.User{ID: "visitor", Permissions: []string{"use demo"}}, nil
		},
		SignInNote:    "Ask the admin for a token.",
		PasswordLabel: "API token",
	})
	b := env.browser(t)
	page := b.get("/signin").body
	for _, want := range []string{"Ask the admin for a token.", `<label for="password">API token</label>`, `Or <button type="submit" name="guest" value="1" class="secondary">Continue as visitor</button>`} {
		if !strings.Contains(page, want) {
			t.Errorf("the sign-in page lacks %s", want)
		}
	}
	r := b.post("/signin", url.Values{"guest": {"1"}})
	if !strings.Contains(r.body, "Signed in as <strong>visitor</strong>") {
		t.Fatalf("continuing as a guest: %d", r.status)
	}
	b.get("/tools/demo.showcase")
	if r := b.post("/tools/demo.showcase", url.Values{"action": {"run"}}); r.status != http.StatusOK {
		t.Errorf("a guest's run: %d", r.status)
	}
}
