package toolapp

import (
	"flag"
	"fmt"
	"net/http"
	"net/netip"
	"strings"

	"github.com/toolapi/toolapi/explorer"
	"github.com/toolapi/toolapi/mcpserver"
	"github.com/toolapi/toolapi/ratelimit"
)

// doors is what the doors of [Handler] to the accounts, /mcp and the
// explorer's sign-in, share: one limit of failed checks of credentials
// per client address, so that a guesser cannot try one door after the
// other; one way to tell a request's client address; one list of public
// hosts.
type doors struct {
	failures *ratelimit.Failures
	address  func(*http.Request) string
	hosts    []string
}

func newDoors(o *Options) *doors {
	return &doors{
		failures: ratelimit.NewFailures(nil),
		address:  ratelimit.ClientAddress(o.TrustedProxies),
		hosts:    o.PublicHosts,
	}
}

// mcp fills in the zero fields of m that the doors share.
func (d *doors) mcp(m *mcpserver.Options, app *App) {
	if d == nil {
		return
	}
	if m.AuthFailures == nil {
		m.AuthFailures = d.failures
	}
	if m.ClientAddress == nil {
		m.ClientAddress = d.address
	}
	if m.AllowedHosts == nil {
		m.AllowedHosts = d.hosts
	}
	if m.ChallengeScope == "" && m.Authenticate == nil && app.OAuth != nil {
		m.ChallengeScope = app.OAuth.ChallengeScope()
	}
}

// explorer fills in the zero fields of e that the doors share.
func (d *doors) explorer(e *explorer.Options) {
	if d == nil {
		return
	}
	if e.SignInFailures == nil {
		e.SignInFailures = d.failures
	}
	if e.ClientAddress == nil {
		e.ClientAddress = d.address
	}
	if e.AllowedHosts == nil {
		e.AllowedHosts = d.hosts
	}
}

// addProxyFlags adds serve's flags --trusted-proxy and --public-host,
// which append to proxies and hosts.
func addProxyFlags(fs *flag.FlagSet, proxies *[]netip.Prefix, hosts *[]string) {
	fs.Func("trusted-proxy", "a reverse proxy or load balancer in front, by `IP or CIDR` (repeat for several): the client address is read from the X-Forwarded-For or Forwarded header of its requests", func(s string) error {
		p, err := ratelimit.ParseProxies(strings.Split(s, ","))
		if err != nil {
			return err
		}
		*proxies = append(*proxies, p...)
		return nil
	})
	fs.Func("public-host", "a `host` name (or host:port) under which clients reach the server through a proxy (repeat for several); other hosts are refused", func(s string) error {
		for h := range strings.SplitSeq(s, ",") {
			h = strings.TrimSpace(h)
			if h == "" || strings.ContainsAny(h, "/ \t") {
				return fmt.Errorf("public host %q: must be a host name or host:port, without scheme or path", h)
			}
			*hosts = append(*hosts, h)
		}
		return nil
	})
}
