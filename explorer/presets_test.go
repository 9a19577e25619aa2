package explorer

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolapi/toolapi/tool"
)

func TestPresetSchema(t *testing.T) {
	s := PresetSchema(everyInput())
	if s.Title != "tool.preset.demo.every" || len(s.Required) != 0 {
		t.Errorf("preset schema title %q, required %v", s.Title, s.Required)
	}
	if _, ok := s.Properties["mode"]; ok {
		t.Error("the locked input is in the preset schema")
	}
	if got := s.Properties["settings"].Required; !cmp.Equal(got, []string{"limit"}) {
		t.Errorf("a map's own required properties = %v, want kept", got)
	}
	if in := everyInput().Describe().InputSchema; len(in.Required) == 0 {
		t.Error("PresetSchema changed the tool's input schema")
	}
}

func TestPresetValues(t *testing.T) {
	env := newTestEnv(t, nil)
	every, _ := env.reg.Tool("demo.every")
	alice := testUsers["alice"]
	values, vs, err := env.exp.presetValues(context.Background(), alice, every, map[string]any{
		"title":    tool.Text("Hi"),
		"count":    tool.Text(" 4 "),
		"ratio":    tool.Text("0.5"),
		"flag":     tool.Text("false"),
		"at":       tool.Text("2024-05-01T12:30"),
		"day":      tool.Text("2024-05-01"),
		"wait":     tool.Text("1h30m"),
		"tags":     []any{tool.Text("a"), tool.Text("b")},
		"settings": map[string]any{"limit": tool.Text("5")},
		"meta":     tool.Text(`{"k":"v"}`),
		"extra":    []any{1.0, "two"},
		"album":    tool.Text("3"),
	})
	if err != nil || len(vs) > 0 {
		t.Fatalf("presetValues: %v %v", vs, err)
	}
	var got map[string]any
	json.Unmarshal(values, &got)
	want := map[string]any{
		"title": "Hi", "count": 4.0, "ratio": 0.5, "flag": false, "at": "2024-05-01T12:30:00Z", "day": "2024-05-01",
		"wait": "PT1H30M", "tags": []any{"a", "b"}, "settings": map[string]any{"limit": 5.0}, "meta": map[string]any{"k": "v"},
		"extra": []any{1.0, "two"}, "album": "3",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("stored values (-want +got):\n%s", diff)
	}
	// The stored values run as they are.
	res, err := env.reg.Run(tool.WithAccount(context.Background(), testUsers["alice"]), "demo.every", got)
	if err != nil || !res.Success {
		t.Errorf("running the stored values: %v %+v", err, res)
	}

	_, vs, err = env.exp.presetValues(context.Background(), alice, every, map[string]any{
		"count":    tool.Text("eleven"),
		"tags":     []any{tool.Text("a"), tool.Text("b"), tool.Text("c"), tool.Text("toolong")},
		"settings": map[string]any{"label": tool.Text("x")},
		"mail":     tool.Text("nope"),
		"color":    tool.Text("pink"),
	})
	if err != nil {
		t.Fatal(err)
	}
	paths := map[string]bool{}
	for _, v := range vs {
		paths[v.Path] = true
	}
	for _, p := range []string{"count", "tags", "settings.limit", "mail", "color"} {
		if !paths[p] {
			t.Errorf("no violation at %s; got %v", p, vs)
		}
	}
}

// TestPresetDurations: a preset holds what a run accepts, checked by the
// run path's own validation. Durations a run refuses (a fraction of a
// second, a negative one) are refused when saved, with the run's message
// beside the field, instead of being saved and failing every run; the
// others are stored in their canonical JSON and run.
func TestPresetDurations(t *testing.T) {
	env := newTestEnv(t, nil)
	b := env.browser(t)
	b.signIn("alice")
	b.get("/tools/demo.every")
	for _, tt := range []struct{ typed, stored, ran string }{
		{"1.5s", "", ""},
		{"-2m", "", ""},
		{"90s", "PT1M30S", "1m30s"},
		{"PT2H", "PT2H", "2h0m0s"},
	} {
		name := "wait " + tt.typed
		save := url.Values{"action": {"save"}, "preset_name": {name}, "in:title": {"Hi"}, "in:wait": {tt.typed}}
		r := b.post("/tools/demo.every", save)
		if tt.stored == "" {
			run := b.post("/tools/demo.every", url.Values{"action": {"run"}, "in:title": {"Hi"}, "in:wait": {tt.typed}})
			want := between(run.body, `<ul class="violations" id="f-wait-errors">`, "</ul>")
			if r.status != http.StatusUnprocessableEntity || want == "" || !strings.Contains(r.body, `<ul class="violations" id="f-wait-errors">`+want+"</ul>") {
				t.Errorf("saving %s: %d; the run says %q", tt.typed, r.status, want)
			}
			if _, err := env.presets.Preset(context.Background(), "alice", "demo.every", name); err == nil {
				t.Errorf("a preset of %s, which no run accepts, was saved", tt.typed)
			}
			continue
		}
		if r.status != http.StatusOK {
			t.Fatalf("saving %s: %d\n%s", tt.typed, r.status, between(r.body, `<div class="presets">`, "</div>"))
		}
		p, err := env.presets.Preset(context.Background(), "alice", "demo.every", name)
		if err != nil {
			t.Fatal(err)
		}
		var stored map[string]any
		json.Unmarshal(p.Values, &stored)
		if stored["wait"] != tt.stored {
			t.Errorf("%s stored as %s, want %s", tt.typed, p.Values, tt.stored)
		}
		r = b.post("/tools/demo.every", url.Values{"action": {"preset-run:" + name}})
		if r.status != http.StatusOK || !strings.Contains(r.body, `&#34;wait&#34;: &#34;`+tt.ran+`&#34;`) {
			t.Errorf("running the preset of %s: %d\n%s", tt.typed, r.status, between(r.body, `<section class="result`, "</section>"))
		}
	}
}

// TestPresets saves, lists, fills in, runs and deletes presets through
// the pages.
func TestPresets(t *testing.T) {
	env := newTestEnv(t, nil)
	b := env.browser(t)
	b.signIn("alice")
	b.get("/tools/demo.every")
	form := url.Values{
		"action": {"save"}, "preset_name": {"  Daily  "},
		"in:title": {"Daily run"}, "in:count": {"3"}, "in:flag": {"false", "true"},
		"rows:tags": {"2"}, "in:tags[0]": {""}, "in:tags[1]": {"x"},
		"in:settings.limit": {"9"}, "in:wait": {"2h"},
	}
	r := b.post("/tools/demo.every", form)
	if r.status != http.StatusOK || !strings.Contains(r.body, "Saved the preset “Daily”.") {
		t.Fatalf("saving: %d\n%s", r.status, between(r.body, `<section class="run"`, "</section>"))
	}
	if strings.Contains(r.body, `id="result"`) {
		t.Error("saving a preset ran the tool")
	}
	p, err := env.presets.Preset(context.Background(), "alice", "demo.every", "Daily")
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"count":3,"flag":true,"settings":{"limit":9},"tags":["x"],"title":"Daily run","wait":"PT2H"}`; string(p.Values) != want {
		t.Errorf("stored %s, want %s", p.Values, want)
	}
	if !strings.Contains(r.body, `<td><strong>Daily</strong></td>`) || !strings.Contains(r.body, `<a href="/tools/demo.every?preset=Daily">Fill in</a>`) {
		t.Error("the saved preset is not listed")
	}

	// A preset that breaks the schema is not saved; the violations are
	// shown next to the fields.
	r = b.post("/tools/demo.every", url.Values{"action": {"save"}, "preset_name": {"Broken"}, "in:count": {"many"}, "in:settings.label": {"no limit"}})
	if r.status != http.StatusUnprocessableEntity || !strings.Contains(r.body, "The preset was not saved: the values marked break the preset schema tool.preset.demo.every.") ||
		!strings.Contains(r.body, `id="f-count-errors"`) || !strings.Contains(r.body, `<ul class="violations" id="f-settings.limit-errors"><li>is required</li></ul>`) ||
		!strings.Contains(r.body, `value="many"`) {
		t.Errorf("saving a broken preset: %d\n%s", r.status, between(r.body, `<section class="run"`, "</section>"))
	}
	r = b.post("/tools/demo.every", url.Values{"action": {"save"}, "preset_name": {" "}})
	if r.status != http.StatusUnprocessableEntity || !strings.Contains(r.body, "The preset was not saved: give the preset a name.") {
		t.Errorf("saving without a name: %d", r.status)
	}
	if got := env.presets.names("alice", "demo.every"); !cmp.Equal(got, []string{"Daily"}) {
		t.Errorf("presets = %v, want only Daily", got)
	}

	// Fill in: the form shows the preset's values.
	r = b.get("/tools/demo.every?preset=Daily")
	for _, want := range []string{"Filled in from the preset “Daily”.", `name="in:title" value="Daily run"`, `name="in:count" value="3"`,
		`name="in:tags[0]" value="x"`, `name="in:settings.limit" value="9"`, `name="in:wait" value="PT2H"`, `name="in:flag" value="true" checked aria-describedby="f-flag-desc">`} {
		if !strings.Contains(r.body, want) {
			t.Errorf("the filled-in form lacks %s", want)
		}
	}
	if r := b.get("/tools/demo.every?preset=Nope"); !strings.Contains(r.body, "There is no preset named “Nope”.") {
		t.Error("a missing preset says nothing")
	}

	// Run: the tool gets the stored values.
	r = b.post("/tools/demo.every", url.Values{"action": {"preset-run:Daily"}})
	if r.status != http.StatusOK || !strings.Contains(r.body, `&#34;wait&#34;: &#34;2h0m0s&#34;`) || !strings.Contains(r.body, `&#34;title&#34;: &#34;Daily run&#34;`) {
		t.Errorf("running the preset: %d\n%s", r.status, between(r.body, `<section class="result`, "</section>"))
	}

	// Presets are the account's own.
	bob := env.browser(t)
	bob.signIn("bob")
	if r := bob.get("/tools/demo.every"); strings.Contains(r.body, "Daily") {
		t.Error("bob sees alice's preset")
	}
	if r := bob.post("/tools/demo.every", url.Values{"action": {"preset-run:Daily"}}); strings.Contains(r.body, `id="result"`) {
		t.Error("bob ran alice's preset")
	}

	r = b.post("/tools/demo.every", url.Values{"action": {"preset-delete:Daily"}})
	if !strings.Contains(r.body, "Deleted the preset “Daily”.") || len(env.presets.names("alice", "demo.every")) != 0 {
		t.Errorf("deleting: %v", env.presets.names("alice", "demo.every"))
	}
}

// TestDestructivePreset: a preset of a destructive tool runs only with the
// box ticked; without it, the form is filled in and the person asked.
func TestDestructivePreset(t *testing.T) {
	env := newTestEnv(t, nil)
	b := env.browser(t)
	b.signIn("alice")
	b.get("/tools/demo.wipe")
	b.post("/tools/demo.wipe", url.Values{"action": {"save"}, "preset_name": {"all"}})
	r := b.post("/tools/demo.wipe", url.Values{"action": {"preset-run:all"}})
	if env.wipes != 0 || !strings.Contains(r.body, "tick the box to confirm, then run.") {
		t.Errorf("an unconfirmed preset run: %d wipes", env.wipes)
	}
	b.post("/tools/demo.wipe", url.Values{"action": {"preset-run:all"}, "confirm": {"yes"}})
	if env.wipes != 1 {
		t.Errorf("a confirmed preset run: %d wipes", env.wipes)
	}
}

func TestNoPresets(t *testing.T) {
	env := newTestEnv(t, nil)
	env.exp = New(env.reg, &Options{Authenticate: env.exp.opts.Authenticate}).(*server)
	env.srv = newServer(t, env.exp)
	b := env.browser(t)
	b.signIn("alice")
	if r := b.get("/tools/demo.every"); strings.Contains(r.body, "Save preset") {
		t.Error("presets offered without a store")
	}
	if r := b.post("/tools/demo.every", url.Values{"action": {"save"}, "preset_name": {"x"}}); r.status != http.StatusBadRequest {
		t.Errorf("saving without a store: %d", r.status)
	}
}
