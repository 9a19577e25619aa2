package toolapp

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/toolapi/toolapi/tool"
)

// Accounts is where an application keeps its accounts. One store serves
// every door: --user on the command line, bearer tokens on /mcp and
// sign-in on the explorer (with the account's name and token).
//
// A store answers a name or token it does not know with an error wrapping
// [ErrUnknownAccount]: that is a wrong credential, answered 401 and
// counted against the client address's limit of failures. Any other error
// means the store cannot answer at the moment (its database is down):
// /mcp and the explorer answer 503 with Retry-After, count no failure,
// and keep signed-in visitors signed in. A store may wrap
// [tool.ErrUnavailable] to say so plainly.
type Accounts interface {
	// Account returns the account with the given name, or an error
	// wrapping [ErrUnknownAccount] when there is none.
	Account(ctx context.Context, name string) (tool.Account, error)
	// TokenAccount returns the account an API token belongs to, or an
	// error wrapping [ErrUnknownAccount] when the token is no account's.
	// A store keeps only a hash of each token (see [HashToken]).
	TokenAccount(ctx context.Context, token string) (tool.Account, error)
	// Anonymous returns the account of callers who give no name or token.
	Anonymous(ctx context.Context) (tool.Account, error)
}

// TokenIssuer is implemented by an [Accounts] store that can issue API
// tokens. With one, the application gets the command "tokens [NAME...]"
// and the serve flag --print-tokens.
type TokenIssuer interface {
	// IssueToken gives the named account a new random token, replacing the
	// one it had, and returns it; the store keeps only its hash, so this is
	// the one moment it can be shown. An unknown name gives an error
	// wrapping [ErrUnknownAccount].
	IssueToken(ctx context.Context, name string) (string, error)
	// TokenHolders returns the names of the accounts that may hold a
	// token, in the order "tokens" prints them when no name is given.
	TokenHolders(ctx context.Context) ([]string, error)
}

// ErrUnknownAccount is wrapped by the errors an [Accounts] store returns
// for a name or token that matches no account.
var ErrUnknownAccount = errors.New("unknown account")

// HashToken returns the form in which a store keeps a token: its SHA-256
// in hex. Tokens that [NewToken] makes hold 130 random bits, so a fast
// hash is as safe as a slow password hash and lets a lookup use an index.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// NewToken returns a new random API token: prefix followed by 26
// characters of base32 (130 random bits).
func NewToken(prefix string) string { return prefix + rand.Text() }

// StaticAccounts is a ready [Accounts] store kept in memory, for small
// applications and tests: a fixed set of accounts, named by their
// [tool.Account.AccountID], whose tokens are kept as hashes and are
// issued with [StaticAccounts.IssueToken] or set with
// [StaticAccounts.SetToken]. It is safe for concurrent use.
type StaticAccounts struct {
	// TokenPrefix starts every token IssueToken makes. Empty means "tok_".
	TokenPrefix string

	mu        sync.RWMutex
	anonymous tool.Account
	names     []string                // in the order given
	byName    map[string]tool.Account // by AccountID
	byHash    map[string]string       // token hash -> name
	hashOf    map[string]string       // name -> token hash
}

// NewStaticAccounts returns a store of accounts whose callers without a
// name or token are anonymous (nil means [tool.Anonymous]). Two accounts
// with one ID, or an account with an empty one, panic: that is a
// programming error.
func NewStaticAccounts(anonymous tool.Account, accounts ...tool.Account) *StaticAccounts {
	if anonymous == nil {
		anonymous = tool.Anonymous
	}
	s := &StaticAccounts{
		anonymous: anonymous,
		byName:    make(map[string]tool.Account),
		byHash:    make(map[string]string),
		hashOf:    make(map[string]string),
	}
	for _, a := range accounts {
		id := a.AccountID()
		if id == "" || s.byName[id] != nil {
			panic(fmt.Sprintf("toolapp: account ID %q is empty or given twice", id))
		}
		s.byName[id] = a
		s.names = append(s.names, id)
	}
	return s
}

// Account returns the account named name.
func (s *StaticAccounts) Account(_ context.Context, name string) (tool.Account, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if a := s.byName[name]; a != nil {
		return a, nil
	}
	if name == s.anonymous.AccountID() {
		return s.anonymous, nil
	}
	return nil, fmt.Errorf("%w: %q", ErrUnknownAccount, name)
}

// TokenAccount returns the account token belongs to.
func (s *StaticAccounts) TokenAccount(_ context.Context, token string) (tool.Account, error) {
	if token == "" {
		return nil, ErrUnknownAccount
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if name, ok := s.byHash[HashToken(token)]; ok {
		return s.byName[name], nil
	}
	return nil, ErrUnknownAccount
}

// Anonymous returns the account of callers who give no name or token.
func (s *StaticAccounts) Anonymous(context.Context) (tool.Account, error) { return s.anonymous, nil }

// SetToken makes token the named account's, replacing the one it had (an
// application reads it from its configuration or environment). Tokens
// shorter than 16 bytes are refused: they can be guessed.
func (s *StaticAccounts) SetToken(name, token string) error {
	if len(token) < 16 {
		return fmt.Errorf("token of %q: must be at least 16 bytes long", name)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.byName[name] == nil {
		return fmt.Errorf("%w: %q", ErrUnknownAccount, name)
	}
	h := HashToken(token)
	if other, ok := s.byHash[h]; ok && other != name {
		return fmt.Errorf("token of %q: already %q's", name, other)
	}
	delete(s.byHash, s.hashOf[name])
	s.byHash[h] = name
	s.hashOf[name] = h
	return nil
}

// IssueToken gives the named account a new random token and returns it.
func (s *StaticAccounts) IssueToken(_ context.Context, name string) (string, error) {
	prefix := s.TokenPrefix
	if prefix == "" {
		prefix = "tok_"
	}
	token := NewToken(prefix)
	if err := s.SetToken(name, token); err != nil {
		return "", err
	}
	return token, nil
}

// TokenHolders returns the names of the store's accounts, in the order
// they were given (the anonymous account holds no token).
func (s *StaticAccounts) TokenHolders(context.Context) ([]string, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return slices.Clone(s.names), nil
}

// unavailable returns err as the doors of [Handler] take it: an error of
// a store that does not wrap [ErrUnknownAccount] says that the store could
// not answer (its database cannot be reached, say), not that the
// credentials are wrong, so it is made to wrap [tool.ErrUnavailable]:
// answered 503 with Retry-After and counted as no failed sign-in.
func unavailable(err error) error {
	if err == nil || errors.Is(err, ErrUnknownAccount) || errors.Is(err, tool.ErrUnavailable) {
		return err
	}
	return fmt.Errorf("%w: %w", tool.ErrUnavailable, err)
}
