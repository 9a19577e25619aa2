package explorer

import (
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/toolapi/toolapi/internal/hostcheck"
	"github.com/toolapi/toolapi/ratelimit"
)

// hostAllowed reports whether r may be served under its Host: a loopback
// host always, a host of [Options.AllowedHosts] when that is set, and any
// host when it is not set unless r reached a loopback address (DNS
// rebinding: a page of another site whose name now points at this
// machine). /mcp makes the same check.
func (e *server) hostAllowed(r *http.Request) bool {
	return hostcheck.Allowed(r, e.opts.AllowedHosts)
}

// clientAddress returns the address a request comes from, as sign-in
// limits count it: [Options.ClientAddress], else the connection's peer
// (see [ratelimit.ClientAddress]).
func (e *server) clientAddress(r *http.Request) string {
	if e.opts.ClientAddress != nil {
		return e.opts.ClientAddress(r)
	}
	return directAddress(r)
}

// directAddress is the client address of a request without proxies.
var directAddress = ratelimit.ClientAddress(nil)

// retryUnavailable is the Retry-After of a page answered 503 because the
// accounts or sessions could not be read.
const retryUnavailable = 5 * time.Second

// unavailable answers 503 with Retry-After: who the visitor is cannot be
// told at the moment (the store of accounts or sessions is down). The
// session is kept: the visitor is still signed in once it is back.
func (e *server) unavailable(w http.ResponseWriter, r *http.Request, v *visit) {
	w.Header().Set("Retry-After", strconv.Itoa(int(retryUnavailable/time.Second)))
	e.renderStatus(w, r, http.StatusServiceUnavailable, "message", &page{
		Title:   "Unavailable",
		Message: "The site cannot check who you are at the moment. You are still signed in; try again in a few seconds.",
	}, v)
}

// waitText says how long to wait, in seconds or minutes.
func waitText(d time.Duration) string {
	if d < 90*time.Second {
		return plural(max(1, int(math.Ceil(d.Seconds()))), "second")
	}
	return plural(int(math.Ceil(d.Minutes())), "minute")
}
