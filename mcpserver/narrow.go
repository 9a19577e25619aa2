package mcpserver

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolapi/toolapi/tool"
)

// The query parameters of the MCP endpoint that narrow a request to some
// toolsets or to reading only (see [tool.Narrowing]): /mcp?groups=a,b&readonly=1.
const (
	GroupsParam   = "groups"
	ReadOnlyParam = "readonly"
)

// narrowExtra is the key of a request's *tool.Narrowing in the Extra of its
// TokenInfo.
const narrowExtra = "toolapi/narrowing"

// A NarrowedAccount is an account that may reach only some tools: an
// account made from a token whose scopes ask for it (see
// [ScopeNarrowing]). Every request of such an account is narrowed so.
type NarrowedAccount interface {
	tool.Account
	// Narrowing returns the account's narrowing, or nil for none.
	Narrowing() *tool.Narrowing
}

// ScopeNarrowing maps a token's scopes to a narrowing: each scope
// "toolset:NAME" keeps the tools of the group NAME, and the scope
// "tools:read" keeps the read-only tools. It returns nil when no scope asks
// for a narrowing.
func ScopeNarrowing(scopes []string) *tool.Narrowing {
	var n tool.Narrowing
	found := false
	for _, s := range scopes {
		if s == "tools:read" {
			n.ReadOnly, found = true, true
		} else if g, ok := strings.CutPrefix(s, "toolset:"); ok && g != "" {
			n.Groups, found = append(n.Groups, g), true
		}
	}
	if !found {
		return nil
	}
	return &n
}

// narrow records in info the narrowing that r asks for (its query
// parameters) and that acct carries (see [NarrowedAccount]). A group that
// no tool declares, or a readonly value that is not a boolean, is answered
// 400 naming it, and narrow reports false.
func (h *httpHandler) narrow(w http.ResponseWriter, r *http.Request, acct tool.Account, info *auth.TokenInfo) bool {
	n, bad := h.narrowing(r, acct)
	if bad != "" {
		http.Error(w, "Bad Request: "+bad, http.StatusBadRequest)
		return false
	}
	if n != nil {
		info.Extra[narrowExtra] = n
	}
	return true
}

// narrowing returns the narrowing of r for acct (nil for none), or what is
// wrong with r's query parameters.
func (h *httpHandler) narrowing(r *http.Request, acct tool.Account) (n *tool.Narrowing, bad string) {
	ctx := context.Background()
	if na, ok := acct.(NarrowedAccount); ok {
		if n := na.Narrowing(); n != nil {
			ctx = tool.Narrow(ctx, *n)
		}
	}
	q := r.URL.Query()
	var asked tool.Narrowing
	narrowed := false
	if q.Has(GroupsParam) {
		asked.Groups = tool.ParseGroups(q.Get(GroupsParam))
		if asked.Groups == nil {
			asked.Groups = []string{}
		}
		narrowed = true
	}
	switch v := q.Get(ReadOnlyParam); v {
	case "":
	case "1", "true":
		asked.ReadOnly, narrowed = true, true
	case "0", "false":
	default:
		return nil, "query parameter " + ReadOnlyParam + ": must be 1, true, 0 or false"
	}
	if narrowed {
		var err error
		if ctx, err = h.s.reg.Narrow(ctx, asked); err != nil {
			if errors.Is(err, tool.ErrUnknownGroup) {
				return nil, "query parameter " + GroupsParam + ": " + err.Error()
			}
			return nil, "query parameter " + GroupsParam
		}
	}
	return tool.NarrowingFrom(ctx), ""
}

// narrowingOf returns the narrowing of a request: that of its context (a
// narrowed stdio connection) within that of its HTTP request, or nil.
func narrowingOf(ctx context.Context, extra *mcp.RequestExtra) *tool.Narrowing {
	return tool.NarrowingFrom(narrowed(ctx, extra))
}

// narrowed returns ctx narrowed as the request is (see [narrowingOf]).
func narrowed(ctx context.Context, extra *mcp.RequestExtra) context.Context {
	if extra != nil && extra.TokenInfo != nil {
		if n, ok := extra.TokenInfo.Extra[narrowExtra].(*tool.Narrowing); ok {
			return tool.Narrow(ctx, *n)
		}
	}
	return ctx
}
