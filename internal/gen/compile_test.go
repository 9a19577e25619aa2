package gen

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolapi/toolapi/internal/testenv"
)

// corpusMethods are tool methods whose generated code needs, between
// them, every package a generated file may import: time, encoding/base64,
// fmt, encoding/json, and a package of the service's own imports. Each
// has a broken variant: a channel parameter, which leaves it out.
var corpusMethods = []struct{ name, decl string }{
	{"Times", "(ctx context.Context, when time.Time, every time.Duration) (time.Time, error)"},
	{"Bytes", "(ctx context.Context, data []byte, items [][]byte) ([]byte, error)"},
	{"Raw", "(ctx context.Context) (Raw, error)"},
	{"Nested", "(ctx context.Context, rec Rec) (Out, error)"},
	{"Runtime", "(ctx context.Context, runtime Point) (string, error)"},
	{"Fmt", "(ctx context.Context, fmt map[string][]byte) (string, error)"},
	{"Stamp", "(ctx context.Context) (int64, error)"},
	{"Optional", "(ctx context.Context, at *time.Time) (*Out, error)"},
	{"Sorted", "(ctx context.Context, sort sort.StringSlice, when []time.Time) (sort.StringSlice, error)"},
}

// corpusPackage returns a package of the corpus methods; broken names the
// method given a channel parameter, only keeps that method and Ping.
func corpusPackage(name, broken string, only bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, `package %s

import (
	"context"
	"sort"
	"time"
)

var _ sort.StringSlice
var _ time.Time

// A Rec is a record.
type Rec struct {
	Name string
	Data []byte
}

// An Out is a published record.
type Out struct {
	Name string `+"`"+`tool:"name"`+"`"+`
	Data []byte `+"`"+`tool:"data"`+"`"+`
}

// A Point is a point.
type Point struct{ X, Y int }

// Raw publishes its own JSON.
type Raw struct{}

// MarshalJSON encodes it.
func (Raw) MarshalJSON() ([]byte, error) { return []byte("{}"), nil }

// S is a service.
type S struct{}

// Ping answers.
//
//tool:method id=%[1]s.ping op=read permission=p
func (s *S) Ping(ctx context.Context, word string) (string, error) { return word, nil }
`, name)
	for _, m := range corpusMethods {
		if only && m.name != broken {
			continue
		}
		decl := m.decl
		if m.name == broken {
			decl = strings.Replace(decl, "ctx context.Context", "ctx context.Context, c chan int", 1)
		}
		fmt.Fprintf(&b, "\n// %s runs.\n//\n//tool:method id=%s.%s op=read permission=p\n", m.name, name, strings.ToLower(m.name))
		switch m.name {
		case "Raw":
			b.WriteString("//tool:output type=any\n")
		case "Stamp":
			b.WriteString("//tool:output type=timestamp\n")
		}
		fmt.Fprintf(&b, "func (s *S) %s%s {\n\tpanic(\"not run\")\n}\n", m.name, decl)
	}
	return b.String()
}

// TestGeneratedFileCompiles generates packages where each method in turn
// is broken (left out with a diagnostic), beside all the others or alone
// with one plain tool, and vets every generated file: no import a
// left-out method needed stays behind, and no parameter named as a
// package hides it.
func TestGeneratedFileCompiles(t *testing.T) {
	testenv.NeedFull(t) // runs go vet

	root, err := os.MkdirTemp("testdata", "run-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if !t.Failed() {
			os.RemoveAll(root)
		}
	})
	root, _ = filepath.Abs(root)
	var dirs []string
	write := func(name, src string) {
		dir := filepath.Join(root, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, "./"+name)
	}
	write("whole", corpusPackage("whole", "", false))
	for _, m := range corpusMethods {
		lower := strings.ToLower(m.name)
		write("all_but_"+lower, corpusPackage("all_but_"+lower, m.name, false))
		write("only_"+lower, corpusPackage("only_"+lower, m.name, true))
	}
	res, err := Generate(root, dirs)
	if err != nil {
		t.Fatal(err)
	}
	// Each broken method, and only those, is left out with a diagnostic.
	if want := 2 * len(corpusMethods); len(res.Diagnostics) != want {
		var ds []string
		for _, d := range res.Diagnostics {
			ds = append(ds, d.Relative(root))
		}
		t.Errorf("%d diagnostics, want %d:\n%s", len(ds), want, strings.Join(ds, "\n"))
	}
	for _, d := range res.Diagnostics {
		if !strings.Contains(d.Message, "a channel cannot be an input") {
			t.Errorf("unexpected diagnostic: %s", d.Relative(root))
		}
	}
	if err := res.Write(); err != nil {
		t.Fatal(err)
	}
	if len(res.Files) != len(dirs) {
		t.Fatalf("%d generated files, want %d", len(res.Files), len(dirs))
	}
	cmd := exec.Command("go", append([]string{"vet"}, dirs...)...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("generated code does not vet: %v\n%s", err, out)
	}
}
