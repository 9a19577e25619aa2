package explorer

import (
	"errors"
	"net/http"
	"net/url"
	"time"

	"github.com/toolapi/toolapi/secrets"
)

// A secretView is the page where a person enters the sensitive inputs a
// call left out.
type secretView struct {
	Label, Tool, Expires, Action string
	Fields                       []secretField
	Problem                      string
	// Done: the values were taken; the page says so and asks nothing.
	Done bool
}

// A secretField is one input the page asks for.
type secretField struct {
	Name, Label, Description string
	Max                      int
}

// secretRequest returns the request the visitor may answer on r's page,
// having answered r itself when it may not: a visitor who has not signed
// in is sent to sign in first, any other is told there is no such page.
func (e *server) secretRequest(w http.ResponseWriter, r *http.Request, v *visit) (*secrets.Request, bool) {
	if e.opts.Secrets == nil {
		e.serveNotFound(w, r)
		return nil, false
	}
	// A guest shares the anonymous account: only a signed-in account may
	// enter a value for its own call.
	signedIn := v.sess != nil && !v.sess.guest
	req, err := e.opts.Secrets.Get(v.acct, r.PathValue("id"))
	if err == nil && signedIn {
		return req, true
	}
	if !signedIn {
		http.Redirect(w, r, e.path("/signin?next="+url.QueryEscape(e.path("/secrets/"+r.PathValue("id")))), http.StatusSeeOther)
		return nil, false
	}
	e.renderStatus(w, r, http.StatusNotFound, "message", &page{Title: "No such request",
		Message: "There is no request for secret values here for " + v.acct.AccountID() + ": it was answered already, it expired, or it was made for another account. Ask the assistant to call the tool again."}, v)
	return nil, false
}

// serveSecret serves the page where the person enters the values.
func (e *server) serveSecret(w http.ResponseWriter, r *http.Request) {
	v := e.visit(r)
	req, ok := e.secretRequest(w, r, v)
	if !ok {
		return
	}
	e.renderSecret(w, r, v, http.StatusOK, req, "")
}

func (e *server) renderSecret(w http.ResponseWriter, r *http.Request, v *visit, status int, req *secrets.Request, problem string) {
	sv := &secretView{Label: req.Label, Tool: req.Tool, Expires: req.Expires.UTC().Format(time.DateTime) + " UTC",
		Action: e.path("/secrets/" + url.PathEscape(req.ID)), Problem: problem}
	if t, ok := e.reg.Tool(req.Tool); ok {
		sv.Label = humanLabel(t)
	}
	for _, d := range req.Inputs {
		f := secretField{Name: d.Name, Label: d.Label, Description: d.Description, Max: secrets.MaxValue}
		if f.Label == "" {
			f.Label = d.Name
		}
		sv.Fields = append(sv.Fields, f)
	}
	e.renderStatus(w, r, status, "secret", &page{Title: "Enter " + sv.Label + "'s secret inputs", Secret: sv}, v)
}

// postSecret takes the values the person entered.
func (e *server) postSecret(w http.ResponseWriter, r *http.Request) {
	v := e.visit(r)
	if !e.checkToken(w, r, v) {
		e.forbidden(w, r, "The form did not carry this session's token: sign in, open the page again and resubmit.")
		return
	}
	req, ok := e.secretRequest(w, r, v)
	if !ok {
		return
	}
	values := make(map[string]string, len(req.Inputs))
	for _, d := range req.Inputs {
		values[d.Name] = r.PostForm.Get("secret-" + d.Name)
	}
	err := e.opts.Secrets.Answer(v.acct, req.ID, values)
	var bad *secrets.BadValueError
	switch {
	case errors.As(err, &bad):
		label := bad.Input
		for _, d := range req.Inputs {
			if d.Name == bad.Input && d.Label != "" {
				label = d.Label
			}
		}
		e.renderSecret(w, r, v, http.StatusUnprocessableEntity, req, label+": "+bad.Reason+".")
		return
	case err != nil:
		e.renderStatus(w, r, http.StatusNotFound, "message", &page{Title: "No such request",
			Message: "The request expired or was answered while the page was open, so nothing was kept. Ask the assistant to call the tool again."}, v)
		return
	}
	e.renderStatus(w, r, http.StatusOK, "secret", &page{Title: "Secret inputs taken",
		Secret: &secretView{Label: req.Label, Tool: req.Tool, Done: true}}, v)
}
