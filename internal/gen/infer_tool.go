package gen

import (
	"errors"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"github.com/toolapi/toolapi/internal/directive"
	"github.com/toolapi/toolapi/tool"
)

// toolErrors collects the reasons a tool cannot be built.
type toolErrors struct {
	inf    *inference
	id     string
	method string
	pos    token.Position
	n      int
}

func (e *toolErrors) add(pos token.Position, format string, args ...any) {
	if !pos.IsValid() {
		pos = e.pos
	}
	pos = e.placed(pos, args)
	e.inf.report(Diagnostic{Pos: pos, Tool: e.id, Method: e.method, Message: fmt.Sprintf(format, args...)})
	e.n++
}

// placed returns the position of the field an error among args is
// placed at (see [atField]), else pos.
func (e *toolErrors) placed(pos token.Position, args []any) token.Position {
	for _, a := range args {
		var fe *fieldError
		if err, ok := a.(error); ok && errors.As(err, &fe) && fe.pos.IsValid() {
			pos = e.inf.decls.fset.Position(fe.pos)
		}
	}
	return pos
}

// A fieldError is a problem with a struct field or a getter, reported at
// its declaration rather than where the struct is used.
type fieldError struct {
	pos token.Pos
	err error
}

func (e *fieldError) Error() string { return e.err.Error() }
func (e *fieldError) Unwrap() error { return e.err }

// atField places err at the field v, unless it is already placed (at a
// field nested deeper).
func atField(v *types.Var, err error) error { return atPos(v.Pos(), err) }

func atPos(pos token.Pos, err error) error {
	var fe *fieldError
	if errors.As(err, &fe) {
		return err
	}
	return &fieldError{pos: pos, err: err}
}

// A toolBuilder builds the tool of one candidate method.
type toolBuilder struct {
	*pkgInference
	c    candidate
	errs *toolErrors
	// dirs are the directives of the method's doc comment (and of the
	// type's, for an invokable type); method is its //tool:method.
	dirs   []*directive.Directive
	docs   []*ast.CommentGroup
	method *directive.Directive
	sig    *types.Signature
	doc    docText
}

// tool builds the tool of one candidate method, or reports why it cannot.
func (inf *inference) tool(pkg *Package, c candidate) *Tool {
	b := &toolBuilder{pkgInference: &pkgInference{inference: inf, pkg: pkg}, c: c}
	if !b.readDirectives() || !b.readSignature() {
		return nil
	}
	t := &Tool{Tool: b.definition(), Pos: b.errs.pos, Method: c.method.Name(), method: c.method}
	t.position = func(path, rule string) token.Position {
		return b.definitionPos(t, &tool.DefinitionError{Path: path, Rule: rule})
	}
	var outputDirs []*directive.Directive
	t.context, t.params, outputDirs = b.params()
	for _, p := range t.params {
		b.input(b.errs, p, b.doc)
	}
	checkHeaders(b.errs, t.params)
	b.accessAndRefine(t)
	t.outputs, t.result = b.outputs(b.errs, c, b.sig, outputDirs, b.doc)
	if b.errs.n > 0 {
		return nil
	}
	return b.finish(t)
}

// readDirectives reads the directives of the method; syntax problems in
// them leave it out.
func (b *toolBuilder) readDirectives() bool {
	c := b.c
	if c.invokable {
		b.dirs = append(b.dirs, b.directives(c.typeDoc)...)
		b.docs = append(b.docs, c.typeDoc)
	}
	b.dirs = append(b.dirs, b.directives(c.doc)...)
	b.docs = append(b.docs, c.doc)
	for _, d := range b.dirs {
		if d.Name == "method" {
			b.method = d
		}
	}
	methodName := c.recv.Name() + ".Invoke"
	if c.method != nil {
		methodName = c.recv.Name() + "." + c.method.Name()
	}
	b.errs = &toolErrors{inf: b.inference, method: methodName, pos: c.pos}
	if b.method != nil {
		b.errs.id = b.method.String("id")
		b.errs.pos = b.method.Pos
	}
	for _, cg := range b.docs {
		for _, d := range b.decls.parseProblems(cg) {
			if d.comment != nil {
				b.reported[d.comment] = true
			}
			b.errs.add(d.Pos, "%s", d.Message)
		}
	}
	if b.method == nil || b.errs.n > 0 {
		return false
	}
	if c.method == nil {
		b.errs.add(c.pos, "%s carries //tool:method but has no Invoke method", c.recv.Name())
		return false
	}
	return true
}

// readSignature reads the method's signature and doc comment.
func (b *toolBuilder) readSignature() bool {
	c := b.c
	b.sig = c.method.Type().(*types.Signature)
	if hasInvalid(b.sig) {
		b.errs.add(c.pos, "its signature does not type-check; fix the compile errors first")
		return false
	}
	name := c.method.Name()
	b.doc = readDoc(c.doc, name, c.method.Pkg())
	if ref := implementsRef(b.doc.Prose, name); ref != "" {
		if borrowed, from, ok := b.borrowDoc(b.pkg, c, ref); ok {
			b.doc = readDoc(borrowed, name, from)
		} else {
			b.errs.add(c.pos, "its doc says it implements [%s], whose doc comment was not found among the loaded packages", ref)
		}
	}
	return true
}

// definition returns the tool's own fields, from //tool:method and the
// doc comment.
func (b *toolBuilder) definition() *tool.Tool {
	md, c := b.method, b.c
	t := &tool.Tool{
		ID:          md.String("id"),
		Label:       sentence(c.method.Name()),
		Description: b.doc.Description,
		Operation:   tool.OpWrite,
		Permission:  md.String("permission"),
		Confirm:     md.Flag("confirm"),
	}
	if c.invokable || c.method.Name() == "Invoke" {
		// An invokable type is labelled by its name, whichever doc
		// comment carries //tool:method.
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
	if a, ok := md.Lookup("deprecated"); ok {
		t.Deprecated = a.Value
	}
	t.Task = tool.TaskMode(md.String("task"))
	if a, ok := md.Lookup("approver"); ok {
		// An approved call runs later: every call is a task.
		t.Approver = a.Value
		switch t.Task {
		case tool.TaskNever:
			t.Task = tool.TaskRequired
		case tool.TaskOptional:
			b.errs.add(a.Pos, "approver= makes every call wait, as a task, for the approval: drop task=optional (approver= implies task=required)")
		}
	}
	if a, ok := md.Lookup("taskttl"); ok {
		if t.Task == tool.TaskNever {
			b.errs.add(a.Pos, "taskttl= needs task=optional or task=required: only a task's outcome is kept")
		} else {
			t.TaskTTL = a.Duration
		}
	}
	t.Icon = md.String("icon")
	if a, ok := md.Lookup("needs"); ok {
		for _, n := range a.List {
			t.Needs = append(t.Needs, tool.ClientFeature(n))
		}
	}
	if a, ok := md.Lookup("group"); ok {
		t.Groups = a.List
	}
	t.Budget.Bytes, t.Budget.Items = md.Budget()
	return t
}

// params returns the method's parameters with the //tool:input or
// //tool:entity directive of each, whether it takes a context first, and
// the //tool:output directives.
func (b *toolBuilder) params() (context bool, params []*param, outputDirs []*directive.Directive) {
	ps := b.sig.Params()
	for i := range ps.Len() {
		v := ps.At(i)
		if i == 0 && isContext(v.Type()) {
			context = true
			continue
		}
		if v.Name() == "" || v.Name() == "_" {
			b.errs.add(b.c.pos, "parameter %d has no name: name it, as its name is the input's", i+1)
			continue
		}
		params = append(params, &param{v: v, goName: v.Name(), name: snake(v.Name()), variadic: b.sig.Variadic() && i == ps.Len()-1})
	}
	for _, d := range b.dirs {
		switch d.Name {
		case "input", "entity":
			i := slices.IndexFunc(params, func(p *param) bool { return p.goName == d.Arg || p.name == d.Arg })
			if i < 0 {
				var names []string
				for _, p := range params {
					names = append(names, p.name)
				}
				b.errs.add(d.ArgPos, "//tool:%s %s names no parameter%s (parameters: %s)", d.Name, d.Arg, directive.DidYouMean(snake(d.Arg), names), paramNames(params))
				continue
			}
			if p := params[i]; p.dir != nil {
				b.errs.add(d.ArgPos, "parameter %s has two directives (//tool:%s and //tool:%s)", p.name, p.dir.Name, d.Name)
				continue
			}
			params[i].dir = d
		case "output":
			outputDirs = append(outputDirs, d)
		case "property", "entitytype", "config":
			// Misplaced: reported later, as the directive was not read.
			for _, cg := range b.docs {
				for _, cm := range commentList(cg) {
					if b.decls.parsed[cm] == d {
						b.misplacedAt[cm] = true
					}
				}
			}
		}
	}
	return context, params, outputDirs
}

func paramNames(params []*param) string {
	if len(params) == 0 {
		return "none"
	}
	var ns []string
	for _, p := range params {
		ns = append(ns, p.name)
	}
	return strings.Join(ns, ", ")
}

// accessAndRefine checks the access=, confirm= and refine= methods.
func (b *toolBuilder) accessAndRefine(t *Tool) {
	md, recv := b.method, b.c.recv.Type()
	if name := md.String("access"); name != "" {
		a, _ := md.Lookup("access")
		if err := checkAccess(recv, name, t.params); err != nil {
			b.errs.add(a.ValuePos, "access=%s: %v", name, err)
		} else {
			t.access = name
		}
	}
	if name := md.Method("confirm"); name != "" {
		a, _ := md.Lookup("confirm")
		if err := checkConfirm(recv, name, t.params); err != nil {
			b.errs.add(a.ValuePos, "confirm=%s: %v", name, err)
		} else {
			t.confirm = name
		}
	}
	if name := md.String("refine"); name != "" {
		a, _ := md.Lookup("refine")
		if err := checkRefine(recv, name); err != nil {
			b.errs.add(a.ValuePos, "refine=%s: %v", name, err)
		} else {
			t.refine = name
		}
	}
}

// finish sets the tool's inputs and outputs and checks its definitions as
// a registry would; what the tool package rejects leaves the method out.
func (b *toolBuilder) finish(t *Tool) *Tool {
	for _, p := range t.params {
		t.Tool.Inputs = append(t.Tool.Inputs, p.def)
		if p.defFunc != nil {
			t.describeOnly = append(t.describeOnly, "input "+p.name)
		}
	}
	for _, o := range t.outputs {
		t.Tool.Outputs = append(t.Tool.Outputs, o.def)
		if o.defFunc != nil {
			t.describeOnly = append(t.describeOnly, "output "+o.def.Name)
		}
	}
	var standing []string
	t.check, standing = b.standIn(t.Tool, t.access != "", t.confirm != "")
	if err := t.check.Check(); err != nil {
		for _, e := range joined(err) {
			var de *tool.DefinitionError
			if !errors.As(e, &de) {
				b.errs.add(b.errs.pos, "invalid definition: %v", e)
				continue
			}
			b.errs.add(b.definitionPos(t, de), "invalid definition: %v%s", de, ruleHints[de.Rule])
		}
		return nil
	}
	for _, name := range standing {
		if !slices.Contains(t.describeOnly, name) {
			t.describeOnly = append(t.describeOnly, name)
		}
	}
	return t
}

// checkAccess checks an access= method: (ctx context.Context, the tool
// method's inputs...) (bool, error).
func checkAccess(recv types.Type, name string, params []*param) error {
	return checkInputsMethod(recv, name, params, types.Typ[types.Bool], "bool, error")
}

// checkConfirm checks a confirm= method: (ctx context.Context, the tool
// method's inputs...) (reason string, err error).
func checkConfirm(recv types.Type, name string, params []*param) error {
	return checkInputsMethod(recv, name, params, types.Typ[types.String], "reason string, err error")
}

// checkInputsMethod checks a method that takes a context and the tool
// method's inputs and returns a result of type res and an error; results
// shows the results in the signature an error wants.
func checkInputsMethod(recv types.Type, name string, params []*param, res types.Type, results string) error {
	fn := lookupMethod(recv, name)
	want := "func(ctx context.Context"
	for _, p := range params {
		want += ", " + p.goName + " " + types.TypeString(p.v.Type(), shortQualifier)
	}
	want += ") (" + results + ")"
	if fn == nil {
		return fmt.Errorf("no such method%s; want %s", didYouMeanMethod(recv, name), want)
	}
	sig := fn.Type().(*types.Signature)
	ok := sig.Params().Len() == len(params)+1 && isContext(sig.Params().At(0).Type()) &&
		sig.Results().Len() == 2 && types.Identical(sig.Results().At(0).Type(), res) && isError(sig.Results().At(1).Type())
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

// didYouMeanMethod returns " (did you mean M?)" for the method of recv
// closest to name, "" when none is close.
func didYouMeanMethod(recv types.Type, name string) string {
	var t types.Type = recv
	if _, isIface := recv.Underlying().(*types.Interface); !isIface {
		t = types.NewPointer(recv)
	}
	ms := types.NewMethodSet(t)
	var names []string
	for i := range ms.Len() {
		names = append(names, ms.At(i).Obj().Name())
	}
	if s := directive.Suggest(name, names); s != "" {
		return " (did you mean " + s + "?)"
	}
	return ""
}

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
func (inf *inference) borrowDoc(pkg *Package, c candidate, ref string) (*ast.CommentGroup, *types.Package, bool) {
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
		return nil, nil, false
	}
	f, ok := inf.decls.imeths[ifacePkg.Path()+"."+iface+"."+method]
	if !ok || f.Doc == nil {
		return nil, nil, false
	}
	return f.Doc, ifacePkg, true
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

// joined returns the errors err joins, or err alone.
func joined(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// ruleHints add to the message of a broken rule how a method tool keeps it.
var ruleHints = map[string]string{
	"description": "; write a doc comment or give description=",
}

// definitionPos returns where to fix a problem the tool package found in
// the definitions: the directive key of its rule ("//tool:input limit
// range=..." gives the column of "range="), the value of the tool's own
// id=, permission= and deprecated=, the struct field of a property, else the method
// (for the tool's own rules with no key, as a missing description or
// access check) or the directive or the parameter it is about.
func (b *toolBuilder) definitionPos(t *Tool, de *tool.DefinitionError) token.Position {
	keyPos := func(d *directive.Directive) (token.Position, bool) {
		if d == nil {
			return token.Position{}, false
		}
		if a, ok := d.Lookup(de.Rule); ok {
			return a.Pos, true
		}
		return d.Pos, true
	}
	path := strings.Split(de.Path, ".")
	switch {
	case de.Path == "":
		a, ok := b.method.Lookup(de.Rule)
		switch {
		case ok && (de.Rule == "id" || de.Rule == "permission" || de.Rule == "deprecated"):
			return a.ValuePos
		case ok:
			return a.Pos
		}
		return b.c.pos
	case path[0] == "inputs" && len(path) > 1:
		i := slices.IndexFunc(t.params, func(p *param) bool { return p.name == path[1] })
		if i < 0 {
			break
		}
		p := t.params[i]
		if field := b.propertyField(p.v.Type(), path[2:]); field != nil {
			return b.decls.fset.Position(field.Pos())
		}
		if pos, ok := keyPos(p.dir); ok {
			return pos
		}
		return b.decls.fset.Position(p.v.Pos())
	case path[0] == "outputs" && len(path) > 1:
		i := slices.IndexFunc(t.outputs, func(o *output) bool { return o.def.Name == path[1] })
		if i >= 0 {
			if pos, ok := keyPos(t.outputs[i].dir); ok {
				return pos
			}
		}
	}
	return b.errs.pos
}

// propertyField returns the struct field a property path ("q", "limit";
// "items" for a list's item, "values" for a map's value) leads to inside
// a value of Go type t, nil when the path names none.
func (b *toolBuilder) propertyField(t types.Type, path []string) *types.Var {
	var field *types.Var
	for _, seg := range path {
		t = derefType(t)
		switch u := t.Underlying().(type) {
		case *types.Slice:
			if seg != "items" {
				return field
			}
			t = u.Elem()
		case *types.Map:
			if seg != "values" {
				return field
			}
			t = u.Elem()
		case *types.Struct:
			fields, _ := structFields(u)
			i := slices.IndexFunc(fields, func(f structField) bool { return f.name == seg })
			if i < 0 {
				return field
			}
			field, t = fields[i].v, fields[i].v.Type()
		default:
			return field
		}
	}
	return field
}
