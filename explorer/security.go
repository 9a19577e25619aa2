package explorer

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"
)

// hostAllowed reports whether r may be served under its Host: a loopback
// host always, a host of [Options.AllowedHosts] when that is set, and any
// host when it is not set unless r reached a loopback address (DNS
// rebinding: a page of another site whose name now points at this
// machine).
func (e *server) hostAllowed(r *http.Request) bool {
	if isLoopbackHost(r.Host) {
		return true
	}
	if len(e.opts.AllowedHosts) == 0 {
		local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
		return !ok || local == nil || !isLoopbackHost(local.String())
	}
	host := hostOnly(r.Host)
	for _, h := range e.opts.AllowedHosts {
		if h == "*" || strings.EqualFold(h, r.Host) || strings.EqualFold(h, host) {
			return true
		}
	}
	return false
}

// hostOnly returns the host of a host or host:port.
func hostOnly(hostport string) string {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		return strings.Trim(hostport, "[]")
	}
	return host
}

// isLoopbackHost reports whether a host or host:port names a loopback host.
func isLoopbackHost(hostport string) bool {
	host := hostOnly(hostport)
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// clientAddress returns the address a request comes from, as sign-in
// limits count it: [Options.ClientAddress], else the connection's IP
// address, IPv6 addresses by their /64 network (what one client
// usually holds).
func (e *server) clientAddress(r *http.Request) string {
	if e.opts.ClientAddress != nil {
		return e.opts.ClientAddress(r)
	}
	ip, err := netip.ParseAddr(hostOnly(r.RemoteAddr))
	if err != nil {
		return r.RemoteAddr
	}
	ip = ip.Unmap()
	if ip.Is6() {
		p, _ := ip.Prefix(64)
		return p.String()
	}
	return ip.String()
}

// Sign-in failures are limited per client address: after
// maxSignInFailures failures within signInWindow, the address may not
// try again until the window that began with its first failure ends.
// maxLimitedAddresses bounds the addresses remembered.
const (
	maxSignInFailures   = 10
	signInWindow        = 15 * time.Minute
	maxLimitedAddresses = 100_000
)

// A limiter counts sign-in failures per client address.
type limiter struct {
	mu sync.Mutex
	m  map[string]*failures
}

type failures struct {
	n     int
	since time.Time
}

func newLimiter() *limiter { return &limiter{m: make(map[string]*failures)} }

// blocked reports whether addr has failed too often, and until when.
func (l *limiter) blocked(addr string, now time.Time) (bool, time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	f := l.m[addr]
	if f == nil || now.Sub(f.since) >= signInWindow {
		return false, time.Time{}
	}
	return f.n >= maxSignInFailures, f.since.Add(signInWindow)
}

// fail counts a failure of addr.
func (l *limiter) fail(addr string, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	f := l.m[addr]
	if f == nil || now.Sub(f.since) >= signInWindow {
		if f == nil && len(l.m) >= maxLimitedAddresses {
			for k, old := range l.m {
				if now.Sub(old.since) >= signInWindow {
					delete(l.m, k)
				}
			}
			if len(l.m) >= maxLimitedAddresses {
				// Still full: every address is within its window. The new
				// one is not counted rather than letting a flood of
				// addresses erase the others' counts.
				return
			}
		}
		f = &failures{since: now}
		l.m[addr] = f
	}
	f.n++
}
