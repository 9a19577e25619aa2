package tool

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// MaxGroupLength is the longest group name a tool may declare.
const MaxGroupLength = 64

// A Narrowing limits which tools a connection reaches: a caller (an MCP
// connection, a CLI run, an explorer page) sets it with [Narrow] and every
// path of the registry ([Registry.Run], [Registry.Validate],
// [Registry.Refine], [Registry.Complete], [Registry.List] with
// [Filter.Narrowing]) answers a tool outside it exactly as an unknown tool.
type Narrowing struct {
	// Groups, when not nil, keeps the tools that declare at least one of
	// them in [Tool.Groups]. An empty non-nil list keeps no tool.
	Groups []string
	// ReadOnly keeps the tools whose operation is read or explain.
	ReadOnly bool
}

// ErrUnknownGroup is wrapped by the error of [Registry.Narrow] for a group
// that no tool of the registry declares.
var ErrUnknownGroup = errors.New("unknown tool group")

type narrowKey struct{}

// Narrow returns ctx narrowed by n as well as by any narrowing ctx already
// holds: narrowings only narrow, so nested calls keep the tools both keep.
// It does not check that the groups exist; see [Registry.Narrow].
func Narrow(ctx context.Context, n Narrowing) context.Context {
	n.Groups = normalGroups(n.Groups)
	if old, ok := ctx.Value(narrowKey{}).(*Narrowing); ok {
		n.ReadOnly = n.ReadOnly || old.ReadOnly
		switch {
		case old.Groups == nil:
		case n.Groups == nil:
			n.Groups = old.Groups
		default:
			both := []string{}
			for _, g := range n.Groups {
				if slices.Contains(old.Groups, g) {
					both = append(both, g)
				}
			}
			n.Groups = both
		}
	}
	return context.WithValue(ctx, narrowKey{}, &n)
}

// normalGroups returns groups sorted, without duplicates; nil stays nil.
func normalGroups(groups []string) []string {
	if groups == nil {
		return nil
	}
	out := slices.Clone(groups)
	slices.Sort(out)
	return slices.Compact(out)
}

// NarrowingFrom returns the narrowing in ctx, or nil when ctx is not
// narrowed. Do not modify it.
func NarrowingFrom(ctx context.Context) *Narrowing {
	n, _ := ctx.Value(narrowKey{}).(*Narrowing)
	return n
}

// Allows reports whether n keeps t; a nil n keeps every tool.
func (n *Narrowing) Allows(t *Tool) bool {
	return n.Reason(t) == ""
}

// Reason says why n leaves t out ("not in the toolsets viewer of this
// connection"), or "" when n keeps it.
func (n *Narrowing) Reason(t *Tool) string {
	if n == nil {
		return ""
	}
	if n.Groups != nil && !slices.ContainsFunc(t.Groups, func(g string) bool { return slices.Contains(n.Groups, g) }) {
		if len(n.Groups) == 0 {
			return "not in the toolsets of this connection, which reaches no toolset"
		}
		return "not in the toolsets " + strings.Join(n.Groups, ", ") + " of this connection"
	}
	if n.ReadOnly {
		if op := t.EffectiveOperation(); op != OpRead && op != OpExplain {
			return "not read-only (its operation is " + string(op) + ") and this connection may only read"
		}
	}
	return ""
}

// Narrow is [Narrow] after checking that some tool of r declares each of
// n's groups; its error wraps [ErrUnknownGroup] and names the group.
func (r *Registry) Narrow(ctx context.Context, n Narrowing) (context.Context, error) {
	known := r.Groups()
	for _, g := range n.Groups {
		if !slices.Contains(known, g) {
			if len(known) == 0 {
				return ctx, fmt.Errorf("%w %q: no tool declares a group", ErrUnknownGroup, g)
			}
			return ctx, fmt.Errorf("%w %q: no tool declares it (the groups are %s)", ErrUnknownGroup, g, strings.Join(known, ", "))
		}
	}
	return Narrow(ctx, n), nil
}

// Groups returns the groups r's tools declare, sorted.
func (r *Registry) Groups() []string {
	var out []string
	for _, e := range r.snapshot() {
		out = append(out, e.tool.Groups...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// ParseGroups splits a comma-separated list of group names ("viewer,
// editor"), trimming spaces and dropping empty names.
func ParseGroups(s string) []string {
	var out []string
	for g := range strings.SplitSeq(s, ",") {
		if g = strings.TrimSpace(g); g != "" {
			out = append(out, g)
		}
	}
	return out
}

// reachable returns e when the narrowing in ctx keeps its tool, else nil.
func reachable(ctx context.Context, e *entry) *entry {
	if e == nil || !NarrowingFrom(ctx).Allows(e.tool) {
		return nil
	}
	return e
}

// checkGroups adds to errs the problems of a tool's group names.
func checkGroups(groups []string, errs *definitionErrors) {
	for i, g := range groups {
		if !validGroup(g) {
			errs.add("", "group", "group %q must be 1 to %d lowercase letters, digits, \"-\" or \"_\"", g, MaxGroupLength)
		} else if slices.Contains(groups[:i], g) {
			errs.add("", "group", "group %q is declared twice", g)
		}
	}
}

func validGroup(g string) bool {
	if g == "" || len(g) > MaxGroupLength {
		return false
	}
	for _, c := range g {
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}
