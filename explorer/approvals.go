package explorer

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/toolapi/toolapi/task"
	"github.com/toolapi/toolapi/tool"
)

// maxApprovalArgs is the most bytes of edited or granted inputs a form
// may carry.
const maxApprovalArgs = 64 << 10

// An approvalsView is the page of the calls waiting for the visitor's
// approval, and of the standing approvals.
type approvalsView struct {
	Pending  []*pendingView
	Standing []*standingView
	// Tools are the tools the visitor may approve, for the grant form.
	Tools       []string
	GrantAction string
	MaxHours    int
	MaxNote     int
	Problem     string
	Done        string
}

// A pendingView is one call waiting for approval.
type pendingView struct {
	ID, ToolLabel, Account, Reason, Requested, Expires, Args, Action string
	// Sealed: the tool has secret inputs, so the call cannot be edited.
	Sealed bool
}

// A standingView is one standing approval.
type standingView struct {
	Tool, Account, Args, GrantedBy, Expires, Action string
	Revocable                                       bool
}

// mayApproveAny reports whether the visitor may approve the calls of any
// tool.
func (e *server) mayApproveAny(v *visit) bool {
	if e.opts.Tasks == nil || !taskOwner(v) {
		return false
	}
	for _, t := range e.reg.List(nil) {
		if t.MayApprove(v.acct) {
			return true
		}
	}
	return false
}

// approvalsView reads the page's lists for the visitor.
func (e *server) approvalsView(r *http.Request, v *visit) (*approvalsView, error) {
	ctx := tool.WithAccount(r.Context(), v.acct)
	ps, err := e.opts.Tasks.Approvals(ctx)
	if err != nil {
		return nil, err
	}
	ss, err := e.opts.Tasks.StandingApprovals(ctx)
	if err != nil {
		return nil, err
	}
	av := &approvalsView{GrantAction: e.path("/approvals/standing"), MaxHours: int(task.MaxStanding / time.Hour), MaxNote: task.MaxNote}
	for _, p := range ps {
		pv := &pendingView{ID: p.Task.ID, ToolLabel: p.Task.Tool, Account: p.Account, Reason: p.Approval.Reason,
			Requested: p.Approval.Requested.Format(time.DateTime) + " UTC", Expires: p.Approval.Expires.Format(time.DateTime) + " UTC",
			Args: string(p.Approval.Args), Action: e.path("/approvals/" + url.PathEscape(p.Task.ID))}
		if t, ok := e.reg.Tool(p.Task.Tool); ok {
			pv.ToolLabel = humanLabel(t)
			pv.Sealed = hasSensitive(t)
		}
		av.Pending = append(av.Pending, pv)
	}
	for _, s := range ss {
		sv := &standingView{Tool: s.Tool, Account: s.Account, GrantedBy: s.GrantedBy, Expires: s.Expires.Format(time.DateTime) + " UTC",
			Action: e.path("/approvals/standing/" + url.PathEscape(s.ID))}
		if s.Args != nil {
			sv.Args = string(s.Args)
		}
		if t, ok := e.reg.Tool(s.Tool); ok && t.MayApprove(v.acct) {
			sv.Revocable = true
		}
		av.Standing = append(av.Standing, sv)
	}
	for _, t := range e.reg.List(nil) {
		if t.MayApprove(v.acct) {
			av.Tools = append(av.Tools, t.ID)
		}
	}
	return av, nil
}

// hasSensitive reports whether t has a sensitive input.
func hasSensitive(t *tool.Tool) bool {
	for _, d := range t.Inputs {
		if d.Sensitive {
			return true
		}
	}
	return false
}

// serveApprovals serves the approvals page; a visitor who may approve
// nothing is not found, as the page is not there for them.
func (e *server) serveApprovals(w http.ResponseWriter, r *http.Request) {
	v := e.visit(r)
	e.renderApprovals(w, r, v, http.StatusOK, "", "")
}

// renderApprovals renders the page with status, a problem or a note of
// what was done.
func (e *server) renderApprovals(w http.ResponseWriter, r *http.Request, v *visit, status int, problem, done string) {
	if !e.mayApproveAny(v) {
		e.serveNotFound(w, r)
		return
	}
	av, err := e.approvalsView(r, v)
	if err != nil {
		e.logger.Error("explorer: listing approvals", "error", err.Error())
		e.unavailable(w, r, v)
		return
	}
	av.Problem, av.Done = problem, done
	e.renderStatus(w, r, status, "approvals", &page{Title: "Approvals", Approvals: av}, v)
}

// approverPost returns who posts r, one of the approvals page's forms,
// having answered r itself when the form lacks the session's token (403)
// or the visitor may approve nothing (404).
func (e *server) approverPost(w http.ResponseWriter, r *http.Request) (*visit, bool) {
	v := e.visit(r)
	if !e.checkToken(w, r, v) {
		e.forbidden(w, r, "The form did not carry this session's token: sign in, open the approvals again and resubmit.")
		return nil, false
	}
	if !e.mayApproveAny(v) {
		e.serveNotFound(w, r)
		return nil, false
	}
	return v, true
}

// postApproval approves or refuses the call of a task.
func (e *server) postApproval(w http.ResponseWriter, r *http.Request) {
	v, ok := e.approverPost(w, r)
	if !ok {
		return
	}
	ctx := tool.WithAccount(r.Context(), v.acct)
	id := r.PathValue("id")
	note := strings.TrimSpace(r.PostForm.Get("note"))
	var tk *task.Task
	var err error
	switch r.PostForm.Get("action") {
	case "approve":
		opts := &task.ApproveOptions{Note: note}
		if args := strings.TrimSpace(r.PostForm.Get("args")); args != "" {
			if len(args) > maxApprovalArgs || !json.Valid([]byte(args)) || !strings.HasPrefix(args, "{") {
				e.renderApprovals(w, r, v, http.StatusUnprocessableEntity, fmt.Sprintf("Inputs: must be a JSON object of at most %d bytes.", maxApprovalArgs), "")
				return
			}
			opts.Args = json.RawMessage(args)
		}
		tk, err = e.opts.Tasks.Approve(ctx, id, opts)
	case "refuse":
		tk, err = e.opts.Tasks.Refuse(ctx, id, note)
	default:
		e.renderApprovals(w, r, v, http.StatusBadRequest, "The form asked for something this page does not do.", "")
		return
	}
	if err != nil {
		status, problem := e.approvalProblem(id, err)
		e.renderApprovals(w, r, v, status, problem, "")
		return
	}
	verb := "approved: it runs now"
	if tk.Status == task.Failed {
		verb = "refused: it will not run"
	}
	e.renderApprovals(w, r, v, http.StatusOK, "", fmt.Sprintf("The call of %s by %s (task %s) is %s.", tk.Tool, tk.Account, tk.ID, verb))
}

// approvalProblem words a refused approval, refusal, grant or revocation.
func (e *server) approvalProblem(id string, err error) (int, string) {
	var re *task.RefusedError
	var bad *task.BadApprovalError
	switch {
	case errors.As(err, &re):
		return http.StatusUnprocessableEntity, "The inputs are refused: " + re.Result.Message
	case errors.Is(err, task.ErrNotFound), errors.Is(err, tool.ErrNotFound):
		return http.StatusNotFound, fmt.Sprintf("There is no %q among what you may approve.", id)
	case errors.Is(err, task.ErrNotAwaiting):
		return http.StatusConflict, "That was decided, revoked or cancelled already, so nothing was done."
	case errors.Is(err, task.ErrApprovalExpired):
		return http.StatusConflict, "The call waited too long: it has expired and will not run."
	case errors.Is(err, task.ErrOwnCall):
		return http.StatusForbidden, "Nobody approves their own calls: another account must."
	case errors.Is(err, task.ErrMayNotApprove):
		return http.StatusForbidden, "You may not approve the calls of that tool."
	case errors.As(err, &bad):
		return http.StatusUnprocessableEntity, "That cannot be done: " + bad.Field + ": " + bad.Reason + "."
	}
	e.logger.Error("explorer: deciding an approval", "id", id, "error", err.Error())
	return http.StatusServiceUnavailable, "That could not be done; try again."
}

// postGrant grants a standing approval.
func (e *server) postGrant(w http.ResponseWriter, r *http.Request) {
	v, ok := e.approverPost(w, r)
	if !ok {
		return
	}
	f := r.PostForm
	hours, err := strconv.Atoi(strings.TrimSpace(f.Get("hours")))
	if err != nil || hours < 1 || hours > int(task.MaxStanding/time.Hour) {
		e.renderApprovals(w, r, v, http.StatusUnprocessableEntity, fmt.Sprintf("For how many hours: must be a whole number from 1 to %d.", int(task.MaxStanding/time.Hour)), "")
		return
	}
	g := &task.Grant{Tool: f.Get("tool"), Account: strings.TrimSpace(f.Get("account")), For: time.Duration(hours) * time.Hour}
	if g.Account == "" {
		e.renderApprovals(w, r, v, http.StatusUnprocessableEntity, "Account: must not be empty.", "")
		return
	}
	if args := strings.TrimSpace(f.Get("args")); args != "" {
		if len(args) > maxApprovalArgs || !json.Valid([]byte(args)) || !strings.HasPrefix(args, "{") {
			e.renderApprovals(w, r, v, http.StatusUnprocessableEntity, fmt.Sprintf("Only these inputs: must be a JSON object of at most %d bytes.", maxApprovalArgs), "")
			return
		}
		g.Args = json.RawMessage(args)
	}
	s, err := e.opts.Tasks.Grant(tool.WithAccount(r.Context(), v.acct), g)
	if err != nil {
		status, problem := e.approvalProblem(g.Tool, err)
		e.renderApprovals(w, r, v, status, problem, "")
		return
	}
	e.renderApprovals(w, r, v, http.StatusOK, "", fmt.Sprintf("Calls of %s by %s need no other approval until %s UTC.", s.Tool, s.Account, s.Expires.Format(time.DateTime)))
}

// postRevoke revokes a standing approval.
func (e *server) postRevoke(w http.ResponseWriter, r *http.Request) {
	v, ok := e.approverPost(w, r)
	if !ok {
		return
	}
	id := r.PathValue("id")
	s, err := e.opts.Tasks.Revoke(tool.WithAccount(r.Context(), v.acct), id)
	if err != nil {
		status, problem := e.approvalProblem(id, err)
		e.renderApprovals(w, r, v, status, problem, "")
		return
	}
	e.renderApprovals(w, r, v, http.StatusOK, "", fmt.Sprintf("The standing approval of %s for %s is revoked.", s.Tool, s.Account))
}
