package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// get returns the status, Retry-After header and body of GET url.
func get(t *testing.T, url string) (int, string, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Retry-After"), string(body)
}

// freeAddr returns a loopback address nothing listens on.
func freeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// forward accepts connections on addr and relays each to target, until
// the test ends.
func forward(t *testing.T, addr, target string) {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			mu.Lock()
			conns = append(conns, c, s)
			mu.Unlock()
			wg.Go(func() { io.Copy(s, c); s.Close() })
			wg.Go(func() { io.Copy(c, s); c.Close() })
		}
	})
}

// serveInProcess runs `album serve` with args in this process and returns
// its stdout, its stderr and the channel its exit status arrives on.
func serveInProcess(ctx context.Context, args ...string) (*lockedBuffer, *lockedBuffer, chan int) {
	stdout, stderr := new(lockedBuffer), new(lockedBuffer)
	done := make(chan int, 1)
	go func() { done <- run(ctx, args, nil, stdout, stderr) }()
	return stdout, stderr, done
}

// serve listens before PostgreSQL answers: /healthz says it is alive,
// /readyz and the rest 503 with a Retry-After, it retries with logged
// backoff, and once the database answers it serves. A wrong password is
// not retried.
func TestServeWaitsForTheDatabase(t *testing.T) {
	dsn := postgresSchema(t)
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	real := u.Host
	u.Host = freeAddr(t) // nothing listens there yet
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	stdout, stderr, done := serveInProcess(ctx, "--db", u.String(), "--exports", t.TempDir(), "serve", "--addr", "127.0.0.1:0")
	// Until the database answers, serve logs where it listens.
	var base string
	waitFor(t, 20*time.Second, "a logged attempt", func() bool {
		_, rest, ok := strings.Cut(stderr.String(), "album serve: listening on ")
		base, _, _ = strings.Cut(rest, ",")
		return ok
	})
	if stdout.String() != "" {
		t.Errorf("serve said it serves before it could: %q", stdout)
	}

	if code, _, _ := get(t, base+"/healthz"); code != http.StatusOK {
		t.Errorf("/healthz before the database = %d, want 200", code)
	}
	if code, retry, _ := get(t, base+"/readyz"); code != http.StatusServiceUnavailable || retry == "" {
		t.Errorf("/readyz before the database = %d (Retry-After %q), want 503 with a Retry-After", code, retry)
	}
	if code, retry, _ := get(t, base+"/"); code != http.StatusServiceUnavailable || retry == "" {
		t.Errorf("/ before the database = %d (Retry-After %q), want 503 with a Retry-After", code, retry)
	}
	// The failures are logged, the backoff doubling from 250ms.
	waitFor(t, 20*time.Second, "two logged attempts", func() bool {
		return strings.Contains(stderr.String(), "(attempt 2)")
	})
	if s := stderr.String(); !strings.Contains(s, "trying again in 250ms") || !strings.Contains(s, "trying again in 500ms") {
		t.Errorf("serve's log does not show the backoff:\n%s", s)
	}
	if strings.Contains(stderr.String(), "toolapi:toolapi") || strings.Contains(stderr.String(), ":toolapi@") {
		t.Errorf("serve's log shows the password:\n%s", stderr)
	}

	forward(t, u.Host, real) // the database is up
	waitFor(t, 30*time.Second, "/readyz to answer 200", func() bool {
		code, _, _ := get(t, base+"/readyz")
		return code == http.StatusOK
	})
	if code, _, body := get(t, base+"/"); code != http.StatusOK || !strings.Contains(body, "album.search") {
		t.Errorf("/ once ready = %d, want the explorer", code)
	}
	if want := "Serving Album demo on " + base + " "; !strings.HasPrefix(stdout.String(), want) {
		t.Errorf("serve printed %q once ready, want %q...", stdout, want)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("serve exited %d; stderr:\n%s", code, stderr)
	}

	t.Run("wrong password", func(t *testing.T) {
		u, _ := url.Parse(dsn)
		u.User = url.UserPassword(u.User.Username(), "not-the-password")
		start := time.Now()
		_, stderr, done := serveInProcess(t.Context(), "--db", u.String(), "--exports", t.TempDir(), "serve", "--addr", "127.0.0.1:0")
		select {
		case code := <-done:
			if code != 1 {
				t.Errorf("serve with a wrong password exited %d, want 1", code)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("serve with a wrong password still runs after %s; stderr:\n%s", time.Since(start), stderr)
		}
		s := stderr.String()
		if strings.Contains(s, "trying again") || !strings.Contains(s, "password authentication failed") {
			t.Errorf("serve with a wrong password retried or did not say why:\n%s", s)
		}
		if strings.Contains(s, "not-the-password") {
			t.Errorf("serve's log shows the password:\n%s", s)
		}
	})
}

// waitFor polls cond until it holds, failing the test after limit.
func waitFor(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("no %s within %s", what, limit)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
