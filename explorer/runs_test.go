package explorer

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
)

var onceField = regexp.MustCompile(`name="once" value="([^"]+)"`)

// TestRunOnce: a form submitted twice (a double click, a resubmitted
// POST) runs the tool once, and both submissions end on the page of that
// run; reloading that page shows the run again without running it.
func TestRunOnce(t *testing.T) {
	env := newTestEnv(t, nil)
	b := env.browser(t)
	b.signIn("alice")
	page := b.get("/tools/demo.wipe").body
	m := onceField.FindStringSubmatch(page)
	if m == nil {
		t.Fatal("the form carries no one-time token")
	}
	form := url.Values{"action": {"run"}, "confirm": {"yes"}, "once": {m[1]}, "csrf": {b.csrf}}

	// Two submissions at once.
	var wg sync.WaitGroup
	finals := make([]string, 2)
	for i := range finals {
		wg.Go(func() {
			req, _ := http.NewRequest("POST", env.srv.URL+"/tools/demo.wipe", strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			resp, err := b.c.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			finals[i] = resp.Request.URL.RequestURI()
		})
	}
	wg.Wait()
	if env.wipes != 1 {
		t.Errorf("two submissions of one form ran the tool %d times, want 1", env.wipes)
	}
	if finals[0] != finals[1] || !strings.HasPrefix(finals[0], "/tools/demo.wipe?run=") {
		t.Errorf("the submissions ended on %q and %q, want one run's page", finals[0], finals[1])
	}

	// Reload.
	r := b.get(finals[0])
	if r.status != http.StatusOK || !strings.Contains(r.body, "✓ Wiped.") || env.wipes != 1 {
		t.Errorf("reloading the run's page: status %d, wipes %d", r.status, env.wipes)
	}
	// A fresh form has a fresh token: it runs again.
	if m2 := onceField.FindStringSubmatch(r.body); m2 == nil || m2[1] == m[1] {
		t.Fatal("the run's page reuses the token of the form it came from")
	}
	b.post("/tools/demo.wipe", url.Values{"action": {"run"}, "confirm": {"yes"}, "once": {onceField.FindStringSubmatch(r.body)[1]}})
	if env.wipes != 2 {
		t.Errorf("a new form's run: wipes %d, want 2", env.wipes)
	}

	// Another person cannot open the run.
	bob := env.browser(t)
	bob.signIn("bob")
	if r := bob.get(finals[0]); strings.Contains(r.body, "Wiped.") {
		t.Error("bob sees alice's run")
	}
}

// TestFocusAfterAction: an action that comes back to the form says where
// the focus goes, so that it is not dropped to the page's start.
func TestFocusAfterAction(t *testing.T) {
	env := newTestEnv(t, nil)
	b := env.browser(t)
	b.signIn("alice")
	b.get("/tools/demo.every")
	tests := []struct {
		form url.Values
		want string
	}{
		{url.Values{"action": {"add:tags"}, "rows:tags": {"1"}}, `data-focus="f-tags[1]"`},
		{url.Values{"action": {"remove:tags"}, "rows:tags": {"2"}}, `data-focus="f-tags-add"`},
		{url.Values{"action": {"find:album"}, "in:album": {"harb"}}, `data-focus="f-album-pick-0"`},
		{url.Values{"action": {"find:album"}, "in:album": {"zzz"}}, `data-focus="f-album"`},
		{url.Values{"action": {"pick:album=3"}}, `data-focus="f-album"`},
		{url.Values{"action": {"save"}, "preset_name": {"p"}}, `data-focus="notice"`},
	}
	for _, tt := range tests {
		if r := b.post("/tools/demo.every", tt.form); !strings.Contains(r.body, tt.want) {
			t.Errorf("%v: the form lacks %s", tt.form, tt.want)
		}
	}
	if r := b.post("/tools/demo.wipe", url.Values{"action": {"run"}}); !strings.Contains(r.body, `id="confirm" aria-invalid="true" aria-describedby="confirm-errors">`) ||
		!strings.Contains(r.body, `<a href="#confirm">Confirmation: This tool changes data`) {
		t.Error("an unticked confirmation is not linked to its error, nor listed in the error summary")
	}
}

// TestEntityByLabel: an entity field takes the entity's label as well as
// its ID.
func TestEntityByLabel(t *testing.T) {
	env := newTestEnv(t, nil)
	b := env.browser(t)
	b.signIn("alice")
	b.get("/tools/demo.summarize")
	for _, typed := range []string{"Blue Hours", "blue hours ", "1"} {
		r := b.post("/tools/demo.summarize", url.Values{"action": {"run"}, "in:album": {typed}})
		if r.status != http.StatusOK || !strings.Contains(r.body, "Blue Hours") || !strings.Contains(r.body, "✓") {
			t.Errorf("running with %q: %d\n%s", typed, r.status, between(r.body, "<main>", `<section class="run"`))
		}
	}
	// A label the person may not see finds nothing.
	if r := b.post("/tools/demo.summarize", url.Values{"action": {"run"}, "in:album": {"Night Studies"}}); r.status == http.StatusOK {
		t.Error("a hidden album was found by its label")
	}
}

// TestRemoveRow: each row of a list has its own remove button.
func TestRemoveRow(t *testing.T) {
	env := newTestEnv(t, nil)
	b := env.browser(t)
	b.signIn("alice")
	b.get("/tools/demo.every")
	r := b.post("/tools/demo.every", url.Values{"action": {"delete:tags[1]"}, "rows:tags": {"3"}, "in:tags[0]": {"a"}, "in:tags[1]": {"b"}, "in:tags[2]": {"c"}})
	if !strings.Contains(r.body, `name="in:tags[0]" value="a"`) || !strings.Contains(r.body, `name="in:tags[1]" value="c"`) || strings.Contains(r.body, `value="b"`) {
		t.Errorf("after removing the second row:\n%s", between(r.body, `<fieldset class="list`, "</fieldset>"))
	}
	if !strings.Contains(r.body, `value="delete:tags[1]" class="secondary row-remove" aria-label="Remove row 2 of tags">Remove</button>`) {
		t.Error("the rows have no remove buttons")
	}
	if r := b.get("/tools/demo.wipe"); !strings.Contains(r.body, `id="run" class="danger">Run: changes data</button>`) {
		t.Error("a destructive tool's button does not look like one")
	}
}
