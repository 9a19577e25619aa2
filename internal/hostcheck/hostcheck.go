// Package hostcheck decides whether a request may be served under the
// Host it names: the one check of the MCP endpoint and the explorer
// against DNS rebinding, where a page of another site, whose name now
// points at this machine, reads what this machine serves.
package hostcheck

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// Allowed reports whether r may be served under its Host header. A
// loopback host (localhost, 127.0.0.1, [::1], with any port) always may.
// When hosts is set, so may a host it lists (by name, or by name and
// port; "*" allows any), and no other. When hosts is empty, any host may,
// except on a request that reached a loopback address of this machine:
// there only loopback hosts are served. A reverse proxy on the same
// machine forwards its public host to a loopback address, so an operator
// behind one lists the public hosts.
func Allowed(r *http.Request, hosts []string) bool {
	if IsLoopback(r.Host) {
		return true
	}
	if len(hosts) == 0 {
		local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
		return !ok || local == nil || !IsLoopback(local.String())
	}
	host := hostOnly(r.Host)
	for _, h := range hosts {
		if h == "*" || strings.EqualFold(h, r.Host) || strings.EqualFold(h, host) {
			return true
		}
	}
	return false
}

// IsLoopback reports whether a host or host:port names a loopback host.
func IsLoopback(hostport string) bool {
	host := hostOnly(hostport)
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// hostOnly returns the host of a host or host:port.
func hostOnly(hostport string) string {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		return strings.Trim(hostport, "[]")
	}
	return host
}
