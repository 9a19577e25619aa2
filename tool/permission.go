package tool

import (
	"fmt"
	"regexp"
	"strings"
)

// A Permission is a parsed expression: "a,b" needs every name, "a+b" any.
type Permission struct {
	Names []string
	// Any is true for "a+b" expressions.
	Any bool
}

// ParsePermission parses a permission expression: names of letters and
// digits joined by " _.:-", separated by either "," or "+".
func ParsePermission(expr string) (Permission, error) {
	expr = strings.TrimSpace(expr)
	if expr == "" {
		return Permission{}, nil
	}
	hasAll, hasAny := strings.Contains(expr, ","), strings.Contains(expr, "+")
	if hasAll && hasAny {
		return Permission{}, fmt.Errorf("permission %q mixes \",\" (all of) and \"+\" (any of)", expr)
	}
	sep := ","
	if hasAny {
		sep = "+"
	}
	var p Permission
	p.Any = hasAny
	for _, name := range strings.Split(expr, sep) {
		name = strings.TrimSpace(name)
		if name == "" {
			return Permission{}, fmt.Errorf("permission %q has an empty name", expr)
		}
		if !validPermissionName.MatchString(name) {
			return Permission{}, fmt.Errorf("permission %q: %q is no permission name, which holds letters, digits, spaces, '_', '.', ':' and '-'; join names with \",\" (all of) or \"+\" (any of)", expr, name)
		}
		p.Names = append(p.Names, name)
	}
	return p, nil
}

// validPermissionName is the syntax of one permission name: letters and
// digits, with spaces, '_', '.', ':' and '-' between them.
var validPermissionName = regexp.MustCompile(`^[\p{L}\p{N}]([\p{L}\p{N} _.:-]*[\p{L}\p{N}])?$`)

// allows reports whether acct satisfies p. A blocked account satisfies
// nothing.
func (p Permission) allows(acct Account) bool {
	if acct == nil || acct.Blocked() {
		return false
	}
	if len(p.Names) == 0 {
		return true
	}
	for _, name := range p.Names {
		has := acct.HasPermission(name)
		if p.Any && has {
			return true
		}
		if !p.Any && !has {
			return false
		}
	}
	return !p.Any
}

// String returns the expression p was parsed from, normalised.
func (p Permission) String() string {
	sep := ","
	if p.Any {
		sep = "+"
	}
	return strings.Join(p.Names, sep)
}
