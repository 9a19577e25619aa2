package gen

import (
	"go/ast"
	"go/token"
	"os"
	"path/filepath"
	"testing"
)

func TestEarlyParse(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.go")
	src := []byte("package a\n\n// F is f.\nfunc F() int { return 1 }\n")
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	e := parseEarly(fset, []string{path})
	e.wait()
	early := e.files[path].file
	funcName := func(f *ast.File) string {
		fd := f.Decls[0].(*ast.FuncDecl)
		if fd.Body != nil {
			t.Errorf("%s kept its body", fd.Name.Name)
		}
		return fd.Name.Name
	}

	// The file changed since: parsed again from what go/packages read.
	f, err := e.parseFile(fset, path, []byte("package a\n\nfunc G() {}\n"))
	if err != nil || f == early || funcName(f) != "G" {
		t.Errorf("changed source: %v, the early parse handed out: %v", err, f == early)
	}
	// The same source: the early parse, once.
	f, err = e.parseFile(fset, path, src)
	if err != nil || f != early || funcName(f) != "F" || f.Doc == nil && f.Decls[0].(*ast.FuncDecl).Doc == nil {
		t.Errorf("same source: %v, the early parse handed out: %v", err, f == early)
	}
	if again, _ := e.parseFile(fset, path, src); again == early {
		t.Error("the early parse was handed out twice")
	}
	// A file not parsed early, or another file set: parsed now.
	if f, err := e.parseFile(fset, filepath.Join(dir, "b.go"), []byte("package a\nfunc H() {}\n")); err != nil || funcName(f) != "H" {
		t.Errorf("other file: %v", err)
	}
	if f, _ := e.parseFile(token.NewFileSet(), path, src); f == early {
		t.Error("the early parse was handed out for another file set")
	}
}
