package gen

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/txtar"

	"github.com/toolapi/toolapi/internal/testenv"
)

var update = flag.Bool("update", false, "rewrite the golden sections of testdata/cases/*.txtar")

// TestCases runs the txtar cases of testdata/cases. Each archive holds Go
// files of one package and the golden "describe.json" (what -describe
// prints for that package); an archive that also holds "tools_gen.go"
// compares the generated file too. Every generated file must compile.
// Run with -update to rewrite the goldens.
func TestCases(t *testing.T) {
	files, err := filepath.Glob("testdata/cases/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	root, err := os.MkdirTemp("testdata", "run-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	root, _ = filepath.Abs(root)
	type tcase struct {
		name, file, dir string
		ar              *txtar.Archive
	}
	var cases []*tcase
	var dirs []string
	for _, f := range files {
		ar, err := txtar.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(filepath.Base(f), ".txtar")
		dir := filepath.Join(root, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, af := range ar.Files {
			if strings.HasSuffix(af.Name, ".go") && af.Name != GeneratedFile {
				if err := os.WriteFile(filepath.Join(dir, af.Name), af.Data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
		cases = append(cases, &tcase{name: name, file: f, dir: dir, ar: ar})
		dirs = append(dirs, dir)
	}
	wd, _ := os.Getwd()
	pkgs, err := Load(wd, dirs)
	if err != nil {
		t.Fatal(err)
	}
	byDir := map[string]*packages.Package{}
	for _, p := range pkgs {
		if len(p.GoFiles) > 0 {
			byDir[filepath.Dir(p.GoFiles[0])] = p
		} else if len(p.Syntax) > 0 {
			byDir[dirOf(p.Fset.Position(p.Syntax[0].Pos()).Filename)] = p
		}
	}
	var compile []string
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := byDir[c.dir]
			if p == nil {
				t.Fatalf("package of %s not loaded", c.dir)
			}
			model, diags := Infer([]*packages.Package{p})
			res := &Result{Packages: model, Diagnostics: diags, Files: map[string][]byte{}}
			var gen []byte
			for _, m := range model {
				src, err := Render(m)
				if err != nil {
					t.Fatalf("render: %v\n%s", err, src)
				}
				gen = src
				if err := os.WriteFile(filepath.Join(c.dir, GeneratedFile), src, 0o644); err != nil {
					t.Fatal(err)
				}
				compile = append(compile, "./"+filepath.ToSlash(mustRel(t, wd, c.dir)))
			}
			desc := res.Describe(c.dir)
			got, err := json.MarshalIndent(desc, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			if fast, err := desc.MarshalIndented(); err != nil || !bytes.Equal(fast, got) {
				t.Errorf("MarshalIndented differs from json.MarshalIndent (%v):\n%s", err, cmp.Diff(string(got), string(fast)))
			}
			changed := false
			check := func(name string, got []byte) {
				for i := range c.ar.Files {
					f := &c.ar.Files[i]
					if f.Name != name {
						continue
					}
					if *update {
						if !bytes.Equal(f.Data, got) {
							f.Data, changed = got, true
						}
						return
					}
					if diff := cmp.Diff(string(f.Data), string(got)); diff != "" {
						t.Errorf("%s differs from %s (-want +got); run go test ./internal/gen -run TestCases -update to accept:\n%s", name, c.file, diff)
					}
					return
				}
				if *update {
					c.ar.Files = append(c.ar.Files, txtar.File{Name: name, Data: got})
					changed = true
					return
				}
				t.Errorf("%s has no %s section; run with -update", c.file, name)
			}
			check("describe.json", got)
			for _, f := range c.ar.Files {
				if f.Name == GeneratedFile {
					check(GeneratedFile, gen)
				}
			}
			if changed {
				if err := os.WriteFile(c.file, txtar.Format(c.ar), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
	if len(compile) == 0 || t.Failed() {
		return
	}
	t.Run("compile", func(t *testing.T) {
		testenv.NeedFull(t) // runs go vet
		cmd := exec.Command("go", append([]string{"vet"}, compile...)...)
		cmd.Dir = wd
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("generated code does not compile: %v\n%s", err, out)
		}
	})
}

func mustRel(t *testing.T, base, path string) string {
	rel, err := filepath.Rel(base, path)
	if err != nil {
		t.Fatal(err)
	}
	return rel
}
