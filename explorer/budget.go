package explorer

import (
	"errors"
	"net/http"
	"net/url"

	"github.com/toolapi/toolapi/tool"
)

// overflowPath returns the address at which the visitor views the outputs
// of a run that were over the tool's byte budget (see [tool.Budget]).
func (e *server) overflowPath(o *tool.Overflow) string {
	return e.path("overflow/" + o.ID)
}

// serveOverflow serves the outputs kept as the overflow in the path, as
// JSON, to the account that ran the tool: with ?download=1 as a file to
// save. Any other visitor, and outputs expired or forgotten, get the page
// of an unknown address.
func (e *server) serveOverflow(w http.ResponseWriter, r *http.Request) {
	v := e.visit(r)
	data, o, err := e.reg.ReadOverflow(tool.WithAccount(r.Context(), v.acct), r.PathValue("id"))
	if err != nil {
		if !errors.Is(err, tool.ErrOverflowNotFound) {
			e.logger.Error("explorer: reading outputs over their budget", "error", err.Error())
		}
		e.serveNotFound(w, r)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "private, no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	if r.URL.Query().Get("download") == "1" {
		// A tool ID holds only letters, digits, "_", "." and "-".
		h.Set("Content-Disposition", `attachment; filename="`+o.Tool+`.json"`)
	}
	w.Write(data)
}

// nextPageURL returns the address of the tool's form filled in as fm is
// now with the cursor of the next page, or "" when the result res of a
// paged tool has no next page.
func (e *server) nextPageURL(fm *form, res *tool.Result) string {
	next, _ := res.Outputs[tool.NextCursorOutput].(string)
	if next == "" || !tool.Paged(fm.t) {
		return ""
	}
	u, err := url.Parse(e.shareURL(fm))
	if err != nil {
		return ""
	}
	q := u.Query()
	q.Set("in:"+tool.CursorInput, next)
	u.RawQuery = q.Encode()
	return u.String()
}
