package explorer

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/toolapi/toolapi/task"
	"github.com/toolapi/toolapi/tool"
)

// addPublish adds report.publish, whose calls wait for the approval of an
// account holding "see drafts" (bob).
func addPublish(t *testing.T, env *taskEnv) {
	t.Helper()
	err := env.reg.Add(&tool.Tool{
		ID: "report.publish", Label: "Publish report", Description: "Publishes a report.", Permission: "use demo",
		Task: tool.TaskRequired, Approver: "see drafts",
		Inputs: []*tool.Definition{{Name: "title", Type: "string", Required: true, Constraints: tool.Constraints{NotBlank: true}}},
		Handler: func(_ context.Context, in *tool.Values) (*tool.Result, error) {
			return tool.Succeeded("Published "+in.String("title")+".", nil), nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestApprovalsPage: a call that needs approval opens a task page saying
// so; the approver's page lists it and approves it (with edited inputs,
// checked again), refuses another, and grants and revokes a standing
// approval; the caller may not approve, and bad values are refused with
// their name and rule.
func TestApprovalsPage(t *testing.T) {
	env := newTaskEnv(t)
	addPublish(t, env)
	alice, bob := env.browser(t), env.browser(t)
	alice.signIn("alice")
	bob.signIn("bob")

	id, r := startTask(t, alice, "report.publish", url.Values{"in:title": {"Draft"}, "confirm": {"yes"}})
	if !strings.Contains(r.body, "(awaiting approval)") || !strings.Contains(r.body, `It waits for the approval of an account with the permission <strong>see drafts</strong>`) {
		t.Fatalf("the caller's task page does not say it waits for approval:\n%s", r.body)
	}
	if r := alice.get("/approvals"); r.status != http.StatusNotFound {
		t.Errorf("GET /approvals as alice, who may approve nothing = %d", r.status)
	}
	if r := alice.get("/"); strings.Contains(r.body, `href="/approvals"`) {
		t.Error("the list links the approvals for alice")
	}
	if r := bob.get("/"); !strings.Contains(r.body, `href="/approvals"`) {
		t.Error("the list does not link the approvals for bob")
	}
	page := bob.get("/approvals")
	if page.status != http.StatusOK || !strings.Contains(page.body, `id="approval-`+id+`"`) || !strings.Contains(page.body, "for alice") ||
		!strings.Contains(page.body, "{&#34;title&#34;:&#34;Draft&#34;}") {
		t.Fatalf("bob's approvals page = %d:\n%s", page.status, page.body)
	}

	// Bad edits, then a good one.
	for _, c := range []struct {
		args   string
		status int
		want   string
	}{
		{`[1]`, http.StatusUnprocessableEntity, "Inputs: must be a JSON object"},
		{`{"title":""}`, http.StatusUnprocessableEntity, "The inputs are refused: Invalid input for Publish report: title:"},
	} {
		r := bob.post("/approvals/"+id, url.Values{"action": {"approve"}, "args": {c.args}})
		if r.status != c.status || !strings.Contains(r.body, c.want) {
			t.Errorf("approving with %s = %d, want %d and %q:\n%s", c.args, r.status, c.status, c.want, r.body)
		}
	}
	if r := bob.postRaw("/approvals/"+id, url.Values{"action": {"approve"}}); r.status != http.StatusForbidden {
		t.Errorf("an approval without the session's token = %d", r.status)
	}
	r = bob.post("/approvals/"+id, url.Values{"action": {"approve"}, "args": {`{"title":"Final"}`}, "note": {"Retitled."}})
	if r.status != http.StatusOK || !strings.Contains(r.body, "is approved: it runs now") {
		t.Fatalf("approving = %d:\n%s", r.status, r.body)
	}
	if tk := env.wait(t, "alice", id); tk.Status != task.Completed || tk.Result.Message != "Published Final." {
		t.Fatalf("the approved task: %+v result %+v", tk, tk.Result)
	}
	if r := alice.get("/tasks/" + id); !strings.Contains(r.body, "Approved by <strong>bob</strong>: Retitled.") ||
		!strings.Contains(r.body, "edited from <code>{&#34;title&#34;:&#34;Draft&#34;}</code>") {
		t.Errorf("the caller's page of the approved task:\n%s", r.body)
	}
	if r := bob.post("/approvals/"+id, url.Values{"action": {"approve"}}); r.status != http.StatusConflict {
		t.Errorf("a second approval = %d", r.status)
	}
	if r := alice.post("/approvals/"+id, url.Values{"action": {"approve"}}); r.status != http.StatusNotFound {
		t.Errorf("an approval by alice = %d", r.status)
	}

	// Refused.
	other, _ := startTask(t, alice, "report.publish", url.Values{"in:title": {"Other"}, "confirm": {"yes"}})
	r = bob.post("/approvals/"+other, url.Values{"action": {"refuse"}, "note": {"Not this one."}})
	if r.status != http.StatusOK || !strings.Contains(r.body, "is refused: it will not run") {
		t.Fatalf("refusing = %d:\n%s", r.status, r.body)
	}
	if tk := env.wait(t, "alice", other); tk.Status != task.Failed || tk.Result.Message != "Publish report was refused by bob: Not this one." {
		t.Errorf("the refused task: %+v result %+v", tk, tk.Result)
	}

	// Standing approvals.
	for _, c := range []struct {
		form   url.Values
		status int
		want   string
	}{
		{url.Values{"tool": {"report.publish"}, "account": {"alice"}, "hours": {"0"}}, http.StatusUnprocessableEntity, "For how many hours: must be a whole number from 1 to 720."},
		{url.Values{"tool": {"report.publish"}, "account": {""}, "hours": {"1"}}, http.StatusUnprocessableEntity, "Account: must not be empty."},
		{url.Values{"tool": {"report.publish"}, "account": {"bob"}, "hours": {"1"}}, http.StatusForbidden, "Nobody approves their own calls"},
		{url.Values{"tool": {"report.publish"}, "account": {"nobody"}, "hours": {"1"}}, http.StatusUnprocessableEntity, "That cannot be done: account: no account &#34;nobody&#34;."},
		{url.Values{"tool": {"report.build"}, "account": {"alice"}, "hours": {"1"}}, http.StatusForbidden, "You may not approve the calls of that tool."},
		{url.Values{"tool": {"report.publish"}, "account": {"alice"}, "hours": {"2"}}, http.StatusOK, "Calls of report.publish by alice need no other approval until"},
	} {
		r := bob.post("/approvals/standing", c.form)
		if r.status != c.status || !strings.Contains(r.body, c.want) {
			t.Errorf("granting %v = %d, want %d and %q:\n%s", c.form, r.status, c.status, c.want, r.body)
		}
	}
	ss, err := env.m.StandingApprovals(tool.WithAccount(context.Background(), testUsers["bob"]))
	if err != nil || len(ss) != 1 {
		t.Fatalf("standing approvals: %+v, %v", ss, err)
	}
	third, r := startTask(t, alice, "report.publish", url.Values{"in:title": {"Third"}, "confirm": {"yes"}})
	if tk := env.wait(t, "alice", third); tk.Status != task.Completed {
		t.Errorf("a call under a standing approval: %+v", tk)
	}
	r = bob.post("/approvals/standing/"+ss[0].ID, url.Values{"action": {"revoke"}})
	if r.status != http.StatusOK || !strings.Contains(r.body, "The standing approval of report.publish for alice is revoked.") {
		t.Errorf("revoking = %d:\n%s", r.status, r.body)
	}
	if r := bob.post("/approvals/standing/"+ss[0].ID, url.Values{"action": {"revoke"}}); r.status != http.StatusConflict {
		t.Errorf("revoking twice = %d", r.status)
	}
}
