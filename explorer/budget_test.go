package explorer

import (
	"context"
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/toolapi/toolapi/tool"
)

// budgetTools returns demo.pages, a list of 8 numbers paged by 3, and
// demo.big, whose text is over its budget of 200 bytes.
func budgetTools() []*tool.Tool {
	return []*tool.Tool{{
		ID: "demo.pages", Label: "Pages", Description: "Lists numbers.", Operation: tool.OpRead, Permission: "use demo",
		Budget:  tool.Budget{Items: 3},
		Outputs: []*tool.Definition{{Name: "result", Type: "list", Required: true, Items: &tool.Definition{Type: "integer"}}},
		Handler: func(context.Context, *tool.Values) (*tool.Result, error) {
			return tool.Succeeded("", map[string]any{"result": []any{int64(0), int64(1), int64(2), int64(3), int64(4), int64(5), int64(6), int64(7)}}), nil
		},
	}, {
		ID: "demo.big", Label: "Big", Description: "Writes a report.", Operation: tool.OpRead, Permission: "use demo",
		Budget:  tool.Budget{Bytes: 200},
		Outputs: []*tool.Definition{{Name: "report", Type: "string", Required: true}},
		Handler: func(context.Context, *tool.Values) (*tool.Result, error) {
			return tool.Succeeded("", map[string]any{"report": strings.Repeat("r", 1000)}), nil
		},
	}}
}

// rawOutputs returns the outputs a run's page shows as raw JSON.
func rawOutputs(t *testing.T, body string) map[string]any {
	t.Helper()
	raw := html.UnescapeString(between(body, `aria-label="Raw JSON of the outputs">`, `</pre>`))
	var out map[string]any
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		t.Fatalf("raw outputs %q: %v", raw, err)
	}
	return out
}

// TestBudgetPages: the form of a paged tool has the cursor field, a page
// shows the next cursor, the cursor gives the next page, and another
// person's cursor is refused on the form.
func TestBudgetPages(t *testing.T) {
	env := newTestEnv(t, nil)
	if err := env.reg.Add(budgetTools()...); err != nil {
		t.Fatal(err)
	}
	alice := env.browser(t)
	alice.signIn("alice")
	if r := alice.get("/tools/demo.pages"); !strings.Contains(r.body, `name="in:cursor"`) {
		t.Fatalf("the form has no cursor field")
	}
	r := alice.post("/tools/demo.pages", url.Values{"action": {"run"}})
	first := rawOutputs(t, r.body)
	cursor, _ := first["next_cursor"].(string)
	if cursor == "" || len(first["result"].([]any)) != 3 {
		t.Fatalf("first page: %v", first)
	}
	next := html.UnescapeString(between(r.body, `<p class="next-page" id="next-page"><a href="`, `"`))
	if filled := alice.get(next).body; !strings.Contains(filled, `name="in:cursor" value="`+cursor+`"`) {
		t.Errorf("the next page's link %s does not fill in the cursor", next)
	}
	second := rawOutputs(t, alice.post("/tools/demo.pages", url.Values{"action": {"run"}, "in:cursor": {cursor}}).body)
	if got := second["result"].([]any); len(got) != 3 || got[0] != 3.0 {
		t.Errorf("second page: %v", second)
	}
	alice.get("/tools/demo.pages")
	r = alice.post("/tools/demo.pages", url.Values{"action": {"run"}, "in:cursor": {second["next_cursor"].(string)}})
	if third := rawOutputs(t, r.body); len(third["result"].([]any)) != 2 || third["next_cursor"] != nil || strings.Contains(r.body, `id="next-page"`) {
		t.Errorf("last page: %v, with a link to a next page: %v", third, strings.Contains(r.body, `id="next-page"`))
	}
	bob := env.browser(t)
	bob.signIn("bob")
	bob.get("/tools/demo.pages")
	r = bob.post("/tools/demo.pages", url.Values{"action": {"run"}, "in:cursor": {cursor}})
	if !strings.Contains(r.body, "is not a cursor this tool gave") {
		t.Errorf("bob's run with alice's cursor is not refused:\n%s", between(r.body, `<main`, `</main>`))
	}
}

// TestBudgetOverflowLink: a result over its byte budget links to its
// outputs, which the person who ran it views and downloads, and no one
// else.
func TestBudgetOverflowLink(t *testing.T) {
	env := newTestEnv(t, nil)
	if err := env.reg.Add(budgetTools()...); err != nil {
		t.Fatal(err)
	}
	alice := env.browser(t)
	alice.signIn("alice")
	alice.get("/tools/demo.big")
	r := alice.post("/tools/demo.big", url.Values{"action": {"run"}})
	link := html.UnescapeString(between(r.body, `<p class="overflow" id="overflow"><a href="`, `"`))
	if !strings.HasPrefix(link, "/overflow/") {
		t.Fatalf("no link to the outputs:\n%s", between(r.body, `<section class="result`, `</section>`))
	}
	got := alice.get(link)
	var out map[string]any
	if got.status != http.StatusOK || got.header.Get("Content-Type") != "application/json" || json.Unmarshal([]byte(got.body), &out) != nil ||
		out["report"] != strings.Repeat("r", 1000) {
		t.Errorf("viewing the outputs: %d %s", got.status, got.header.Get("Content-Type"))
	}
	if d := alice.get(link + "?download=1"); d.header.Get("Content-Disposition") != `attachment; filename="demo.big.json"` {
		t.Errorf("download: Content-Disposition %q", d.header.Get("Content-Disposition"))
	}
	bob := env.browser(t)
	bob.signIn("bob")
	if r := bob.get(link); r.status != http.StatusNotFound || strings.Contains(r.body, "rrrr") {
		t.Errorf("bob viewing alice's outputs: %d", r.status)
	}
	if r := env.browser(t).get(link); r.status != http.StatusNotFound {
		t.Errorf("a visitor viewing alice's outputs: %d", r.status)
	}
}
