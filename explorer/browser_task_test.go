package explorer

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/toolapi/toolapi/internal/testenv"
)

// TestBrowserTask follows tasks in chromium at a desktop and at a phone's
// size: running a tool that runs as a task opens its page, which updates
// itself (its script polls) when the task ends and when it asks a
// question; the question is answered in its form; the list shows the
// account's tasks. Every state is checked with axe-core and for sideways
// scrolling, and written as a screenshot.
func TestBrowserTask(t *testing.T) {
	testenv.NeedFull(t)
	axe := axeScript(t)
	for _, vp := range viewports {
		t.Run(vp.name, func(t *testing.T) {
			env := newTaskEnv(t)
			walkTask(t, newPeople(t, vp, axe), env)
		})
	}
}

func walkTask(t *testing.T, p *people, env *taskEnv) {
	base := env.srv.URL
	p.do("signing in",
		chromedp.Navigate(base+"/signin"),
		chromedp.WaitVisible(css("#name")),
		chromedp.SendKeys(css("#name"), "alice"),
		chromedp.SendKeys(css("#password"), testPassword),
		chromedp.Click(css("form.signin button[type=submit]")),
		chromedp.WaitVisible(css("table.tools")),
	)
	p.do("opening report.build", chromedp.Navigate(base+"/tools/report.build"), chromedp.WaitVisible(css("#as-task")))
	p.check("task-form")
	p.do("running report.build",
		chromedp.SendKeys(css("#f-pages"), "3"),
		chromedp.Click(css("#f-hold")),
		chromedp.Click(css("#run")),
		chromedp.WaitVisible(css("#task-status")),
	)
	if got := p.text("#task-status"); !strings.HasPrefix(got, "Working") {
		t.Errorf("the status of a new task reads %q", got)
	}
	// The progress the tool reports shows as it is stored (the page
	// reloads itself when the task changes).
	p.do("waiting for the progress", chromedp.WaitVisible(css("#task-progress")))
	if got := p.text(".task-progress label"); got != "Laying out" {
		t.Errorf("the progress reads %q", got)
	}
	if p.count(`form.cancel button[value="cancel"]`) != 1 || p.count("#task-refresh") != 1 {
		t.Error("the page of a working task has no cancel button or no Refresh link")
	}
	p.check("task-working")

	// The task ends while the page is open: the page shows its outputs
	// without anyone reloading it.
	close(env.release)
	p.do("waiting for the outputs", chromedp.WaitVisible(css("#result")))
	if got := p.text("#result .message"); got != "✓ Built the report." {
		t.Errorf("the result's message = %q", got)
	}
	if got := p.text("#result .output .value"); got != "3" {
		t.Errorf("the output = %q, want 3", got)
	}
	if p.count("form.cancel") != 0 {
		t.Error("the page of an ended task offers to cancel it")
	}
	p.check("task-completed")

	// A task that asks: the page turns into the question once the task
	// asks it, and the answer resumes the task.
	p.do("running report.name",
		chromedp.Navigate(base+"/tools/report.name"),
		chromedp.WaitVisible(css("#run")),
		chromedp.Click(css("#run")),
		chromedp.WaitVisible(css("#q-name")),
	)
	if got := p.text("#question-message"); got != "Which name shall the report have?" {
		t.Errorf("the question reads %q", got)
	}
	if got := p.labelOf("#q-name"); !strings.HasPrefix(got, "Name") {
		t.Errorf("the answer's field is labelled %q", got)
	}
	p.check("task-question")
	p.do("answering",
		chromedp.SendKeys(css("#q-name"), "Q3 report"),
		chromedp.Click(css(`#answer-form button[value="accept"]`)),
		chromedp.WaitVisible(css("#result")),
	)
	if got := p.text("#result .output .value"); got != "Q3 report" {
		t.Errorf("the output after the answer = %q", got)
	}

	p.do("opening the list", chromedp.Navigate(base+"/tasks"), chromedp.WaitVisible(css("table.data")))
	if got := p.count(`table.data a[href^="/tasks/"]`); got != 2 {
		t.Errorf("the list shows %d tasks, want 2", got)
	}
	p.check("task-list")
}
