package toolapp

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/toolapi/toolapi/tool"
)

func TestStaticAccounts(t *testing.T) {
	ctx := context.Background()
	ada := &tool.User{ID: "ada", Permissions: []string{"read notes"}}
	bob := &tool.User{ID: "bob"}
	guest := &tool.User{ID: "guest"}
	s := NewStaticAccounts(guest, ada, bob)

	if a, err := s.Account(ctx, "ada"); err != nil || a != ada {
		t.Errorf("Account(ada) = %v, %v", a, err)
	}
	if a, err := s.Account(ctx, "guest"); err != nil || a != guest {
		t.Errorf("Account(guest) = %v, %v; want the anonymous account", a, err)
	}
	if _, err := s.Account(ctx, "eve"); !errors.Is(err, ErrUnknownAccount) {
		t.Errorf("Account(eve) error = %v, want ErrUnknownAccount", err)
	}
	if a, err := s.Anonymous(ctx); err != nil || a != guest {
		t.Errorf("Anonymous = %v, %v", a, err)
	}

	first, err := s.IssueToken(ctx, "ada")
	if err != nil || !strings.HasPrefix(first, "tok_") || len(first) < 30 {
		t.Fatalf("IssueToken(ada) = %q, %v", first, err)
	}
	if a, err := s.TokenAccount(ctx, first); err != nil || a != ada {
		t.Errorf("TokenAccount(ada's token) = %v, %v", a, err)
	}
	second, err := s.IssueToken(ctx, "ada")
	if err != nil || second == first {
		t.Fatalf("second IssueToken(ada) = %q, %v", second, err)
	}
	for _, bad := range []string{first, "", second + "x", strings.ToUpper(second)} {
		if _, err := s.TokenAccount(ctx, bad); !errors.Is(err, ErrUnknownAccount) {
			t.Errorf("TokenAccount(%q) error = %v, want ErrUnknownAccount", bad, err)
		}
	}
	// Only the hash of ada's current token is kept.
	if len(s.byHash) != 1 || s.byHash[HashToken(second)] != "ada" {
		t.Errorf("the store keeps %v; want only the hash of ada's current token", s.byHash)
	}

	tests := []struct {
		name, token string
		wantErr     string
		unknown     bool
	}{
		{"bob", "short", "at least 16 bytes", false},
		{"eve", "0123456789abcdef", "", true},
		{"bob", second, `already "ada"'s`, false},
		{"bob", "bob-token-0123456789", "", false},
	}
	for _, tt := range tests {
		err := s.SetToken(tt.name, tt.token)
		switch {
		case tt.unknown:
			if !errors.Is(err, ErrUnknownAccount) {
				t.Errorf("SetToken(%s) error = %v, want ErrUnknownAccount", tt.name, err)
			}
		case tt.wantErr == "":
			if err != nil {
				t.Errorf("SetToken(%s, %q) = %v", tt.name, tt.token, err)
			}
		case err == nil || !strings.Contains(err.Error(), tt.wantErr):
			t.Errorf("SetToken(%s, %q) error = %v, want %q", tt.name, tt.token, err, tt.wantErr)
		}
	}
	if a, err := s.TokenAccount(ctx, "bob-token-0123456789"); err != nil || a != bob {
		t.Errorf("TokenAccount(bob's set token) = %v, %v", a, err)
	}
	names, err := s.TokenHolders(ctx)
	if err != nil || strings.Join(names, ",") != "ada,bob" {
		t.Errorf("TokenHolders = %v, %v", names, err)
	}
}

func TestStaticAccountsDefaultAnonymous(t *testing.T) {
	s := NewStaticAccounts(nil)
	if a, _ := s.Anonymous(context.Background()); a != tool.Anonymous {
		t.Errorf("Anonymous = %v, want tool.Anonymous", a)
	}
	defer func() {
		if recover() == nil {
			t.Error("two accounts with one ID did not panic")
		}
	}()
	NewStaticAccounts(nil, &tool.User{ID: "a"}, &tool.User{ID: "a"})
}
