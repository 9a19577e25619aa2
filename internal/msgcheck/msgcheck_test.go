package msgcheck_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolapi/toolapi/internal/msgcheck"
)

// TestNoMessageTextInspection parses every Go file of the repository that
// is not a test (the contrib modules too) and fails on each place that
// reads a diagnostic's words instead of its rule.
func TestNoMessageTextInspection(t *testing.T) {
	root := repoRoot(t)
	fset := token.NewFileSet()
	pkgs := map[string][]*ast.File{} // by directory
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		files++
		dir := filepath.Dir(path)
		pkgs[dir] = append(pkgs[dir], f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("parsed %d files under %s; the walk missed the repository", files, root)
	}
	for _, fs := range pkgs {
		for _, finding := range msgcheck.Check(fset, fs) {
			rel, _ := filepath.Rel(root, finding.Pos.Filename)
			t.Errorf("%s:%d: %s: switch on the rule key and read its datum instead", rel, finding.Pos.Line, finding.What)
		}
	}
}

// repoRoot returns the directory of the repository's go.mod, above this
// package's.
func repoRoot(t *testing.T) string {
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for {
		if data, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && strings.Contains(string(data), "module github.com/toolapi/toolapi\n") {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod of github.com/toolapi/toolapi above the test")
		}
		dir = parent
	}
}

// TestMessageInspectionsCatch feeds Check a snippet of each form of
// inspection, and of what it must let pass.
func TestMessageInspectionsCatch(t *testing.T) {
	tests := []struct {
		name, code string
		want       []string // the What of each finding, in order
	}{
		{"strings.Contains on a message", `strings.Contains(v.Message, "of a ")`, []string{"strings.Contains on .Message"}},
		{"strings.HasPrefix on an error", `strings.HasPrefix(err.Error(), "no ")`, []string{"strings.HasPrefix on .Error()"}},
		{"strings.HasSuffix", `strings.HasSuffix(v.Message, ".")`, []string{"strings.HasSuffix on .Message"}},
		{"strings.Index", `strings.Index(err.Error(), ":")`, []string{"strings.Index on .Error()"}},
		{"strings.Replace", `strings.Replace(v.Message, "a", "b", 1)`, []string{"strings.Replace on .Message"}},
		{"strings.TrimPrefix", `strings.TrimPrefix(v.Message, "must be the ID of a ")`, []string{"strings.TrimPrefix on .Message"}},
		{"strings.Cut", `strings.Cut(err.Error(), ": ")`, []string{"strings.Cut on .Error()"}},
		{"strings.CutPrefix, parenthesized", `strings.CutPrefix((v.Message), "no ")`, []string{"strings.CutPrefix on .Message"}},
		{"regexp method", `re.MatchString(v.Message)`, []string{"regular expression MatchString on .Message"}},
		{"regexp find", `re.FindStringSubmatch(err.Error())`, []string{"regular expression FindStringSubmatch on .Error()"}},
		{"regexp function", `regexp.MatchString("^no ", v.Message)`, []string{"regular expression MatchString on .Message"}},
		{"equal to a literal", `v.Message == "is required"`, []string{"comparison of .Message with a string literal"}},
		{"literal first, not equal", `"EOF" != err.Error()`, []string{"comparison of .Error() with a string literal"}},
		{"slicing", `v.Message[:5]`, []string{"slicing .Message"}},
		{"indexing", `err.Error()[0]`, []string{"indexing .Error()"}},
		// What passes: the words as they are, their presence, the rule.
		{"presence", `v.Message != ""`, nil},
		{"the rule", `v.Rule == "required"`, nil},
		{"words passed on", `b.WriteString(v.Message); fmt.Println(err.Error())`, nil},
		{"strings on other text", `strings.HasPrefix(v.Path, "tags")`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := "package p\n\nimport (\n\t\"fmt\"\n\t\"regexp\"\n\t\"strings\"\n)\n\nvar _, _, _ = fmt.Print, regexp.Compile, strings.Cut\n\nfunc f() {\n\t_ = func() any { " + exprOrStmt(tt.code) + " }\n}\n"
			checkSnippet(t, src, tt.want)
		})
	}
	t.Run("switch on an error", func(t *testing.T) {
		checkSnippet(t, "package p\n\nfunc f(err error) {\n\tswitch err.Error() {\n\tcase \"EOF\":\n\t}\n}\n", []string{"switch on .Error()"})
	})
	t.Run("a local variable", func(t *testing.T) {
		checkSnippet(t, "package p\n\nimport \"strings\"\n\nfunc f(v struct{ Message string }) bool {\n\tmsg := v.Message\n\treturn strings.HasPrefix(msg, \"must\")\n}\n",
			[]string{"strings.HasPrefix on msg, which holds .Message"})
	})
	t.Run("a parameter a call passes a message", func(t *testing.T) {
		// The explorer's old plain words: the message handed to a
		// function, and a method, that search it.
		checkSnippet(t, `package p

import "strings"

type V struct{ Message string }
type F struct{}

func plain(def any, msg string) string {
	switch {
	case strings.HasPrefix(msg, "must be the ID of a "):
		return "must name a " + strings.TrimPrefix(msg, "must be the ID of a ")
	case msg == "must be an integer":
		return "a whole number"
	}
	return msg
}

func (F) notFound(msg string) bool { _, ok := strings.CutPrefix(msg, "no "); return ok }

func place(f F, v V) { _ = plain(nil, v.Message); _ = f.notFound(v.Message) }
`, []string{
			"strings.HasPrefix on msg, which holds .Message",
			"strings.TrimPrefix on msg, which holds .Message",
			"comparison of msg, which holds .Message with a string literal",
			"strings.CutPrefix on msg, which holds .Message",
		})
	})
	t.Run("strings imported under another name", func(t *testing.T) {
		checkSnippet(t, "package p\n\nimport str \"strings\"\n\nfunc f(v struct{ Message string }) bool { return str.Contains(v.Message, \"x\") }\n", []string{"strings.Contains on .Message"})
	})
}

// exprOrStmt wraps code as the body of a func() any: an expression is
// returned, statements are followed by a return.
func exprOrStmt(code string) string {
	if strings.Contains(code, ";") {
		return code + "; return nil"
	}
	return "return " + code
}

func checkSnippet(t *testing.T, src string, want []string) {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	var got []string
	for _, finding := range msgcheck.Check(fset, []*ast.File{f}) {
		got = append(got, finding.What)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings %q, want %q in\n%s", got, want, src)
	}
}
