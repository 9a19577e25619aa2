package explorer

import (
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/toolapi/toolapi/internal/testenv"
	"github.com/toolapi/toolapi/task"
)

// TestBrowserApprovals walks the approval of another account's call in
// chromium at a desktop and at a phone's size: the approver finds the
// Approvals page from the list, edits a waiting call's inputs and approves
// it, refuses another, and grants a standing approval; the caller's task
// page then says who approved it. Every state is checked with axe-core and
// for sideways scrolling, and written as a screenshot.
func TestBrowserApprovals(t *testing.T) {
	testenv.NeedFull(t)
	axe := axeScript(t)
	for _, vp := range viewports {
		t.Run(vp.name, func(t *testing.T) {
			env := newTaskEnv(t)
			addPublish(t, env)
			alice := env.browser(t)
			alice.signIn("alice")
			first, _ := startTask(t, alice, "report.publish", url.Values{"in:title": {"Draft"}, "confirm": {"yes"}})
			second, _ := startTask(t, alice, "report.publish", url.Values{"in:title": {"Other"}, "confirm": {"yes"}})
			walkApprovals(t, newPeople(t, vp, axe), env, first, second)
		})
	}
}

func walkApprovals(t *testing.T, p *people, env *taskEnv, first, second string) {
	base := env.srv.URL
	signIn := func(name string) {
		p.do("signing in as "+name,
			chromedp.Navigate(base+"/signin"),
			chromedp.WaitVisible(css("#name")),
			chromedp.SendKeys(css("#name"), name),
			chromedp.SendKeys(css("#password"), testPassword),
			chromedp.Click(css("form.signin button[type=submit]")),
			chromedp.WaitVisible(css("table.tools")),
		)
	}
	signIn("bob")
	p.do("opening the approvals from the list",
		chromedp.Click(css(`a[href="/approvals"]`)),
		chromedp.WaitVisible(css("#approval-"+first)),
	)
	if got := p.count("article.approval"); got != 2 {
		t.Errorf("the page lists %d calls, want 2", got)
	}
	if got := p.labelOf("#args-" + first); !strings.HasPrefix(got, "Inputs") {
		t.Errorf("the inputs' area is labelled %q", got)
	}
	p.check("approvals-pending")

	p.do("approving with edited inputs",
		chromedp.SetValue(css("#args-"+first), `{"title":"Final"}`),
		chromedp.SendKeys(css("#note-"+first), "Retitled."),
		chromedp.Click(css(`#approval-`+first+` button[value="approve"]`)),
		chromedp.WaitVisible(css("#approvals-done")),
	)
	if got := p.text("#approvals-done"); !strings.Contains(got, "is approved: it runs now") {
		t.Errorf("after approving, the page says %q", got)
	}
	p.do("refusing the other",
		chromedp.SendKeys(css("#note-"+second), "Not this one."),
		chromedp.Click(css(`#approval-`+second+` button[value="refuse"]`)),
		chromedp.WaitVisible(css("#approvals-done")),
		chromedp.WaitVisible(css("#approvals-none")),
	)
	p.do("granting a standing approval",
		chromedp.SendKeys(css("#grant-account"), "alice"),
		chromedp.Click(css(`form.grant button[value="grant"]`)),
		chromedp.WaitVisible(css(`button[aria-label="Revoke the standing approval of report.publish for alice"]`)),
	)
	p.check("approvals-standing")

	if tk := env.wait(t, "alice", first); tk.Status != task.Completed {
		t.Fatalf("the approved task: %+v", tk)
	}
	p.do("signing out", chromedp.Click(css("form.inline button.link")), chromedp.WaitVisible(css(`a[href^="/signin"]`)))
	signIn("alice")
	p.do("opening the approved task", chromedp.Navigate(base+"/tasks/"+first), chromedp.WaitVisible(css("#task-approval")))
	if got := p.text("#task-approval"); !strings.Contains(got, "Approved by bob: Retitled.") {
		t.Errorf("the caller's task page says %q", got)
	}
	p.check("approvals-caller")
}
