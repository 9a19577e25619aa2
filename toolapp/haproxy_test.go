package toolapp

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolapi/toolapi/internal/testenv"
	"github.com/toolapi/toolapi/ratelimit"
)

// TestServeBehindHAProxy serves behind a real haproxy on the same machine,
// which forwards the public host tools.example.com to serve's loopback
// port from the address 127.0.0.2 and adds the client's address to
// X-Forwarded-For. Clients connect to haproxy from loopback addresses of
// their own: each is held to its own budget of failed checks, whatever
// X-Forwarded-For it sends, and the public host is served.
func TestServeBehindHAProxy(t *testing.T) {
	testenv.NeedFull(t)
	bin, err := exec.LookPath("haproxy")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("haproxy is not installed")
		}
		t.Skip("haproxy is not installed (apt-get install haproxy)")
	}
	a := newTestApp(t)
	token, err := a.accounts.IssueToken(context.Background(), "ada")
	if err != nil {
		t.Fatal(err)
	}
	base := startServe(t, a, &Options{
		Name:           "notes",
		PublicHosts:    []string{"tools.example.com"},
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")},
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	front := ln.Addr().String()
	ln.Close()
	cfg := filepath.Join(t.TempDir(), "haproxy.cfg")
	os.WriteFile(cfg, []byte(fmt.Sprintf(`global
	maxconn 256
defaults
	mode http
	timeout connect 5s
	timeout client 30s
	timeout server 30s
frontend public
	bind %s
	option forwardfor
	default_backend app
backend app
	server serve %s source 127.0.0.2
`, front, strings.TrimPrefix(base, "http://"))), 0o600)
	cmd := exec.Command(bin, "-db", "-f", cfg)
	var log strings.Builder
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.Dial("tcp", front)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("haproxy does not listen on %s: %v\n%s", front, err, log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}

	// client returns an HTTP client whose connections come from ip.
	client := func(ip string) *http.Client {
		d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
		return &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
	}
	do := func(c *http.Client, host, token, xff string) int {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, "http://"+front+"/mcp", strings.NewReader(initialize))
		req.Host = host
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		if xff != "" {
			req.Header.Set("X-Forwarded-For", xff)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	guesser, other := client("127.0.0.3"), client("127.0.0.4")
	const public = "tools.example.com"
	if got := do(other, public, token, ""); got != 200 {
		t.Fatalf("ada's token through haproxy under the public host: %d, want 200", got)
	}
	if got := do(other, "evil.example.com", token, ""); got != 403 {
		t.Errorf("another host through haproxy: %d, want 403", got)
	}
	for i := range ratelimit.DefaultFailureBurst {
		// Each guess claims another address: haproxy's entry wins.
		if got := do(guesser, public, fmt.Sprintf("tok_guess%d", i), fmt.Sprintf("198.51.100.%d", i)); got != 401 {
			t.Fatalf("guess %d: %d, want 401", i+1, got)
		}
	}
	if got := do(guesser, public, "tok_guess", "198.51.100.99"); got != 429 {
		t.Errorf("the guesser past its budget, claiming another address: %d, want 429", got)
	}
	if got := do(other, public, "tok_wrong", ""); got != 401 {
		t.Errorf("another client through the same haproxy: %d, want 401 (not held back)", got)
	}
	if got := do(guesser, public, "", ""); got != 200 {
		t.Errorf("the guesser's address without credentials: %d, want 200", got)
	}
	if got := do(guesser, public, token, ""); got != 200 {
		t.Errorf("a token accepted before, from the guesser's address: %d, want 200", got)
	}

	// The explorer's sign-in through haproxy, under the public host.
	req, _ := http.NewRequest(http.MethodGet, "http://"+front+"/signin", nil)
	req.Host = public
	resp, err := other.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := csrfField.FindStringSubmatch(string(b))
	if resp.StatusCode != 200 || m == nil {
		t.Fatalf("the sign-in page through haproxy: %d", resp.StatusCode)
	}
	form := url.Values{"csrf": {m[1]}, "name": {"ada"}, "password": {"tok_wrong"}}
	req, _ = http.NewRequest(http.MethodPost, "http://"+front+"/signin", strings.NewReader(form.Encode()))
	req.Host = public
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for _, c := range resp.Cookies() {
		req.AddCookie(c)
	}
	resp, err = other.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Errorf("a wrong sign-in through haproxy from another client: %d, want 401 (not 429)", resp.StatusCode)
	}
}
