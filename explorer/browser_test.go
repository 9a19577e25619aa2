package explorer

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/toolapi/toolapi/internal/testenv"
	_ "modernc.org/sqlite" // the album's SQLite database, seeded by the test
)

// The browser test drives Debian's chromium against the real album
// application: its binary, built from examples/album, serving a fresh
// SQLite database. It skips when chromium is missing, except on CI
// (CI=true), where it fails.

// chromiumPath returns the chromium binary, or "".
func chromiumPath() string {
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	if p, err := exec.LookPath("chromium"); err == nil {
		return p
	}
	return ""
}

func needChromium(t *testing.T) string {
	t.Helper()
	p := chromiumPath()
	if p == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("chromium is not installed, and CI=true: install it (apt-get install -y chromium)")
		}
		t.Skip("chromium is not installed (apt-get install -y chromium); skipping the browser test")
	}
	return p
}

// albumServer is the album application running as a process.
type albumServer struct {
	base  string
	db    string
	token string // editor's API token
	admin string // admin's API token
}

// startAlbum builds the album binary, seeds a database (plus an image
// whose caption holds a script) and serves it on a free port.
func startAlbum(t *testing.T) *albumServer {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "album")
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	build := exec.Command(goBin, "build", "-o", bin, "github.com/toolapi/toolapi/examples/album")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the album demo: %v\n%s", err, out)
	}
	a := &albumServer{db: filepath.Join(dir, "album.db")}
	out, err := exec.Command(bin, "--db", a.db, "tokens", "editor", "admin").CombinedOutput()
	if err != nil {
		t.Fatalf("album tokens: %v\n%s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "editor" {
			a.token = f[1]
		} else if len(f) == 2 && f[0] == "admin" {
			a.admin = f[1]
		}
	}
	if a.token == "" || a.admin == "" {
		t.Fatalf("album tokens printed no token:\n%s", out)
	}

	db, err := sql.Open("sqlite", a.db)
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.Exec(`INSERT INTO images (album_id, title, caption, alt, url, created)
		SELECT id, 'Trapdoor', $1, 'A door in the floor', 'https://images.example.com/albums/trap.jpg', $2 FROM albums WHERE title = 'Blue Hours'`,
		`<script>alert("caption")</script><img src=x onerror=alert(2)> under the stage`, time.Now().Unix())
	db.Close()
	if err != nil {
		t.Fatalf("adding the image with a script: %v", err)
	}

	cmd := exec.Command(bin, "--db", a.db, "serve", "--addr", "127.0.0.1:0")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	lines := bufio.NewScanner(stdout)
	for lines.Scan() {
		// "Serving Album demo on http://HOST:PORT (MCP at ...)."
		if _, rest, ok := strings.Cut(lines.Text(), " demo on "); ok && strings.HasPrefix(lines.Text(), "Serving ") {
			a.base, _, _ = strings.Cut(rest, " ")
			break
		}
	}
	if a.base == "" {
		t.Fatalf("album serve printed no address; stderr:\n%s", stderr.String())
	}
	go io.Copy(io.Discard, stdout)
	return a
}

// screenshotDir returns the folder for the screenshots: $SCREENSHOT_DIR,
// else testdata/screenshots (ignored by git).
func screenshotDir(t *testing.T) string {
	dir := os.Getenv("SCREENSHOT_DIR")
	if dir == "" {
		dir = filepath.Join("testdata", "screenshots")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// chrome is a headless chromium tab for a test, with helpers that fail
// the test on error.
type chrome struct {
	t       *testing.T
	ctx     context.Context
	dialogs atomic.Int32
}

// newChrome starts chromium with a fresh profile. Every dialog a page
// opens (alert, confirm) is counted and dismissed.
func newChrome(t *testing.T) *chrome {
	t.Helper()
	path := needChromium(t)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(allocCtx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(func() {
		cancelTimeout()
		cancel()
		cancelAlloc()
	})
	c := &chrome{t: t, ctx: ctx}
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	if err := chromedp.Listen(ctx, func(ev any) {
		if _, ok := ev.(*cdppage.EventJavascriptDialogOpening); ok {
			c.dialogs.Add(1)
			go chromedp.Call(ctx, cdppage.HandleJavaScriptDialog, cdppage.HandleJavaScriptDialogParams{})
		}
	}); err != nil {
		t.Fatal(err)
	}
	return c
}

// stepTimeout bounds each step, so that a page that never shows what a
// step waits for fails the test soon.
const stepTimeout = 30 * time.Second

func (c *chrome) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(c.ctx, stepTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		c.t.Fatalf("%s: %v", what, err)
	}
}

// settled runs read, again while the page reloads itself under it (a
// task's page reloads when the task changes; chromedp then finds no
// context to read in, or loses the node it found), at most five times.
func settled[T any](c *chrome, read func() (T, error)) (T, error) {
	v, err := read()
	for i := 0; i < 4 && reloading(err) && c.ctx.Err() == nil; i++ {
		time.Sleep(200 * time.Millisecond)
		v, err = read()
	}
	return v, err
}

// reloading reports whether err is what chromedp says when the page it
// reads reloads under it.
func reloading(err error) bool {
	return err != nil && (strings.Contains(err.Error(), "Cannot find context with specified id") ||
		strings.Contains(err.Error(), "No node with given id found"))
}

func (c *chrome) text(sel string) string {
	c.t.Helper()
	s, err := settled(c, func() (string, error) { return chromedp.Run(c.ctx, chromedp.Text(chromedp.CSS(sel))) })
	if err != nil {
		c.t.Fatalf("reading %s: %v", sel, err)
	}
	return s
}

func (c *chrome) value(sel string) string {
	c.t.Helper()
	s, err := settled(c, func() (string, error) { return chromedp.Run(c.ctx, chromedp.Value(chromedp.CSS(sel))) })
	if err != nil {
		c.t.Fatalf("reading the value of %s: %v", sel, err)
	}
	return s
}

func (c *chrome) count(sel string) int {
	c.t.Helper()
	n, err := settled(c, func() (int, error) {
		return chromedp.Run(c.ctx, chromedp.Evaluate[int](`document.querySelectorAll(`+strconv.Quote(sel)+`).length`))
	})
	if err != nil {
		c.t.Fatalf("counting %s: %v", sel, err)
	}
	return n
}

func (c *chrome) shoot(dir, name string) {
	c.t.Helper()
	png, err := chromedp.Run(c.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		c.t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
		c.t.Fatal(err)
	}
}

func css(sel string) chromedp.CSS { return chromedp.CSS(sel) }

// TestBrowser signs in to the album demo, finds and runs album.search,
// sees a violation next to its field, checks that forged posts are
// refused and that a script in an output does not run, and saves and runs
// a preset. It writes screenshots of the list, a tool page and results.
func TestBrowser(t *testing.T) {
	testenv.NeedFull(t)
	c := newChrome(t)
	album := startAlbum(t)
	shots := screenshotDir(t)
	ctx := c.ctx
	do, text, value, count := c.do, c.text, c.value, c.count
	shoot := func(name string) { t.Helper(); c.shoot(shots, name) }
	dialogs := &c.dialogs

	{ // sign in
		do("signing in",
			chromedp.Navigate(album.base+"/signin"),
			chromedp.WaitVisible(css("#name")),
			chromedp.SendKeys(css("#name"), "editor"),
			chromedp.SendKeys(css("#password"), album.token),
			chromedp.Click(css("form.signin button[type=submit]")),
			chromedp.WaitVisible(css("table.tools")),
		)
		if got := text("header.top nav"); !strings.Contains(got, "Signed in as editor") {
			t.Fatalf("header after signing in = %q", got)
		}
		shoot("list.png")
	}

	{ // find album.search
		do("searching",
			chromedp.SendKeys(css("#q"), "images"),
			chromedp.Submit(css("#q")),
			chromedp.WaitVisible(`//p[contains(@class,"count")][contains(., "match")]`),
		)
		rows := text("table.tools tbody")
		if !strings.Contains(rows, "album.search") || strings.Contains(rows, "site.info") {
			t.Fatalf("tools found for \"images\":\n%s", rows)
		}
		do("opening album.search",
			chromedp.Click(css(`a[href="/tools/album.search"]`)),
			chromedp.WaitVisible(css("#f-word")),
		)
		if h := text("h1"); !strings.Contains(h, "Search") {
			t.Fatalf("tool page heading = %q", h)
		}
		if calls := text("dl.calls"); !strings.Contains(calls, "album tool run album.search --input word=") || !strings.Contains(calls, "album__search") {
			t.Errorf("how to call it = %q", calls)
		}
		shoot("tool.png")
	}

	{ // run album.search
		do("running",
			chromedp.SendKeys(css("#f-word"), "harbour"),
			chromedp.Click(css("#run")),
			chromedp.WaitVisible(css("#result")),
		)
		result := text("#result")
		for _, want := range []string{"Search completed.", "Lighthouse", "Cranes", "Harbour Lights"} {
			if !strings.Contains(result, want) {
				t.Errorf("result lacks %q:\n%s", want, result)
			}
		}
		// The album is a link to a tool that takes it; the caption's
		// <em> is kept by the album's sanitiser.
		if count(`#result a.entity[href*="album.summarize"]`) == 0 {
			t.Error("no album in the result links to album.summarize")
		}
		if value := value("#f-word"); value != "harbour" {
			t.Errorf("the word after the run = %q, want harbour kept", value)
		}
		shoot("result.png")
	}

	{ // a script in an output does not run
		do("searching for the trap",
			chromedp.Navigate(album.base+"/tools/album.search"),
			chromedp.WaitVisible(css("#f-word")),
			chromedp.SendKeys(css("#f-word"), "trapdoor"),
			chromedp.Click(css("#run")),
			chromedp.WaitVisible(css("#result")),
		)
		source := text("#result code.source")
		if !strings.Contains(source, `<script>alert("caption")</script>`) {
			t.Errorf("the caption is not shown as its source: %q", source)
		}
		if scripts, images := count("#result script"), count("#result img"); scripts != 0 || images != 0 {
			t.Errorf("the result holds %d script and %d img elements, want none", scripts, images)
		}
		if n := dialogs.Load(); n != 0 {
			t.Errorf("%d dialogs opened", n)
		}
		shoot("escaped.png")
	}

	{ // bad input keeps what was typed
		do("running album.list with a year out of range",
			chromedp.Navigate(album.base+"/tools/album.list"),
			chromedp.WaitVisible(css("#f-year")),
			chromedp.SendKeys(css("#f-year"), "3000"),
			chromedp.Click(css("#run")),
			chromedp.WaitVisible(css("#f-year-errors")),
		)
		besideField, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById('f-year').closest('.field').querySelector('.violations').textContent`))
		if err != nil {
			t.Fatal(err)
		}
		if value := value("#f-year"); value != "3000" {
			t.Errorf("year after the failed run = %q, want 3000 kept", value)
		}
		if !strings.Contains(besideField, "must be at most 2100") {
			t.Errorf("violation beside the year = %q", besideField)
		}
		shoot("violation.png")
	}

	{ // forged posts are refused
		// A script of the site's own origin, without the token.
		do("opening a page of the site", chromedp.Navigate(album.base+"/tools/album.search"), chromedp.WaitVisible(css("#f-word")))
		status, err := chromedp.Run(ctx, chromedp.Evaluate[int](`fetch("/tools/album.publish", {method: "POST",
			headers: {"Content-Type": "application/x-www-form-urlencoded"},
			body: "action=run&confirm=yes&in:album=2&in:notify=false"}).then(r => r.status)`, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatal(err)
		}
		if status != http.StatusForbidden {
			t.Errorf("POST without the token = %d, want 403", status)
		}
		// A form on another site.
		evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, `<!doctype html><title>Win a prize</title><form method="post" action="%s/tools/album.publish">
<input type="hidden" name="action" value="run"><input type="hidden" name="confirm" value="yes">
<input type="hidden" name="in:album" value="2"><input type="hidden" name="in:notify" value="false">
<button id="go">Claim</button></form>`, album.base)
		}))
		defer evil.Close()
		do("submitting the other site's form",
			chromedp.Navigate(evil.URL),
			chromedp.Click(css("#go")),
			chromedp.WaitVisible(`//h1[text()="Refused"]`),
		)
		title, err := chromedp.Run(ctx, chromedp.Title())
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(title, "Refused") {
			t.Errorf("page after the forged form = %q", title)
		}
		db, err := sql.Open("sqlite", album.db)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var published bool
		if err := db.QueryRow(`SELECT published FROM albums WHERE id = 2`).Scan(&published); err != nil {
			t.Fatal(err)
		}
		if published {
			t.Error("a forged POST published album 2")
		}
	}

	{ // a preset saves and runs
		do("saving a preset",
			chromedp.Navigate(album.base+"/tools/album.search"),
			chromedp.WaitVisible(css("#f-word")),
			chromedp.SendKeys(css("#f-word"), "rain"),
			chromedp.SendKeys(css("#preset-name"), "Rainy pictures"),
			chromedp.Click(css("#save-preset")),
			chromedp.WaitVisible(css("p.notice")),
		)
		if got := text("p.notice"); !strings.Contains(got, "Saved the preset “Rainy pictures”") {
			t.Fatalf("notice after saving = %q", got)
		}
		db, err := sql.Open("sqlite", album.db)
		if err != nil {
			t.Fatal(err)
		}
		var stored string
		err = db.QueryRow(`SELECT input_values FROM explorer_presets WHERE owner = 'editor' AND tool = 'album.search' AND name = 'Rainy pictures'`).Scan(&stored)
		db.Close()
		if err != nil || stored != `{"word":"rain"}` {
			t.Fatalf("stored preset = %q, %v", stored, err)
		}
		do("running the preset from a fresh page",
			chromedp.Navigate(album.base+"/tools/album.search"),
			chromedp.WaitVisible(css(`button[value="preset-run:Rainy pictures"]`)),
			chromedp.Click(css(`button[value="preset-run:Rainy pictures"]`)),
			chromedp.WaitVisible(css("#result")),
		)
		result := text("#result")
		if !strings.Contains(result, "Wet street") || !strings.Contains(result, "Search completed.") {
			t.Errorf("result of the preset:\n%s", result)
		}
		if value := value("#f-word"); value != "rain" {
			t.Errorf("the form after running the preset holds %q, want rain", value)
		}
	}

	if n := dialogs.Load(); n != 0 {
		t.Errorf("%d dialogs opened during the test", n)
	}
	t.Logf("screenshots in %s", shots)
}

// TestBrowserScript checks what the explorer's script adds, in chromium
// against the explorer of the tests' tools: refined choices refresh when
// the input they depend on changes, and entity suggestions follow what is
// typed.
func TestBrowserScript(t *testing.T) {
	testenv.NeedFull(t)
	c := newChrome(t)
	env := newTestEnv(t, nil)
	c.do("signing in",
		chromedp.Navigate(env.srv.URL+"/signin"),
		chromedp.WaitVisible(css("#name")),
		chromedp.SendKeys(css("#name"), "alice"),
		chromedp.SendKeys(css("#password"), testPassword),
		chromedp.Click(css("form.signin button[type=submit]")),
		chromedp.WaitVisible(css("table.tools")),
	)

	c.do("choosing a country",
		chromedp.Navigate(env.srv.URL+"/tools/demo.travel"),
		chromedp.WaitVisible(css("#f-country")),
		chromedp.Evaluate[chromedp.Void](`(() => { const s = document.getElementById("f-country"); s.focus(); s.value = "it";
			s.dispatchEvent(new Event("change", {bubbles: true})); })()`),
	)
	// Choosing does not reload the page under the keyboard: only leaving
	// the select does.
	if c.count(`select#f-city option[value="Rome"]`) != 0 {
		t.Error("the choices refreshed while the country was still being chosen")
	}
	c.do("leaving the country for the city",
		chromedp.Evaluate[chromedp.Void](`document.getElementById("f-city").focus()`),
		chromedp.WaitReady(css(`select#f-city option[value="Rome"]`)),
	)
	if got := c.value("#f-country"); got != "it" {
		t.Errorf("country after the refresh = %q, want it kept", got)
	}
	if id, err := chromedp.Run(c.ctx, chromedp.Evaluate[string](`document.activeElement.id`)); err != nil || id != "f-city" {
		t.Errorf("focus after the refresh is on %q, want the city the person moved to (%v)", id, err)
	}
	if c.count("#result") != 0 {
		t.Error("the refresh ran the tool")
	}

	c.do("typing part of an album's label",
		chromedp.Navigate(env.srv.URL+"/tools/demo.every"),
		chromedp.WaitVisible(css("#f-album")),
		chromedp.SendKeys(css("#f-album"), "harb"),
	)
	labels, err := chromedp.Run(c.ctx, chromedp.Poll[string](`(() => { const o = [...document.querySelectorAll("#entities-album option")];
		return o.length === 1 ? o[0].value + " " + o[0].textContent : false; })()`, chromedp.WithPollingTimeout(20*time.Second)))
	if err != nil || labels != "3 Harbour Lights" {
		t.Errorf("suggestions after typing harb = %q, %v", labels, err)
	}
	if n := c.dialogs.Load(); n != 0 {
		t.Errorf("%d dialogs opened", n)
	}
}
