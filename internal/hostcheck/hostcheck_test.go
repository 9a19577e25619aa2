package hostcheck

import (
	"context"
	"net"
	"net/http"
	"testing"
)

// TestAllowed checks which hosts are served, on a loopback address and on
// another, with and without a list of hosts.
func TestAllowed(t *testing.T) {
	loopback := &net.TCPAddr{IP: net.ParseIP("127.0.0.1"), Port: 8080}
	public := &net.TCPAddr{IP: net.ParseIP("192.0.2.10"), Port: 443}
	listed := []string{"tools.example.com", "api.example.com:8443"}
	for _, tc := range []struct {
		host  string
		local net.Addr
		hosts []string
		want  bool
	}{
		{"localhost:8080", loopback, nil, true},
		{"127.0.0.1", loopback, nil, true},
		{"[::1]:8080", loopback, nil, true},
		{"evil.example.com", loopback, nil, false},
		{"tools.example.com", loopback, nil, false},
		{"tools.example.com", public, nil, true},
		{"tools.example.com", loopback, listed, true},
		{"TOOLS.EXAMPLE.COM:443", loopback, listed, true},
		{"api.example.com:8443", loopback, listed, true},
		{"api.example.com:9999", loopback, listed, false},
		{"evil.example.com", public, listed, false},
		{"localhost", public, listed, true},
		{"anything", loopback, []string{"*"}, true},
	} {
		r, _ := http.NewRequestWithContext(context.WithValue(context.Background(), http.LocalAddrContextKey, tc.local), "GET", "/", nil)
		r.Host = tc.host
		if got := Allowed(r, tc.hosts); got != tc.want {
			t.Errorf("Host %s on %s with %v: %v, want %v", tc.host, tc.local, tc.hosts, got, tc.want)
		}
	}
}
