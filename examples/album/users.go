package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/toolapi/toolapi/tool"
	"github.com/toolapi/toolapi/toolapp"
)

// The permissions the application knows.
const (
	permAccessContent = "access content"
	permEditAlbums    = "edit albums"    // change one's own albums
	permEditAnyAlbum  = "edit any album" // see and change every album
	permExport        = "export translations"
	permAdminSite     = "administer site configuration"
	// approve another account's takedown of a published album; the admin
	// role holds it
	permApproveTakedowns = "approve takedowns"
)

// The roles a user may have, and the permissions each grants. The admin
// role grants every permission, those not listed here included.
const (
	roleAnonymous = "anonymous"
	roleEditor    = "editor"
	roleAdmin     = "admin"
)

var rolePermissions = map[string][]string{
	roleAnonymous: {permAccessContent},
	roleEditor:    {permAccessContent, permEditAlbums, permExport},
	roleAdmin:     nil, // everything
}

// A User is an account of the site. It satisfies the tool package's
// Account interface, so tools run for it.
type User struct {
	ID   int64
	Name string
	Role string
	// Extra lists permissions granted beyond the role's.
	Extra     []string
	IsBlocked bool
}

// AccountID returns the user's name.
func (u *User) AccountID() string { return u.Name }

// HasPermission reports whether the user's role, or an extra grant, holds
// the named permission. A blocked user holds none.
func (u *User) HasPermission(name string) bool {
	if u.IsBlocked {
		return false
	}
	if u.Role == roleAdmin {
		return true
	}
	return slices.Contains(rolePermissions[u.Role], name) || slices.Contains(u.Extra, name)
}

// Blocked reports whether the user may do nothing at all.
func (u *User) Blocked() bool { return u.IsBlocked }

// errNoUser is returned for a user name or token that matches no user.
var errNoUser = fmt.Errorf("no such user: %w", toolapp.ErrUnknownAccount)

const userColumns = `id, name, role, permissions, blocked`

func scanUser(sc interface{ Scan(...any) error }) (*User, error) {
	u := new(User)
	var extra string
	if err := sc.Scan(&u.ID, &u.Name, &u.Role, &extra, &u.IsBlocked); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, errNoUser
		}
		return nil, err
	}
	for _, p := range strings.Split(extra, ",") {
		if p = strings.TrimSpace(p); p != "" {
			u.Extra = append(u.Extra, p)
		}
	}
	return u, nil
}

// User returns the user with the given name, or an error wrapping
// errNoUser.
func (s *Store) User(ctx context.Context, name string) (*User, error) {
	return scanUser(s.db.QueryRowContext(ctx, `SELECT `+userColumns+` FROM users WHERE name = $1`, name))
}

// Users returns every user, by name.
func (s *Store) Users(ctx context.Context) ([]*User, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+userColumns+` FROM users ORDER BY name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*User
	for rows.Next() {
		u, err := scanUser(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

// UserByToken returns the user an API token belongs to, or an error
// wrapping errNoUser. Only the token's hash is stored.
func (s *Store) UserByToken(ctx context.Context, token string) (*User, error) {
	if token == "" {
		return nil, errNoUser
	}
	return scanUser(s.db.QueryRowContext(ctx, `SELECT `+userColumns+` FROM users WHERE token_hash = $1`, toolapp.HashToken(token)))
}

// The store's users are the application's accounts (see package toolapp):
// on the command line, on /mcp and in the explorer.
var _ toolapp.TokenIssuer = (*Store)(nil)

// Account returns the user named name.
func (s *Store) Account(ctx context.Context, name string) (tool.Account, error) {
	u, err := s.User(ctx, name)
	if err != nil {
		return nil, err
	}
	return u, nil
}

// TokenAccount returns the user an API token belongs to.
func (s *Store) TokenAccount(ctx context.Context, token string) (tool.Account, error) {
	u, err := s.UserByToken(ctx, token)
	if err != nil {
		return nil, err
	}
	return u, nil
}

// Anonymous returns the account of callers who have not signed in: the
// seeded user "anonymous".
func (s *Store) Anonymous(ctx context.Context) (tool.Account, error) {
	return s.Account(ctx, "anonymous")
}

// TokenHolders returns the names of every user but anonymous.
func (s *Store) TokenHolders(ctx context.Context) ([]string, error) {
	users, err := s.Users(ctx)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, u := range users {
		if u.Role != roleAnonymous {
			names = append(names, u.Name)
		}
	}
	return names, nil
}

// IssueToken gives the named user a new random API token, replacing the
// one it had, and returns it. The token is not stored, only its hash, so
// this is the one moment it can be shown.
func (s *Store) IssueToken(ctx context.Context, name string) (string, error) {
	token := toolapp.NewToken("alb_")
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE users SET token_hash = $1 WHERE name = $2`, toolapp.HashToken(token), name)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return errNoUser
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	return token, nil
}

// CreateUser adds a user.
func (s *Store) CreateUser(ctx context.Context, name, role string, blocked bool) (*User, error) {
	u := &User{Name: name, Role: role, IsBlocked: blocked}
	err := s.write(ctx, func(tx *sql.Tx) error {
		var err error
		u.ID, err = insertID(ctx, tx, `INSERT INTO users (name, role, blocked) VALUES ($1, $2, $3)`, name, role, blocked)
		return err
	})
	if err != nil {
		return nil, err
	}
	return u, nil
}
