package explorer

import (
	"context"
	"testing"

	"github.com/toolapi/toolapi/tool"
)

// TestSessionsPerAccount checks that one owner (an account, or the
// guests of one address) cannot push others' sessions out of the table.
func TestSessionsPerAccount(t *testing.T) {
	s := newSessions([]byte("0123456789abcdef0123456789abcdef"), 3600e9)
	ctx := context.Background()
	victim, _ := s.start(ctx, &tool.User{ID: "alice"}, "alice", false)
	guest := &tool.User{ID: "anonymous"}
	otherGuest, _ := s.start(ctx, guest, "guest\x00192.0.2.1", true)
	for range maxAccountSessions + 50 {
		if sess, _ := s.start(ctx, guest, "guest\x00192.0.2.99", true); sess == nil {
			t.Fatal("a guest session was refused below the table's bound")
		}
	}
	if sess, _ := s.get(ctx, victim.id); sess == nil {
		t.Error("guests ended another account's session")
	}
	if sess, _ := s.get(ctx, otherGuest.id); sess == nil {
		t.Error("the guests of one address ended the session of a guest at another")
	}
	if n := len(s.byAccount["guest\x00192.0.2.99"]); n != maxAccountSessions {
		t.Errorf("guests hold %d sessions, want at most %d", n, maxAccountSessions)
	}
}

// TestLocalPath checks the redirect after sign-in stays on the site.
func TestLocalPath(t *testing.T) {
	e := &server{prefix: "/"}
	for p, want := range map[string]string{
		"/tools/album.search": "/tools/album.search",
		"//evil.example/x":    "/",
		"/\t/evil.example/x":  "/",
		"/\\evil":             "/",
		"https://evil/":       "/",
		"/a\x7fb":             "/",
	} {
		if got := e.localPath(p); got != want {
			t.Errorf("localPath(%q) = %q, want %q", p, got, want)
		}
	}
}
