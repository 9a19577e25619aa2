package explorer

import (
	"context"
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolapi/toolapi/tool"
)

// rowIDs returns the tool IDs of the list page's table, in order.
func rowIDs(body string) []string {
	var ids []string
	for _, m := range regexp.MustCompile(`<tr><td><a href="[^"]*">[^<]*</a>.*?<td><code>([^<]+)</code>`).FindAllStringSubmatch(body, -1) {
		ids = append(ids, m[1])
	}
	return ids
}

func TestListPage(t *testing.T) {
	env := newTestEnv(t, nil)
	b := env.browser(t)
	b.signIn("alice")
	tests := []struct {
		query string
		want  []string
	}{
		{"", []string{"demo.every", "demo.showcase", "demo.summarize", "demo.travel", "demo.wipe"}},
		{"?q=album", []string{"demo.summarize"}},
		{"?q=city+wipes", []string{"demo.travel", "demo.wipe"}},
		{"?q=city+wipes&match=all", nil},
		{"?q=picks+city&match=all", []string{"demo.travel"}},
		{"?op=read", []string{"demo.showcase", "demo.summarize", "demo.travel"}},
		{"?op=write&q=wipe", []string{"demo.wipe"}},
		{"?op=bogus", []string{"demo.every", "demo.showcase", "demo.summarize", "demo.travel", "demo.wipe"}},
		{"?q=secret", nil},
	}
	for _, tt := range tests {
		r := b.get("/" + tt.query)
		if r.status != http.StatusOK {
			t.Fatalf("GET /%s = %d", tt.query, r.status)
		}
		if diff := cmp.Diff(tt.want, rowIDs(r.body)); diff != "" {
			t.Errorf("GET /%s tools (-want +got):\n%s", tt.query, diff)
		}
	}
	r := b.get("/")
	for _, want := range []string{
		// label linked, ID, operation, destructive mark, first line only
		`<a href="/tools/demo.every">Every input</a>`,
		`<td><code>demo.every</code></td><td><span class="op op-transform">transform</span></td><td>Takes one input of each kind and echoes them.</td>`,
		`<a href="/tools/demo.wipe">Wipe</a> <span class="badge danger"`,
		`5 tools`,
	} {
		if !strings.Contains(r.body, want) {
			t.Errorf("the list lacks %s", want)
		}
	}
	if strings.Contains(r.body, "The second line") {
		t.Error("the list shows more than the first line of a description")
	}
}

func TestAnonymousVisitor(t *testing.T) {
	env := newTestEnv(t, nil)
	b := env.browser(t)
	r := b.get("/")
	if r.status != http.StatusOK || len(rowIDs(r.body)) != 0 || !strings.Contains(r.body, "Browsing as anonymous") {
		t.Errorf("an anonymous visitor without Options.Anonymous sees: %d %v", r.status, rowIDs(r.body))
	}
	if r := b.get("/tools/demo.every"); r.status != http.StatusNotFound {
		t.Errorf("an anonymous visitor opened demo.every: %d", r.status)
	}

	env = newTestEnv(t, &Options{Anonymous: func(context.Context) (tool.Account, error) {
		return &tool.User{ID: "visitor", Permissions: []string{"use demo"}}, nil
	}})
	b = env.browser(t)
	r = b.get("/tools/demo.every")
	if r.status != http.StatusOK || !strings.Contains(r.body, `<a href="/signin?next=%2Ftools%2Fdemo.every">Sign in</a> to run this tool.`) ||
		!strings.Contains(r.body, `<button type="submit" name="action" value="run" id="run" disabled>`) {
		t.Errorf("a visitor's tool page: %d\n%s", r.status, r.body)
	}
	if strings.Contains(r.body, "Save preset") {
		t.Error("a visitor without a session is offered presets")
	}
}

func TestToolPage(t *testing.T) {
	env := newTestEnv(t, nil)
	b := env.browser(t)
	b.signIn("alice")
	r := b.get("/tools/demo.every")
	if r.status != http.StatusOK {
		t.Fatalf("GET /tools/demo.every = %d", r.status)
	}
	for _, want := range []string{
		`<h1>Every input <span class="op op-transform">transform</span></h1>`,
		// how to call it
		`<dd><code>demo tool run demo.every --input title=Hello</code></dd>`,
		`<dt>MCP tool name</dt><dd><code>demo__every</code></dd>`,
		`<p class="ids">ID <code>demo.every</code> · name for models <code>demo__every</code></p>`,
		`<dt>Function-calling name</dt><dd><code>demo__every</code></dd>`,
		// access
		`<li>the permission “use demo”</li><li>“view” access to album given as input album</li>`,
		// the inputs table: type, required, default, constraints, examples
		`<tr class="depth-0"><td><code>title</code><br><span class="muted">Title</span></td><td>string</td><td>yes</td><td></td><td>not blank; 2 to 40 characters</td><td><code>&#34;Hello&#34;</code></td><td></td><td>A short title.</td></tr>`,
		`<td><code>flag</code></td><td>boolean</td><td>no</td><td><code>true</code></td>`,
		`<td><code>tags</code></td><td>list of string</td><td>no</td><td></td><td>at most 3 items</td>`,
		`<tr class="depth-1"><td><code>tags[]</code></td><td>string</td><td><span class="muted">each item</span></td><td></td><td>not blank; at most 5 characters</td>`,
		`<tr class="depth-1"><td><code>settings.limit</code></td><td>integer</td><td>yes</td><td></td><td>at most 100</td>`,
		`<td><code>day</code></td><td>date</td>`,
		`<td><code>mode</code> <span class="tag">locked</span></td>`,
		// outputs
		`<td><code>echo</code></td><td>any</td><td>yes</td><td></td><td></td><td></td><td>The inputs as the tool received them.</td>`,
		// schemas
		`<summary>Input schema</summary><pre class="code" tabindex="0" aria-label="Input schema, JSON">{`,
		`&#34;additionalProperties&#34;: false`,
		`<summary>Preset schema <code>tool.preset.demo.every</code></summary>`,
		`&#34;title&#34;: &#34;tool.preset.demo.every&#34;`,
		// the form
		`<form method="post" action="/tools/demo.every" novalidate id="run-form">`,
		`<input type="hidden" name="csrf" value="`,
	} {
		if !strings.Contains(r.body, want) {
			t.Errorf("the tool page lacks %s", want)
		}
	}
	// The locked input is left out of the advertised schemas.
	in := between(r.body, "<summary>Input schema</summary>", "</pre>")
	if strings.Contains(in, "mode") || !strings.Contains(in, "&#34;required&#34;: [\n    &#34;title&#34;\n  ]") {
		t.Errorf("input schema:\n%s", in)
	}
	preset := between(r.body, "<summary>Preset schema", "</pre>")
	if strings.Contains(preset, "mode") || strings.Contains(preset, "&#34;required&#34;: [\n    &#34;title") {
		t.Errorf("preset schema keeps a required input or the locked one:\n%s", preset)
	}

	// The tool's name, as models know it, leads to the same page, whose
	// form posts to the ID; a tool the account may not see is not found
	// by its name either.
	if byName := b.get("/tools/demo__every"); byName.status != http.StatusOK ||
		!strings.Contains(byName.body, `<form method="post" action="/tools/demo.every" novalidate id="run-form">`) {
		t.Errorf("GET /tools/demo__every = %d, want the page of demo.every", byName.status)
	}
	notFound := b.get("/tools/nope")
	for _, path := range []string{"/tools/demo.secret", "/tools/demo__secret", "/tools/nope", "/tools/demo__nope", "/nowhere"} {
		r := b.get(path)
		if r.status != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404", path, r.status)
		}
		if strings.HasPrefix(path, "/tools/") && stripCSRF(r.body) != stripCSRF(notFound.body) {
			t.Errorf("GET %s differs from the page of a tool that does not exist:\n%s", path, r.body)
		}
	}
}

// stripCSRF removes the CSRF token values of a page, which differ per
// request.
func stripCSRF(body string) string {
	return regexp.MustCompile(`name="csrf" value="[^"]*"`).ReplaceAllString(body, "")
}

func between(s, from, to string) string {
	_, after, ok := strings.Cut(s, from)
	if !ok {
		return ""
	}
	before, _, _ := strings.Cut(after, to)
	return before
}

func TestSecurityHeaders(t *testing.T) {
	env := newTestEnv(t, nil)
	b := env.browser(t)
	for _, path := range []string{"/", "/tools/demo.every", "/signin", "/nowhere"} {
		r := b.get(path)
		h := r.header
		csp := h.Get("Content-Security-Policy")
		for _, want := range []string{"default-src 'self'", "img-src 'self' data:", "script-src 'self'", "frame-ancestors 'none'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("%s: Content-Security-Policy %q lacks %q", path, csp, want)
			}
		}
		if strings.Contains(csp, "unsafe-inline") {
			t.Errorf("%s: the policy allows inline script or style: %q", path, csp)
		}
		if h.Get("X-Content-Type-Options") != "nosniff" || h.Get("X-Frame-Options") != "DENY" {
			t.Errorf("%s: headers %v", path, h)
		}
		if strings.Contains(r.body, "<script>") || strings.Contains(r.body, " style=") || strings.Contains(r.body, "<style") || regexp.MustCompile(` on[a-z]+=`).MatchString(r.body) {
			t.Errorf("%s: the page has inline script or style", path)
		}
	}
}

func TestAssets(t *testing.T) {
	env := newTestEnv(t, nil)
	b := env.browser(t)
	for _, tt := range []struct{ path, ctype, want string }{
		{"/assets/style.css?v=" + assetVersion, "text/css", "font: 16px/1.5 system-ui"},
		{"/assets/explorer.js", "text/javascript", "data-refines"},
	} {
		r := b.get(tt.path)
		if r.status != http.StatusOK || !strings.HasPrefix(r.header.Get("Content-Type"), tt.ctype) || !strings.Contains(r.body, tt.want) {
			t.Errorf("GET %s = %d %q", tt.path, r.status, r.header.Get("Content-Type"))
		}
	}
	if r := b.get("/assets/nope.css"); r.status != http.StatusNotFound {
		t.Errorf("GET /assets/nope.css = %d", r.status)
	}
	page := b.get("/").body
	if !strings.Contains(page, `href="/assets/style.css?v=`+assetVersion+`"`) || !strings.Contains(page, `src="/assets/explorer.js?v=`+assetVersion+`" defer`) {
		t.Error("the layout does not link the versioned assets")
	}
}

func TestEntitiesEndpoint(t *testing.T) {
	env := newTestEnv(t, nil)
	for _, tt := range []struct {
		user, query string
		want        string
	}{
		{"alice", "", `{"entities":[{"id":"1","label":"Blue Hours"},{"id":"3","label":"Harbour Lights"}]}`},
		{"alice", "?q=harb", `{"entities":[{"id":"3","label":"Harbour Lights"}]}`},
		{"bob", "?q=night", `{"entities":[{"id":"2","label":"Night Studies"}]}`},
		{"alice", "?q=night", `{"entities":[]}`},
	} {
		b := env.browser(t)
		b.signIn(tt.user)
		r := b.get("/entities/album" + tt.query)
		if r.status != http.StatusOK || strings.TrimSpace(r.body) != tt.want {
			t.Errorf("%s: GET /entities/album%s = %d %s, want %s", tt.user, tt.query, r.status, r.body, tt.want)
		}
	}
	if r := env.browser(t).get("/entities/track"); r.status != http.StatusNotFound {
		t.Errorf("an unknown entity type: %d", r.status)
	}
}

// TestRunEveryInput fills every field as a person would and runs the tool:
// the text typed reaches the tool coerced to each input's type.
func TestRunEveryInput(t *testing.T) {
	env := newTestEnv(t, nil)
	b := env.browser(t)
	b.signIn("alice")
	b.get("/tools/demo.every")
	r := b.post("/tools/demo.every", url.Values{
		"action":            {"run"},
		"in:title":          {"Hi there"},
		"in:notes":          {"two\nlines"},
		"in:count":          {"4"},
		"in:ratio":          {"0.5"},
		"in:flag":           {"false"},
		"in:mail":           {"ann@example.com"},
		"in:site":           {"https://example.com/"},
		"in:day":            {"2024-05-01"},
		"in:at":             {"2024-05-01T12:30"},
		"in:stamp":          {"2024-05-02T08:00:00"},
		"in:wait":           {"1h30m"},
		"in:color":          {"green"},
		"rows:tags":         {"3"},
		"in:tags[0]":        {"a"},
		"in:tags[1]":        {""},
		"in:tags[2]":        {"b"},
		"in:settings.limit": {"5"},
		"in:meta":           {`{"k": "v"}`},
		"in:extra":          {`[1, "two"]`},
		"in:album":          {"3"},
		"in:mode":           {"ignored: locked"},
	})
	if r.status != http.StatusOK {
		t.Fatalf("run = %d\n%s", r.status, r.body)
	}
	raw := html.UnescapeString(between(r.body, `<summary>Raw JSON</summary><pre class="code" tabindex="0" aria-label="Raw JSON of the outputs">`, "</pre>"))
	var out struct {
		Echo map[string]any `json:"echo"`
	}
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		t.Fatalf("raw JSON %q: %v", raw, err)
	}
	want := map[string]any{
		"title": "Hi there", "notes": "two\nlines", "count": 4.0, "ratio": 0.5, "flag": false,
		"mail": "ann@example.com", "site": "https://example.com/", "day": "2024-05-01T00:00:00Z",
		"at": "2024-05-01T12:30:00Z", "stamp": "2024-05-02T08:00:00Z", "wait": "1h30m0s", "color": "green",
		"tags": []any{"a", "b"}, "settings": map[string]any{"limit": 5.0}, "meta": map[string]any{"k": "v"},
		"extra": []any{1.0, "two"}, "album": "Harbour Lights", "mode": "safe",
	}
	if diff := cmp.Diff(want, out.Echo); diff != "" {
		t.Errorf("what the tool received (-want +got):\n%s", diff)
	}
	// The empty row is gone from the form shown after the run.
	if !strings.Contains(r.body, `name="rows:tags" value="2"`) {
		t.Error("the form after the run keeps the empty row")
	}
}

// TestViolationsNextToFields checks that each violation is shown at the
// field its path names, with what was typed kept.
func TestViolationsNextToFields(t *testing.T) {
	env := newTestEnv(t, nil)
	b := env.browser(t)
	b.signIn("alice")
	b.get("/tools/demo.every")
	r := b.post("/tools/demo.every", url.Values{
		"action":            {"run"},
		"in:title":          {"x"},
		"in:count":          {"eleven"},
		"rows:tags":         {"5"},
		"in:tags[0]":        {""},
		"in:tags[1]":        {"ok"},
		"in:tags[2]":        {"far too long"},
		"in:tags[3]":        {"ok2"},
		"in:tags[4]":        {"ok3"},
		"in:settings.label": {"no limit"},
		"in:meta":           {`{"k": 1}`},
		"in:mail":           {"not an address"},
		"in:album":          {"2"},
	})
	if r.status != http.StatusUnprocessableEntity {
		t.Fatalf("run = %d, want 422", r.status)
	}
	for _, want := range []string{
		`value="x" placeholder="Hello" aria-required="true" aria-invalid="true" aria-describedby="f-title-errors f-title-hint f-title-desc">`,
		`<ul class="violations" id="f-title-errors"><li>must be at least 2 characters long</li></ul>`,
		`value="eleven" min="1" max="10" step="1" aria-invalid="true"`,
		`<ul class="violations" id="f-count-errors"><li>must be a whole number such as 7</li></ul>`,
		// the empty first row is dropped: "far too long" is tags[1] now
		`name="in:tags[1]" value="far too long" aria-required="true" aria-invalid="true"`,
		`<ul class="violations" id="f-tags[1]-errors"><li>must be at most 5 characters long</li></ul>`,
		// the list itself
		`<ul class="violations" id="f-tags-errors"><li>must have at most 3 items</li></ul>`,
		// a property of a map
		`<ul class="violations" id="f-settings.limit-errors"><li>is required</li></ul>`,
		`name="in:settings.label" value="no limit"`,
		// a value inside a JSON text area goes to the text area
		`<ul class="violations" id="f-meta-errors"><li>k: must be a string</li></ul>`,
		`<ul class="violations" id="f-mail-errors"><li>must be an email address such as ann@example.com</li></ul>`,
	} {
		if !strings.Contains(r.body, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	if strings.Contains(r.body, `id="f-tags[0]-errors"`) {
		t.Error("a violation landed on the first tag, which is valid")
	}
}

// TestEntityAccessFailure: an album alice may not view is refused as an
// access failure, and the form keeps the album typed.
func TestEntityAccessFailure(t *testing.T) {
	env := newTestEnv(t, nil)
	b := env.browser(t)
	b.signIn("alice")
	b.get("/tools/demo.summarize")
	r := b.post("/tools/demo.summarize", url.Values{"action": {"run"}, "in:album": {"2"}})
	if r.status != http.StatusForbidden || !strings.Contains(r.body, "You may not view album 2 (input album).") || !strings.Contains(r.body, `name="in:album" value="2"`) {
		t.Errorf("alice summarizing a draft: %d\n%s", r.status, between(r.body, "<main>", "</main>"))
	}
	r = b.post("/tools/demo.summarize", url.Values{"action": {"run"}, "in:album": {"9"}})
	if r.status != http.StatusUnprocessableEntity || !strings.Contains(r.body, `<ul class="violations" id="f-album-errors"><li>no album has the label or ID “9”: type part of its label and choose Find by label</li></ul>`) {
		t.Errorf("summarizing album 9: %d\n%s", r.status, between(r.body, "<main>", "</main>"))
	}
}

func TestOutputs(t *testing.T) {
	env := newTestEnv(t, nil)
	b := env.browser(t)
	b.signIn("alice")
	b.get("/tools/demo.showcase")
	r := b.post("/tools/demo.showcase", url.Values{"action": {"run"}, "in:caption": {`<script>alert(1)</script><b onclick="x()">bold</b>`}})
	if r.status != http.StatusOK {
		t.Fatalf("run = %d", r.status)
	}
	res := between(r.body, `<section class="result ok"`, "</section>")
	for _, want := range []string{
		`<p class="message">✓ Showcase completed.</p>`,
		// text/html as escaped source
		`<code class="source" title="HTML, shown as its source">&lt;script&gt;alert(1)&lt;/script&gt;&lt;b onclick=&#34;x()&#34;&gt;bold&lt;/b&gt;</code>`,
		// an image/png output as an image from a data: URL
		`<img src="data:image/png;base64,` + pngPixel + `" alt="A picture." class="output-image">`,
		// an entity linked to the form of a tool that takes it, filled in
		`<a href="/tools/demo.summarize?in%3Aalbum=1" class="entity">Blue Hours</a> <span class="muted">album 1</span>`,
		// a list of maps as a table; an http URL is a link, a javascript: one is not
		`<thead><tr><th>#</th><th>Name</th><th>Home</th></tr></thead>`,
		`<a href="https://example.com/one" rel="noopener noreferrer nofollow">https://example.com/one</a>`,
		`<td data-label="Home"><span class="value">javascript:alert(1)</span></td>`,
		// a list of strings as a table, a map as a definition list
		`<tr><td class="muted">2</td><td><span class="value">beta</span></td></tr>`,
		`<dl class="map"><dt>Size</dt><dd><span class="value">3</span></dd></dl>`,
		// the raw JSON
		`<summary>Raw JSON</summary>`,
		`&#34;caption&#34;: &#34;&lt;script&gt;alert(1)&lt;/script&gt;`,
	} {
		if !strings.Contains(res, want) {
			t.Errorf("the result lacks %s", want)
		}
	}
	if strings.Contains(res, "<script>") || strings.Contains(res, `href="javascript`) {
		t.Errorf("the result holds live markup:\n%s", res)
	}
	// The entity link fills in the tool's form.
	page := b.get("/tools/demo.summarize?in%3Aalbum=1").body
	if !strings.Contains(page, `name="in:album" value="1"`) {
		t.Error("the entity link does not fill the form in")
	}
}

func TestSanitizedHTML(t *testing.T) {
	env := newTestEnv(t, &Options{SanitizeHTML: InlineHTML, EntityURL: func(ref tool.EntityRef) string { return "/albums/" + ref.ID }})
	b := env.browser(t)
	b.signIn("alice")
	b.get("/tools/demo.showcase")
	r := b.post("/tools/demo.showcase", url.Values{"action": {"run"}, "in:caption": {"<em>Calm</em> water"}})
	res := between(r.body, `<section class="result ok"`, "</section>")
	if !strings.Contains(res, `<span class="html"><em>Calm</em> water</span>`) {
		t.Errorf("sanitised caption not shown as markup:\n%s", res)
	}
	if !strings.Contains(res, `<a href="/albums/1" class="entity">Blue Hours</a>`) {
		t.Errorf("EntityURL not used:\n%s", res)
	}
	r = b.post("/tools/demo.showcase", url.Values{"action": {"run"}, "in:caption": {`<em onmouseover="x()">Calm</em>`}})
	res = between(r.body, `<section class="result ok"`, "</section>")
	if !strings.Contains(res, `<code class="source" title="HTML, shown as its source">&lt;em onmouseover=`) {
		t.Errorf("markup the sanitiser refuses is not shown as source:\n%s", res)
	}
}

func TestInlineHTML(t *testing.T) {
	tests := []struct {
		in   string
		want string
		ok   bool
	}{
		{"plain & simple", "plain &amp; simple", true},
		{"<em>a</em> <strong>b</strong><br>c<br/>", "<em>a</em> <strong>b</strong><br>c<br>", true},
		{"<b><i>x</i></b>", "<b><i>x</i></b>", true},
		{"a &lt; b", "a &amp;lt; b", true},
		{"<script>x</script>", "", false},
		{"<em class=x>a</em>", "", false},
		{"<EM>a</EM>", "", false},
		{"<em>a", "", false},
		{"<em>a</strong>", "", false},
		{"<b><i>x</b></i>", "", false},
		{"</em>", "", false},
		{"a < b", "", false},
		{`<img src=x onerror=alert(1)>`, "", false},
	}
	for _, tt := range tests {
		got, ok := InlineHTML(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("InlineHTML(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestConfirmation(t *testing.T) {
	env := newTestEnv(t, nil)
	b := env.browser(t)
	b.signIn("alice")
	page := b.get("/tools/demo.wipe").body
	if !strings.Contains(page, `<input type="checkbox" name="confirm" value="yes" id="confirm"> I understand this changes data, and I confirm this run.`) {
		t.Errorf("the destructive tool's form asks nothing:\n%s", between(page, "<form", "</form>"))
	}
	r := b.post("/tools/demo.wipe", url.Values{"action": {"run"}})
	if env.wipes != 0 || r.status != http.StatusUnprocessableEntity || !strings.Contains(r.body, "tick the box to confirm") {
		t.Errorf("unconfirmed run: wipes %d, status %d", env.wipes, r.status)
	}
	r = b.post("/tools/demo.wipe", url.Values{"action": {"run"}, "confirm": {"yes"}})
	if env.wipes != 1 || r.status != http.StatusOK || !strings.Contains(r.body, "✓ Wiped.") {
		t.Errorf("confirmed run: wipes %d, status %d", env.wipes, r.status)
	}
	if !strings.Contains(r.body, `<input type="checkbox" name="confirm" value="yes" id="confirm"> I understand`) {
		t.Error("the box stays ticked after a run, so the next run would need no confirmation")
	}
}

func TestRefine(t *testing.T) {
	env := newTestEnv(t, nil)
	b := env.browser(t)
	b.signIn("alice")
	page := b.get("/tools/demo.travel").body
	if !strings.Contains(page, `<form method="post" action="/tools/demo.travel" novalidate id="run-form" data-refines>`) ||
		!strings.Contains(page, `<button type="submit" name="action" value="refresh" class="secondary" id="refresh">Refresh choices</button>`) ||
		!strings.Contains(page, `<div class="field" data-refined>`) || !strings.Contains(page, `<input type="text" id="f-city"`) {
		t.Errorf("the form of a refined tool:\n%s", between(page, "<form", "</form>"))
	}
	r := b.post("/tools/demo.travel", url.Values{"action": {"refresh"}, "in:country": {"fr"}})
	if r.status != http.StatusOK || !strings.Contains(r.body, `<select id="f-city" name="in:city" aria-required="true" aria-describedby="f-city-hint"><option value="" selected>(none)</option><option value="Paris">Paris</option><option value="Lyon">Lyon</option></select>`) {
		t.Errorf("after refreshing with fr:\n%s", between(r.body, `<form method="post" action="/tools`, "</form>"))
	}
	if strings.Contains(r.body, `id="result"`) {
		t.Error("refresh ran the tool")
	}
	// Country changed to it, Paris still picked: the run validates by the
	// refined definition, and the form shows Milan and Rome.
	r = b.post("/tools/demo.travel", url.Values{"action": {"run"}, "in:country": {"it"}, "in:city": {"Paris"}})
	if r.status != http.StatusUnprocessableEntity ||
		!strings.Contains(r.body, `<option value="Rome">Rome</option><option value="Milan">Milan</option><option value="Paris" selected>Paris (not a choice)</option>`) ||
		!strings.Contains(r.body, `<ul class="violations" id="f-city-errors"><li>must be one of: Rome, Milan</li></ul>`) {
		t.Errorf("running with a city of another country: %d\n%s", r.status, between(r.body, "<main>", "</main>"))
	}
	r = b.post("/tools/demo.travel", url.Values{"action": {"run"}, "in:country": {"it"}, "in:city": {"Rome"}})
	if r.status != http.StatusOK || !strings.Contains(r.body, "Rome, it") {
		t.Errorf("running with Rome: %d", r.status)
	}
}

func TestRowsAndEntityPicker(t *testing.T) {
	env := newTestEnv(t, nil)
	b := env.browser(t)
	b.signIn("alice")
	b.get("/tools/demo.every")
	r := b.post("/tools/demo.every", url.Values{"action": {"add:tags"}, "rows:tags": {"1"}, "in:tags[0]": {"a"}, "in:title": {"kept"}})
	if !strings.Contains(r.body, `name="rows:tags" value="2"`) || !strings.Contains(r.body, `name="in:tags[0]" value="a"`) ||
		!strings.Contains(r.body, `name="in:tags[1]" value=""`) || !strings.Contains(r.body, `name="in:title" value="kept"`) ||
		!strings.Contains(r.body, `value="remove:tags"`) {
		t.Errorf("after adding a row:\n%s", between(r.body, "<fieldset class=\"list", "</fieldset>"))
	}
	if strings.Contains(r.body, `id="result"`) {
		t.Error("adding a row ran the tool")
	}
	r = b.post("/tools/demo.every", url.Values{"action": {"remove:tags"}, "rows:tags": {"2"}, "in:tags[0]": {"a"}, "in:tags[1]": {"b"}})
	if !strings.Contains(r.body, `name="rows:tags" value="1"`) || strings.Contains(r.body, `value="b"`) {
		t.Errorf("after removing a row:\n%s", between(r.body, "<fieldset class=\"list", "</fieldset>"))
	}

	// Find by label, then pick.
	r = b.post("/tools/demo.every", url.Values{"action": {"find:album"}, "in:album": {"harb"}})
	if !strings.Contains(r.body, `<button type="submit" name="action" value="pick:album=3" class="pick" id="f-album-pick-0">Harbour Lights <span class="muted">3</span></button>`) ||
		strings.Contains(r.body, `value="pick:album=1"`) {
		t.Errorf("after finding harb:\n%s", between(r.body, `<div class="picker">`, "</div>\n"))
	}
	r = b.post("/tools/demo.every", url.Values{"action": {"find:album"}, "in:album": {"zzz"}})
	if !strings.Contains(r.body, "No album has a label containing “zzz”.") {
		t.Error("a search finding nothing says nothing")
	}
	r = b.post("/tools/demo.every", url.Values{"action": {"pick:album=3"}, "in:album": {"harb"}})
	if !strings.Contains(r.body, `name="in:album" value="3"`) {
		t.Errorf("after picking:\n%s", between(r.body, `<div class="picker">`, "</div>"))
	}
	// The datalist offers the albums alice may view.
	if !strings.Contains(r.body, `<datalist id="entities-album"><option value="1">Blue Hours</option><option value="3">Harbour Lights</option></datalist>`) {
		t.Error("the datalist of albums is missing")
	}
	if r := b.post("/tools/demo.every", url.Values{"action": {"explode"}}); r.status != http.StatusBadRequest {
		t.Errorf("an unknown action: %d", r.status)
	}
}

// TestPrefix serves the explorer under /ops/: every link, form and cookie
// stays under it.
func TestPrefix(t *testing.T) {
	env := newTestEnv(t, &Options{Prefix: "/ops/"})
	mux := http.NewServeMux()
	mux.Handle("/ops/", http.StripPrefix("/ops", env.exp))
	env.srv = newServer(t, mux)
	b := env.browser(t)
	b.get("/ops/signin")
	b.c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	r := b.post("/ops/signin", url.Values{"name": {"alice"}, "password": {testPassword}})
	if c := sessionCookie(t, r.header); r.header.Get("Location") != "/ops/" || c == nil || c.Path != "/ops/" {
		t.Fatalf("signing in under /ops/: %d, Location %q, cookie %+v", r.status, r.header.Get("Location"), c)
	}
	b.c.CheckRedirect = nil
	page := b.get("/ops/").body
	for _, want := range []string{`<a href="/ops/tools/demo.every">Every input</a>`, `href="/ops/assets/style.css?v=`, `action="/ops/signout"`, `<form method="get" action="/ops/"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the list under /ops/ lacks %s", want)
		}
	}
	page = b.get("/ops/tools/demo.every").body
	if !strings.Contains(page, `action="/ops/tools/demo.every"`) || !strings.Contains(page, `data-entities="/ops/entities/album"`) {
		t.Error("the tool page's form or entity search is not under /ops/")
	}
	if r := b.post("/ops/tools/demo.showcase", url.Values{"action": {"run"}}); r.status != http.StatusOK ||
		!strings.Contains(r.body, `href="/ops/tools/demo.summarize?in%3Aalbum=1"`) {
		t.Errorf("a run under /ops/: %d", r.status)
	}
}
