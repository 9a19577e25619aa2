package explorer

import (
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/toolapi/toolapi/internal/testenv"
)

// TestBrowserConfirm walks through the form of a tool that changes data
// and asks for confirmation, demo.wipe of the tests' tools, at a desktop
// and at a phone's size: the Run button looks destructive, running
// without the tick box runs nothing and says why, and running with it
// runs the tool once. Every state is checked with axe-core and for
// sideways scrolling, and written as a screenshot.
func TestBrowserConfirm(t *testing.T) {
	testenv.NeedFull(t)
	axe := axeScript(t)
	for _, vp := range viewports {
		t.Run(vp.name, func(t *testing.T) {
			env := newTestEnv(t, nil)
			walkConfirm(t, newPeople(t, vp, axe), env)
		})
	}
}

func walkConfirm(t *testing.T, p *people, env *testEnv) {
	base := env.srv.URL
	p.do("signing in",
		chromedp.Navigate(base+"/signin"),
		chromedp.WaitVisible(css("#name")),
		chromedp.SendKeys(css("#name"), "alice"),
		chromedp.SendKeys(css("#password"), testPassword),
		chromedp.Click(css("form.signin button[type=submit]")),
		chromedp.WaitVisible(css("table.tools")),
	)

	// The form: a Run button that looks destructive, and the tick box,
	// named by its label.
	p.do("opening demo.wipe", chromedp.Navigate(base+"/tools/demo.wipe"), chromedp.WaitVisible(css("#confirm")))
	if got, want := p.text("#run"), "Run: changes data"; got != want {
		t.Errorf("the Run button of a tool that changes data reads %q, want %q", got, want)
	}
	// A plain button put beside it, then taken away, shows what a Run
	// button of a tool that changes nothing looks like.
	colours, err := chromedp.Run(p.ctx, chromedp.Evaluate[[]string](`(() => {
		const run = document.getElementById("run"), plain = document.createElement("button");
		run.parentNode.appendChild(plain);
		const out = [run.className, getComputedStyle(run).backgroundColor, getComputedStyle(plain).backgroundColor];
		plain.remove();
		return out; })()`))
	if err != nil {
		t.Fatalf("reading the colours of the Run button: %v", err)
	}
	if colours[0] != "danger" || colours[1] == colours[2] {
		t.Errorf("the Run button has the class %q and the background %s, a plain button %s: want class danger and another colour", colours[0], colours[1], colours[2])
	}
	if got := p.labelOf("#confirm"); !strings.Contains(got, "I understand this changes data, and I confirm this run.") {
		t.Errorf("the tick box is labelled %q", got)
	}
	box, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](`(() => { const b = document.getElementById("confirm");
		return b.type + " " + b.checked + " " + b.hasAttribute("aria-invalid"); })()`))
	if err != nil || box != "checkbox false false" {
		t.Errorf("the tick box before a run: type, checked, aria-invalid = %q (%v), want an unticked checkbox not marked invalid", box, err)
	}
	p.check("confirm")

	// Without the tick, nothing runs: the summary names the confirmation
	// and has the focus, and the box is marked invalid with the reason
	// linked to it.
	p.do("running without the tick",
		chromedp.Click(css("#run")),
		chromedp.WaitVisible(css("#error-summary")),
	)
	if env.wipes != 0 {
		t.Errorf("running without the tick ran the tool %d times", env.wipes)
	}
	if got := p.text(`#error-summary a[href="#confirm"]`); !strings.HasPrefix(got, "Confirmation: ") || !strings.Contains(got, "tick the box to confirm") {
		t.Errorf("the error summary's link to the box reads %q", got)
	}
	if got := p.focused(); got != "error-summary" {
		t.Errorf("focus after running without the tick is on %q, want the error summary", got)
	}
	if !p.inView("#error-summary") {
		t.Error("the error summary is not in view")
	}
	if got := p.title(); !strings.HasPrefix(got, "Failed: ") {
		t.Errorf("title after running without the tick = %q", got)
	}
	if got := p.count(`#confirm[aria-invalid="true"]`); got != 1 {
		t.Error(`the tick box is not marked aria-invalid="true"`)
	}
	if got := p.describedBy("#confirm"); !strings.Contains(got, "tick the box to confirm") {
		t.Errorf("the tick box is described by %q, want the reason it is needed", got)
	}
	p.check("confirm-missing")

	// With the tick, the tool runs once, and its result is in view.
	p.do("ticking the box and running",
		chromedp.Click(css("#confirm")),
		chromedp.Click(css("#run")),
		chromedp.WaitVisible(css("#result")),
	)
	if env.wipes != 1 {
		t.Errorf("running with the tick ran the tool %d times, want 1", env.wipes)
	}
	if got := p.text("#result .message"); got != "✓ Wiped." {
		t.Errorf("the result's message = %q, want ✓ Wiped.", got)
	}
	if !p.inView("#result .message") {
		t.Error("the result is not in view after the run")
	}
	if got := p.focused(); got != "result" {
		t.Errorf("focus after the run is on %q, want the result", got)
	}
	if got := p.title(); !strings.HasPrefix(got, "Completed: ") {
		t.Errorf("title after the run = %q", got)
	}
	if p.count("#error-summary") != 0 || p.count(`#confirm[aria-invalid]`) != 0 {
		t.Error("the page of the run still shows the missing confirmation")
	}
	// Each run needs its own tick.
	if p.count("#confirm:checked") != 0 {
		t.Error("the tick box is still ticked on the page of the run")
	}
	p.check("confirm-done")
	// Reloading shows the run again without running it.
	p.do("reloading", chromedp.Reload(), chromedp.WaitVisible(css("#result")))
	if env.wipes != 1 {
		t.Errorf("reloading the result ran the tool again: %d runs", env.wipes)
	}
}

// labelOf returns the text of the labels of the control sel.
func (p *people) labelOf(sel string) string {
	p.t.Helper()
	s, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](`[...document.querySelector(`+strconv.Quote(sel)+`).labels].map(l => l.textContent.trim()).join(" ")`))
	if err != nil {
		p.t.Fatalf("reading the labels of %s: %v", sel, err)
	}
	return s
}

// describedBy returns the text of the elements the aria-describedby of
// sel names, or "" when it names none that exist.
func (p *people) describedBy(sel string) string {
	p.t.Helper()
	s, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](`(document.querySelector(`+strconv.Quote(sel)+`).getAttribute("aria-describedby") || "").split(/\s+/)
		.map(id => document.getElementById(id)).filter(e => e).map(e => e.textContent.trim()).join(" ")`))
	if err != nil {
		p.t.Fatalf("reading the description of %s: %v", sel, err)
	}
	return s
}
