package explorer

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/toolapi/toolapi/tool"
)

// narrowEnv is the test environment with demo.look, a read tool of the
// viewer toolset.
func narrowEnv(t *testing.T) *testEnv {
	t.Helper()
	env := newTestEnv(t, nil)
	err := env.reg.Add(&tool.Tool{
		ID: "demo.look", Label: "Look", Description: "Looks around.", Operation: tool.OpRead, Permission: "use demo",
		Groups:  []string{"viewer"},
		Handler: func(context.Context, *tool.Values) (*tool.Result, error) { return tool.Succeeded("Looked.", nil), nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	return env
}

func TestNarrowedPages(t *testing.T) {
	env := narrowEnv(t)
	b := env.browser(t)
	b.signIn("alice")
	list := b.get("/?groups=viewer").body
	if !strings.Contains(list, "demo.look") || strings.Contains(list, "demo.wipe") || strings.Contains(list, "demo.travel") {
		t.Errorf("list under groups=viewer:\n%s", between(list, "<main", "</main>"))
	}
	if !strings.Contains(list, `/tools/demo.look?groups=viewer`) {
		t.Error("the list's links drop the narrowing")
	}
	list = b.get("/?readonly=1").body
	if !strings.Contains(list, "demo.travel") || strings.Contains(list, "demo.wipe") {
		t.Errorf("list under readonly=1:\n%s", between(list, "<main", "</main>"))
	}
	// A tool outside the narrowing is answered as one that does not exist.
	none := b.get("/tools/demo.nothing")
	for _, path := range []string{"/tools/demo.wipe?readonly=1", "/tools/demo.travel?groups=viewer"} {
		r := b.get(path)
		if r.status != none.status || !strings.Contains(r.body, "There is no tool with this ID that your account may see.") {
			t.Errorf("GET %s: %d, want the page of an unknown tool (%d)", path, r.status, none.status)
		}
	}
	page := b.get("/tools/demo.look?groups=viewer").body
	if !strings.Contains(page, `action="/tools/demo.look?groups=viewer"`) {
		t.Errorf("the form drops the narrowing:\n%s", between(page, "<form", ">"))
	}
}

func TestNarrowedRunRefused(t *testing.T) {
	env := narrowEnv(t)
	b := env.browser(t)
	b.signIn("alice")
	b.get("/tools/demo.wipe")
	for _, q := range []string{"?readonly=1", "?groups=viewer"} {
		r := b.post("/tools/demo.wipe"+q, url.Values{"action": {"run"}, "confirm": {"yes"}})
		if r.status != http.StatusNotFound || env.wipes != 0 {
			t.Errorf("run of demo.wipe%s: status %d, %d wipes; want 404 and none", q, r.status, env.wipes)
		}
	}
	b.get("/tools/demo.look?groups=viewer")
	r := b.post("/tools/demo.look?groups=viewer", url.Values{"action": {"run"}})
	if r.status != http.StatusOK || !strings.Contains(r.body, "Looked.") {
		t.Errorf("run of demo.look under viewer: %d", r.status)
	}
	// Without the narrowing the same account runs it.
	b.get("/tools/demo.wipe")
	if r := b.post("/tools/demo.wipe", url.Values{"action": {"run"}, "confirm": {"yes"}}); env.wipes != 1 {
		t.Errorf("run of demo.wipe without a narrowing: %d, %d wipes", r.status, env.wipes)
	}
}

func TestNarrowedUnknownGroupPage(t *testing.T) {
	env := narrowEnv(t)
	b := env.browser(t)
	for path, want := range map[string]string{
		"/?groups=admins":  `unknown tool group &#34;admins&#34;: no tool declares it (the groups are viewer)`,
		"/?readonly=maybe": "The query parameter readonly must be 1, true, 0 or false.",
	} {
		r := b.get(path)
		if r.status != http.StatusBadRequest || !strings.Contains(r.body, want) {
			t.Errorf("GET %s: %d, want 400 with %q\n%s", path, r.status, want, between(r.body, "<main", "</main>"))
		}
	}
}
