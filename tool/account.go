package tool

// An Account is who runs a tool: a person or an agent acting for one.
type Account interface {
	// AccountID identifies the account ("editor", "42").
	AccountID() string
	HasPermission(name string) bool
	// Blocked reports whether the account may run nothing at all.
	Blocked() bool
}

// User is a plain [Account]: an ID and a fixed set of permissions.
type User struct {
	ID          string
	Permissions []string
	IsBlocked   bool
}

// AccountID returns u.ID.
func (u *User) AccountID() string { return u.ID }

// HasPermission reports whether name is among u.Permissions.
func (u *User) HasPermission(name string) bool {
	for _, p := range u.Permissions {
		if p == name {
			return true
		}
	}
	return false
}

// Blocked returns u.IsBlocked.
func (u *User) Blocked() bool { return u.IsBlocked }

// Anonymous is the account of a caller not signed in: it holds no permission.
var Anonymous Account = &User{ID: "anonymous"}
