package explorer

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"
	"github.com/toolapi/toolapi/internal/testenv"
)

// axeVersion is the axe-core release the accessibility checks use,
// installed with
//
//	npm install --prefix .cache/axe axe-core@4.14.1
//
// at the repository's root ($AXE_CORE names another axe.min.js).
const axeVersion = "4.14.1"

// axeScript returns the source of axe.min.js; it skips the test when it is
// missing, except on CI (CI=true), where it fails.
func axeScript(t *testing.T) string {
	t.Helper()
	p := os.Getenv("AXE_CORE")
	if p == "" {
		p = filepath.Join("..", ".cache", "axe", "node_modules", "axe-core", "axe.min.js")
	}
	b, err := os.ReadFile(p)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("axe-core is not installed, and CI=true: npm install --prefix .cache/axe axe-core@%s (%v)", axeVersion, err)
		}
		t.Skipf("axe-core is not installed (npm install --prefix .cache/axe axe-core@%s); skipping", axeVersion)
	}
	return string(b)
}

// A viewport is a window size the pages must work at.
type viewport struct {
	name          string
	width, height int64
	mobile        bool
}

var viewports = []viewport{
	{"desktop", 1280, 900, false},
	{"phone", 390, 844, true},
}

// people drives one chromium tab at one viewport, checking every page
// state it is shown with axe-core and for horizontal scrolling.
type people struct {
	*chrome
	vp    viewport
	axe   string
	shots string
	album *albumServer
}

// check runs axe-core on the page and fails the test on any serious or
// critical violation; it also fails when the page scrolls sideways, and
// writes a screenshot named after the state.
func (p *people) check(state string) {
	p.t.Helper()
	if _, err := chromedp.Run(p.ctx, chromedp.Evaluate[chromedp.Void](p.axe)); err != nil {
		p.t.Fatalf("%s: injecting axe-core: %v", state, err)
	}
	raw, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](`axe.run(document, {resultTypes: ["violations"]}).then(r => JSON.stringify(
		r.violations.filter(v => v.impact === "serious" || v.impact === "critical").map(v => ({id: v.id, impact: v.impact, help: v.help,
			nodes: v.nodes.slice(0, 3).map(n => n.target.join(" ") + ": " + n.failureSummary)}))))`, chromedp.EvalAwaitPromise))
	if err != nil {
		p.t.Fatalf("%s: running axe-core: %v", state, err)
	}
	var vs []struct {
		ID, Impact, Help string
		Nodes            []string
	}
	if err := json.Unmarshal([]byte(raw), &vs); err != nil {
		p.t.Fatalf("%s: axe-core said %s: %v", state, raw, err)
	}
	for _, v := range vs {
		p.t.Errorf("%s at %s: axe-core %s violation %s (%s):\n\t%s", state, p.vp.name, v.Impact, v.ID, v.Help, strings.Join(v.Nodes, "\n\t"))
	}
	wide, err := chromedp.Run(p.ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth - document.documentElement.clientWidth`))
	if err != nil {
		p.t.Fatal(err)
	}
	if wide > 0 {
		culprits, _ := chromedp.Run(p.ctx, chromedp.Evaluate[string](`[...document.querySelectorAll("body *")].filter(e => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
			.slice(-5).map(e => e.tagName + (e.id ? "#" + e.id : "") + "." + e.className).join(", ")`))
		p.t.Errorf("%s at %s: the page is %d px wider than the window (%s)", state, p.vp.name, wide, culprits)
	}
	p.shoot(p.shots, p.vp.name+"-"+state+".png")
}

// inView reports whether the top of the element sel, and at least its
// first 80 pixels, are inside the window without scrolling.
func (p *people) inView(sel string) bool {
	p.t.Helper()
	ok, err := chromedp.Run(p.ctx, chromedp.Evaluate[bool](`(() => { const r = document.querySelector(`+strconv.Quote(sel)+`).getBoundingClientRect();
		return r.top >= 0 && Math.min(r.bottom, r.top + 80) <= window.innerHeight; })()`))
	if err != nil {
		p.t.Fatalf("locating %s: %v", sel, err)
	}
	return ok
}

func (p *people) focused() string {
	p.t.Helper()
	id, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](`document.activeElement ? (document.activeElement.id || document.activeElement.tagName) : ""`))
	if err != nil {
		p.t.Fatal(err)
	}
	return id
}

func (p *people) title() string {
	p.t.Helper()
	s, err := chromedp.Run(p.ctx, chromedp.Title())
	if err != nil {
		p.t.Fatal(err)
	}
	return s
}

func (p *people) tracks(album string) int {
	p.t.Helper()
	db, err := sql.Open("sqlite", p.album.db)
	if err != nil {
		p.t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT COUNT(*) FROM tracks t JOIN albums a ON a.id = t.album_id WHERE a.title = $1`, album).Scan(&n); err != nil {
		p.t.Fatal(err)
	}
	return n
}

func (p *people) albumID(title string) string {
	p.t.Helper()
	db, err := sql.Open("sqlite", p.album.db)
	if err != nil {
		p.t.Fatal(err)
	}
	defer db.Close()
	var id int
	if err := db.QueryRow(`SELECT id FROM albums WHERE title = $1`, title).Scan(&id); err != nil {
		p.t.Fatal(err)
	}
	return strconv.Itoa(id)
}

// TestBrowserForPeople walks through the explorer of the album demo as a
// person would, at a desktop and at a phone's size: every page state is
// checked with axe-core (no serious or critical violation) and for
// sideways scrolling, and written as a screenshot.
func TestBrowserForPeople(t *testing.T) {
	testenv.NeedFull(t)
	axe := axeScript(t)
	album := startAlbum(t)
	for _, vp := range viewports {
		t.Run(vp.name, func(t *testing.T) {
			p := newPeople(t, vp, axe)
			p.album = album
			walkExplorer(t, p)
		})
	}
}

// newPeople starts chromium with its window at the viewport vp, checking
// pages with the axe-core source axe.
func newPeople(t *testing.T, vp viewport, axe string) *people {
	t.Helper()
	c := newChrome(t)
	var opts []chromedp.EmulateViewportOption
	if vp.mobile {
		opts = append(opts, chromedp.EmulateMobile)
	}
	c.do("sizing the window", chromedp.EmulateViewport(vp.width, vp.height, opts...))
	return &people{chrome: c, vp: vp, axe: axe, shots: screenshotDir(t)}
}

func walkExplorer(t *testing.T, p *people) {
	base := p.album.base
	p.do("opening the sign-in page", chromedp.Navigate(base+"/signin"), chromedp.WaitVisible(css("#name")))
	p.check("signin")
	p.do("signing in",
		chromedp.SendKeys(css("#name"), "editor"),
		chromedp.SendKeys(css("#password"), p.album.token),
		chromedp.Click(css("form.signin button[type=submit]")),
		chromedp.WaitVisible(css("table.tools")),
	)
	p.check("list")

	// A double click on Run adds one track, and the result is in view
	// with the focus on it.
	before := p.tracks("Blue Hours")
	p.do("opening album.add_track", chromedp.Navigate(base+"/tools/album.add_track"), chromedp.WaitVisible(css("#f-title")))
	p.check("tool")
	p.do("filling in a track",
		// The album by its label, as a person knows it.
		chromedp.SetValue(css("#f-album"), "Blue Hours"),
		chromedp.SendKeys(css("#f-title"), "Coda "+p.vp.name),
		chromedp.Evaluate[chromedp.Void](`(() => { const b = document.getElementById("run"); b.click(); setTimeout(() => b.click(), 150); })()`),
		chromedp.WaitVisible(css("#result")),
	)
	if got := p.tracks("Blue Hours"); got != before+1 {
		t.Errorf("a double click on Run added %d tracks, want 1", got-before)
	}
	if !p.inView("#result .message") {
		t.Error("the result of album.add_track is not in view after the run")
	}
	if got := p.focused(); got != "result" {
		t.Errorf("focus after the run is on %q, want the result", got)
	}
	if got := p.title(); !strings.HasPrefix(got, "Completed: ") {
		t.Errorf("title after the run = %q", got)
	}
	p.check("result")
	// Reload shows the run again, without running it.
	p.do("reloading", chromedp.Reload(), chromedp.WaitVisible(css("#result")))
	if got := p.tracks("Blue Hours"); got != before+1 {
		t.Errorf("reloading the result added %d tracks", got-before-1)
	}
	title, album := "Coda "+p.vp.name, p.value("#f-album")
	checkCopies(t, p, title)
	p.check("copies")
	checkShared(t, p, title, album)
	p.check("shared")
	rerunFromHistory(t, p, title, album)
	p.check("rerun")

	// A failed run focuses the error summary, which links to the field.
	p.do("running album.list with a year out of range",
		chromedp.Navigate(base+"/tools/album.list"),
		chromedp.WaitVisible(css("#f-year")),
		chromedp.SendKeys(css("#f-year"), "3000"),
		chromedp.Click(css("#run")),
		chromedp.WaitVisible(css("#error-summary")),
	)
	if got := p.focused(); got != "error-summary" {
		t.Errorf("focus after the failed run is on %q, want the error summary", got)
	}
	if got := p.title(); !strings.HasPrefix(got, "Failed: ") {
		t.Errorf("title after the failed run = %q", got)
	}
	if !p.inView("#error-summary") {
		t.Error("the error summary is not in view")
	}
	if n := p.count(`#error-summary a[href="#f-year"]`); n != 1 {
		t.Errorf("the error summary has %d links to the year", n)
	}
	p.check("failed")

	// An album typed in part is not found, and every problem of the form
	// comes back at once: the summary suggests the album, which a button
	// picks; nothing is added meanwhile.
	before = p.tracks("Blue Hours")
	p.do("adding a track to an album typed in part, without a title",
		chromedp.Navigate(base+"/tools/album.add_track"), chromedp.WaitVisible(css("#f-title")),
		chromedp.SetValue(css("#f-album"), "Blue"),
		chromedp.SendKeys(css("#f-length"), "abc"),
		chromedp.Click(css("#run")),
		chromedp.WaitVisible(css("#error-summary")),
	)
	blue := p.albumID("Blue Hours")
	if got, want := p.text("#error-summary"), "3 values need fixing"; !strings.Contains(got, want) ||
		!strings.Contains(got, "did you mean “Blue Hours”?") || !strings.Contains(got, "title: is required") || !strings.Contains(got, "length: must be a duration") {
		t.Errorf("the error summary = %q, want %q, the suggestion, the title and the length", got, want)
	}
	if n := p.count(`#f-album-pick-0[value="pick:album=` + blue + `"]`); n != 1 {
		t.Error("the suggested album is not there to pick")
	}
	if !p.inView("#error-summary") {
		t.Error("the error summary with the suggestion is not in view")
	}
	p.check("suggestions")
	p.do("picking the suggested album", chromedp.Click(css("#f-album-pick-0")), chromedp.WaitNotPresent(css("#f-album-pick-0")), chromedp.WaitVisible(css("#f-album")))
	if picked, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](`document.getElementById("f-album").value`)); err != nil || picked != blue {
		t.Errorf("after picking, the album field holds %q (%v), want %q", picked, err, blue)
	}
	if got := p.tracks("Blue Hours"); got != before {
		t.Errorf("the form with problems added %d tracks", got-before)
	}

	p.do("running album.search", chromedp.Navigate(base+"/tools/album.search"), chromedp.WaitVisible(css("#f-word")),
		chromedp.SendKeys(css("#f-word"), "harbour"), chromedp.Click(css("#run")), chromedp.WaitVisible(css("#result")))
	if !p.inView("#result .message") {
		t.Error("the result of album.search is not in view after the run")
	}
	p.check("search-result")
	if n := p.count(`section.history li`); n == 0 {
		t.Error("the tool page lists no recent runs after a run")
	}
	if n := p.count(`details.copy pre#copy-cli`); n != 1 {
		t.Error("the result offers no command line")
	}

	// Broken JSON says where it broke, in the error summary.
	p.do("giving broken JSON",
		chromedp.Navigate(base+"/tools/album.search"), chromedp.WaitVisible(css("#f-word")),
		chromedp.Click(css("details.json-mode summary")),
		chromedp.SendKeys(css("#json-inputs"), `{"word": "rain",}`),
		chromedp.Click(css(`button[value="run-json"]`)),
		chromedp.WaitVisible(css("#error-summary")),
	)
	if got := p.text("#error-summary"); !strings.Contains(got, "line 1, column 17") {
		t.Errorf("the summary of broken JSON = %q", got)
	}
	p.check("json-broken")
	// Valid JSON runs, and its result is in view like any other.
	p.do("giving the inputs as JSON",
		chromedp.Navigate(base+"/tools/album.search"), chromedp.WaitVisible(css("#f-word")),
		chromedp.Click(css("details.json-mode summary")),
		chromedp.SendKeys(css("#json-inputs"), `{"word": "rain"}`),
		chromedp.Click(css(`button[value="run-json"]`)),
		chromedp.WaitVisible(css("#result")),
	)
	if got := p.text("#result"); !strings.Contains(got, "Search completed.") || !strings.Contains(got, "Wet street") {
		t.Errorf("the result of the JSON inputs:\n%s", got)
	}
	if !p.inView("#result .message") {
		t.Error("the result of the JSON inputs is not in view")
	}
	if got := p.focused(); got != "result" {
		t.Errorf("focus after the JSON run is on %q, want the result", got)
	}
	if got := p.value("#f-word"); got != "rain" {
		t.Errorf("the form after the JSON run holds the word %q, want rain", got)
	}
	p.check("json-result")

	checkListRows(t, p)
	p.check("list-rows")

	// Dark mode follows the system setting.
	p.do("asking for dark mode",
		emulateDark(),
		chromedp.Navigate(base+"/tools/album.add_track"), chromedp.WaitVisible(css("#f-title")),
	)
	bg, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](`getComputedStyle(document.documentElement).backgroundColor`))
	if err != nil || bg == "rgb(255, 255, 255)" {
		t.Errorf("the page's background in dark mode = %q (%v)", bg, err)
	}
	p.check("dark")

	// An admin sees the audit trail, with the editor's runs in it.
	p.do("signing in as admin",
		emulateLight(),
		chromedp.Click(css("form[action$='signout'] button")),
		chromedp.WaitVisible(css("table.tools")),
		chromedp.Navigate(base+"/signin"), chromedp.WaitVisible(css("#name")),
		chromedp.SendKeys(css("#name"), "admin"),
		chromedp.SendKeys(css("#password"), p.album.admin),
		chromedp.Click(css("form.signin button[type=submit]")),
		chromedp.WaitVisible(css("table.tools")),
		chromedp.Click(css(`a[href$="/audit"]`)),
		chromedp.WaitVisible(css("h1")),
	)
	if got := p.text("main"); !strings.Contains(got, "album.add_track") || !strings.Contains(got, "editor") {
		t.Errorf("the audit trail at %s shows no run of album.add_track by editor:\n%s", p.vp.name, got)
	}
	p.check("audit")
}

// checkCopies opens the copies of the run shown, of album.add_track with
// the title given, and checks that the command line, curl and the MCP
// request all make that call.
func checkCopies(t *testing.T, p *people, title string) {
	t.Helper()
	p.do("opening the copies of the run", chromedp.Click(css("details.copy summary")), chromedp.WaitVisible(css("#copy-mcp")))
	if cli := p.text("#copy-cli"); !strings.HasPrefix(cli, "album tool run album.add_track --input ") || !strings.Contains(cli, `"title":"`+title+`"`) {
		t.Errorf("the command line to run it again = %q", cli)
	}
	var req struct {
		Method string
		Params struct {
			Name      string
			Arguments map[string]any
		}
	}
	mcp := p.text("#copy-mcp")
	if err := json.Unmarshal([]byte(mcp), &req); err != nil || req.Method != "tools/call" || req.Params.Name == "" || req.Params.Arguments["title"] != title {
		t.Errorf("the MCP request to run it again (%v):\n%s", err, mcp)
	}
	curl := p.text("#copy-curl")
	body := curl[strings.LastIndex(curl, "-d '")+len("-d '"):] // the last request is the call
	var sent, shown any
	json.Unmarshal([]byte(strings.TrimSuffix(strings.TrimSpace(body), "'")), &sent)
	json.Unmarshal([]byte(mcp), &shown)
	if !strings.HasPrefix(curl, "MCP="+p.album.base+"/mcp\n") || sent == nil || !cmp.Equal(sent, shown) {
		t.Errorf("curl to run it again does not post the MCP request to %s/mcp:\n%s", p.album.base, curl)
	}
}

// checkShared follows the page's link to the form as it is, and checks that
// the form it opens holds the title and album of the run, without running.
func checkShared(t *testing.T, p *people, title, album string) {
	t.Helper()
	before := p.tracks("Blue Hours")
	link, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](`document.querySelector("p.share a").href`))
	if err != nil {
		t.Fatalf("reading the link to the form: %v", err)
	}
	p.do("following the link to the form", chromedp.Navigate(link), chromedp.WaitVisible(css("#f-title")))
	if got, want := [2]string{p.value("#f-title"), p.value("#f-album")}, [2]string{title, album}; got != want {
		t.Errorf("the form of the link %s holds the title and album %q, want %q", link, got, want)
	}
	if p.count("#result") != 0 || p.tracks("Blue Hours") != before {
		t.Error("following the link to the form ran the tool")
	}
}

// rerunFromHistory opens the latest run of the tool's history, checks
// that its form holds the run's inputs, that submitting disables the Run
// button, and that running it again adds one track.
func rerunFromHistory(t *testing.T, p *people, title, album string) {
	t.Helper()
	p.do("opening the latest run from the history",
		chromedp.Click(css("section.history li:first-child a")),
		chromedp.WaitVisible(css("#result")),
	)
	if got, want := [2]string{p.value("#f-title"), p.value("#f-album")}, [2]string{title, album}; got != want {
		t.Errorf("the form of the run from the history holds the title and album %q, want %q", got, want)
	}
	// The submission is cancelled after the page's own handler has seen
	// it, so that the disabled button is read with nothing racing it.
	busy, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](`new Promise(done => {
		const form = document.getElementById("run-form"), run = document.getElementById("run");
		form.addEventListener("submit", ev => ev.preventDefault(), {once: true});
		form.requestSubmit(run);
		setTimeout(() => done(run.disabled + " " + run.textContent + " " + form.getAttribute("aria-busy")), 0);
	})`, chromedp.EvalAwaitPromise))
	if err != nil || busy != "true Running… true" {
		t.Errorf("the Run button while the run is under way: disabled, text, aria-busy = %q (%v), want disabled and Running…", busy, err)
	}
	before := p.tracks("Blue Hours")
	p.do("running it again from the history",
		chromedp.Reload(), chromedp.WaitVisible(css("#f-title")),
		// The run's page shows a result already: the new one is the one
		// without the mark.
		chromedp.Evaluate[chromedp.Void](`document.getElementById("result").dataset.before = ""`),
		chromedp.Click(css("#run")),
		chromedp.WaitNotPresent(css("#result[data-before]")),
		chromedp.WaitVisible(css("#result")),
	)
	if got := p.tracks("Blue Hours"); got != before+1 {
		t.Errorf("running again from the history added %d tracks, want 1", got-before)
	}
	if got := p.text("#result .message"); !strings.HasPrefix(got, "✓") {
		t.Errorf("running again from the history: %q", got)
	}
}

// checkListRows adds two rows to the list of albums of translation.export,
// removes the first added, and checks that the other is left in its place.
func checkListRows(t *testing.T, p *people) {
	t.Helper()
	// row is the selector of the list's row i, counted from 1, or of what
	// is inside it.
	row := func(i int, inside string) string {
		return strings.TrimSpace(fmt.Sprintf("#f-albums ol.rows > li:nth-child(%d) %s", i, inside))
	}
	p.do("opening translation.export", chromedp.Navigate(p.album.base+"/tools/translation.export"), chromedp.WaitVisible(css("#f-albums-add")))
	n := p.count("#f-albums ol.rows > li")
	p.do("adding two rows, and removing the first of them",
		chromedp.Click(css("#f-albums-add")), chromedp.WaitVisible(css(row(n+1, "input"))),
		chromedp.Click(css("#f-albums-add")), chromedp.WaitVisible(css(row(n+2, "input"))),
		chromedp.SendKeys(css(row(n+1, "input")), "Night Studies"),
		chromedp.SendKeys(css(row(n+2, "input")), "Blue Hours"),
		chromedp.Click(css(row(n+1, "button.row-remove"))),
		chromedp.WaitNotPresent(css(row(n+2, ""))),
	)
	if got := p.count("#f-albums ol.rows > li"); got != n+1 {
		t.Fatalf("after adding two rows and removing one, the list has %d rows, want %d", got, n+1)
	}
	if got := p.value(row(n+1, "input")); got != "Blue Hours" {
		t.Errorf("the row left after removing the other holds %q, want Blue Hours", got)
	}
	if p.count("#result") != 0 {
		t.Error("changing the rows ran the tool")
	}
}

// emulateLight undoes emulateDark.
func emulateLight() chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, _ *chromedp.Target) (chromedp.Void, error) {
		_, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{})
		return chromedp.Void{}, err
	}
}

// emulateDark makes the page see a system that prefers dark colours.
func emulateDark() chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, _ *chromedp.Target) (chromedp.Void, error) {
		_, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}},
		})
		return chromedp.Void{}, err
	}
}
