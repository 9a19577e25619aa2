package explorer

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/toolapi/toolapi/tool"
)

// The query parameters that narrow the explorer's pages to some toolsets or
// to reading only (see [tool.Narrowing]): /?groups=viewer&readonly=1. The
// pages' links and forms keep them, and a run honours them.
const (
	groupsParam   = "groups"
	readOnlyParam = "readonly"
)

// narrow narrows r's context and visit by its query parameters groups and
// readonly. A group no tool declares, or a readonly value that is not a
// boolean, is answered 400 naming it, and narrow reports false.
func (e *server) narrow(w http.ResponseWriter, r *http.Request) (*http.Request, bool) {
	q := r.URL.Query()
	var n tool.Narrowing
	narrowed := false
	if q.Has(groupsParam) {
		n.Groups = tool.ParseGroups(q.Get(groupsParam))
		if n.Groups == nil {
			n.Groups = []string{}
		}
		narrowed = true
	}
	switch q.Get(readOnlyParam) {
	case "":
	case "1", "true":
		n.ReadOnly, narrowed = true, true
	case "0", "false":
	default:
		e.badNarrowing(w, r, "The query parameter "+readOnlyParam+" must be 1, true, 0 or false.")
		return r, false
	}
	if !narrowed {
		return r, true
	}
	ctx, err := e.reg.Narrow(r.Context(), n)
	if err != nil {
		msg := "The query parameter " + groupsParam + " names no toolset."
		if errors.Is(err, tool.ErrUnknownGroup) {
			msg = "The query parameter " + groupsParam + ": " + err.Error() + "."
		}
		e.badNarrowing(w, r, msg)
		return r, false
	}
	e.visit(r).narrowing = tool.NarrowingFrom(ctx)
	return r.WithContext(ctx), true
}

func (e *server) badNarrowing(w http.ResponseWriter, r *http.Request, msg string) {
	e.renderStatus(w, r, http.StatusBadRequest, "message", &page{Title: "Bad toolsets", Message: msg}, e.visit(r))
}

// keepNarrowing returns u with the narrowing parameters of r's query, so
// that a link or a form of a narrowed page stays narrowed.
func keepNarrowing(u string, r *http.Request) string {
	q := r.URL.Query()
	keep := url.Values{}
	for _, k := range []string{groupsParam, readOnlyParam} {
		if q.Has(k) {
			keep.Set(k, q.Get(k))
		}
	}
	if len(keep) == 0 {
		return u
	}
	if strings.Contains(u, "?") {
		return u + "&" + keep.Encode()
	}
	return u + "?" + keep.Encode()
}
