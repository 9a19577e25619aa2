package mcpserver_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/toolapi/toolapi/mcpserver"
)

// An sse is an event stream opened on its own connection.
type sse struct {
	conn net.Conn
	r    *bufio.Reader
	resp *http.Response
}

// openStream sends GET /mcp for the session with the given ID, with token
// ("" for none) and the test's client address, on a connection of its own
// (from the loopback address local, when set), and returns the stream
// and its response's status.
func openStream(t testing.TB, base, token, session, client, local string) (*sse, int) {
	t.Helper()
	s, err := dialStream(base, token, session, client, local)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.conn.Close() })
	return s, s.resp.StatusCode
}

// dialStream is openStream for any goroutine: the caller closes s.conn.
func dialStream(base, token, session, client, local string) (*sse, error) {
	u, err := url.Parse(base)
	if err != nil {
		return nil, err
	}
	d := net.Dialer{Timeout: 10 * time.Second}
	if local != "" {
		d.LocalAddr = &net.TCPAddr{IP: net.ParseIP(local)}
	}
	conn, err := d.Dial("tcp", u.Host)
	if err != nil {
		return nil, err
	}
	req := fmt.Sprintf("GET /mcp HTTP/1.1\r\nHost: %s\r\nAccept: text/event-stream\r\nMcp-Session-Id: %s\r\nMcp-Protocol-Version: 2025-11-25\r\n", u.Host, session)
	if token != "" {
		req += "Authorization: Bearer " + token + "\r\n"
	}
	if client != "" {
		req += "X-Test-Client: " + client + "\r\n"
	}
	if _, err := io.WriteString(conn, req+"\r\n"); err != nil {
		conn.Close()
		return nil, err
	}
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	s := &sse{conn: conn, r: bufio.NewReader(conn)}
	if s.resp, err = http.ReadResponse(s.r, nil); err != nil {
		conn.Close()
		return nil, fmt.Errorf("GET /mcp: %w", err)
	}
	if s.resp.StatusCode != 200 {
		io.Copy(io.Discard, s.resp.Body)
	}
	return s, nil
}

// ended reports whether the stream ends and its connection is closed by
// the server within 10 seconds.
func (s *sse) ended(t testing.TB) error {
	t.Helper()
	s.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.Copy(io.Discard, s.resp.Body); err != nil {
		return fmt.Errorf("the stream did not end: %w", err)
	}
	if _, err := s.r.ReadByte(); !errors.Is(err, io.EOF) {
		return fmt.Errorf("after the stream, the connection lingers (read: %v)", err)
	}
	return nil
}

// TestStreamEndsWithSession checks that the event stream of a session
// that is evicted for a new one, or that expires, ends, and that the
// server closes its connection rather than keep it alive.
func TestStreamEndsWithSession(t *testing.T) {
	t.Run("evicted", func(t *testing.T) {
		f := newFixture(t)
		ts := serveHTTP(t, f, &mcpserver.Options{MaxSessionsPerAccount: 1})
		first := openSession(t, ts.URL, "editor-token")
		s, status := openStream(t, ts.URL, "editor-token", first, "", "")
		if status != 200 {
			t.Fatalf("GET /mcp: status %d", status)
		}
		if !s.resp.Close {
			t.Errorf("the stream's response does not say Connection: close")
		}
		second := openSession(t, ts.URL, "editor-token") // evicts first
		if err := s.ended(t); err != nil {
			t.Errorf("stream of the evicted session: %v", err)
		}
		if _, status := openStream(t, ts.URL, "editor-token", second, "", ""); status != 200 {
			t.Errorf("GET /mcp of the new session: status %d, want 200", status)
		}
	})
	t.Run("expired", func(t *testing.T) {
		f := newFixture(t)
		ts := serveHTTP(t, f, &mcpserver.Options{SessionTimeout: 50 * time.Millisecond})
		id := openSession(t, ts.URL, "editor-token")
		s, status := openStream(t, ts.URL, "editor-token", id, "", "")
		if status != 200 {
			t.Fatalf("GET /mcp: status %d", status)
		}
		if err := s.ended(t); err != nil {
			t.Errorf("stream of the expired session: %v", err)
		}
	})
}

// TestStreamLimits checks the caps on event streams: per signed-in
// account, per anonymous address, for anonymous clients together and in
// total, each refused with Retry-After (429 for one's own cap, 503 for a
// shared one), and that a stream's end frees its place.
func TestStreamLimits(t *testing.T) {
	f := newFixture(t)
	srv := mcpserver.New(f.reg, &mcpserver.Options{
		Authenticate: mcpserver.Bearer(lookupToken), AllowAnonymous: true,
		ClientAddress: func(r *http.Request) string { return r.Header.Get("X-Test-Client") },
		MaxStreams:    6, MaxStreamsPerAccount: 2, MaxAnonymousStreams: 3, MaxStreamsPerAddress: 1,
	})
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	session := func(token, client string) string {
		t.Helper()
		h := map[string]string{"X-Test-Client": client}
		if token != "" {
			h["Authorization"] = "Bearer " + token
		}
		resp := post(t, ts.URL, initialize, h)
		if resp.StatusCode != 200 {
			t.Fatalf("initialize: status %d", resp.StatusCode)
		}
		return resp.Header.Get("Mcp-Session-Id")
	}
	var editorStreams []*sse
	for _, tc := range []struct {
		what, token, client string
		status              int
	}{
		{"editor's first", "editor-token", "e", 200},
		{"editor's second", "editor-token", "e", 200},
		{"editor's third", "editor-token", "e", 429},
		{"anonymous from a", "", "a", 200},
		{"anonymous, a's second", "", "a", 429},
		{"anonymous from b", "", "b", 200},
		{"anonymous from c", "", "c", 200},
		{"anonymous from d, past the anonymous cap", "", "d", 503},
		{"admin's first", "admin-token", "x", 200},
		{"admin's second, past the total", "admin-token", "x", 503},
	} {
		s, status := openStream(t, ts.URL, tc.token, session(tc.token, tc.client), tc.client, "")
		if status != tc.status {
			t.Errorf("%s stream: status %d, want %d", tc.what, status, tc.status)
		}
		if status != 200 && s.resp.Header.Get("Retry-After") == "" {
			t.Errorf("%s stream: refused without Retry-After", tc.what)
		}
		if status == 200 && tc.token == "editor-token" {
			editorStreams = append(editorStreams, s)
		}
	}
	// The editor closes a stream: its place is the admin's.
	editorStreams[0].conn.Close()
	adminSession := session("admin-token", "x")
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, status := openStream(t, ts.URL, "admin-token", adminSession, "x", "")
		if status == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a stream closed by its client still holds its place: status %d", status)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestAnonymousFairShare checks that anonymous initialize requests from
// one address, or from many, recycle the sessions of the addresses that
// hold the most, and leave alone the one session of each other anonymous
// client.
func TestAnonymousFairShare(t *testing.T) {
	f := newFixture(t)
	srv := mcpserver.New(f.reg, &mcpserver.Options{
		Authenticate: mcpserver.Bearer(lookupToken), AllowAnonymous: true,
		ClientAddress: func(r *http.Request) string { return r.Header.Get("X-Test-Client") },
		// The defaults: 100 anonymous sessions, 10 per address.
	})
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	initFrom := func(client string) string {
		t.Helper()
		resp := post(t, ts.URL, initialize, map[string]string{"X-Test-Client": client})
		id := resp.Header.Get("Mcp-Session-Id")
		if resp.StatusCode != 200 || id == "" {
			t.Fatalf("initialize from %s: status %d", client, resp.StatusCode)
		}
		return id
	}
	var people []string
	for i := range 5 {
		people = append(people, initFrom(fmt.Sprint("person", i)))
	}
	check := func(after string) {
		t.Helper()
		for i, id := range people {
			if !alive(t, ts.URL, "", id) {
				t.Errorf("after %s, the session of person %d is closed", after, i)
			}
		}
	}
	for range 100 {
		initFrom("flooder")
	}
	check("100 initialize requests from one address")
	for i := range 300 {
		initFrom(fmt.Sprint("bot", i%30))
	}
	check("300 initialize requests from 30 addresses")
}

// A stream asked on another account's session is answered as one on a
// session that does not exist, and takes none of the caller's share.
func TestStreamOnAnotherAccountsSession(t *testing.T) {
	f := newFixture(t)
	srv := mcpserver.New(f.reg, &mcpserver.Options{
		Authenticate: mcpserver.Bearer(lookupToken), MaxStreamsPerAccount: 1,
	})
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	session := func(token string) string {
		t.Helper()
		resp := post(t, ts.URL, initialize, map[string]string{"Authorization": "Bearer " + token})
		if resp.StatusCode != 200 {
			t.Fatalf("initialize: status %d", resp.StatusCode)
		}
		return resp.Header.Get("Mcp-Session-Id")
	}
	editors := session("editor-token")
	s, status := openStream(t, ts.URL, "admin-token", editors, "", "")
	if status != http.StatusNotFound {
		t.Errorf("admin's stream on the editor's session: status %d, want 404", status)
	}
	s.conn.Close()
	if _, status := openStream(t, ts.URL, "admin-token", session("admin-token"), "", ""); status != 200 {
		t.Errorf("admin's stream on its own session: status %d, want 200", status)
	}
	if _, status := openStream(t, ts.URL, "editor-token", editors, "", ""); status != 200 {
		t.Errorf("the editor's stream on its own session: status %d, want 200", status)
	}
}
