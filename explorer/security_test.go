package explorer

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

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

// TestSignInLimit: after too many failed sign-ins from one address, that
// address cannot sign in for a while, even with the right password;
// another address still can.
func TestSignInLimit(t *testing.T) {
	env := newTestEnv(t, &Options{ClientAddress: func(r *http.Request) string { return r.Header.Get("X-Test-Client") }})
	from := func(b *browser, addr string, form url.Values) *response {
		b.t.Helper()
		b.get("/signin")
		form.Set("csrf", b.csrf)
		req, _ := http.NewRequest("POST", env.srv.URL+"/signin", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("X-Test-Client", addr)
		return b.do(req)
	}
	b := env.browser(t)
	for i := range maxSignInFailures {
		if r := from(b, "192.0.2.1", url.Values{"name": {"alice"}, "password": {"guess"}}); r.status != http.StatusUnauthorized {
			t.Fatalf("failure %d: status %d", i+1, r.status)
		}
	}
	r := from(b, "192.0.2.1", url.Values{"name": {"alice"}, "password": {testPassword}})
	if r.status != http.StatusTooManyRequests || !strings.Contains(r.body, "Too many sign-ins from your address failed. Try again in 15 minutes.") {
		t.Errorf("sign-in past the limit: %d", r.status)
	}
	if strings.Contains(r.body, "Signed in as") {
		t.Error("signed in past the limit")
	}
	other := env.browser(t)
	if r := from(other, "192.0.2.2", url.Values{"name": {"alice"}, "password": {testPassword}}); r.status != http.StatusOK || !strings.Contains(r.body, "Signed in as <strong>alice</strong>") {
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
	for range maxAccountSessions + 20 {
		// A fresh browser each time: no session of its own to end.
		flood := env.browser(t)
		flood.get("/signin")
		guestFrom(flood, "192.0.2.66")
	}
	if r := victim.get("/"); !strings.Contains(r.body, "Signed in as <strong>visitor</strong>") {
		t.Error("a guest signing in 1,020 times ended another guest's session")
	}
}
