package explorer

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"

	"github.com/toolapi/toolapi/internal/testenv"
	"github.com/toolapi/toolapi/mcpserver"
	"github.com/toolapi/toolapi/tool"
)

// TestAppsOfEveryInput shows the apps of this package's test tools in the
// host, served by mcpserver: a proposal holding a value of every kind of
// input fills the form (list rows, map properties, dates, a checkbox) and
// comes back from it unchanged, list rows are added and removed without a
// server, and outputs of every kind render as the explorer renders them,
// with no script of theirs running.
func TestAppsOfEveryInput(t *testing.T) {
	testenv.NeedFull(t)
	axe := axeScript(t)
	bundle := appHostBundle(t)
	env := newTestEnv(t, nil)
	srv := mcpserver.New(env.reg, &mcpserver.Options{Name: "demo", Apps: NewApps(env.reg, nil),
		Authenticate: func(r *http.Request) (tool.Account, error) { return testUsers["bob"], nil }})
	mux := http.NewServeMux()
	mux.Handle("/mcp", srv.Handler())
	ms := httptest.NewServer(mux)
	t.Cleanup(ms.Close)
	base := startAppHost(t, ms.URL, bundle)

	h := newAppHost(t, viewports[0], axe)
	h.do("opening the host", chromedp.Navigate(base+"/"), chromedp.WaitVisible(css("#frame-box")))
	h.hostEval(`host.connect("any")`, nil)

	proposal := `{"title": "Hi there", "notes": "Two\nlines", "count": 3, "ratio": 0.5, "flag": false, "mail": "a@example.com",
		"site": "https://example.com/x", "day": "2024-05-06", "at": "2024-05-06T07:08:00Z", "wait": "PT1H", "color": "green",
		"tags": ["a", "b", "c"], "settings": {"limit": 5, "label": "L"}, "meta": {"k": "v"}, "extra": [1, "two"], "album": "2"}`
	h.open("demo__every", proposal, false)
	h.waitApp("the proposal's check", `document.getElementById("status").textContent.includes("valid")`)
	if status := h.appText("#status"); !strings.Contains(status, "The proposal is valid") {
		t.Errorf("every: status %q", status)
	}
	var form struct {
		Rows    int
		Tag2    string
		Limit   string
		Flag    bool
		At, Day string
		Album   string
	}
	h.appEval(`({rows: document.querySelectorAll("#f-tags > ol.rows > li").length, tag2: document.getElementById("f-tags[2]").value,
		limit: document.getElementById("f-settings.limit").value, flag: document.getElementById("f-flag").checked,
		at: document.getElementById("f-at").value, day: document.getElementById("f-day").value, album: document.getElementById("f-album").value})`, &form)
	if want := (struct {
		Rows    int
		Tag2    string
		Limit   string
		Flag    bool
		At, Day string
		Album   string
	}{3, "c", "5", false, "2024-05-06T07:08", "2024-05-06", "2"}); form != want {
		t.Errorf("every: the form holds %+v, want %+v", form, want)
	}
	h.checkApp("every-seeded")
	h.click("#run")
	h.waitApp("the echo", `!document.getElementById("result").hidden`)
	var sent, want map[string]any
	h.hostEval(`host.lastArgs`, &sent)
	if err := json.Unmarshal([]byte(proposal), &want); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, sent); d != "" {
		t.Errorf("every: the arguments sent differ from the proposal (-want +sent):\n%s", d)
	}
	if out := h.appText("#outputs"); !strings.Contains(out, "Hi there") || !strings.Contains(out, "Night Studies") {
		t.Errorf("every: the echo shows:\n%s", out)
	}

	// Rows: add one, delete the second; the empty row is not sent.
	h.click(`button[value="add:tags"]`)
	h.click(`button[value="delete:tags[1]"]`)
	var rows []string
	h.appEval(`[...document.querySelectorAll("#f-tags > ol.rows > li input")].map(i => i.name + "=" + i.value)`, &rows)
	if d := cmp.Diff([]string{"in:tags[0]=a", "in:tags[1]=c", "in:tags[2]="}, rows); d != "" {
		t.Errorf("every: rows after adding and deleting (-want +got):\n%s", d)
	}
	h.click("#run")
	h.waitApp("the second echo", `document.getElementById("status").textContent.includes("completed")`)
	var tags []string
	h.hostEval(`host.lastArgs.tags`, &tags)
	if d := cmp.Diff([]string{"a", "c"}, tags); d != "" {
		t.Errorf("every: tags sent (-want +got):\n%s", d)
	}
	h.checkApp("every-result")

	// Refined choices: picking a country rereads the page with the
	// form's values and takes its refined city field.
	h.open("demo__travel", "", false)
	h.waitApp("the travel form", `document.getElementById("f-country")`)
	h.appEval(`(() => { const el = document.getElementById("f-country"); el.value = "it"; el.dispatchEvent(new Event("change", {bubbles: true})); })()`, nil)
	h.waitApp("the refined cities", `[...document.querySelectorAll("#f-city option")].some(o => o.value === "Rome")`)
	var cities []string
	h.appEval(`[...document.querySelectorAll("#f-city option")].map(o => o.value)`, &cities)
	if d := cmp.Diff([]string{"", "Rome", "Milan"}, cities); d != "" {
		t.Errorf("travel: the cities offered (-want +got):\n%s", d)
	}
	h.set("#f-city", "Milan")
	h.click("#run")
	h.waitApp("the trip", `!document.getElementById("result").hidden`)
	if out := h.appText("#outputs"); !strings.Contains(out, "Milan, it") {
		t.Errorf("travel: the outputs say:\n%s", out)
	}
	h.checkApp("travel-result")

	// Outputs of every kind.
	h.open("demo__showcase", `{"caption": "<img src=x onerror=alert(1)>"}`, false)
	h.waitApp("the showcase form", `document.getElementById("status").textContent.includes("valid")`)
	h.click("#run")
	h.waitApp("the showcase", `!document.getElementById("result").hidden`)
	var shown struct {
		Image, Source, Entity string
		Rows                  int
		Words                 string
		Unsafe                int
	}
	h.appEval(`({image: (document.querySelector("#outputs img.output-image") || {}).src || "",
		source: (document.querySelector("#outputs code.source") || {}).textContent || "",
		entity: (document.querySelector("#outputs .entity") || {}).textContent || "",
		rows: document.querySelectorAll("#outputs table.data.stack tbody tr").length,
		words: [...document.querySelectorAll("#outputs table.data:not(.stack) td:last-child")].map(td => td.textContent).join(","),
		unsafe: document.querySelectorAll("#outputs a[href^='javascript'], #outputs img:not(.output-image)").length})`, &shown)
	if !strings.HasPrefix(shown.Image, "data:image/png;base64,") || shown.Source != "<img src=x onerror=alert(1)>" ||
		shown.Entity != "Blue Hours" || shown.Rows != 2 || shown.Words != "alpha,beta" || shown.Unsafe != 0 {
		t.Errorf("showcase: %+v", shown)
	}
	if n := h.dialogs.Load(); n != 0 {
		t.Errorf("showcase: %d dialogs opened", n)
	}
	h.checkApp("showcase-result")
}
