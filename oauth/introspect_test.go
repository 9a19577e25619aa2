package oauth_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolapi/toolapi/oauth"
	"github.com/toolapi/toolapi/ratelimit"
)

// An introspectionEndpoint answers for the opaque tokens it knows
// (RFC 7662) to the client rs with the secret s3cret.
type introspectionEndpoint struct {
	*httptest.Server
	mu     sync.Mutex
	tokens map[string]map[string]any // the answer for each token
	asked  atomic.Int32
	fail   atomic.Bool // answer 500
}

func newIntrospectionEndpoint(t *testing.T, issuer string) *introspectionEndpoint {
	e := &introspectionEndpoint{tokens: map[string]map[string]any{}}
	e.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.asked.Add(1)
		if id, secret, ok := r.BasicAuth(); !ok || id != "rs" || secret != "s3cret" {
			http.Error(w, `{"error":"invalid_client"}`, http.StatusUnauthorized)
			return
		}
		if e.fail.Load() {
			http.Error(w, "down", http.StatusInternalServerError)
			return
		}
		e.mu.Lock()
		ans, ok := e.tokens[r.PostFormValue("token")]
		e.mu.Unlock()
		if !ok {
			ans = map[string]any{"active": false}
		}
		json.NewEncoder(w).Encode(ans)
	}))
	t.Cleanup(e.Close)
	return e
}

// issue makes an opaque token whose answer is a good one with changes.
func (e *introspectionEndpoint) issue(name string, changes map[string]any) string {
	ans := map[string]any{
		"active": true, "sub": "ada", "client_id": "agent", "scope": "mcp album:read",
		"exp": time.Now().Add(time.Hour).Unix(),
	}
	for k, v := range changes {
		if v == nil {
			delete(ans, k)
		} else {
			ans[k] = v
		}
	}
	tok := "opaque-" + name
	e.mu.Lock()
	e.tokens[tok] = ans
	e.mu.Unlock()
	return tok
}

// TestIntrospection checks which opaque tokens reach /mcp when the issuer
// introspects them, and that an answer is reused.
func TestIntrospection(t *testing.T) {
	iss := newIssuer(t)
	ep := newIntrospectionEndpoint(t, iss.URL)
	rs := newResourceServer(t, iss.URL, func(o *oauth.Options) {
		o.Introspection = &oauth.Introspection{URL: ep.URL, ClientID: "rs", ClientSecret: "s3cret"}
	})
	ts := serve(t, rs)
	meta := `resource_metadata="` + rs.MetadataURL() + `"`

	for _, tc := range []struct {
		name      string
		token     string
		status    int
		challenge string
	}{
		{"active", ep.issue("active", nil), 200, ""},
		{"audience of the resource", ep.issue("aud", map[string]any{"aud": resource}), 200, ""},
		{"audience of the client", ep.issue("aud-client", map[string]any{"aud": []string{"rs", "other"}}), 200, ""},
		{"a JWT still verified by its signature", iss.sign(t, iss.claims(nil)), 200, ""},
		{"unknown", "opaque-unknown", 401, `error="invalid_token", error_description="the token is not active"`},
		{"inactive", ep.issue("inactive", map[string]any{"active": false}), 401, `error="invalid_token"`},
		{"another audience", ep.issue("other-aud", map[string]any{"aud": "http://127.0.0.1/other"}), 401, `error="invalid_token", error_description="the token is not for this resource"`},
		{"another issuer", ep.issue("other-iss", map[string]any{"iss": "http://127.0.0.1:1/"}), 401, `error="invalid_token"`},
		{"expired", ep.issue("expired", map[string]any{"exp": time.Now().Add(-time.Hour).Unix()}), 401, `error="invalid_token", error_description="the token expired"`},
		{"no expiry", ep.issue("no-exp", map[string]any{"exp": nil}), 401, `error="invalid_token"`},
		{"no subject", ep.issue("no-sub", map[string]any{"sub": nil}), 401, `error="invalid_token"`},
		{"without the required scope", ep.issue("no-scope", map[string]any{"scope": "album:read"}), 403, `error="insufficient_scope", error_description="the token lacks the scope mcp", scope="mcp", ` + meta},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := post(t, ts.URL+"/mcp", tc.token, initialize, nil)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d (%s), want %d", resp.StatusCode, body, tc.status)
			}
			if got := resp.Header.Get("WWW-Authenticate"); tc.challenge == "" && got != "" || !strings.Contains(got, tc.challenge) {
				t.Errorf("WWW-Authenticate %q, want it to hold %q", got, tc.challenge)
			}
		})
	}

	t.Run("an active answer is reused", func(t *testing.T) {
		tok := ep.issue("reused", nil)
		before := ep.asked.Load()
		for range 3 {
			if resp, body := post(t, ts.URL+"/mcp", tok, initialize, nil); resp.StatusCode != 200 {
				t.Fatalf("status %d (%s)", resp.StatusCode, body)
			}
		}
		if n := ep.asked.Load() - before; n != 1 {
			t.Errorf("the endpoint was asked %d times for one token, want 1", n)
		}
	})

	t.Run("the endpoint down", func(t *testing.T) {
		ep.fail.Store(true)
		defer ep.fail.Store(false)
		resp, body := post(t, ts.URL+"/mcp", ep.issue("down", nil), initialize, nil)
		if resp.StatusCode != http.StatusServiceUnavailable {
			t.Errorf("status %d (%s), want 503", resp.StatusCode, body)
		}
		if strings.Contains(body, ep.URL) || strings.Contains(body, "500") {
			t.Errorf("the answer %q tells the client about the endpoint", body)
		}
	})

	t.Run("wrong client credentials", func(t *testing.T) {
		bad := newResourceServer(t, iss.URL, func(o *oauth.Options) {
			o.Introspection = &oauth.Introspection{URL: ep.URL, ClientID: "rs", ClientSecret: "wrong"}
		})
		resp, body := post(t, serve(t, bad).URL+"/mcp", ep.issue("creds", nil), initialize, nil)
		if resp.StatusCode != http.StatusServiceUnavailable {
			t.Errorf("status %d (%s), want 503", resp.StatusCode, body)
		}
	})
}

func TestIntrospectionOptions(t *testing.T) {
	for _, in := range []*oauth.Introspection{
		{ClientID: "rs"},
		{ClientSecret: "s"},
		{URL: "/introspect", ClientID: "rs", ClientSecret: "s"},
	} {
		_, err := oauth.New(&oauth.Options{Resource: resource, Issuer: "http://127.0.0.1:1/", Introspection: in})
		if err == nil || !strings.Contains(err.Error(), "Options.Introspection") {
			t.Errorf("New with %+v: %v, want an error naming Options.Introspection", in, err)
		}
	}
}

// The issuer's metadata is read once for the key set and the
// introspection endpoint both, and a read that fails is not tried again
// before KeysMinInterval.
func TestIssuerMetadataReadOnce(t *testing.T) {
	iss := newIssuer(t)
	ep := newIntrospectionEndpoint(t, iss.URL)
	var reads atomic.Int32
	var down atomic.Bool
	down.Store(true)
	var meta *httptest.Server
	meta = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reads.Add(1)
		if down.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		json.NewEncoder(w).Encode(map[string]string{"issuer": meta.URL, "jwks_uri": iss.URL + "/keys", "introspection_endpoint": ep.URL})
	}))
	defer meta.Close()
	rs := newResourceServer(t, meta.URL, func(o *oauth.Options) {
		o.Introspection = &oauth.Introspection{ClientID: "rs", ClientSecret: "s3cret"}
	})
	now := time.Now()
	oauth.SetClock(rs, func() time.Time { return now })
	ctx := context.Background()
	jwt := iss.sign(t, iss.claims(map[string]any{"iss": meta.URL}))

	for range 3 {
		if _, err := rs.Verify(ctx, ep.issue("while-down", nil)); !errors.Is(err, oauth.ErrIntrospectionUnusable) {
			t.Fatalf("with the metadata down: %v, want ErrIntrospectionUnusable", err)
		}
	}
	// Both paths of the two tries (openid-configuration, then
	// oauth-authorization-server) are read once, then not for a while.
	if n := reads.Load(); n != 2 {
		t.Errorf("the metadata was asked for %d times while down, want 2 (one read of both paths)", n)
	}
	down.Store(false)
	now = now.Add(time.Hour)
	if _, err := rs.Verify(ctx, ep.issue("up", nil)); err != nil {
		t.Fatalf("an opaque token once the metadata is up: %v", err)
	}
	if _, err := rs.Verify(ctx, jwt); err != nil {
		t.Fatalf("a JWT once the metadata is up: %v", err)
	}
	if n := reads.Load(); n != 3 {
		t.Errorf("the metadata was asked for %d times in all, want 3: once more for the key set and the endpoint both", n)
	}
}

// TestAuthFailureLimitConcurrent sends 150 bad opaque tokens at once from
// one address: each reserves its check before the issuer is asked, so at
// most the burst of the limit (10) reaches the introspection endpoint and
// the rest are answered 429; so too when the endpoint fails with 5xx,
// whose answers count as failures as well.
func TestAuthFailureLimitConcurrent(t *testing.T) {
	for _, failing := range []bool{false, true} {
		name := "inactive tokens"
		if failing {
			name = "the endpoint failing"
		}
		t.Run(name, func(t *testing.T) {
			iss := newIssuer(t)
			ep := newIntrospectionEndpoint(t, iss.URL)
			ep.fail.Store(failing)
			rs := newResourceServer(t, iss.URL, func(o *oauth.Options) {
				o.Introspection = &oauth.Introspection{URL: ep.URL, ClientID: "rs", ClientSecret: "s3cret"}
			})
			ts := serveWith(t, rs, nil) // the default limit: 10 in a row
			start := make(chan struct{})
			var wg sync.WaitGroup
			var mu sync.Mutex
			statuses := map[int]int{}
			for i := range 150 {
				wg.Go(func() {
					<-start
					resp, _ := post(t, ts.URL+"/mcp", fmt.Sprintf("opaque-guess-%d", i), initialize, nil)
					mu.Lock()
					statuses[resp.StatusCode]++
					mu.Unlock()
				})
			}
			close(start)
			wg.Wait()
			if n := ep.asked.Load(); n > ratelimit.DefaultFailureBurst {
				t.Errorf("the issuer was asked %d times by 150 concurrent guesses, want at most %d", n, ratelimit.DefaultFailureBurst)
			}
			if statuses[http.StatusTooManyRequests] < 150-ratelimit.DefaultFailureBurst {
				t.Errorf("answers %v, want at least %d of 429", statuses, 150-ratelimit.DefaultFailureBurst)
			}
		})
	}
}

// TestIntrospectionBounds checks that at most MaxConcurrent questions are
// asked of the endpoint at once, and that a refusal is reused for
// RefusalCacheFor: a token sent again reaches the endpoint once.
func TestIntrospectionBounds(t *testing.T) {
	iss := newIssuer(t)
	var inFlight, most atomic.Int32
	release := make(chan struct{})
	ep := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		<-release
		w.Write([]byte(`{"active":false}`))
	}))
	t.Cleanup(ep.Close)
	rs := newResourceServer(t, iss.URL, func(o *oauth.Options) {
		o.Introspection = &oauth.Introspection{URL: ep.URL, ClientID: "rs", ClientSecret: "s3cret"}
	})
	var wg sync.WaitGroup
	for i := range 30 {
		wg.Go(func() {
			if _, err := rs.Verify(t.Context(), fmt.Sprintf("opaque-%d", i)); !errors.Is(err, oauth.ErrInactive) {
				t.Errorf("token %d: %v, want ErrInactive", i, err)
			}
		})
	}
	deadline := time.Now().Add(10 * time.Second)
	for inFlight.Load() < oauth.DefaultMaxConcurrent && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	close(release)
	wg.Wait()
	if m := most.Load(); m != oauth.DefaultMaxConcurrent {
		t.Errorf("at most %d questions were asked at once, want %d", m, oauth.DefaultMaxConcurrent)
	}

	t.Run("refusals reused", func(t *testing.T) {
		ep := newIntrospectionEndpoint(t, iss.URL)
		now := time.Now()
		var mu sync.Mutex
		rs := newResourceServer(t, iss.URL, func(o *oauth.Options) {
			o.Introspection = &oauth.Introspection{URL: ep.URL, ClientID: "rs", ClientSecret: "s3cret"}
		})
		oauth.SetClock(rs, func() time.Time { mu.Lock(); defer mu.Unlock(); return now })
		for range 5 {
			if _, err := rs.Verify(t.Context(), "opaque-bad"); !errors.Is(err, oauth.ErrInactive) {
				t.Fatalf("a bad token: %v", err)
			}
		}
		if n := ep.asked.Load(); n != 1 {
			t.Errorf("a bad token sent 5 times reached the endpoint %d times, want 1", n)
		}
		mu.Lock()
		now = now.Add(oauth.DefaultRefusalCacheFor + time.Second)
		mu.Unlock()
		rs.Verify(t.Context(), "opaque-bad")
		if n := ep.asked.Load(); n != 2 {
			t.Errorf("past the refusal's time the endpoint was asked %d times in all, want 2", n)
		}
		// A failure of the endpoint is no refusal: never reused.
		ep.fail.Store(true)
		rs.Verify(t.Context(), "opaque-down")
		rs.Verify(t.Context(), "opaque-down")
		if n := ep.asked.Load(); n != 4 {
			t.Errorf("a token met by a failing endpoint twice: asked %d times in all, want 4", n)
		}
	})
}
