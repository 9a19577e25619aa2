package explorer

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
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
	axe := axeScript(t)
	album := startAlbum(t)
	for _, vp := range viewports {
		t.Run(vp.name, func(t *testing.T) {
			c := newChrome(t)
			p := &people{chrome: c, vp: vp, axe: axe, shots: screenshotDir(t), album: album}
			var opts []chromedp.EmulateViewportOption
			if vp.mobile {
				opts = append(opts, chromedp.EmulateMobile)
			}
			c.do("sizing the window", chromedp.EmulateViewport(vp.width, vp.height, opts...))
			walkExplorer(t, p)
		})
	}
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
