package explorer

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"

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
	values, vs, err := env.exp.presetValues(every, map[string]any{
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

	_, vs, err = env.exp.presetValues(every, map[string]any{
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
	for _, p := range []string{"count", "tags", "tags[3]", "settings.limit", "mail", "color"} {
		if !paths[p] {
			t.Errorf("no violation at %s; got %v", p, vs)
		}
	}
}

func TestISODuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "PT0S", 90 * time.Minute: "PT1H30M", 1500 * time.Millisecond: "PT1.5S", -2 * time.Minute: "-PT2M", 26*time.Hour + 5*time.Second: "PT26H5S",
	} {
		if got := isoDuration(d); got != want {
			t.Errorf("isoDuration(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestTextValue(t *testing.T) {
	str := &jsonschema.Schema{Type: "string"}
	for _, tt := range []struct {
		s    *jsonschema.Schema
		in   string
		want any
	}{
		{&jsonschema.Schema{Type: "integer"}, "12", int64(12)},
		{&jsonschema.Schema{Type: "integer"}, "1.5", "1.5"},
		{&jsonschema.Schema{Type: "number"}, "1.5", 1.5},
		{&jsonschema.Schema{Types: []string{"boolean", "null"}}, "on", true},
		{&jsonschema.Schema{Type: "boolean"}, "maybe", "maybe"},
		{&jsonschema.Schema{Type: "array", Items: &jsonschema.Schema{Type: "integer"}}, "7", []any{int64(7)}},
		{&jsonschema.Schema{Type: "array"}, `[1,"a"]`, []any{1.0, "a"}},
		{&jsonschema.Schema{Type: "object"}, `{"a":1}`, map[string]any{"a": 1.0}},
		{&jsonschema.Schema{Type: "string", Format: "date-time"}, "2024-05-01 10:00", "2024-05-01T10:00:00Z"},
		{&jsonschema.Schema{Type: "string", Format: "duration"}, "PT5M", "PT5M"},
		{str, " kept as typed ", " kept as typed "},
		{nil, "x", "x"},
	} {
		if got := textValue(tt.s, tt.in); !cmp.Equal(got, tt.want) {
			t.Errorf("textValue(%v, %q) = %#v, want %#v", tt.s, tt.in, got, tt.want)
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
