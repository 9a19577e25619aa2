package explorer

import (
	"context"
	"database/sql"
	"fmt"
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
	otherGuest, _ := s.start(ctx, guest, guestOwner("192.0.2.1"), true)
	for range maxAccountSessions + 50 {
		if sess, _ := s.start(ctx, guest, guestOwner("192.0.2.99"), true); sess == nil {
			t.Fatal("a guest session was refused below the table's bound")
		}
	}
	if sess, _ := s.get(ctx, victim.id); sess == nil {
		t.Error("guests ended another account's session")
	}
	if sess, _ := s.get(ctx, otherGuest.id); sess == nil {
		t.Error("the guests of one address ended the session of a guest at another")
	}
	if n := len(s.byAccount[guestOwner("192.0.2.99")]); n != maxGuestsPerAddress {
		t.Errorf("guests hold %d sessions, want at most %d", n, maxGuestsPerAddress)
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

// TestGuestSessionsTotal checks the bounds on guests' sessions: at most
// maxGuestsPerAddress per client address (one more ends that address's
// oldest), and maxGuests in all, past which no guest session starts while
// accounts still sign in; in memory and in a SQL store.
func TestGuestSessionsTotal(t *testing.T) {
	ctx := context.Background()
	guest := &tool.User{ID: "anonymous"}
	t.Run("memory", func(t *testing.T) {
		s := newSessions([]byte("0123456789abcdef0123456789abcdef"), 3600e9)
		for i := range maxGuests {
			addr := guestOwner(fmt.Sprintf("198.51.%d.%d", i/200, i%200))
			if sess, _ := s.start(ctx, guest, addr, true); sess == nil {
				t.Fatalf("guest %d was refused below the total", i+1)
			}
		}
		if sess, _ := s.start(ctx, guest, guestOwner("203.0.113.1"), true); sess != nil {
			t.Errorf("guest %d was let in past the total of %d", maxGuests+1, maxGuests)
		}
		if sess, _ := s.start(ctx, &tool.User{ID: "alice"}, "alice", false); sess == nil {
			t.Error("an account was refused while guests were full")
		}
		// An address at its own bound still replaces its oldest.
		for range maxGuestsPerAddress + 5 {
			if sess, _ := s.start(ctx, guest, guestOwner("203.0.113.2"), true); sess == nil && s.guests < maxGuests {
				t.Fatal("refused below the total")
			}
		}
		if s.guests > maxGuests {
			t.Errorf("%d guest sessions kept, want at most %d", s.guests, maxGuests)
		}
	})
	eachDB(t, func(t *testing.T, db *sql.DB) {
		st, err := NewSQLStore(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		s := newSessions([]byte("0123456789abcdef0123456789abcdef"), 3600e9)
		s.store = st
		s.maxGuests = 30
		for i := range maxGuestsPerAddress + 5 {
			if sess, err := s.start(ctx, guest, guestOwner("198.51.100.1"), true); sess == nil || err != nil {
				t.Fatalf("guest %d from one address: %v, %v", i+1, sess, err)
			}
		}
		if n, err := st.GuestSessions(ctx); err != nil || n != maxGuestsPerAddress {
			t.Fatalf("guest sessions of one address: %d, %v; want %d", n, err, maxGuestsPerAddress)
		}
		for i := range 10 {
			if sess, err := s.start(ctx, guest, guestOwner(fmt.Sprintf("198.51.100.%d", 10+i)), true); sess == nil || err != nil {
				t.Fatalf("guest from address %d: %v, %v", i, sess, err)
			}
		}
		if sess, err := s.start(ctx, guest, guestOwner("203.0.113.1"), true); sess != nil || err != nil {
			t.Errorf("a guest past the total of 30: %v, %v; want refused", sess, err)
		}
		if sess, err := s.start(ctx, &tool.User{ID: "alice"}, "alice", false); sess == nil || err != nil {
			t.Errorf("an account while guests were full: %v, %v", sess, err)
		}
	})
}
