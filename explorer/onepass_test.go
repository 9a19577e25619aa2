package explorer

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolapi/toolapi/tool"
)

var (
	summaryHeading = regexp.MustCompile(`<h3 id="error-summary-h">([^<]*)</h3>`)
	summaryItemRE  = regexp.MustCompile(`<li><a href="#[^"]*">([^<]*)</a></li>`)
)

// summaryOf returns the heading and the items of the error summary of
// a page.
func summaryOf(body string) (string, []string) {
	box := between(body, `id="error-summary"`, "</div>")
	var heading string
	if m := summaryHeading.FindStringSubmatch(box); m != nil {
		heading = m[1]
	}
	var items []string
	for _, m := range summaryItemRE.FindAllStringSubmatch(box, -1) {
		items = append(items, m[1])
	}
	return heading, items
}

// TestOnePassOfErrors: one submission reports every problem of its inputs
// (decoding, required inputs and entities that do not exist, and the
// missing confirmation) in plain words, heading and items alike; an
// entity not found suggests the entities whose labels hold what was
// typed, as picks. Nothing runs.
func TestOnePassOfErrors(t *testing.T) {
	for _, c := range []struct {
		name, tool string
		form       url.Values
		heading    string
		items      []string
		page       []string // more the page must hold
	}{{
		name: "decoding, a required input and an entity at once",
		tool: "demo.every",
		form: url.Values{"in:album": {"No Such Album"}, "in:title": {""}, "in:wait": {"abc"}},
		// The raw messages are "is required", "must be an ISO 8601
		// duration ..." and "no album has the ID ...".
		heading: "3 values need fixing",
		items: []string{
			"Title: is required",
			"wait: must be a duration such as 1h30m, 90s or PT1H30M",
			"album: no album has the label or ID “No Such Album”: type part of its label and choose Find by label",
		},
	}, {
		name:    "an album by part of its label",
		tool:    "demo.summarize",
		form:    url.Values{"in:album": {"blue"}},
		heading: "1 value needs fixing",
		items:   []string{"album: no album is called “blue”; did you mean “Blue Hours”?"},
		// The suggestion is there to pick.
		page: []string{`<button type="submit" name="action" value="pick:album=1" class="pick" id="f-album-pick-0">Blue Hours <span class="muted">1</span></button>`},
	}, {
		name:    "an album by one of the words typed",
		tool:    "demo.summarize",
		form:    url.Values{"in:album": {"Harbour at night"}},
		heading: "1 value needs fixing",
		items:   []string{"album: no album is called “Harbour at night”; did you mean “Harbour Lights”?"},
	}, {
		name:    "an album a person may not see is not suggested",
		tool:    "demo.summarize",
		form:    url.Values{"in:album": {"Night"}},
		heading: "1 value needs fixing",
		items:   []string{"album: no album has the label or ID “Night”: type part of its label and choose Find by label"},
	}, {
		name:    "a rule of the input's own",
		tool:    "demo.every",
		form:    url.Values{"in:title": {"x"}},
		heading: "1 value needs fixing",
		items:   []string{"Title: must be at least 2 characters long"},
	}} {
		t.Run(c.name, func(t *testing.T) {
			env := newTestEnv(t, nil)
			b := env.browser(t)
			b.signIn("alice")
			b.get("/tools/" + c.tool)
			c.form.Set("action", "run")
			r := b.post("/tools/"+c.tool, c.form)
			if r.status != http.StatusUnprocessableEntity {
				t.Errorf("status %d, want 422", r.status)
			}
			heading, items := summaryOf(r.body)
			if heading != c.heading {
				t.Errorf("heading %q, want %q", heading, c.heading)
			}
			if diff := cmp.Diff(c.items, items); diff != "" {
				t.Errorf("summary (-want +got):\n%s\n%s", diff, between(r.body, `id="error-summary"`, "</div>"))
			}
			for _, want := range c.page {
				if !strings.Contains(r.body, want) {
					t.Errorf("the page lacks %s", want)
				}
			}
			if runs, err := env.exp.runs.Runs(t.Context(), "alice", "", 10); err != nil || len(runs) != 0 {
				t.Errorf("runs recorded: %v, %v; want none", runs, err)
			}
		})
	}
}

// TestOnePassWithConfirmation: a tool that asks for confirmation reports
// its inputs' problems and the missing tick together, and runs nothing;
// with the inputs fixed, the tick alone is missing.
func TestOnePassWithConfirmation(t *testing.T) {
	env := newTestEnv(t, nil)
	runs := 0
	if err := env.reg.Add(&tool.Tool{
		ID: "demo.erase", Label: "Erase", Description: "Erases an album.", Operation: tool.OpWrite, Confirm: true, Permission: "use demo",
		Inputs: []*tool.Definition{{Name: "album", Type: "entity:album", Required: true, EntityOp: "update"}},
		Handler: func(context.Context, *tool.Values) (*tool.Result, error) {
			runs++
			return tool.Succeeded("Erased.", nil), nil
		},
	}); err != nil {
		t.Fatal(err)
	}
	b := env.browser(t)
	b.signIn("alice")
	b.get("/tools/demo.erase")
	const tick = "Confirmation: This tool changes data: tick the box to confirm, then run it again."
	for _, c := range []struct {
		album, heading string
		items          []string
	}{
		{"Blu", "2 values need fixing", []string{"album: no album is called “Blu”; did you mean “Blue Hours”?", tick}},
		{"Blue Hours", "1 value needs fixing", []string{tick}},
	} {
		r := b.post("/tools/demo.erase", url.Values{"action": {"run"}, "in:album": {c.album}})
		heading, items := summaryOf(r.body)
		if r.status != http.StatusUnprocessableEntity || heading != c.heading {
			t.Errorf("erasing %q without the tick: %d, heading %q; want 422, %q", c.album, r.status, heading, c.heading)
		}
		if diff := cmp.Diff(c.items, items); diff != "" {
			t.Errorf("erasing %q without the tick (-want +got):\n%s", c.album, diff)
		}
	}
	if runs != 0 {
		t.Errorf("erase ran %d times without a tick", runs)
	}
}

// TestAlbumIDInPlainWords: an album ID that is no ID at all (a number in
// the inputs given as JSON) reads in plain words, "must name an album",
// through the explorer's own handler. The words are chosen by the
// violation's rule: the core's words for models ("must be the ID of an
// album as a string") are never searched.
func TestAlbumIDInPlainWords(t *testing.T) {
	env := newTestEnv(t, nil)
	b := env.browser(t)
	b.signIn("alice")
	b.get("/tools/demo.summarize")
	r := b.post("/tools/demo.summarize", url.Values{"action": {"run-json"}, "json_inputs": {`{"album": 12}`}})
	if r.status != http.StatusUnprocessableEntity {
		t.Fatalf("status %d, want 422", r.status)
	}
	_, items := summaryOf(r.body)
	if diff := cmp.Diff([]string{"album: must name an album: type its label or its ID"}, items); diff != "" {
		t.Errorf("summary (-want +got):\n%s\n%s", diff, between(r.body, `id="error-summary"`, "</div>"))
	}
}
