package gen

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/tools/go/packages"

	"github.com/toolapi/toolapi/internal/directive"
)

// LoadMode is what toolgen asks go/packages for: names, types, syntax and
// type information, nothing about dependencies beyond their export data.
const LoadMode = packages.NeedName | packages.NeedTypes | packages.NeedSyntax | packages.NeedTypesInfo

// BuildTag is the build tag toolgen loads packages with. Generated files
// carry "//go:build !toolgen", so a stale one never stops its own
// regeneration.
const BuildTag = "toolgen"

// Load type-checks the packages in dirs (absolute), from dir.
func Load(dir string, dirs []string) ([]*packages.Package, error) {
	pkgs, _, err := load(dir, dirs, nil)
	return pkgs, err
}

// load is [Load]. While the go command lists the packages (which keeps
// one process busy for most of a load), it parses sources, the Go files of
// dirs that the scan found, with their directives, so that go/packages
// finds them parsed. It also returns the directives of every file it
// parsed.
func load(dir string, dirs, sources []string) ([]*packages.Package, *directiveCache, error) {
	if len(dirs) == 0 {
		return nil, nil, nil
	}
	patterns := make([]string, len(dirs))
	for i, d := range dirs {
		rel, err := filepath.Rel(dir, d)
		if err != nil || strings.HasPrefix(rel, "..") {
			patterns[i] = d
			continue
		}
		patterns[i] = "./" + filepath.ToSlash(rel)
	}
	fset := token.NewFileSet()
	early := parseEarly(fset, sources)
	defer early.wait()
	cfg := &packages.Config{
		Mode:       LoadMode,
		Dir:        dir,
		BuildFlags: []string{"-tags=" + BuildTag},
		Fset:       fset,
		ParseFile:  early.parseFile,
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, nil, fmt.Errorf("loading packages: %w", err)
	}
	return pkgs, &early.directives, nil
}

// parseDeclarations parses a Go file as go/packages does, then drops the
// bodies of its functions and methods: toolgen reads declarations, doc
// comments and comments only, and the type checker skips a function
// without a body (as gopls skips the bodies of dependencies). go/packages
// calls it from several goroutines.
func parseDeclarations(fset *token.FileSet, filename string, src []byte) (*ast.File, error) {
	f, err := parser.ParseFile(fset, filename, src, parser.AllErrors|parser.ParseComments|parser.SkipObjectResolution)
	if f != nil {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok {
				fd.Body = nil
			}
		}
	}
	return f, err
}

// An earlyParse parses files before go/packages asks for them.
type earlyParse struct {
	fset       *token.FileSet
	files      map[string]*parsedFile
	wg         sync.WaitGroup
	directives directiveCache
}

// A directiveCache holds the directives of parsed files.
type directiveCache struct{ m sync.Map } // *ast.File -> []parsedDirective

// A parsedDirective is a directive comment and its parse.
type parsedDirective struct {
	comment *ast.Comment
	d       *directive.Directive
	diags   []directive.Diagnostic
}

// parseDirectives parses the directive comments of f.
func parseDirectives(fset *token.FileSet, f *ast.File) []parsedDirective {
	var out []parsedDirective
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			switch {
			case directive.IsDirective(c.Text):
				d, diags := directive.Parse(c.Text, fset.Position(c.Pos()))
				out = append(out, parsedDirective{comment: c, d: d, diags: diags})
			case directive.IsSpaced(c.Text):
				out = append(out, parsedDirective{comment: c, diags: []directive.Diagnostic{directive.Unspaced(c.Text, fset.Position(c.Pos()))}})
			default:
				if off, msg, ok := directive.Mistyped(c.Text); ok {
					out = append(out, parsedDirective{comment: c, diags: []directive.Diagnostic{{Pos: fset.Position(c.Pos() + token.Pos(off)), Message: msg}}})
				}
			}
		}
	}
	return out
}

func (dc *directiveCache) store(fset *token.FileSet, f *ast.File) {
	if f != nil {
		dc.m.Store(f, parseDirectives(fset, f))
	}
}

// of returns the directives of f: parsed before, or now.
func (dc *directiveCache) of(fset *token.FileSet, f *ast.File) []parsedDirective {
	if dc != nil {
		if ds, ok := dc.m.Load(f); ok {
			return ds.([]parsedDirective)
		}
	}
	return parseDirectives(fset, f)
}

type parsedFile struct {
	done chan struct{}
	used atomic.Bool
	src  []byte
	file *ast.File
	err  error
}

// parseEarly starts parsing files with [parseDeclarations], as many at
// once as there are processors.
func parseEarly(fset *token.FileSet, files []string) *earlyParse {
	e := &earlyParse{fset: fset, files: make(map[string]*parsedFile, len(files))}
	next := make(chan string, len(files))
	for _, name := range files {
		e.files[name] = &parsedFile{done: make(chan struct{})}
		next <- name
	}
	close(next)
	for range min(runtime.GOMAXPROCS(0), len(files)) {
		e.wg.Go(func() {
			for name := range next {
				pf := e.files[name]
				if pf.src, pf.err = os.ReadFile(name); pf.err == nil {
					pf.file, pf.err = parseDeclarations(fset, name, pf.src)
					e.directives.store(fset, pf.file)
				}
				close(pf.done)
			}
		})
	}
	return e
}

// parseFile is go/packages' ParseFile: the early parse of the file when
// it parsed the same source, else a parse now.
func (e *earlyParse) parseFile(fset *token.FileSet, filename string, src []byte) (*ast.File, error) {
	if pf, ok := e.files[filename]; ok && fset == e.fset {
		<-pf.done
		// Each early parse is handed out once, for the one package of the
		// file.
		if pf.src != nil && bytes.Equal(pf.src, src) && !pf.used.Swap(true) {
			return pf.file, pf.err
		}
	}
	f, err := parseDeclarations(fset, filename, src)
	e.directives.store(fset, f)
	return f, err
}

// wait waits for the early parses to end.
func (e *earlyParse) wait() { e.wg.Wait() }

// A declIndex holds what every loaded package declares that toolgen reads:
// type declarations, methods, doc comments and directives.
type declIndex struct {
	fset    *token.FileSet
	pkgs    map[string]*packages.Package // by path
	types   map[string]*typeDecl         // "path.Name"
	methods map[string]*ast.FuncDecl     // "path.Type.Method"
	imeths  map[string]*ast.Field        // "path.Interface.Method"
	fields  map[token.Pos]*ast.Field     // struct fields by the position of their first name
	// parsed holds every directive comment with its parse, in the order
	// of the files; diags holds the parse problems.
	parsed map[*ast.Comment]*directive.Directive
	order  []*ast.Comment
	diags  []Diagnostic
}

type typeDecl struct {
	pkg  *packages.Package
	spec *ast.TypeSpec
	doc  *ast.CommentGroup
	obj  *types.TypeName
}

func newDeclIndex(pkgs []*packages.Package, dc *directiveCache) *declIndex {
	decls := &declIndex{
		pkgs:    map[string]*packages.Package{},
		types:   map[string]*typeDecl{},
		methods: map[string]*ast.FuncDecl{},
		imeths:  map[string]*ast.Field{},
		fields:  map[token.Pos]*ast.Field{},
		parsed:  map[*ast.Comment]*directive.Directive{},
	}
	for _, p := range pkgs {
		if decls.fset == nil {
			decls.fset = p.Fset
		}
		decls.pkgs[p.PkgPath] = p
		for _, f := range p.Syntax {
			if ast.IsGenerated(f) {
				continue // generated files carry no directives to read
			}
			decls.addFile(p, f, dc)
		}
	}
	return decls
}

func (decls *declIndex) addFile(p *packages.Package, f *ast.File, dc *directiveCache) {
	for _, pd := range dc.of(decls.fset, f) {
		decls.parsed[pd.comment] = pd.d
		decls.order = append(decls.order, pd.comment)
		for _, dg := range pd.diags {
			decls.diags = append(decls.diags, Diagnostic{Pos: dg.Pos, Message: dg.Message, comment: pd.comment})
		}
	}
	for _, decl := range f.Decls {
		switch decl := decl.(type) {
		case *ast.GenDecl:
			if decl.Tok != token.TYPE {
				continue
			}
			for _, spec := range decl.Specs {
				ts := spec.(*ast.TypeSpec)
				doc := ts.Doc
				if doc == nil && len(decl.Specs) == 1 {
					doc = decl.Doc
				}
				obj, _ := p.TypesInfo.Defs[ts.Name].(*types.TypeName)
				key := p.PkgPath + "." + ts.Name.Name
				decls.types[key] = &typeDecl{pkg: p, spec: ts, doc: doc, obj: obj}
				ast.Inspect(ts.Type, func(n ast.Node) bool {
					if st, ok := n.(*ast.StructType); ok {
						for _, fld := range st.Fields.List {
							if len(fld.Names) > 0 {
								decls.fields[fld.Names[0].Pos()] = fld
							} else {
								decls.fields[fld.Type.Pos()] = fld
							}
						}
					}
					return true
				})
				if it, ok := ts.Type.(*ast.InterfaceType); ok {
					for _, m := range it.Methods.List {
						if len(m.Names) == 1 {
							decls.imeths[key+"."+m.Names[0].Name] = m
						}
					}
				}
			}
		case *ast.FuncDecl:
			if decl.Recv == nil || len(decl.Recv.List) == 0 {
				continue
			}
			if name := recvName(decl.Recv.List[0].Type); name != "" {
				decls.methods[p.PkgPath+"."+name+"."+decl.Name.Name] = decl
			}
		}
	}
}

// recvName returns the type name of a receiver expression (T, *T, T[P]).
func recvName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return recvName(e.X)
	case *ast.Ident:
		return e.Name
	case *ast.IndexExpr:
		return recvName(e.X)
	case *ast.IndexListExpr:
		return recvName(e.X)
	}
	return ""
}

// parseProblems returns the parse diagnostics of the directives of cg.
func (decls *declIndex) parseProblems(cg *ast.CommentGroup) []Diagnostic {
	if cg == nil {
		return nil
	}
	var out []Diagnostic
	for _, d := range decls.diags {
		for _, c := range cg.List {
			if d.comment == c {
				out = append(out, d)
			}
		}
	}
	return out
}

// typeKey returns the index key of a named type.
func typeKey(obj *types.TypeName) string {
	if obj == nil || obj.Pkg() == nil {
		return ""
	}
	return obj.Pkg().Path() + "." + obj.Name()
}

// method returns the declaration of a method of a named type, for its doc
// comment.
func (decls *declIndex) methodDoc(obj *types.TypeName, method string) (*ast.CommentGroup, bool) {
	key := typeKey(obj) + "." + method
	if fd, ok := decls.methods[key]; ok {
		return fd.Doc, true
	}
	if f, ok := decls.imeths[key]; ok {
		return f.Doc, true
	}
	return nil, false
}

// fieldDecl returns the syntax of a struct field, when it was loaded.
func (decls *declIndex) fieldDecl(owner *types.TypeName, f *types.Var) *ast.Field {
	if fld, ok := decls.fields[f.Pos()]; ok {
		return fld
	}
	if owner == nil {
		return nil
	}
	td, ok := decls.types[typeKey(owner)]
	if !ok {
		return nil
	}
	st, ok := td.spec.Type.(*ast.StructType)
	if !ok {
		return nil
	}
	for _, fld := range st.Fields.List {
		for _, n := range fld.Names {
			if n.Name == f.Name() {
				return fld
			}
		}
	}
	return nil
}
