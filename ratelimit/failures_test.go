package ratelimit

import (
	"net/http"
	"sync"
	"testing"
	"time"
)

// TestFailures checks the policy of the limit on failed checks: a burst,
// then one check every interval; a request without credentials and a
// credential accepted recently are never refused; a check that could not
// be made costs nothing.
func TestFailures(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	f := NewFailures(&FailureOptions{Burst: 3, Interval: 20 * time.Second, TrustFor: time.Minute})
	f.now = func() time.Time { return now }

	good, wait := f.Begin("a", "Bearer good")
	if good == nil || wait != 0 {
		t.Fatalf("first check: %v, %v", good, wait)
	}
	good.Accepted()
	for i := range 3 {
		a, wait := f.Begin("a", "Bearer guess")
		if a == nil {
			t.Fatalf("guess %d refused after %v", i+1, wait)
		}
		a.Failed()
	}
	if a, wait := f.Begin("a", "Bearer other"); a != nil || wait != 20*time.Second {
		t.Errorf("a new credential past the burst: %v, wait %v; want refused for 20s", a, wait)
	}
	if a, wait := f.Begin("a", ""); a != nil || wait != 0 {
		t.Errorf("no credentials: %v, wait %v; want let through, nothing to report", a, wait)
	}
	a, wait := f.Begin("a", "Bearer good")
	if a == nil || wait != 0 {
		t.Fatalf("the credential accepted before: refused for %v", wait)
	}
	a.Accepted()
	if a, _ := f.Begin("b", "Bearer other"); a == nil {
		t.Error("another address was refused")
	}

	now = now.Add(15 * time.Second)
	if _, wait := f.Begin("a", "Bearer other"); wait != 5*time.Second {
		t.Errorf("15s later: wait %v, want 5s", wait)
	}
	now = now.Add(5 * time.Second)
	a, _ = f.Begin("a", "Bearer other")
	if a == nil {
		t.Fatal("20s later: refused")
	}
	a.Uncounted()
	a, _ = f.Begin("a", "Bearer other")
	if a == nil {
		t.Fatal("a check that could not be made was counted")
	}
	a.Failed()
	if a, _ := f.Begin("a", "Bearer other"); a != nil {
		t.Error("the check earned in 20s was spent, yet another was let through")
	}

	now = now.Add(2 * time.Minute)
	a, _ = f.Begin("a", "Bearer good")
	if a == nil || a.trusted {
		t.Fatalf("past TrustFor the credential should be checked as any other: %+v", a)
	}
	a.Failed()
}

// TestFailuresTrustedThenRefused checks that a trusted credential that
// fails (revoked) is trusted no longer and its failure counts.
func TestFailuresTrustedThenRefused(t *testing.T) {
	f := NewFailures(&FailureOptions{Burst: 1})
	a, _ := f.Begin("a", "tok")
	a.Accepted()
	a, _ = f.Begin("a", "tok")
	a.Failed() // revoked meanwhile
	if a, wait := f.Begin("a", "tok"); a != nil || wait == 0 {
		t.Error("a revoked credential's failure was not counted")
	}
}

// TestFailuresConcurrent checks that concurrent checks from one address
// cannot overrun its budget: each reserves its check before it starts.
func TestFailuresConcurrent(t *testing.T) {
	f := NewFailures(&FailureOptions{Burst: 10})
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		started int
	)
	for i := range 150 {
		wg.Go(func() {
			a, _ := f.Begin("a", "guess"+string(rune('A'+i%50))+string(rune('a'+i/50)))
			if a == nil {
				return
			}
			mu.Lock()
			started++
			mu.Unlock()
			a.Failed()
		})
	}
	wg.Wait()
	if started != 10 {
		t.Errorf("%d of 150 concurrent guesses were checked, want 10", started)
	}
}

// TestFailuresOff checks that a negative burst and a nil limit limit
// nothing.
func TestFailuresOff(t *testing.T) {
	for _, f := range []*Failures{nil, NewFailures(&FailureOptions{Burst: -1})} {
		for range 100 {
			a, wait := f.Begin("a", "guess")
			if wait != 0 {
				t.Fatal("refused with the limit off")
			}
			a.Failed()
		}
	}
}

// TestFailuresBounded checks that the tables stay within their bounds.
func TestFailuresBounded(t *testing.T) {
	f := NewFailures(&FailureOptions{MaxAddresses: 100, MaxTrusted: 100})
	for i := range 1000 {
		a, _ := f.Begin("addr"+string(rune(i)), "cred"+string(rune(i)))
		a.Accepted()
	}
	if len(f.budgets) > 100 || len(f.trusted) > 100 {
		t.Errorf("%d budgets and %d trusted credentials kept, want at most 100 each", len(f.budgets), len(f.trusted))
	}
}

// TestClientAddress checks the address a request comes from: the peer's,
// IPv6 by its /64; X-Forwarded-For and Forwarded only on connections from
// a trusted proxy, read from the right past the trusted proxies.
func TestClientAddress(t *testing.T) {
	proxies, err := ParseProxies([]string{"10.0.0.0/8", "192.0.2.9"})
	if err != nil {
		t.Fatal(err)
	}
	direct := ClientAddress(nil)
	behind := ClientAddress(proxies)
	for _, tc := range []struct {
		name           string
		remote         string
		header         http.Header
		direct, behind string
	}{
		{"IPv4", "198.51.100.1:1234", nil, "198.51.100.1", "198.51.100.1"},
		{"IPv6 by /64", "[2001:db8:1:2:3:4:5:6]:443", nil, "2001:db8:1:2::/64", "2001:db8:1:2::/64"},
		{"IPv4 in IPv6", "[::ffff:198.51.100.1]:80", nil, "198.51.100.1", "198.51.100.1"},
		{"header from an untrusted peer", "198.51.100.1:1", http.Header{"X-Forwarded-For": {"203.0.113.7"}}, "198.51.100.1", "198.51.100.1"},
		{"Forwarded from an untrusted peer", "198.51.100.1:1", http.Header{"Forwarded": {"for=203.0.113.7"}}, "198.51.100.1", "198.51.100.1"},
		{"trusted proxy", "10.1.2.3:5555", http.Header{"X-Forwarded-For": {"203.0.113.7"}}, "10.1.2.3", "203.0.113.7"},
		{"trusted proxy, single address", "192.0.2.9:5555", http.Header{"X-Forwarded-For": {"203.0.113.7"}}, "192.0.2.9", "203.0.113.7"},
		{"client's own entry ignored", "10.1.2.3:5555", http.Header{"X-Forwarded-For": {"6.6.6.6, 203.0.113.7"}}, "10.1.2.3", "203.0.113.7"},
		{"chain of proxies", "10.1.2.3:5555", http.Header{"X-Forwarded-For": {"6.6.6.6, 203.0.113.7", "10.9.9.9"}}, "10.1.2.3", "203.0.113.7"},
		{"only proxies", "10.1.2.3:5555", http.Header{"X-Forwarded-For": {"10.9.9.9"}}, "10.1.2.3", "10.9.9.9"},
		{"no header", "10.1.2.3:5555", nil, "10.1.2.3", "10.1.2.3"},
		{"garbage stops at the proxy", "10.1.2.3:5555", http.Header{"X-Forwarded-For": {"203.0.113.7, nonsense"}}, "10.1.2.3", "10.1.2.3"},
		{"Forwarded", "10.1.2.3:5555", http.Header{"Forwarded": {`for=6.6.6.6, for="[2001:db8::17]:4711";proto=https`}}, "10.1.2.3", "2001:db8::/64"},
		{"Forwarded unknown", "10.1.2.3:5555", http.Header{"Forwarded": {"for=unknown"}}, "10.1.2.3", "10.1.2.3"},
	} {
		r := &http.Request{RemoteAddr: tc.remote, Header: tc.header}
		if r.Header == nil {
			r.Header = http.Header{}
		}
		if got := direct(r); got != tc.direct {
			t.Errorf("%s, no trusted proxy: %s, want %s", tc.name, got, tc.direct)
		}
		if got := behind(r); got != tc.behind {
			t.Errorf("%s, behind trusted proxies: %s, want %s", tc.name, got, tc.behind)
		}
	}
	if _, err := ParseProxies([]string{"10.0.0.0/33"}); err == nil {
		t.Error("a bad CIDR was accepted")
	}
}

// TestFailuresUnanswered checks that an issuer failing to answer costs an
// untrusted credential its check, and a trusted one nothing.
func TestFailuresUnanswered(t *testing.T) {
	f := NewFailures(&FailureOptions{Burst: 2})
	a, _ := f.Begin("a", "good")
	a.Accepted()
	for range 5 {
		a, _ := f.Begin("a", "good")
		if a == nil {
			t.Fatal("a trusted credential was refused while the issuer failed")
		}
		a.Unanswered()
	}
	for range 2 {
		a, _ := f.Begin("a", "guess")
		if a == nil {
			t.Fatal("refused within the burst")
		}
		a.Unanswered()
	}
	if a, _ := f.Begin("a", "guess2"); a != nil {
		t.Error("checks the issuer failed to answer were free")
	}
	if a, _ := f.Begin("a", "good"); a == nil {
		t.Error("the trusted credential lost its trust to the issuer's failures")
	}
}
