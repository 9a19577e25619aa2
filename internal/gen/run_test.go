package gen

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolapi/toolapi/internal/testenv"
)

// TestRepositoryIsGenerated regenerates every package of the repository
// in memory and fails if a committed tools_gen.go differs or a committed
// lock file records a change.
func TestRepositoryIsGenerated(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the repository's packages")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Generate(root, []string{"./..."})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range res.Diagnostics {
		t.Errorf("diagnostic: %s", d.Relative(root))
	}
	for _, path := range res.Stale() {
		rel, _ := filepath.Rel(root, path)
		t.Errorf("%s is stale; run: %s ./... (from the repository root)", rel, FixCommand)
	}
	locks, err := res.locks()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range locks {
		for _, c := range s.changes {
			t.Errorf("%s", c.Relative(root))
		}
	}
}

// writeCase writes a package into a fresh directory under testdata and
// returns it.
func writeCase(t *testing.T, files map[string]string) string {
	t.Helper()
	dir, err := os.MkdirTemp("testdata", "run-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	dir, _ = filepath.Abs(dir)
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const serviceSrc = `package a

import "context"

// S is a service.
type S struct{}

// Ping answers.
//
//tool:method id=a.ping op=read permission=p
func (s *S) Ping(ctx context.Context, word string) (string, error) { return word, nil }
`

func runGen(t *testing.T, opts Options) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	opts.Stdout, opts.Stderr = &out, &errOut
	code := Run(&opts)
	return code, out.String(), errOut.String()
}

func TestRunWriteCheckAndRemove(t *testing.T) {
	dir := writeCase(t, map[string]string{"a.go": serviceSrc})
	gen := filepath.Join(dir, GeneratedFile)

	code, _, errOut := runGen(t, Options{Dir: dir, Check: true})
	if code != 1 || !strings.Contains(errOut, "tools_gen.go is stale") || !strings.Contains(errOut, "to fix, run: "+FixCommand+" ./...") {
		t.Fatalf("-check before generating: exit %d, stderr:\n%s", code, errOut)
	}
	if _, err := os.Stat(gen); err == nil {
		t.Fatal("-check wrote a file")
	}
	if code, _, errOut := runGen(t, Options{Dir: dir}); code != 0 {
		t.Fatalf("generate: exit %d: %s", code, errOut)
	}
	src, err := os.ReadFile(gen)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(src, []byte(Header+"\n")) || !bytes.Contains(src, []byte("//go:build !toolgen")) {
		t.Errorf("generated file lacks its header or build constraint:\n%s", src)
	}
	if code, _, errOut := runGen(t, Options{Dir: dir, Check: true}); code != 0 {
		t.Fatalf("-check after generating: exit %d: %s", code, errOut)
	}
	// A second run writes the same bytes.
	runGen(t, Options{Dir: dir})
	if again, _ := os.ReadFile(gen); !bytes.Equal(again, src) {
		t.Error("a second run wrote a different file")
	}
	// A stale file that no longer compiles does not stop its regeneration.
	os.WriteFile(gen, append(src, []byte("\nfunc broken() { undefined() }\n")...), 0o644)
	if code, _, errOut := runGen(t, Options{Dir: dir, Check: true}); code != 1 || !strings.Contains(errOut, "stale") {
		t.Errorf("-check on an edited file: exit %d: %s", code, errOut)
	}
	if code, _, errOut := runGen(t, Options{Dir: dir}); code != 0 {
		t.Errorf("regenerating over a broken file: exit %d: %s", code, errOut)
	}
	if again, _ := os.ReadFile(gen); !bytes.Equal(again, src) {
		t.Error("regenerating did not restore the file")
	}
	// Without directives the generated file is no longer needed.
	os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n\n// S is a service.\ntype S struct{}\n"), 0o644)
	if code, _, errOut := runGen(t, Options{Dir: dir, Check: true}); code != 1 || !strings.Contains(errOut, "no longer needed") {
		t.Errorf("-check with a file to remove: exit %d: %s", code, errOut)
	}
	runGen(t, Options{Dir: dir})
	if _, err := os.Stat(gen); err == nil {
		t.Error("the unneeded generated file was not removed")
	}
}

func TestRunDiagnosticsFailAndDescribe(t *testing.T) {
	bad := serviceSrc + `
// Open has no access check.
//
//tool:method id=a.open
func (s *S) Open(ctx context.Context) error { return nil }
`
	dir := writeCase(t, map[string]string{"a.go": bad})
	code, _, errOut := runGen(t, Options{Dir: dir, Describe: true, Lenient: true})
	if code != 0 {
		t.Errorf("-describe -lenient: exit %d: %s", code, errOut)
	}
	code, out, _ := runGen(t, Options{Dir: dir, Describe: true})
	if code != 1 {
		t.Errorf("-describe with a diagnostic: exit %d", code)
	}
	var d Description
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("-describe printed no JSON: %v\n%s", err, out)
	}
	if len(d.Tools) != 1 || d.Tools[0].ID != "a.ping" || d.Tools[0].InputSchema == nil {
		t.Errorf("tools = %+v", d.Tools)
	}
	if len(d.Diagnostics) != 1 || d.Diagnostics[0].Pos != "a.go:16:13" || d.Diagnostics[0].Tool != "a.open" || d.Diagnostics[0].Method != "S.Open" {
		t.Errorf("diagnostics = %+v", d.Diagnostics)
	}
	if _, err := os.Stat(filepath.Join(dir, GeneratedFile)); err == nil {
		t.Error("-describe wrote a file")
	}
	code, _, errOut = runGen(t, Options{Dir: dir, Lenient: true})
	if code != 0 || !strings.Contains(errOut, "a.go:16:13: tool a.open (S.Open): invalid definition: no access check") {
		t.Errorf("-lenient: exit %d, stderr %q", code, errOut)
	}
	os.Remove(filepath.Join(dir, GeneratedFile))
	code, _, errOut = runGen(t, Options{Dir: dir})
	if code != 1 || !strings.Contains(errOut, "a.go:16:13: tool a.open (S.Open): invalid definition: no access check") {
		t.Errorf("a diagnostic: exit %d, stderr %q", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, GeneratedFile)); err != nil {
		t.Error("the good tool was not generated beside the diagnostic")
	}
}

func TestChangedSignatureBreaksBuild(t *testing.T) {
	testenv.NeedFull(t) // runs go build

	dir := writeCase(t, map[string]string{"a.go": serviceSrc})
	if code, _, errOut := runGen(t, Options{Dir: dir}); code != 0 {
		t.Fatalf("generate: exit %d: %s", code, errOut)
	}
	build := func() (string, error) {
		cmd := exec.Command("go", "build", ".")
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := build(); err != nil {
		t.Fatalf("the generated package does not build: %v\n%s", err, out)
	}
	changed := strings.Replace(serviceSrc, "word string) (string, error) { return word, nil }", "word int) (string, error) { return \"\", nil }", 1)
	if changed == serviceSrc {
		t.Fatal("the signature was not changed")
	}
	if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := build()
	if err == nil || !strings.Contains(out, GeneratedFile) {
		t.Errorf("a changed signature still builds (err %v):\n%s", err, out)
	}
}

// TestSpacedDirectiveIsFound checks that the scan finds a package whose
// only directive is written with a space after "//", a misspelt prefix
// or in a block comment, so that toolgen reports it instead of ignoring
// the package.
func TestSpacedDirectiveIsFound(t *testing.T) {
	tests := []struct{ written, want string }{
		{"// tool:method", `a.go:10:1: "// tool:method" is not a directive, as a space follows "//": remove the space (write //tool:method)`},
		{"//tools:method", `a.go:10:1: "//tools:method" is not a directive, as its prefix is not "//tool:": write //tool:method`},
		{"/* tool:method */ //", `a.go:10:4: "tool:method" in a /* */ comment is not a directive`},
	}
	for _, tt := range tests {
		src := strings.Replace(serviceSrc, "//tool:method", tt.written, 1)
		dir := writeCase(t, map[string]string{"a.go": src})
		code, _, errOut := runGen(t, Options{Dir: dir})
		if code != 1 || !strings.Contains(errOut, tt.want) {
			t.Errorf("%s: exit %d, stderr:\n%s", tt.written, code, errOut)
		}
	}
}
