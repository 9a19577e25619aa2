package ratelimit

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strings"
)

// ClientAddress returns the function that tells the address a request
// comes from, as limits per address count it. It is the address of the
// connection's peer, unless that peer is one of trustedProxies (reverse
// proxies or load balancers in front of the application): then the
// X-Forwarded-For header is read (or, when there is none, the Forwarded
// header of RFC 7239) from its right end, the entry the nearest proxy
// added, leftward past the entries that are trusted proxies too; the first
// entry that is not is the client. The headers are never read on a
// connection from any other peer, so a client cannot choose its address
// by sending them. An entry that is not an IP address stops the walk at
// the proxy that wrote it. IPv6 addresses are cut to their /64 network,
// which one client usually holds whole. Nil trusts no proxy.
func ClientAddress(trustedProxies []netip.Prefix) func(r *http.Request) string {
	trusted := slices.Clone(trustedProxies)
	isTrusted := func(ip netip.Addr) bool {
		for _, p := range trusted {
			if p.Contains(ip) {
				return true
			}
		}
		return false
	}
	return func(r *http.Request) string {
		ip, ok := parseHost(r.RemoteAddr)
		if !ok {
			return r.RemoteAddr
		}
		if len(trusted) == 0 || !isTrusted(ip) {
			return network(ip)
		}
		hops := forwardedFor(r.Header)
		for i := len(hops) - 1; i >= 0 && isTrusted(ip); i-- {
			next, ok := parseHost(hops[i])
			if !ok {
				break
			}
			ip = next
		}
		return network(ip)
	}
}

// ParseProxies reads the trusted proxies of [ClientAddress], each an IP
// address or a network in CIDR notation ("10.0.0.0/8").
func ParseProxies(list []string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, s := range list {
		s = strings.TrimSpace(s)
		if p, err := netip.ParsePrefix(s); err == nil {
			out = append(out, p.Masked())
			continue
		}
		ip, err := netip.ParseAddr(s)
		if err != nil {
			return nil, fmt.Errorf("trusted proxy %q: must be an IP address or a CIDR network such as 10.0.0.0/8", s)
		}
		ip = ip.Unmap()
		out = append(out, netip.PrefixFrom(ip, ip.BitLen()))
	}
	return out, nil
}

// forwardedFor returns the addresses a request passed through, the client
// first: the entries of its X-Forwarded-For headers, else the for=
// parameters of its Forwarded headers.
func forwardedFor(h http.Header) []string {
	var hops []string
	if xff := h.Values("X-Forwarded-For"); len(xff) > 0 {
		for _, v := range xff {
			for e := range strings.SplitSeq(v, ",") {
				hops = append(hops, strings.TrimSpace(e))
			}
		}
		return hops
	}
	for _, v := range h.Values("Forwarded") {
		for elem := range strings.SplitSeq(v, ",") {
			hop := "" // an element without for= stops the walk, as an unreadable entry does
			for pair := range strings.SplitSeq(elem, ";") {
				k, val, _ := strings.Cut(strings.TrimSpace(pair), "=")
				if strings.EqualFold(strings.TrimSpace(k), "for") {
					hop = strings.Trim(strings.TrimSpace(val), `"`)
				}
			}
			hops = append(hops, hop)
		}
	}
	return hops
}

// parseHost reads an IP address, with or without a port, in brackets or
// not.
func parseHost(s string) (netip.Addr, bool) {
	host, _, err := net.SplitHostPort(s)
	if err != nil {
		host = strings.Trim(s, "[]")
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}, false
	}
	return ip.Unmap().WithZone(""), true
}

// network returns ip as limits count it: IPv6 addresses by their /64.
func network(ip netip.Addr) string {
	if ip.Is6() {
		p, _ := ip.Prefix(64)
		return p.String()
	}
	return ip.String()
}
