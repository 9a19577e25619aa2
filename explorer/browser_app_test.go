package explorer

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	cdppage "github.com/chromedp/cdproto/page"
	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/toolapi/toolapi/internal/testenv"
)

// The app browser test shows the MCP Apps of the album demo's tools in a
// minimal host: a page that connects the MCP TypeScript SDK client to the
// album's /mcp and shows each app in a sandboxed frame, linked by the app
// bridge of @modelcontextprotocol/ext-apps (explorer/testdata/apphost,
// installed and bundled by scripts/apphost.sh). The frame's Content
// Security Policy allows only the page's own inline script, by its hash:
// a remote script, an inline event handler or a network request would be
// refused and fail the test.

// appHostBundle returns the bundled host script; it skips the test when
// it is missing, except on CI (CI=true), where it fails.
func appHostBundle(t *testing.T) []byte {
	t.Helper()
	p := filepath.Join("..", ".cache", "apphost", "host.bundle.js")
	b, err := os.ReadFile(p)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the app host is not bundled, and CI=true: run scripts/apphost.sh (%v)", err)
		}
		t.Skipf("the app host is not bundled (scripts/apphost.sh); skipping: %v", err)
	}
	return b
}

const appHostPage = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>App host</title>
<style>body { margin: 0; font-family: sans-serif; } main { padding: 8px; } iframe { width: 100%; border: 1px solid #999; height: 400px; box-sizing: border-box; }</style>
</head><body><main><h1>App host</h1><div id="frame-box"></div></main>
<script src="/host.js"></script></body></html>`

// startAppHost serves the host page and its script, and forwards /mcp to
// the album, so that the host's client talks to the album from the page's
// own origin.
func startAppHost(t *testing.T, server string, bundle []byte) string {
	t.Helper()
	target, err := url.Parse(server)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(appHostPage))
	})
	mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	mux.HandleFunc("GET /host.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		w.Write(bundle)
	})
	proxy := &httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) {
		pr.SetURL(target)
		pr.Out.Header.Del("Origin")
		pr.Out.Header.Del("Sec-Fetch-Site")
	}, FlushInterval: -1}
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		// The proxy copies the request's body to the album while the
		// album's answer comes back. An HTTP/1 server that starts an
		// answer before a body has been read to its end reads the rest
		// itself, racing the copy: the copy then fails, the proxy's
		// connection to the album is closed, the answer is cut short,
		// and the host's client waits for a response that never comes.
		// Full duplex leaves the body to the copy.
		if err := http.NewResponseController(w).EnableFullDuplex(); err != nil {
			t.Errorf("the app host's proxy: %v", err)
		}
		proxy.ServeHTTP(w, r)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

// An appHost drives the host page in one chromium tab at one viewport.
type appHost struct {
	*people
	frame cdpruntime.ExecutionContextID

	mu       sync.Mutex
	problems []string // exceptions, CSP refusals and errors logged
}

// TestAppsInHost opens the apps of album.search, album.add_track and
// album.delete in the host, at a desktop's and a phone's size, runs each,
// and checks the rendered outputs, the field errors of seeded arguments,
// the entity picker's suggestions, the confirmation of a destructive
// tool, the reason of a refused call, and every state with axe-core.
func TestAppsInHost(t *testing.T) {
	testenv.NeedFull(t)
	axe := axeScript(t)
	bundle := appHostBundle(t)
	album := startAlbum(t)
	base := startAppHost(t, album.base, bundle)
	for _, vp := range viewports {
		t.Run(vp.name, func(t *testing.T) {
			h := newAppHost(t, vp, axe)
			h.album = album
			walkApps(t, h, base)
		})
	}
}

func newAppHost(t *testing.T, vp viewport, axe string) *appHost {
	t.Helper()
	path := needChromium(t)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		// The app's frame stays in the page's process, where the test
		// reaches it through an isolated world.
		chromedp.Flag("disable-site-isolation-trials", true),
		chromedp.Flag("disable-features", "IsolateSandboxedIframes,site-per-process"),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(int(vp.width), int(vp.height)),
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(allocCtx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 4*time.Minute)
	t.Cleanup(func() {
		cancelTimeout()
		cancel()
		cancelAlloc()
	})
	c := &chrome{t: t, ctx: ctx}
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	h := &appHost{people: &people{chrome: c, vp: vp, axe: axe, shots: screenshotDir(t)}}
	if err := chromedp.Listen(ctx, func(ev any) {
		switch ev := ev.(type) {
		case *cdppage.EventJavascriptDialogOpening:
			c.dialogs.Add(1)
			go chromedp.Do(ctx, func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
				_, err := cdp.Call(ctx, tg, cdppage.HandleJavaScriptDialog, cdppage.HandleJavaScriptDialogParams{})
				return chromedp.Void{}, err
			})
		case *cdpruntime.EventExceptionThrown:
			h.problem("exception: " + ev.ExceptionDetails.Text + " " + describe(ev.ExceptionDetails.Exception))
		case *cdplog.EventEntryAdded:
			if ev.Entry.Level == cdplog.EntryLevelError {
				h.problem("logged: " + ev.Entry.Text)
			}
		case *cdpruntime.EventConsoleAPICalled:
			if ev.Type == cdpruntime.ConsoleAPICalledTypeError {
				var parts []string
				for _, a := range ev.Args {
					parts = append(parts, describe(a))
				}
				h.problem("console.error: " + strings.Join(parts, " "))
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	c.do("enabling the log", func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		_, err := cdp.Call(ctx, tg, cdplog.Enable, cdp.Empty{})
		return chromedp.Void{}, err
	})
	var vopts []chromedp.EmulateViewportOption
	if vp.mobile {
		vopts = append(vopts, chromedp.EmulateMobile)
	}
	c.do("sizing the window", chromedp.EmulateViewport(vp.width, vp.height, vopts...))
	return h
}

func describe(o *cdpruntime.RemoteObject) string {
	if o == nil {
		return ""
	}
	if o.Description != "" {
		return o.Description
	}
	return string(o.Value)
}

func (h *appHost) problem(s string) {
	h.mu.Lock()
	h.problems = append(h.problems, s)
	h.mu.Unlock()
}

// noProblems fails the test on any exception, CSP refusal or error
// logged so far.
func (h *appHost) noProblems(state string) {
	h.t.Helper()
	h.mu.Lock()
	ps := h.problems
	h.problems = nil
	h.mu.Unlock()
	for _, p := range ps {
		h.t.Errorf("%s at %s: %s", state, h.vp.name, p)
	}
}

// hostEval evaluates js in the host page, awaiting a promise, and
// decodes its JSON value into out (nil to drop it).
func (h *appHost) hostEval(js string, out any) {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(h.ctx, stepTimeout)
	defer cancel()
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[string](`Promise.resolve(`+js+`).then(v => JSON.stringify(v === undefined ? null : v))`, chromedp.EvalAwaitPromise))
	if err != nil {
		h.t.Fatalf("host: %s: %v", js, err)
	}
	if out != nil {
		if err := json.Unmarshal([]byte(raw), out); err != nil {
			h.t.Fatalf("host: %s gave %s: %v", js, raw, err)
		}
	}
}

// attach finds the app's frame and makes an isolated world in it, in
// which the test reads and works the app's page as a person would (the
// page's own script sees the same DOM and events).
func (h *appHost) attach() {
	h.t.Helper()
	h.do("reaching the app's frame", func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		tree, err := cdp.Call(ctx, tg, cdppage.GetFrameTree, cdp.Empty{})
		if err != nil {
			return chromedp.Void{}, err
		}
		kids := tree.FrameTree.ChildFrames
		if len(kids) == 0 {
			return chromedp.Void{}, fmt.Errorf("the host page has no frame")
		}
		w, err := cdp.Call(ctx, tg, cdppage.CreateIsolatedWorld, cdppage.CreateIsolatedWorldParams{FrameID: kids[len(kids)-1].Frame.ID, WorldName: "apptest"})
		if err != nil {
			return chromedp.Void{}, err
		}
		h.frame = w.ExecutionContextID
		return chromedp.Void{}, nil
	})
}

// appEval evaluates js in the app's frame and decodes its JSON value into
// out (nil to drop it).
func (h *appHost) appEval(js string, out any) {
	h.t.Helper()
	yes := true
	var res cdpruntime.EvaluateResult
	h.do("evaluating in the app", func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		var err error
		res, err = cdp.Call(ctx, tg, cdpruntime.Evaluate, cdpruntime.EvaluateParams{
			Expression: `Promise.resolve(` + js + `).then(v => JSON.stringify(v === undefined ? null : v))`,
			ContextID:  h.frame, AwaitPromise: &yes, ReturnByValue: &yes,
		})
		return chromedp.Void{}, err
	})
	if res.ExceptionDetails != nil {
		h.t.Fatalf("app: %s: %s %s", js, res.ExceptionDetails.Text, describe(res.ExceptionDetails.Exception))
	}
	var s string
	if err := json.Unmarshal(res.Result.Value, &s); err != nil {
		h.t.Fatalf("app: %s gave %s: %v", js, res.Result.Value, err)
	}
	if out != nil {
		if err := json.Unmarshal([]byte(s), out); err != nil {
			h.t.Fatalf("app: %s gave %s: %v", js, s, err)
		}
	}
}

// waitApp waits until the condition cond holds in the app's page.
func (h *appHost) waitApp(what, cond string) {
	h.t.Helper()
	deadline := time.Now().Add(stepTimeout)
	for {
		var ok bool
		h.appEval(`!!(`+cond+`)`, &ok)
		if ok {
			return
		}
		if time.Now().After(deadline) {
			var body string
			h.appEval(`document.body.innerText`, &body)
			h.t.Fatalf("%s at %s: %s never held; the app shows:\n%s", what, h.vp.name, cond, body)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (h *appHost) appText(sel string) string {
	h.t.Helper()
	var s string
	h.appEval(`(document.querySelector(`+strconv.Quote(sel)+`) || {}).innerText || ""`, &s)
	return s
}

// set gives the field sel the value v as typing it would.
func (h *appHost) set(sel, v string) {
	h.t.Helper()
	h.appEval(`(() => { const el = document.querySelector(`+strconv.Quote(sel)+`); el.focus(); el.value = `+strconv.Quote(v)+`;
		el.dispatchEvent(new Event("input", {bubbles: true})); el.dispatchEvent(new Event("change", {bubbles: true})); })()`, nil)
}

func (h *appHost) click(sel string) {
	h.t.Helper()
	h.appEval(`document.querySelector(`+strconv.Quote(sel)+`).click()`, nil)
}

// checkApp runs axe-core in the app's page (no serious or critical
// violation), checks that it does not scroll sideways and that nothing
// went wrong, and writes a screenshot of the host.
func (h *appHost) checkApp(state string) {
	h.t.Helper()
	h.appEval(`(() => { `+h.axe+` ; return true })()`, nil)
	var vs []struct {
		ID, Impact, Help string
		Nodes            []string
	}
	h.appEval(`axe.run(document, {resultTypes: ["violations"]}).then(r => r.violations.filter(v => v.impact === "serious" || v.impact === "critical").map(v => ({id: v.id, impact: v.impact, help: v.help,
		nodes: v.nodes.slice(0, 3).map(n => n.target.join(" ") + ": " + n.failureSummary)})))`, &vs)
	for _, v := range vs {
		h.t.Errorf("%s at %s: axe-core %s violation %s (%s):\n\t%s", state, h.vp.name, v.Impact, v.ID, v.Help, strings.Join(v.Nodes, "\n\t"))
	}
	var wide int
	h.appEval(`document.documentElement.scrollWidth - document.documentElement.clientWidth`, &wide)
	if wide > 0 {
		h.t.Errorf("%s at %s: the app is %d px wider than its frame", state, h.vp.name, wide)
	}
	h.noProblems(state)
	h.shoot(h.shots, "app-"+h.vp.name+"-"+state+".png")
}

// open shows the app of the tool name, seeded with input when it is not
// empty, and run with it by the host (as for a model's call) when run.
func (h *appHost) open(name, input string, run bool) {
	h.t.Helper()
	if input == "" {
		input = "null"
	}
	var got struct {
		URI, CSP string
		Bytes    int
	}
	ctx, cancel := context.WithTimeout(h.ctx, stepTimeout)
	defer cancel()
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[string](`host.open(`+strconv.Quote(name)+`, `+input+`, `+strconv.FormatBool(run)+`).then(v => JSON.stringify(v))`, chromedp.EvalAwaitPromise))
	if err != nil {
		h.t.Fatalf("opening %s: %v; the host did: %q", name, err, h.hostLog())
	}
	if err := json.Unmarshal([]byte(raw), &got); err != nil {
		h.t.Fatal(err)
	}
	if !strings.HasPrefix(got.URI, "ui://") || !strings.Contains(got.CSP, "script-src 'sha256-") {
		h.t.Fatalf("opening %s: %+v", name, got)
	}
	if got.Bytes == 0 || got.Bytes > maxAppBytes {
		h.t.Errorf("the app of %s is %d bytes, want at most %d", name, got.Bytes, maxAppBytes)
	}
	h.t.Logf("the app of %s: %d bytes", name, got.Bytes)
	h.attach()
}

func (h *appHost) hostLog() []string {
	h.t.Helper()
	var log []string
	h.hostEval(`host.log`, &log)
	return log
}

func (h *appHost) exec(query string, args ...any) {
	h.t.Helper()
	db, err := sql.Open("sqlite", h.album.db)
	if err != nil {
		h.t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(query, args...); err != nil {
		h.t.Fatal(err)
	}
}

func walkApps(t *testing.T, h *appHost, base string) {
	h.do("opening the host", chromedp.Navigate(base+"/"), chromedp.WaitVisible(css("#frame-box")))
	var conn struct{ Extensions []string }
	h.hostEval(`host.connect(`+strconv.Quote(h.album.token)+`)`, &conn)
	if !strings.Contains(strings.Join(conn.Extensions, " "), "io.modelcontextprotocol/ui") {
		t.Errorf("the server declares the extensions %v", conn.Extensions)
	}

	// album.search: type a word, run, see the images as a table; the
	// caption holding a script shows as text.
	h.open("album__search", "", false)
	h.waitApp("the search form", `document.getElementById("f-word")`)
	h.checkApp("search-form")
	h.set("#f-word", "stage")
	h.click("#run")
	h.waitApp("the search result", `!document.getElementById("result").hidden`)
	if msg := h.appText("#result-message"); !strings.Contains(msg, "completed") {
		t.Errorf("search: the message is %q", msg)
	}
	table := h.appText("#outputs table")
	for _, want := range []string{"Quartet on stage", "Trapdoor", `<script>alert("caption")</script>`} {
		if !strings.Contains(table, want) {
			t.Errorf("search: the table lacks %q:\n%s", want, table)
		}
	}
	if n := h.dialogs.Load(); n != 0 {
		t.Errorf("search: %d dialogs opened: a script of an output ran", n)
	}
	h.checkApp("search-result")

	// album.add_track, seeded with a model's proposal of a blank title:
	// the app has the server check it without running it, and the
	// title's violation shows next to its field.
	blue := h.albumID("Blue Hours")
	before := h.tracks("Blue Hours")
	h.open("album__add_track", `{"album": `+strconv.Quote(blue)+`, "title": ""}`, false)
	h.waitApp("the proposal's violation", `document.getElementById("f-title-errors")`)
	if status := h.appText("#status"); !strings.Contains(status, "nothing ran") {
		t.Errorf("add_track proposal: the status is %q", status)
	}
	if log := h.hostLog(); !slices.Contains(log, "tools/call album__add_track (validate)") || slices.Contains(log, "tools/call album__add_track") {
		t.Errorf("add_track proposal: the host saw %v", log)
	}
	if n := h.tracks("Blue Hours"); n != before {
		t.Errorf("add_track: %d tracks after validating the proposal, want %d", n, before)
	}

	// The same proposal run by the host, as for a model's call: the
	// result's violations show in place, nothing is added; the person
	// fixes the title, picks the album and runs.
	h.open("album__add_track", `{"album": `+strconv.Quote(blue)+`, "title": ""}`, true)
	h.waitApp("the seeded title's violation", `document.getElementById("f-title-errors")`)
	if got := h.appText("#f-title-errors"); got == "" {
		t.Error("add_track: the title's violation is empty")
	}
	var seeded struct {
		Album   string
		Notice  bool
		Invalid string
	}
	h.appEval(`({album: document.getElementById("f-album").value, notice: !document.getElementById("seeded").hidden,
		invalid: document.getElementById("f-title").getAttribute("aria-invalid")})`, &seeded)
	if seeded.Album != blue || !seeded.Notice || seeded.Invalid != "true" {
		t.Errorf("add_track: seeded form %+v", seeded)
	}
	if n := h.tracks("Blue Hours"); n != before {
		t.Errorf("add_track: %d tracks after the invalid proposal, want %d", n, before)
	}
	var options []string
	h.appEval(`[...document.querySelectorAll("#entities-album option")].map(o => o.value + " " + o.textContent)`, &options)
	if !strings.Contains(strings.Join(options, "|"), blue+" Blue Hours") || strings.Contains(strings.Join(options, "|"), "Winter Sketches") {
		t.Errorf("add_track: the album picker offers %v", options)
	}
	h.checkApp("add-track-seeded")
	h.set("#f-title", "So What")
	h.set("#f-length", "PT9M22S")
	h.click("#run")
	h.waitApp("the added track", `!document.getElementById("result").hidden`)
	if out := h.appText("#outputs"); !strings.Contains(out, "So What") {
		t.Errorf("add_track: the outputs lack the track:\n%s", out)
	}
	if h.appText("#f-title-errors") != "" {
		t.Error("add_track: the old violation stays after a good run")
	}
	if n := h.tracks("Blue Hours"); n != before+1 {
		t.Errorf("add_track: %d tracks, want %d", n, before+1)
	}
	h.checkApp("add-track-result")

	// A refused call shows the refusal's reason, as the server gives it.
	harbour := h.albumID("Harbour Lights")
	var direct struct {
		IsError bool
		Content []struct{ Text string }
	}
	h.hostEval(`window.hostClientCall("album__add_track", {album: `+strconv.Quote(harbour)+`, title: "Intruder"})`, &direct)
	h.set("#f-album", harbour)
	h.set("#f-title", "Intruder")
	h.click("#run")
	h.waitApp("the refusal", `document.getElementById("result").classList.contains("failed")`)
	if !direct.IsError || len(direct.Content) == 0 {
		t.Fatalf("add_track on another's album: %+v", direct)
	}
	if msg := h.appText("#result-message"); !strings.Contains(msg, direct.Content[0].Text) {
		t.Errorf("add_track refused: the app says %q, the server %q", msg, direct.Content[0].Text)
	}
	h.checkApp("add-track-refused")

	// album.delete is destructive and asks for confirmation: a run
	// without the box ticked shows a violation and calls nothing; with
	// it, the host is asked through elicitation and the album goes.
	scratch := "Scratch " + h.vp.name
	// Published, so that deleting it asks (an empty draft goes at once).
	h.exec(`INSERT INTO albums (owner_id, title, year, published) SELECT id, $1, 2020, 1 FROM users WHERE name = 'editor'`, scratch)
	id := h.albumID(scratch)
	h.open("album__delete", "", false)
	h.waitApp("the delete form", `document.getElementById("confirm")`)
	h.set("#f-album", id)
	h.click("#run")
	h.waitApp("the confirmation's violation", `document.getElementById("confirm-errors")`)
	for _, l := range h.hostLog() {
		if l == "tools/call album__delete" {
			t.Error("delete: called without confirmation")
		}
	}
	h.checkApp("delete-unconfirmed")
	h.click("#confirm")
	h.click("#run")
	h.waitApp("the deletion", `!document.getElementById("result").hidden`)
	if msg := h.appText("#result-message"); !strings.Contains(msg, "completed") {
		t.Errorf("delete: the message is %q", msg)
	}
	var elicited int
	h.hostEval(`host.elicitations`, &elicited)
	if elicited != 1 {
		t.Errorf("delete: the host was asked %d times, want once", elicited)
	}
	db, err := sql.Open("sqlite", h.album.db)
	if err != nil {
		t.Fatal(err)
	}
	var left int
	db.QueryRow(`SELECT COUNT(*) FROM albums WHERE title = $1`, scratch).Scan(&left)
	db.Close()
	if left != 0 {
		t.Errorf("delete: the album is still there")
	}
	h.checkApp("delete-result")
}
