package explorer

import (
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestRunExtras: after a run the page offers the run as a command line,
// curl against /mcp and an MCP request; the tool page lists the person's
// runs; a link fills the form in as it was.
func TestRunExtras(t *testing.T) {
	env := newTestEnv(t, nil)
	b := env.browser(t)
	b.signIn("alice")
	b.get("/tools/demo.every")
	r := b.post("/tools/demo.every", url.Values{"action": {"run"}, "in:title": {"Hi there"}, "in:count": {"3"}, "in:wait": {"90s"},
		"rows:tags": {"2"}, "in:tags[0]": {"a"}, "in:tags[1]": {"b"}})
	if r.status != http.StatusOK {
		t.Fatalf("run: %d", r.status)
	}
	page := html.UnescapeString(r.body)
	for _, want := range []string{
		`demo tool run demo.every --input '{"count":3,"tags":["a","b"],"title":"Hi there","wait":"PT1M30S"}'`,
		`MCP=http://127.0.0.1:`,
		`curl -sS "${H[@]}" "$MCP" -d '{"id":1,"jsonrpc":"2.0","method":"tools/call"`,
		`"method":"tools/call","params":{"arguments":{"count":3,"tags":["a","b"],"title":"Hi there","wait":"PT1M30S"},"name":"demo__every"}`,
		`"method": "tools/call"`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the run's page lacks %s", want)
		}
	}
	// The history lists the run, linked to its page.
	if !strings.Contains(r.body, `<h2 id="history-h">Your recent runs</h2>`) || !strings.Contains(page, "count=3, tags=[\"a\",\"b\"], title=Hi there, wait=90s") {
		t.Errorf("the history:\n%s", between(r.body, `<section class="history"`, "</section>"))
	}
	// The link fills the form in.
	share := html.UnescapeString(between(r.body, `<p class="share"><a href="`, `"`))
	filled := b.get(share).body
	for _, want := range []string{`name="in:title" value="Hi there"`, `name="in:tags[1]" value="b"`, `name="in:wait" value="90s"`} {
		if !strings.Contains(filled, want) {
			t.Errorf("the shared link %s does not fill in %s", share, want)
		}
	}
}

// TestJSONInputs: the inputs may be given as JSON; broken JSON says where
// it broke.
func TestJSONInputs(t *testing.T) {
	env := newTestEnv(t, nil)
	b := env.browser(t)
	b.signIn("alice")
	b.get("/tools/demo.every")
	r := b.post("/tools/demo.every", url.Values{"action": {"run-json"}, "json_inputs": {`{"title": "From JSON", "count": 2}`}})
	if r.status != http.StatusOK || !strings.Contains(r.body, "From JSON") || !strings.Contains(r.body, "✓") {
		t.Errorf("running JSON inputs: %d", r.status)
	}
	for _, tt := range []struct{ json, want string }{
		{"{\"title\": \"x\",\n  \"count\": 2,,\n}", "The JSON is broken at line 2, column 14"},
		{`{"title": "x"`, "The JSON stops before it is complete"},
		{`[1, 2]`, "The inputs must be one JSON object in braces"},
		{`{"a": 1} {"b": 2}`, "The JSON goes on after its object ends, at line 1, column 10."},
		{``, "Type the inputs as a JSON object"},
	} {
		r := b.post("/tools/demo.every", url.Values{"action": {"run-json"}, "json_inputs": {tt.json}})
		if r.status != http.StatusUnprocessableEntity || !strings.Contains(html.UnescapeString(r.body), tt.want) {
			t.Errorf("JSON %q: %d, want %q in\n%s", tt.json, r.status, tt.want, between(r.body, `<details class="json-mode"`, "</details>"))
		}
	}
}
