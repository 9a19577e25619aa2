package mcpserver

import (
	"math"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Defaults of the limit on failed authentications of [Options].
const (
	// DefaultAuthFailureBurst is the number of failed authentications a
	// client address may make in a row when [Options.AuthFailureBurst] is
	// zero.
	DefaultAuthFailureBurst = 10
	// DefaultAuthFailureInterval is how often a client address earns one
	// more failed authentication when [Options.AuthFailureInterval] is
	// zero: 10 a minute.
	DefaultAuthFailureInterval = 6 * time.Second
	// maxFailingAddresses bounds the client addresses whose failures are
	// remembered.
	maxFailingAddresses = 100_000
)

// failures limits the failed authentications per client address: each
// address has a bucket of burst failures that refills one every interval;
// a request from an address whose bucket is empty is refused before its
// credentials are checked, so guessing tokens costs time.
type failures struct {
	limit rate.Limit
	burst int
	now   func() time.Time

	mu     sync.Mutex
	byAddr map[string]*rate.Limiter
}

func newFailures(burst int, interval time.Duration, now func() time.Time) *failures {
	if burst <= 0 {
		return nil
	}
	return &failures{
		limit: rate.Every(interval), burst: burst, now: now,
		byAddr: make(map[string]*rate.Limiter),
	}
}

// wait returns how long the address must wait before its credentials are
// checked again: zero when it may go ahead.
func (f *failures) wait(addr string) time.Duration {
	if f == nil {
		return 0
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	lim := f.byAddr[addr]
	if lim == nil {
		return 0
	}
	tokens := lim.TokensAt(f.now())
	if tokens >= 1 {
		return 0
	}
	return time.Duration(math.Ceil((1 - tokens) / float64(f.limit) * float64(time.Second)))
}

// fail records a failed authentication from the address.
func (f *failures) fail(addr string) {
	if f == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.now()
	lim := f.byAddr[addr]
	if lim == nil {
		if len(f.byAddr) >= maxFailingAddresses {
			f.sweep(now)
		}
		lim = rate.NewLimiter(f.limit, f.burst)
		f.byAddr[addr] = lim
	}
	lim.AllowN(now, 1)
}

// sweep forgets the addresses whose bucket has refilled, and, when that is
// not enough, half of the others. f.mu is held.
func (f *failures) sweep(now time.Time) {
	for a, lim := range f.byAddr {
		if lim.TokensAt(now) >= float64(f.burst) {
			delete(f.byAddr, a)
		}
	}
	for a := range f.byAddr {
		if len(f.byAddr) < maxFailingAddresses/2 {
			break
		}
		delete(f.byAddr, a)
	}
}

// tooManyFailures answers a request from an address that failed to
// authenticate too often.
func tooManyFailures(w http.ResponseWriter, wait time.Duration) {
	w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(wait.Seconds()))))
	http.Error(w, "Too Many Requests: too many failed authentications; try again later", http.StatusTooManyRequests)
}

// clientAddress returns the address a request comes from, for limits: the
// IP of its remote address, IPv6 addresses cut to their /64 network (which
// one client usually holds whole).
func clientAddress(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	ip = ip.Unmap()
	if ip.Is6() {
		p, _ := ip.Prefix(64)
		return p.String()
	}
	return ip.String()
}
