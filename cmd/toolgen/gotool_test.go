package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolapi/toolapi/internal/testenv"
)

const notesSrc = `package main

import "context"

//go:generate go tool toolgen

// Notes keeps notes.
type Notes struct{}

// Greet greets someone.
//
//   - name: Who to greet.
//   - times: How many greetings.
//
// Returns the greetings.
//
//tool:method id=notes.greet op=transform permission="read notes"
//tool:input name notblank
//tool:input times default=2 range=1..5
func (n *Notes) Greet(ctx context.Context, name string, times int) ([]string, error) {
	var out []string
	for range times {
		out = append(out, "Hello, "+name+"!")
	}
	return out, nil
}
`

const mainSrc = `package main

import (
	"context"
	"os"

	"github.com/toolapi/toolapi/tool"
	"github.com/toolapi/toolapi/toolcli"
)

func main() {
	r := tool.NewRegistry(nil)
	if err := RegisterTools(r, &Notes{}); err != nil {
		panic(err)
	}
	os.Exit(toolcli.Run(context.Background(), r, os.Args[2:], os.Stdout, os.Stderr, &toolcli.Options{
		Name: "notes tool",
		Accounts: func(ctx context.Context, name string) (tool.Account, error) {
			return &tool.User{ID: name, Permissions: []string{"read notes"}}, nil
		},
	}))
}
`

// TestGoTool adopts toolgen as a user does, in a module outside the
// repository: go get -tool, //go:generate go tool toolgen, go generate,
// go build, and a run of the tool through the command line. It works
// offline, from the module cache CI fills with go mod download.
func TestGoTool(t *testing.T) {
	testenv.NeedFull(t) // builds a module and a binary
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/notes\n\ngo 1.26\n\nrequire github.com/toolapi/toolapi v0.0.0\n\nreplace github.com/toolapi/toolapi => " + root + "\n",
		// The checkout's sums cover every module toolgen and the tool
		// package need, so nothing is looked up.
		"go.sum":   string(sum),
		"notes.go": notesSrc,
		"main.go":  mainSrc,
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	run := func(name string, args ...string) (string, error) {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	must := func(name string, args ...string) string {
		t.Helper()
		out, err := run(name, args...)
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return out
	}
	must("go", "get", "-tool", "github.com/toolapi/toolapi/cmd/toolgen")
	// Before generating, -check names a command that works in the
	// user's module.
	out, err := run("go", "tool", "toolgen", "-check")
	if err == nil || !strings.Contains(out, "to fix, run: go run github.com/toolapi/toolapi/cmd/toolgen ./...") {
		t.Errorf("go tool toolgen -check before generating (err %v):\n%s", err, out)
	}
	must("go", "generate", "./...")
	if _, err := os.Stat(filepath.Join(dir, "tools_gen.go")); err != nil {
		t.Fatalf("go generate wrote no tools_gen.go: %v", err)
	}
	must("go", "tool", "toolgen", "-check")
	must("go", "build", "-o", "notes", ".")
	out = must(filepath.Join(dir, "notes"), "tool", "run", "notes.greet", "--input", "name=Ada", "--user", "ada", "--json")
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("the tool printed no JSON: %v\n%s", err, out)
	}
	want := map[string]any{"success": true, "message": "Greet completed.", "outputs": map[string]any{"result": []any{"Hello, Ada!", "Hello, Ada!"}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tool run output (-want +got):\n%s", diff)
	}
}
