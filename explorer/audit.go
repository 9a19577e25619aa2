package explorer

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/toolapi/toolapi/audit"
)

// auditPageLimit is the most records the audit page shows.
const auditPageLimit = 200

// An auditView is the audit page: the records a filter selects.
type auditView struct {
	Account, Tool, Agent string
	Records              []auditRow
	More                 bool // the limit cut the list
}

type auditRow struct {
	Time, When    string
	Account, Tool string
	Agent, Via    string // the agent acting for the account; the channel and client
	Outcome       string
	Took          string
	Inputs        string
}

// mayAudit reports whether the visit's account may see the audit trail.
func (e *server) mayAudit(v *visit) bool {
	return e.opts.Audit != nil && !v.acct.Blocked() && v.acct.HasPermission(e.auditPermission())
}

func (e *server) auditPermission() string {
	if e.opts.AuditPermission != "" {
		return e.opts.AuditPermission
	}
	return "view the audit trail"
}

// serveAudit lists the audit trail, filtered by account and tool, for an
// account that may see it; to any other it is a page that does not exist.
func (e *server) serveAudit(w http.ResponseWriter, r *http.Request) {
	v := e.visit(r)
	if !e.mayAudit(v) {
		e.serveNotFound(w, r)
		return
	}
	q := r.URL.Query()
	av := &auditView{Account: strings.TrimSpace(q.Get("account")), Tool: strings.TrimSpace(q.Get("tool")), Agent: strings.TrimSpace(q.Get("agent"))}
	recs, err := e.opts.Audit.List(r.Context(), &audit.Filter{Account: av.Account, Tool: av.Tool, Agent: av.Agent, Limit: auditPageLimit + 1})
	if err != nil {
		e.logger.Error("explorer: listing the audit trail", "error", err.Error())
		e.renderStatus(w, r, http.StatusServiceUnavailable, "message",
			&page{Title: "Audit trail", Message: "The audit trail cannot be read at the moment. Try again later."}, v)
		return
	}
	if len(recs) > auditPageLimit {
		recs, av.More = recs[:auditPageLimit], true
	}
	av.Records = make([]auditRow, len(recs))
	for i, rec := range recs {
		row := auditRow{
			Time: rec.Time.UTC().Format(time.RFC3339), When: rec.Time.UTC().Format("2 Jan 2006 15:04:05"),
			Account: rec.Account, Tool: rec.Tool, Inputs: rec.InputsSHA256,
			Agent: rec.Agent, Via: strings.TrimSpace(rec.Channel + " " + rec.Client),
		}
		switch rec.Outcome {
		case audit.Succeeded:
			row.Outcome = "✓ succeeded"
		case audit.Failed:
			row.Outcome = "✗ failed (" + string(rec.Failure) + ")"
			if rec.Runs > 1 {
				row.Outcome += " × " + strconv.Itoa(rec.Runs)
			}
		case audit.Asked:
			row.Outcome = "? asked for confirmation"
		case audit.Interrupted:
			row.Outcome = "✗ interrupted (the server stopped)"
		default:
			row.Outcome = "started, end not recorded"
		}
		if rec.Duration > 0 {
			row.Took = tookText(rec.Duration)
		}
		av.Records[i] = row
	}
	e.renderStatus(w, r, http.StatusOK, "audit", &page{Title: "Audit trail", Audit: av}, v)
}

// tookText says how long a run took as a person reads it: "0.4 ms",
// "12 ms", "3.2 s", "2 min 5 s".
func tookText(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 1, 64) + " ms"
	case d < time.Second:
		return strconv.Itoa(int(d/time.Millisecond)) + " ms"
	case d < time.Minute:
		return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + " s"
	}
	d = d.Round(time.Second)
	return strconv.Itoa(int(d/time.Minute)) + " min " + strconv.Itoa(int(d%time.Minute/time.Second)) + " s"
}
