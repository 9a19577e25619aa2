package gen

import (
	"errors"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/tools/go/packages"

	"github.com/toolapi/toolapi/internal/directive"
	"github.com/toolapi/toolapi/tool"
)

// Infer builds the model of every package's tools from the loaded
// packages. Methods whose tools cannot be built are left out, each with a
// diagnostic; the rest are returned.
func Infer(pkgs []*packages.Package) ([]*Package, []Diagnostic) {
	return infer(pkgs, nil, true)
}

// infer is [Infer], given the directives [load] parsed (nil to parse
// them now); without code it builds the definitions and diagnostics
// only, what -describe prints, and the model cannot be rendered.
func infer(pkgs []*packages.Package, dc *directiveCache, code bool) ([]*Package, []Diagnostic) {
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
	x := newIndex(good, dc)
	in := &inferrer{x: x, reported: map[*ast.Comment]bool{}, code: code}
	in.typeDirectives(good)
	// Packages are inferred in parallel, each by one goroutine, in the
	// order of the load.
	inferred := make([]*Package, len(good))
	next := make(chan int, len(good))
	for i := range good {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(good)) {
		wg.Go(func() {
			for i := range next {
				inferred[i] = in.pkg(good[i])
			}
		})
	}
	wg.Wait()
	var out []*Package
	for _, pkg := range inferred {
		if pkg != nil {
			out = append(out, pkg)
		}
	}
	in.duplicates(out)
	in.misplaced()
	diags = append(diags, in.diags...)
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

type inferrer struct {
	x    *index
	code bool // write the Go code of the tools, not only their definitions

	mu       sync.Mutex // guards diags and reported while packages are inferred in parallel
	diags    []Diagnostic
	reported map[*ast.Comment]bool
	// invokable holds the types whose doc carries //tool:method.
	invokable map[string]bool
}

func (in *inferrer) errorf(pos token.Position, format string, args ...any) {
	in.report(Diagnostic{Pos: pos, Message: fmt.Sprintf(format, args...)})
}

// report adds a diagnostic; packages are inferred in parallel.
func (in *inferrer) report(d Diagnostic) {
	in.mu.Lock()
	in.diags = append(in.diags, d)
	in.mu.Unlock()
}

// typeDirectives reads the directives on type declarations: entitytype,
// config, and the //tool:method of invokable services; and marks the
// //tool:property directives on methods as read.
func (in *inferrer) typeDirectives(pkgs []*packages.Package) {
	in.invokable = map[string]bool{}
	keys := make([]string, 0, len(in.x.types))
	for k := range in.x.types {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, key := range keys {
		td := in.x.types[key]
		for _, c := range commentList(td.doc) {
			d, ok := in.x.parsed[c]
			if !ok || d == nil {
				continue
			}
			switch d.Name {
			case "entitytype":
				in.x.consume(c)
				in.x.entityTypes[key] = append(in.x.entityTypes[key], d.ArgList()...)
			case "config":
				in.x.consume(c)
				if _, ok := td.spec.Type.(*ast.StructType); !ok {
					in.errorf(d.Pos, "//tool:config %s: %s is not a struct type", d.Arg, td.spec.Name.Name)
					continue
				}
				if prev, dup := in.x.configs[d.Arg]; dup {
					in.errorf(d.Pos, "//tool:config %s is declared twice (also on %s)", d.Arg, prev)
					continue
				}
				in.x.configs[d.Arg] = key
			case "method":
				in.invokable[key] = true
			}
		}
	}
	// //tool:property sits on getters; the value objects that use them
	// check them when they are described.
	for _, fd := range in.x.methods {
		for _, c := range commentList(fd.Doc) {
			if d := in.x.parsed[c]; d != nil && d.Name == "property" {
				in.x.consume(c)
			}
		}
	}
	for _, f := range in.x.imeths {
		for _, c := range commentList(f.Doc) {
			if d := in.x.parsed[c]; d != nil && d.Name == "property" {
				in.x.consume(c)
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
func (in *inferrer) pkg(p *packages.Package) *Package {
	pkg := &Package{Path: p.PkgPath, Name: p.Name, types: p.Types, helpers: map[string]*helper{}, helperBy: map[string]string{}}
	pkg.imports = newImports(p.Types)
	if len(p.Syntax) > 0 {
		pkg.Dir = dirOf(in.x.fset.Position(p.Syntax[0].Pos()).Filename)
	}
	var cands []candidate
	for _, f := range p.Syntax {
		for _, decl := range f.Decls {
			switch decl := decl.(type) {
			case *ast.FuncDecl:
				if !hasDirective(in.x, decl.Doc, "method") {
					continue
				}
				fn, _ := p.TypesInfo.Defs[decl.Name].(*types.Func)
				if decl.Recv == nil || fn == nil {
					in.errorf(in.x.fset.Position(decl.Pos()), "%s: //tool:method needs a method, not a function", decl.Name.Name)
					in.x.directives(decl.Doc)
					continue
				}
				recv := namedObj(derefType(fn.Type().(*types.Signature).Recv().Type()))
				if recv == nil {
					continue
				}
				cands = append(cands, candidate{recv: recv, method: fn, doc: decl.Doc, pos: in.x.fset.Position(decl.Name.Pos())})
			case *ast.GenDecl:
				for _, spec := range decl.Specs {
					ts, ok := spec.(*ast.TypeSpec)
					if !ok {
						continue
					}
					obj, _ := p.TypesInfo.Defs[ts.Name].(*types.TypeName)
					if obj == nil {
						continue
					}
					td := in.x.types[typeKey(obj)]
					if in.invokable[typeKey(obj)] {
						c := candidate{recv: obj, typeDoc: td.doc, pos: in.x.fset.Position(ts.Name.Pos()), invokable: true}
						ms := types.NewMethodSet(types.NewPointer(obj.Type()))
						if sel := ms.Lookup(obj.Pkg(), "Invoke"); sel != nil {
							c.method = sel.Obj().(*types.Func)
							c.doc, _ = in.x.methodDoc(obj, "Invoke")
						}
						_, c.iface = obj.Type().Underlying().(*types.Interface)
						cands = append(cands, c)
					}
					it, ok := ts.Type.(*ast.InterfaceType)
					if !ok {
						continue
					}
					iface := obj.Type().Underlying().(*types.Interface)
					for _, m := range it.Methods.List {
						if len(m.Names) != 1 || !hasDirective(in.x, m.Doc, "method") {
							continue
						}
						var fn *types.Func
						for i := range iface.NumExplicitMethods() {
							if iface.ExplicitMethod(i).Name() == m.Names[0].Name {
								fn = iface.ExplicitMethod(i)
							}
						}
						if fn != nil {
							cands = append(cands, candidate{recv: obj, method: fn, doc: m.Doc, pos: in.x.fset.Position(m.Names[0].Pos()), iface: true})
						}
					}
				}
			}
		}
	}
	services := map[string]*Service{}
	for _, c := range cands {
		t := in.tool(pkg, c)
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

func hasDirective(x *index, cg *ast.CommentGroup, name string) bool {
	for _, c := range commentList(cg) {
		if d := x.parsed[c]; d != nil && d.Name == name {
			return true
		}
	}
	return false
}

// toolErrors collects the reasons a tool cannot be built.
type toolErrors struct {
	in     *inferrer
	id     string
	method string
	pos    token.Position
	n      int
}

func (e *toolErrors) add(pos token.Position, format string, args ...any) {
	if !pos.IsValid() {
		pos = e.pos
	}
	e.in.report(Diagnostic{Pos: pos, Tool: e.id, Method: e.method, Message: fmt.Sprintf(format, args...)})
	e.n++
}

// A param is one input parameter of a tool method.
type param struct {
	v        *types.Var
	goName   string
	name     string // input name
	local    string // Go variable in the generated code
	def      *tool.Definition
	defExpr  string // a definition= function call, "" when none
	variadic bool
	dir      *directive.Directive
}

// tool builds the tool of one candidate method, or reports why it cannot.
func (in *inferrer) tool(pkg *Package, c candidate) *Tool {
	x := in.x
	var dirs []*directive.Directive
	var problemDocs []*ast.CommentGroup
	if c.invokable {
		dirs = append(dirs, x.directives(c.typeDoc)...)
		problemDocs = append(problemDocs, c.typeDoc)
	}
	dirs = append(dirs, x.directives(c.doc)...)
	problemDocs = append(problemDocs, c.doc)
	var md *directive.Directive
	for _, d := range dirs {
		if d.Name == "method" {
			md = d
		}
	}
	methodName := c.recv.Name() + "."
	if c.method != nil {
		methodName += c.method.Name()
	} else {
		methodName += "Invoke"
	}
	errs := &toolErrors{in: in, method: methodName, pos: c.pos}
	if md != nil {
		errs.id = md.String("id")
		errs.pos = md.Pos
	}
	// Directive syntax problems leave the method out.
	for _, cg := range problemDocs {
		for _, d := range x.parseProblems(cg) {
			if d.comment != nil {
				in.mu.Lock()
				in.reported[d.comment] = true
				in.mu.Unlock()
			}
			errs.add(d.Pos, "%s", d.Message)
		}
	}
	if md == nil || errs.n > 0 {
		return nil
	}
	if c.method == nil {
		errs.add(c.pos, "%s carries //tool:method but has no Invoke method", c.recv.Name())
		return nil
	}
	ty := &typer{x: x, pkg: pkg, code: in.code}
	sig := c.method.Type().(*types.Signature)
	if hasInvalid(sig) {
		errs.add(c.pos, "its signature does not type-check; fix the compile errors first")
		return nil
	}
	docName := c.method.Name()
	doc := readDoc(c.doc, docName)
	if ref := implementsRef(doc.Prose, docName); ref != "" {
		if borrowed, ok := in.borrowDoc(pkg, c, ref); ok {
			doc = readDoc(borrowed, docName)
		} else {
			errs.add(c.pos, "its doc says it implements [%s], whose doc comment was not found among the loaded packages", ref)
		}
	}

	t := &tool.Tool{
		ID:          md.String("id"),
		Label:       sentence(c.method.Name()),
		Description: doc.Description,
		Operation:   tool.OpWrite,
		Permission:  md.String("permission"),
		Confirm:     md.Flag("confirm"),
	}
	if c.invokable {
		t.Label = sentence(c.recv.Name())
	}
	if op := md.String("op"); op != "" {
		t.Operation = tool.Operation(op)
	}
	if md.Has("destructive") {
		t.Destructive = tool.Ptr(md.Flag("destructive"))
	}
	if v := md.String("label"); v != "" {
		t.Label = v
	}
	if v := md.String("description"); v != "" {
		t.Description = v
	}
	if strings.TrimSpace(t.Description) == "" {
		errs.add(c.pos, "no description: write a doc comment or give description=")
	}
	if _, err := tool.ParsePermission(t.Permission); err != nil {
		a, _ := md.Lookup("permission")
		errs.add(a.ValuePos, "%v", err)
	}

	// Inputs.
	var params []*param
	hasCtx := false
	ps := sig.Params()
	for i := range ps.Len() {
		v := ps.At(i)
		if i == 0 && isContext(v.Type()) {
			hasCtx = true
			continue
		}
		p := &param{v: v, goName: v.Name(), name: snake(v.Name())}
		if v.Name() == "" || v.Name() == "_" {
			errs.add(c.pos, "parameter %d has no name: name it, as its name is the input's", i+1)
			continue
		}
		p.variadic = sig.Variadic() && i == ps.Len()-1
		params = append(params, p)
	}
	byName := func(name string) *param {
		for _, p := range params {
			if p.goName == name || p.name == name {
				return p
			}
		}
		return nil
	}
	paramNames := func() string {
		var ns []string
		for _, p := range params {
			ns = append(ns, p.name)
		}
		if len(ns) == 0 {
			return "none"
		}
		return strings.Join(ns, ", ")
	}
	var outDirs []*directive.Directive
	for _, d := range dirs {
		switch d.Name {
		case "input", "entity":
			p := byName(d.Arg)
			if p == nil {
				errs.add(d.ArgPos, "//tool:%s %s names no parameter (parameters: %s)", d.Name, d.Arg, paramNames())
				continue
			}
			if p.dir != nil {
				errs.add(d.ArgPos, "parameter %s has two directives (//tool:%s and //tool:%s)", p.name, p.dir.Name, d.Name)
				continue
			}
			p.dir = d
		case "output":
			outDirs = append(outDirs, d)
		case "property", "entitytype", "config":
			// misplaced: reported later, as the directive was not read.
			for _, cg := range problemDocs {
				for _, cm := range commentList(cg) {
					if x.parsed[cm] == d {
						x.mu.Lock()
						x.misplaced[cm] = true
						x.mu.Unlock()
					}
				}
			}
		}
	}
	for _, p := range params {
		in.input(ty, errs, p, doc)
	}
	entityCheck, weakEntity := false, false
	for _, p := range params {
		if p.def == nil || p.def.EntityOp == "" {
			continue
		}
		if p.def.Type != "list" && p.def.Required {
			entityCheck = true
		} else {
			weakEntity = true
		}
	}

	// Access and refine methods.
	recvType := c.recv.Type()
	var accessCode, refineCode string
	hasAccess := false
	// The Go names the generated code declares, for code only.
	locals := map[string]bool{}
	if in.code {
		for _, name := range []string{"ctx", "in", "svc", "t", "err", "tool", "time", "context", "json"} {
			locals[name] = true
		}
		for name := range pkg.imports.used {
			locals[name] = true
		}
	}
	for _, p := range params {
		p.local = p.goName
		for locals[p.local] {
			p.local += "Arg"
		}
		locals[p.local] = true
	}
	// decodeInputs writes the statements declaring the method's arguments
	// from in; fail ends the function when an input cannot be decoded.
	decodeInputs := func(fail func(string) string) string {
		all := &writer{}
		for i, p := range params {
			if p.def == nil {
				continue
			}
			one := &writer{n: all.n, fail: fail}
			ty.decode(one, p.local, paramType(p), fmt.Sprintf("in.At(%d)", i), strconv.Quote(p.name))
			all.n = one.n
			code := one.b.String()
			if rest, ok := strings.CutPrefix(code, p.local+", _ = "); ok && strings.Count(code, "\n") == 1 {
				all.line("%s, _ := %s", p.local, strings.TrimSuffix(rest, "\n"))
				continue
			}
			all.line("var %s %s", p.local, pkg.imports.typeString(paramType(p)))
			all.b.WriteString(code)
		}
		return all.b.String()
	}
	var decodeCode string
	if in.code {
		decodeCode = decodeInputs(nil)
	}
	var args []string
	if hasCtx {
		args = append(args, "ctx")
	}
	for _, p := range params {
		a := p.local
		if p.variadic {
			a += "..."
		}
		args = append(args, a)
	}
	if name := md.String("access"); name != "" {
		a, _ := md.Lookup("access")
		if err := checkAccess(recvType, name, params); err != nil {
			errs.add(a.ValuePos, "access=%s: %v", name, err)
		} else {
			hasAccess = true
			if in.code {
				accessCode = accessAdapter(name, params, decodeInputs)
			}
		}
	}
	if name := md.String("refine"); name != "" {
		a, _ := md.Lookup("refine")
		if err := checkRefine(recvType, name); err != nil {
			errs.add(a.ValuePos, "refine=%s: %v", name, err)
		} else {
			var names []string
			for _, p := range params {
				names = append(names, fmt.Sprintf("%q", p.name))
			}
			refineCode = fmt.Sprintf("&tool.Refiner{Inputs: []string{%s}, Refine: svc.%s}", strings.Join(names, ", "), name)
		}
	}
	if t.Permission == "" && !entityCheck && md.String("access") == "" {
		if weakEntity {
			errs.add(c.pos, "no access check a caller cannot skip: an entity op on an optional or list input may check nothing; declare permission=, access=, or an op on a required single entity input")
		} else {
			errs.add(c.pos, "no access check: declare permission=, access=, or //tool:entity NAME op=... on a required single entity input")
		}
	}

	// Outputs and the call.
	outputs, callCode := in.outputs(ty, errs, c, sig, outDirs, doc, strings.Join(args, ", "), locals)
	if errs.n > 0 {
		return nil
	}
	tl := &Tool{Tool: t, Pos: errs.pos, Method: c.method.Name(), decode: decodeCode, call: callCode, access: accessCode, refine: refineCode}
	if in.code {
		tl.signature = signatureAssertion(pkg.imports, c.method)
	}
	for _, p := range params {
		t.Inputs = append(t.Inputs, p.def)
		switch {
		case p.defExpr != "":
			tl.inputDefs = append(tl.inputDefs, p.defExpr)
			tl.describeOnly = append(tl.describeOnly, "input "+p.name)
		case in.code:
			tl.inputDefs = append(tl.inputDefs, defBody(p.def))
		}
	}
	for _, o := range outputs {
		t.Outputs = append(t.Outputs, o.def)
		switch {
		case o.defExpr != "":
			tl.outputDefs = append(tl.outputDefs, o.defExpr)
			tl.describeOnly = append(tl.describeOnly, "output "+o.def.Name)
		case in.code:
			tl.outputDefs = append(tl.outputDefs, outputLiteral(o.def))
		}
	}
	// The tool package checks the definitions as a registry would; what it
	// rejects leaves the method out.
	var standing []string
	tl.check, standing = x.standIn(t, hasAccess)
	if err := tl.check.Check(); err != nil {
		errs.add(errs.pos, "invalid definition: %v", err)
		return nil
	}
	for _, name := range standing {
		if !slices.Contains(tl.describeOnly, name) {
			tl.describeOnly = append(tl.describeOnly, name)
		}
	}
	tl.Func = pkg.helperName(lowerFirst(camel(t.ID)) + "Tool")
	pkg.helpers[tl.Func] = &helper{name: tl.Func} // reserved; rendered with the tool
	return tl
}

// accessAdapter returns the statements of the Access function of a tool
// whose access= method is name: decode the inputs, call the method.
func accessAdapter(name string, params []*param, decodeInputs func(fail func(string) string) string) string {
	args := []string{"ctx"}
	for _, p := range params {
		s := p.local
		if p.variadic {
			s += "..."
		}
		args = append(args, s)
	}
	// An input the access method cannot be given is left to the handler,
	// which decodes the same values, fails the same way and reports the
	// input error without calling the method.
	decode := decodeInputs(func(string) string { return "return true, nil" })
	return decode + fmt.Sprintf("return svc.%s(%s)\n", name, strings.Join(args, ", "))
}

// paramType returns the Go type of a parameter as the method receives it
// (a slice for a variadic one).
func paramType(p *param) types.Type { return p.v.Type() }

// input describes one parameter.
func (in *inferrer) input(ty *typer, errs *toolErrors, p *param, doc docText) {
	t := p.v.Type()
	at := in.x.fset.Position(p.v.Pos())
	fail := func(format string, args ...any) {
		errs.add(at, "parameter %s: %s", p.goName, fmt.Sprintf(format, args...))
	}
	var def *tool.Definition
	var err error
	d := p.dir
	if d != nil && d.String("config") != "" {
		def, err = in.configInput(ty, t, d.String("config"))
	} else {
		def, err = ty.inputDef(t, false)
	}
	if err != nil {
		fail("%v", err)
		return
	}
	_, isPtr := t.(*types.Pointer)
	entity := isEntityDef(def)
	def.Required = !isPtr || entity
	if p.variadic {
		def.Required = false
	}
	switch {
	case entity && (d == nil || d.Name != "entity"):
		fail("an entity reaches a method only access-checked: declare //tool:entity %s op=view (or update, delete...)", p.name)
		return
	case !entity && d != nil && d.Name == "entity":
		fail("//tool:entity on a parameter that is not an entity (its type is %s)", types.TypeString(t, nil))
		return
	}
	def.Name = p.name
	if desc, ok := doc.Items[p.goName]; ok {
		def.Description = desc
	} else if desc, ok := doc.Items[p.name]; ok {
		def.Description = desc
	}
	if d != nil {
		if d.Name == "entity" {
			def.EntityOp = d.String("op")
			if d.Flag("optional") {
				def.Required = false
			}
		}
		if _, err := ty.applyKeys(def, t, d.Args, false); err != nil {
			fail("%v", err)
			return
		}
		if fn := d.String("definition"); fn != "" {
			expr, err := in.definitionFunc(ty, fn)
			if err != nil {
				fail("definition=%s: %v", fn, err)
				return
			}
			p.defExpr = fmt.Sprintf("withName(%s(), %q)", expr, p.name)
			ty.pkg.helpers["withName"] = &helper{name: "withName", code: withNameCode}
		}
	}
	p.def = def
}

const withNameCode = `// withName returns a copy of a definition a function gave, named name.
func withName(d *tool.Definition, name string) *tool.Definition {
	c := *d
	c.Name = name
	return &c
}
`

// configInput describes a config= input: the config struct's fields. The
// parameter is the struct (or a pointer to it) or map[string]any.
func (in *inferrer) configInput(ty *typer, t types.Type, name string) (*tool.Definition, error) {
	key, ok := in.x.configs[name]
	if !ok {
		return nil, fmt.Errorf("config=%s: no type declares //tool:config %s", name, name)
	}
	td := in.x.types[key]
	st := td.obj.Type().Underlying().(*types.Struct)
	pt := derefType(t)
	isMap := false
	if m, ok := pt.Underlying().(*types.Map); ok && isEmptyInterface(m.Elem()) {
		isMap = true
	}
	if !isMap && typeKey(namedObj(pt)) != key {
		return nil, fmt.Errorf("config=%s: the parameter must be %s or map[string]any, not %s", name, td.obj.Name(), types.TypeString(t, nil))
	}
	d, err := ty.structInput(td.obj.Type(), st)
	if err != nil {
		return nil, err
	}
	d.Config = name
	return d, nil
}

// definitionFunc checks a definition= function: a package-level func
// returning *tool.Definition, in this package or (pkg.Func) one it
// imports. It returns how the generated file calls it.
func (in *inferrer) definitionFunc(ty *typer, name string) (string, error) {
	scope := ty.pkg.types.Scope()
	var obj types.Object
	qual, fname, qualified := strings.Cut(name, ".")
	if !qualified {
		obj = scope.Lookup(name)
	} else {
		for _, imp := range ty.pkg.types.Imports() {
			if imp.Name() == qual {
				obj = imp.Scope().Lookup(fname)
				if obj != nil {
					local := ty.pkg.imports.add(imp.Path(), imp.Name())
					name = local + "." + fname
				}
			}
		}
	}
	fn, ok := obj.(*types.Func)
	if !ok {
		return "", errors.New("no such function")
	}
	sig := fn.Type().(*types.Signature)
	if sig.Params().Len() != 0 || sig.Results().Len() != 1 || !isPtrToNamed(sig.Results().At(0).Type(), toolPath, "Definition") {
		return "", errors.New("must be func() *tool.Definition")
	}
	return name, nil
}

func isPtrToNamed(t types.Type, path, name string) bool {
	p, ok := t.(*types.Pointer)
	return ok && isNamed(p.Elem(), path, name)
}

// checkAccess checks an access= method: (ctx context.Context, the tool
// method's inputs...) (bool, error).
func checkAccess(recv types.Type, name string, params []*param) error {
	fn := lookupMethod(recv, name)
	want := "func(ctx context.Context"
	for _, p := range params {
		want += ", " + p.goName + " " + types.TypeString(p.v.Type(), shortQualifier)
	}
	want += ") (bool, error)"
	if fn == nil {
		return fmt.Errorf("no such method; want %s", want)
	}
	sig := fn.Type().(*types.Signature)
	ok := sig.Params().Len() == len(params)+1 && isContext(sig.Params().At(0).Type()) &&
		sig.Results().Len() == 2 && types.Identical(sig.Results().At(0).Type(), types.Typ[types.Bool]) && isError(sig.Results().At(1).Type())
	for i, p := range params {
		if ok && !types.Identical(sig.Params().At(i+1).Type(), p.v.Type()) {
			ok = false
		}
	}
	if ok && sig.Variadic() != (len(params) > 0 && params[len(params)-1].variadic) {
		ok = false
	}
	if !ok {
		return fmt.Errorf("the method must be %s", want)
	}
	return nil
}

// checkRefine checks a refine= method.
func checkRefine(recv types.Type, name string) error {
	const want = "func(ctx context.Context, def *tool.Definition, values map[string]any) (*tool.Definition, error)"
	fn := lookupMethod(recv, name)
	if fn == nil {
		return fmt.Errorf("no such method; want %s", want)
	}
	sig := fn.Type().(*types.Signature)
	ok := sig.Params().Len() == 3 && isContext(sig.Params().At(0).Type()) &&
		isPtrToNamed(sig.Params().At(1).Type(), toolPath, "Definition") &&
		types.TypeString(sig.Params().At(2).Type(), nil) == "map[string]any" &&
		sig.Results().Len() == 2 && isPtrToNamed(sig.Results().At(0).Type(), toolPath, "Definition") && isError(sig.Results().At(1).Type())
	if !ok {
		return fmt.Errorf("the method must be %s", want)
	}
	return nil
}

func shortQualifier(p *types.Package) string { return p.Name() }

func lookupMethod(recv types.Type, name string) *types.Func {
	var t types.Type = recv
	if _, isIface := recv.Underlying().(*types.Interface); !isIface {
		t = types.NewPointer(recv)
	}
	ms := types.NewMethodSet(t)
	for i := range ms.Len() {
		if ms.At(i).Obj().Name() == name {
			return ms.At(i).Obj().(*types.Func)
		}
	}
	return nil
}

// borrowDoc finds the doc comment of the interface method a doc comment
// says the method implements: [pkg.Interface], [Interface] or
// [Interface.Method].
func (in *inferrer) borrowDoc(pkg *Package, c candidate, ref string) (*ast.CommentGroup, bool) {
	parts := strings.Split(ref, ".")
	method := c.method.Name()
	var ifacePkg *types.Package
	var iface string
	switch len(parts) {
	case 1:
		ifacePkg, iface = pkg.types, parts[0]
	case 2:
		// [pkg.Interface] or [Interface.Method]
		if pkg.types.Scope().Lookup(parts[0]) != nil {
			ifacePkg, iface, method = pkg.types, parts[0], parts[1]
		} else {
			for _, imp := range pkg.types.Imports() {
				if imp.Name() == parts[0] {
					ifacePkg = imp
				}
			}
			iface = parts[1]
		}
	case 3:
		for _, imp := range pkg.types.Imports() {
			if imp.Name() == parts[0] {
				ifacePkg = imp
			}
		}
		iface, method = parts[1], parts[2]
	}
	if ifacePkg == nil {
		return nil, false
	}
	f, ok := in.x.imeths[ifacePkg.Path()+"."+iface+"."+method]
	if !ok || f.Doc == nil {
		return nil, false
	}
	return f.Doc, true
}

// duplicates leaves out both tools of every shared ID.
func (in *inferrer) duplicates(pkgs []*Package) {
	byID := map[string][]*Tool{}
	var ids []string
	for _, p := range pkgs {
		for _, s := range p.Services {
			for _, t := range s.Tools {
				if byID[t.Tool.ID] == nil {
					ids = append(ids, t.Tool.ID)
				}
				byID[t.Tool.ID] = append(byID[t.Tool.ID], t)
			}
		}
	}
	drop := map[*Tool]bool{}
	for _, id := range ids {
		ts := byID[id]
		if len(ts) < 2 {
			continue
		}
		for _, t := range ts {
			var others []string
			for _, o := range ts {
				if o != t {
					pos := o.Pos
					if rel, err := filepath.Rel(filepath.Dir(t.Pos.Filename), pos.Filename); err == nil {
						pos.Filename = filepath.ToSlash(rel)
					}
					others = append(others, fmt.Sprintf("%s (%s)", pos, o.MethodName()))
				}
			}
			in.diags = append(in.diags, Diagnostic{Pos: t.Pos, Tool: id, Method: t.MethodName(),
				Message: "ID " + id + " is also declared at " + strings.Join(others, ", ") + "; both are left out"})
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
func (in *inferrer) misplaced() {
	for _, d := range in.x.diags {
		if d.comment != nil && in.reported[d.comment] {
			continue
		}
		in.diags = append(in.diags, Diagnostic{Pos: d.Pos, Message: d.Message})
	}
	for _, c := range in.x.order {
		d := in.x.parsed[c]
		if d == nil || in.x.consumed[c] && !in.x.misplaced[c] {
			continue
		}
		in.errorf(d.Pos, "misplaced //tool:%s: it belongs in %s", d.Name, placement[d.Name])
	}
}

// hasInvalid reports whether a signature mentions a type that did not
// type-check.
func hasInvalid(sig *types.Signature) bool {
	// Named types are not walked into (their own declarations are checked
	// where they are used), so the walk meets no cycle.
	bad := false
	var walk func(t types.Type)
	walk = func(t types.Type) {
		if bad {
			return
		}
		switch t := t.(type) {
		case *types.Basic:
			bad = t.Kind() == types.Invalid
		case *types.Pointer:
			walk(t.Elem())
		case *types.Slice:
			walk(t.Elem())
		case *types.Array:
			walk(t.Elem())
		case *types.Map:
			walk(t.Key())
			walk(t.Elem())
		case *types.Struct:
			for i := range t.NumFields() {
				walk(t.Field(i).Type())
			}
		case *types.Signature:
			for i := range t.Params().Len() {
				walk(t.Params().At(i).Type())
			}
			for i := range t.Results().Len() {
				walk(t.Results().At(i).Type())
			}
		}
	}
	walk(sig)
	return bad
}

// signatureAssertion returns a declaration that compiles only while the
// method has exactly the signature the tool was generated from:
//
//	var _ func(*Manager, context.Context, string) ([]Image, error) = (*Manager).Search
//
// A result whose type changed, or a parameter added, breaks the build
// even where the generated call would still compile.
func signatureAssertion(im *imports, m *types.Func) string {
	sig := m.Type().(*types.Signature)
	recv := sig.Recv().Type()
	params := []*types.Var{types.NewParam(token.NoPos, nil, "", recv)}
	for i := range sig.Params().Len() {
		params = append(params, types.NewParam(token.NoPos, nil, "", sig.Params().At(i).Type()))
	}
	var results []*types.Var
	for i := range sig.Results().Len() {
		results = append(results, types.NewParam(token.NoPos, nil, "", sig.Results().At(i).Type()))
	}
	fn := types.NewSignatureType(nil, nil, nil, types.NewTuple(params...), types.NewTuple(results...), sig.Variadic())
	return fmt.Sprintf("var _ %s = (%s).%s", im.typeString(fn), im.typeString(recv), m.Name())
}
