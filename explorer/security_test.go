package explorer

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/toolapi/toolapi/ratelimit"
	"github.com/toolapi/toolapi/tool"
)

// TestHost: a request that reaches the loopback address under another
// site's name (DNS rebinding) is refused, as /mcp refuses it; with
// AllowedHosts, only those hosts and loopback ones are served.
func TestHost(t *testing.T) {
	open := newTestEnv(t, nil)
	listed := newTestEnv(t, &Options{AllowedHosts: []string{"tools.example.com"}})
	port := open.srv.URL[strings.LastIndexByte(open.srv.URL, ':'):]
	lport := listed.srv.URL[strings.LastIndexByte(listed.srv.URL, ':'):]
	tests := []struct {
		env  *testEnv
		host string
		want int
	}{
		{open, "127.0.0.1" + port, http.StatusOK},
		{open, "localhost" + port, http.StatusOK},
		{open, "[::1]" + port, http.StatusOK},
		{open, "evil.example.com", http.StatusForbidden},
		{open, "evil.example.com" + port, http.StatusForbidden},
		{listed, "tools.example.com", http.StatusOK},
		{listed, "TOOLS.example.com" + lport, http.StatusOK},
		{listed, "localhost" + lport, http.StatusOK},
		{listed, "evil.example.com", http.StatusForbidden},
	}
	for _, tt := range tests {
		req, _ := http.NewRequest("GET", tt.env.srv.URL+"/signin", nil)
		req.Host = tt.host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tt.want {
			t.Errorf("Host %s: status %d, want %d", tt.host, resp.StatusCode, tt.want)
		}
	}
}

// TestSignInLimit: after too many failed sign-ins from one address, new
// credentials from that address wait, with a Retry-After; a name and
// password accepted recently and guests still sign in from it, and
// another address still can.
func TestSignInLimit(t *testing.T) {
	env := newTestEnv(t, &Options{
		ClientAddress:  func(r *http.Request) string { return r.Header.Get("X-Test-Client") },
		SignInFailures: ratelimit.NewFailures(&ratelimit.FailureOptions{Burst: 5}),
		Anonymous: func(context.Context) (tool.Account, error) {
			return &tool.User{ID: "visitor"}, nil
		},
	})
	from := func(b *browser, addr string, form url.Values) *response {
		b.t.Helper()
		b.get("/signin")
		form.Set("csrf", b.csrf)
		req, _ := http.NewRequest("POST", env.srv.URL+"/signin", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("X-Test-Client", addr)
		return b.do(req)
	}
	if r := from(env.browser(t), "192.0.2.1", url.Values{"name": {"alice"}, "password": {testPassword}}); !strings.Contains(r.body, "Signed in as <strong>alice</strong>") {
		t.Fatalf("alice's first sign-in: %d", r.status)
	}
	b := env.browser(t)
	for i := range 5 {
		if r := from(b, "192.0.2.1", url.Values{"name": {"alice"}, "password": {"guess" + strconv.Itoa(i)}}); r.status != http.StatusUnauthorized {
			t.Fatalf("failure %d: status %d", i+1, r.status)
		}
	}
	r := from(b, "192.0.2.1", url.Values{"name": {"bob"}, "password": {testPassword}})
	if r.status != http.StatusTooManyRequests || r.header.Get("Retry-After") == "" ||
		!strings.Contains(r.body, "Too many sign-ins from your address failed. Try again in 30 seconds.") {
		t.Errorf("new credentials past the limit: %d, Retry-After %q", r.status, r.header.Get("Retry-After"))
	}
	if strings.Contains(r.body, "Signed in as") {
		t.Error("signed in past the limit")
	}
	if r := from(env.browser(t), "192.0.2.1", url.Values{"name": {"alice"}, "password": {testPassword}}); !strings.Contains(r.body, "Signed in as <strong>alice</strong>") {
		t.Errorf("a name and password accepted before, from the same address: %d", r.status)
	}
	if r := from(env.browser(t), "192.0.2.1", url.Values{"guest": {"1"}}); !strings.Contains(r.body, "Signed in as <strong>visitor</strong>") {
		t.Errorf("a guest from the same address: %d", r.status)
	}
	other := env.browser(t)
	if r := from(other, "192.0.2.2", url.Values{"name": {"bob"}, "password": {testPassword}}); r.status != http.StatusOK || !strings.Contains(r.body, "Signed in as <strong>bob</strong>") {
		t.Errorf("another address: %d", r.status)
	}
}

// TestGuestsPerAddress: a guest signing in again and again from one
// address does not end the session of a guest at another address.
func TestGuestsPerAddress(t *testing.T) {
	env := newTestEnv(t, &Options{
		ClientAddress: func(r *http.Request) string { return r.Header.Get("X-Test-Client") },
		Anonymous: func(context.Context) (tool.Account, error) {
			return &tool.User{ID: "visitor", Permissions: []string{"use demo"}}, nil
		},
	})
	guestFrom := func(b *browser, addr string) {
		b.t.Helper()
		req, _ := http.NewRequest("POST", env.srv.URL+"/signin", strings.NewReader(url.Values{"guest": {"1"}, "csrf": {b.csrf}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("X-Test-Client", addr)
		if r := b.do(req); r.status != http.StatusOK {
			b.t.Fatalf("guest sign-in from %s: %d", addr, r.status)
		}
	}
	victim := env.browser(t)
	victim.get("/signin")
	guestFrom(victim, "192.0.2.1")
	for range maxGuestsPerAddress + 20 {
		// A fresh browser each time: no session of its own to end.
		flood := env.browser(t)
		flood.get("/signin")
		guestFrom(flood, "192.0.2.66")
	}
	if r := victim.get("/"); !strings.Contains(r.body, "Signed in as <strong>visitor</strong>") {
		t.Error("a guest signing in 40 times ended another guest's session")
	}
}

// TestSignInUnavailable: while the accounts cannot be read, a sign-in is
// answered 503 with Retry-After and not counted as a failure, and a
// signed-in visitor gets a 503 page but stays signed in.
func TestSignInUnavailable(t *testing.T) {
	var down atomic.Bool
	unavailable := fmt.Errorf("reading the accounts: %w: connection refused", tool.ErrUnavailable)
	env := newTestEnv(t, &Options{
		SignInFailures: ratelimit.NewFailures(&ratelimit.FailureOptions{Burst: 2}),
		Authenticate: func(_ context.Context, name, password string) (tool.Account, error) {
			if down.Load() {
				return nil, unavailable
			}
			if u, ok := testUsers[name]; ok && password == testPassword {
				return u, nil
			}
			return nil, errors.New("wrong")
		},
		Account: func(_ context.Context, id string) (tool.Account, error) {
			if down.Load() {
				return nil, unavailable
			}
			return testUsers[id], nil
		},
	})
	signedIn := env.browser(t)
	signedIn.signIn("alice")
	down.Store(true)
	b := env.browser(t)
	for i := range 10 {
		b.get("/signin")
		r := b.post("/signin", url.Values{"name": {"bob"}, "password": {testPassword}, "csrf": {b.csrf}})
		if r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") == "" || strings.Contains(r.body, "connection refused") {
			t.Fatalf("sign-in %d while the accounts are down: %d, Retry-After %q", i+1, r.status, r.header.Get("Retry-After"))
		}
	}
	r := signedIn.get("/")
	if r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") == "" {
		t.Errorf("a signed-in visitor while the accounts are down: %d, Retry-After %q; want 503", r.status, r.header.Get("Retry-After"))
	}
	down.Store(false)
	if r := signedIn.get("/"); !strings.Contains(r.body, "Signed in as <strong>alice</strong>") {
		t.Error("the visitor was signed out by the outage")
	}
	b.get("/signin")
	if r := b.post("/signin", url.Values{"name": {"bob"}, "password": {testPassword}, "csrf": {b.csrf}}); !strings.Contains(r.body, "Signed in as <strong>bob</strong>") {
		t.Errorf("sign-in once the accounts are back: %d (the outage was counted as failures?)", r.status)
	}
}
