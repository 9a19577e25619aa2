package gen

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/tools/go/packages"

	"github.com/toolapi/toolapi/internal/directive"
	"github.com/toolapi/toolapi/tool"
)

// Infer builds the model of every package's tools from the loaded
// packages. Methods whose tools cannot be built are left out, each with a
// diagnostic; the rest are returned.
func Infer(pkgs []*packages.Package) ([]*Package, []Diagnostic) {
	return infer(pkgs, nil)
}

// infer is [Infer], given the directives [load] parsed (nil to parse
// them now).
func infer(pkgs []*packages.Package, dc *directiveCache) ([]*Package, []Diagnostic) {
	var diags []Diagnostic
	var good []*packages.Package
	for _, p := range pkgs {
		// Type errors are expected: the application may call functions of
		// the generated file, which is not loaded. A method whose own
		// signature does not type-check is reported by its tool; a package
		// that does not parse or list is left out.
		skip := p.Types == nil || p.TypesInfo == nil || len(p.Syntax) == 0
		for _, e := range p.Errors {
			if e.Kind == packages.ParseError || skip {
				diags = append(diags, loadDiagnostic(e))
				skip = true
			}
		}
		if !skip {
			good = append(good, p)
		}
	}
	inf := &inference{
		decls:       newDeclIndex(good, dc),
		reported:    map[*ast.Comment]bool{},
		entityTypes: map[string][]string{},
		configs:     map[string]string{},
		appBase:     map[*tool.Definition]string{},
		consumed:    map[*ast.Comment]bool{},
		misplacedAt: map[*ast.Comment]bool{},
		memberCache: map[types.Type]membersOf{},
	}
	inf.typeDirectives(good)
	// Packages are inferred one after another: inference takes a few
	// percent of a run, which a load dominates (BenchmarkInfer).
	var out []*Package
	for _, p := range good {
		if pkg := inf.pkg(p); pkg != nil {
			out = append(out, pkg)
		}
	}
	inf.duplicates(out)
	inf.misplaced()
	diags = append(diags, inf.diags...)
	slices.SortStableFunc(diags, func(a, b Diagnostic) int {
		if c := strings.Compare(a.Pos.Filename, b.Pos.Filename); c != 0 {
			return c
		}
		if a.Pos.Line != b.Pos.Line {
			return a.Pos.Line - b.Pos.Line
		}
		return a.Pos.Column - b.Pos.Column
	})
	return out, diags
}

func loadDiagnostic(e packages.Error) Diagnostic {
	d := Diagnostic{Message: e.Msg}
	// e.Pos is "file:line:col" or "file:line" or "".
	var pos token.Position
	parts := strings.Split(e.Pos, ":")
	if len(parts) >= 2 {
		pos.Filename = strings.Join(parts[:len(parts)-2], ":")
		fmt.Sscan(parts[len(parts)-2], &pos.Line)
		fmt.Sscan(parts[len(parts)-1], &pos.Column)
		if pos.Filename == "" {
			pos.Filename = parts[0]
			fmt.Sscan(parts[1], &pos.Line)
			pos.Column = 0
		}
	}
	d.Pos = pos
	return d
}

type inference struct {
	decls *declIndex
	// entityTypes maps a type key to the entity type IDs it is the class of.
	entityTypes map[string][]string
	// configs maps a config name to the type key of its struct.
	configs map[string]string
	// appBase maps a definition given an application data type (type=
	// naming no built-in type) to the built-in type its Go value has.
	appBase map[*tool.Definition]string
	// consumed marks the directives a rule has read.
	consumed map[*ast.Comment]bool
	// misplacedAt marks directives a rule found in the wrong place: they
	// are reported even when another rule reads them.
	misplacedAt map[*ast.Comment]bool
	// memberCache holds the members of value objects by type.
	memberCache map[types.Type]membersOf

	diags    []Diagnostic
	reported map[*ast.Comment]bool
	// invokable holds the types whose doc carries //tool:method.
	invokable map[string]bool
}

func (inf *inference) errorf(pos token.Position, format string, args ...any) {
	inf.report(Diagnostic{Pos: pos, Message: fmt.Sprintf(format, args...)})
}

// report adds a diagnostic.
func (inf *inference) report(d Diagnostic) {
	inf.diags = append(inf.diags, d)
}

// typeDirectives reads the directives on type declarations: entitytype,
// config, and the //tool:method of invokable services; and marks the
// //tool:property directives on methods as read.
func (inf *inference) typeDirectives(pkgs []*packages.Package) {
	inf.invokable = map[string]bool{}
	keys := make([]string, 0, len(inf.decls.types))
	for k := range inf.decls.types {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, key := range keys {
		td := inf.decls.types[key]
		for _, c := range commentList(td.doc) {
			d, ok := inf.decls.parsed[c]
			if !ok || d == nil {
				continue
			}
			switch d.Name {
			case "entitytype":
				inf.consume(c)
				inf.entityTypes[key] = append(inf.entityTypes[key], d.ArgList()...)
			case "config":
				inf.consume(c)
				if _, ok := td.spec.Type.(*ast.StructType); !ok {
					inf.errorf(d.Pos, "//tool:config %s: %s is not a struct type", d.Arg, td.spec.Name.Name)
					continue
				}
				if prev, dup := inf.configs[d.Arg]; dup {
					inf.errorf(d.Pos, "//tool:config %s is declared twice (also on %s)", d.Arg, prev)
					continue
				}
				inf.configs[d.Arg] = key
			case "method":
				inf.invokable[key] = true
			}
		}
	}
	// //tool:property sits on getters; the value objects that use them
	// check them when they are described.
	for _, fd := range inf.decls.methods {
		for _, c := range commentList(fd.Doc) {
			if d := inf.decls.parsed[c]; d != nil && d.Name == "property" {
				inf.consume(c)
			}
		}
	}
	for _, f := range inf.decls.imeths {
		for _, c := range commentList(f.Doc) {
			if d := inf.decls.parsed[c]; d != nil && d.Name == "property" {
				inf.consume(c)
			}
		}
	}
}

func commentList(cg *ast.CommentGroup) []*ast.Comment {
	if cg == nil {
		return nil
	}
	return cg.List
}

// A candidate is a method carrying //tool:method.
type candidate struct {
	recv      *types.TypeName
	method    *types.Func
	doc       *ast.CommentGroup // the method's doc (Invoke's for an invokable type)
	typeDoc   *ast.CommentGroup // the type's doc, for an invokable type
	pos       token.Position
	invokable bool
	iface     bool
}

// pkg builds the tools of one package.
func (inf *inference) pkg(p *packages.Package) *Package {
	pkg := &Package{Path: p.PkgPath, Name: p.Name, types: p.Types, entityTypes: inf.entityTypes, objects: map[*tool.Definition]types.Type{}}
	if len(p.Syntax) > 0 {
		pkg.Dir = dirOf(inf.decls.fset.Position(p.Syntax[0].Pos()).Filename)
	}
	services := map[string]*Service{}
	for _, c := range inf.candidates(p) {
		t := inf.tool(pkg, c)
		if t == nil {
			continue
		}
		s := services[c.recv.Name()]
		if s == nil {
			s = &Service{Name: c.recv.Name(), Interface: c.iface}
			services[c.recv.Name()] = s
			pkg.Services = append(pkg.Services, s)
		}
		t.Service = s
		s.Tools = append(s.Tools, t)
	}
	if len(pkg.Services) == 0 {
		return nil
	}
	slices.SortFunc(pkg.Services, func(a, b *Service) int { return strings.Compare(a.Name, b.Name) })
	return pkg
}

// candidates returns the methods of a package carrying //tool:method, in
// source order: methods, invokable types and interface methods.
func (inf *inference) candidates(p *packages.Package) []candidate {
	var cands []candidate
	for _, f := range p.Syntax {
		for _, decl := range f.Decls {
			switch decl := decl.(type) {
			case *ast.FuncDecl:
				if c, ok := inf.methodCandidate(p, decl); ok {
					cands = append(cands, c)
				}
			case *ast.GenDecl:
				for _, spec := range decl.Specs {
					if ts, ok := spec.(*ast.TypeSpec); ok {
						cands = append(cands, inf.typeCandidates(p, ts)...)
					}
				}
			}
		}
	}
	return cands
}

// methodCandidate returns the candidate of a method declaration carrying
// //tool:method.
func (inf *inference) methodCandidate(p *packages.Package, decl *ast.FuncDecl) (candidate, bool) {
	if !hasDirective(inf.decls, decl.Doc, "method") {
		return candidate{}, false
	}
	fn, _ := p.TypesInfo.Defs[decl.Name].(*types.Func)
	if decl.Recv == nil || fn == nil {
		inf.errorf(inf.decls.fset.Position(decl.Pos()), "%s: //tool:method needs a method, not a function", decl.Name.Name)
		inf.directives(decl.Doc)
		return candidate{}, false
	}
	recv := namedObj(derefType(fn.Type().(*types.Signature).Recv().Type()))
	if recv == nil {
		return candidate{}, false
	}
	return candidate{recv: recv, method: fn, doc: decl.Doc, pos: inf.decls.fset.Position(decl.Name.Pos())}, true
}

// typeCandidates returns the candidates of a type declaration: the type
// itself when it is invokable, and its interface methods carrying
// //tool:method.
func (inf *inference) typeCandidates(p *packages.Package, ts *ast.TypeSpec) []candidate {
	obj, _ := p.TypesInfo.Defs[ts.Name].(*types.TypeName)
	if obj == nil {
		return nil
	}
	var cands []candidate
	if inf.invokable[typeKey(obj)] {
		c := candidate{recv: obj, typeDoc: inf.decls.types[typeKey(obj)].doc, pos: inf.decls.fset.Position(ts.Name.Pos()), invokable: true}
		ms := types.NewMethodSet(types.NewPointer(obj.Type()))
		if sel := ms.Lookup(obj.Pkg(), "Invoke"); sel != nil {
			c.method = sel.Obj().(*types.Func)
			c.doc, _ = inf.decls.methodDoc(obj, "Invoke")
		}
		_, c.iface = obj.Type().Underlying().(*types.Interface)
		cands = append(cands, c)
	}
	it, ok := ts.Type.(*ast.InterfaceType)
	if !ok {
		return cands
	}
	iface := obj.Type().Underlying().(*types.Interface)
	for _, m := range it.Methods.List {
		if len(m.Names) != 1 || !hasDirective(inf.decls, m.Doc, "method") {
			continue
		}
		for i := range iface.NumExplicitMethods() {
			if fn := iface.ExplicitMethod(i); fn.Name() == m.Names[0].Name {
				cands = append(cands, candidate{recv: obj, method: fn, doc: m.Doc, pos: inf.decls.fset.Position(m.Names[0].Pos()), iface: true})
			}
		}
	}
	return cands
}

func dirOf(file string) string {
	if i := strings.LastIndexAny(file, `/\`); i >= 0 {
		return file[:i]
	}
	return "."
}

func derefType(t types.Type) types.Type {
	if p, ok := t.(*types.Pointer); ok {
		return p.Elem()
	}
	return t
}

func hasDirective(decls *declIndex, cg *ast.CommentGroup, name string) bool {
	for _, c := range commentList(cg) {
		if d := decls.parsed[c]; d != nil && d.Name == name {
			return true
		}
	}
	return false
}

// duplicates leaves out both tools of every shared ID, and of every shared
// name (tool.NameOf: "a.b" and "a__b" are both named "a__b"), which no
// registry can hold together.
func (inf *inference) duplicates(pkgs []*Package) {
	byName := map[string][]*Tool{}
	var names []string
	for _, p := range pkgs {
		for _, s := range p.Services {
			for _, t := range s.Tools {
				name := tool.NameOf(t.Tool.ID)
				if byName[name] == nil {
					names = append(names, name)
				}
				byName[name] = append(byName[name], t)
			}
		}
	}
	drop := map[*Tool]bool{}
	for _, name := range names {
		ts := byName[name]
		if len(ts) < 2 {
			continue
		}
		for _, t := range ts {
			id := t.Tool.ID
			var same, named []string
			for _, o := range ts {
				if o == t {
					continue
				}
				pos := o.Pos
				if rel, err := filepath.Rel(filepath.Dir(t.Pos.Filename), pos.Filename); err == nil {
					pos.Filename = filepath.ToSlash(rel)
				}
				if o.Tool.ID == id {
					same = append(same, fmt.Sprintf("%s (%s)", pos, o.MethodName()))
				} else {
					named = append(named, fmt.Sprintf("%s at %s (%s)", o.Tool.ID, pos, o.MethodName()))
				}
			}
			var msg []string
			if len(same) > 0 {
				msg = append(msg, "ID "+id+" is also declared at "+strings.Join(same, ", "))
			}
			if len(named) > 0 {
				msg = append(msg, "ID "+id+" has the name "+name+" in MCP and model APIs (a '.' is named \"__\"), as "+strings.Join(named, ", ")+" has")
			}
			inf.diags = append(inf.diags, Diagnostic{Pos: t.Pos, Tool: id, Method: t.MethodName(),
				Message: strings.Join(msg, "; ") + "; both are left out"})
			drop[t] = true
		}
	}
	if len(drop) == 0 {
		return
	}
	for _, p := range pkgs {
		for _, s := range p.Services {
			s.Tools = slices.DeleteFunc(s.Tools, func(t *Tool) bool { return drop[t] })
		}
		p.Services = slices.DeleteFunc(p.Services, func(s *Service) bool { return len(s.Tools) == 0 })
	}
}

var placement = map[string]string{
	"method":     "the doc comment of a method, or of a type with an Invoke method",
	"input":      "the doc comment of a method carrying //tool:method",
	"entity":     "the doc comment of a method carrying //tool:method",
	"output":     "the doc comment of a method carrying //tool:method",
	"property":   "the doc comment of a getter method",
	"entitytype": "the doc comment of a type",
	"config":     "the doc comment of a struct type",
}

// misplaced reports every directive no rule read, and the parse problems
// of directives not already reported with their method.
func (inf *inference) misplaced() {
	for _, d := range inf.decls.diags {
		if d.comment != nil && inf.reported[d.comment] {
			continue
		}
		inf.diags = append(inf.diags, Diagnostic{Pos: d.Pos, Message: d.Message})
	}
	for _, c := range inf.decls.order {
		d := inf.decls.parsed[c]
		if d == nil || inf.consumed[c] && !inf.misplacedAt[c] {
			continue
		}
		inf.errorf(d.Pos, "misplaced //tool:%s: it belongs in %s", d.Name, placement[d.Name])
	}
}

// directives returns the parsed directives of a doc comment, marking them
// read. Directives that failed to parse are left out.
func (inf *inference) directives(cg *ast.CommentGroup) []*directive.Directive {
	if cg == nil {
		return nil
	}
	var ds []*directive.Directive
	for _, c := range cg.List {
		if d, ok := inf.decls.parsed[c]; ok {
			inf.consume(c)
			if d != nil {
				ds = append(ds, d)
			}
		}
	}
	return ds
}

// consume marks a directive read.
func (inf *inference) consume(c *ast.Comment) {
	inf.consumed[c] = true
}

// setAppBase records the built-in type standing for the application data
// type of def.
func (inf *inference) setAppBase(def *tool.Definition, base string) {
	inf.appBase[def] = base
}

func (inf *inference) appBaseOf(def *tool.Definition) (string, bool) {
	base, ok := inf.appBase[def]
	return base, ok
}

// A pkgInference infers the tools of one package.
type pkgInference struct {
	*inference
	pkg *Package
}

// entityIDs returns the entity type IDs t (or *t) is the class of.
func (pi *pkgInference) entityIDs(t types.Type) []string { return entityIDs(pi.entityTypes, t) }

// entityIDs returns the entity type IDs t (or *t) is the class of, given
// the entity types of every Go type by key.
func entityIDs(entityTypes map[string][]string, t types.Type) []string {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	if obj := namedObj(t); obj != nil {
		return entityTypes[typeKey(obj)]
	}
	return nil
}
