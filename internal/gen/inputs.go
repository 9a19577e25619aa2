package gen

import (
	"errors"
	"fmt"
	"go/types"
	"reflect"
	"strings"

	"github.com/toolapi/toolapi/internal/directive"
	"github.com/toolapi/toolapi/tool"
)

// input describes one parameter.
func (pi *pkgInference) input(errs *toolErrors, p *param, doc docText) {
	t := p.v.Type()
	at := pi.decls.fset.Position(p.v.Pos())
	fail := func(format string, args ...any) {
		errs.add(errs.placed(at, args), "parameter %s: %s", p.goName, fmt.Sprintf(format, args...))
	}
	var def *tool.Definition
	var err error
	d := p.dir
	if d != nil && d.String("config") != "" {
		def, err = pi.configInput(t, d.String("config"))
	} else {
		def, err = pi.inputDef(t, false)
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
		if _, err := pi.applyKeys(def, t, d.Args, false); err != nil {
			fail("%v", err)
			return
		}
		if a, ok := d.Lookup("header"); ok {
			if msg := headerProblem(def, t, d); msg != "" {
				errs.add(a.ValuePos, "parameter %s: header=%s: %s", p.goName, a.Value, msg)
				return
			}
			def.Header = a.Value
		}
		if fn := d.String("definition"); fn != "" {
			ref, err := pi.definitionFunc(fn)
			if err != nil {
				fail("definition=%s: %v", fn, err)
				return
			}
			p.defFunc = ref
		}
	}
	if d == nil || d.String("config") == "" {
		optionalStruct(def, t)
	}
	p.def = def
}

// headerProblem returns why the input def of Go type t cannot be mirrored
// in an HTTP header as d's header= asks, or "": a header carries one
// string, integer or boolean in the clear, and a definition function's
// definition is not toolgen's to change.
func headerProblem(def *tool.Definition, t types.Type, d *directive.Directive) string {
	b, ok := derefType(t).Underlying().(*types.Basic)
	switch {
	case !ok || b.Info()&(types.IsString|types.IsInteger|types.IsBoolean) == 0 || def.Type == "float":
		return fmt.Sprintf("only a string, integer or boolean input can be mirrored in a header, not %s", types.TypeString(t, nil))
	case def.Sensitive:
		return "a sensitive input cannot be mirrored in a header, which gateways and logs read"
	case d.String("definition") != "":
		return "not with definition=: set Header in the definition the function returns"
	}
	return ""
}

// checkHeaders reports two inputs of one tool mirrored in the same HTTP
// header; header names are compared ignoring case, as HTTP does.
func checkHeaders(errs *toolErrors, params []*param) {
	seen := map[string]string{}
	for _, p := range params {
		if p.def == nil || p.def.Header == "" {
			continue
		}
		key := strings.ToLower(p.def.Header)
		if other, dup := seen[key]; dup {
			a, _ := p.dir.Lookup("header")
			errs.add(a.ValuePos, "parameter %s: header=%s: input %s is already mirrored in that header (header names ignore case)", p.goName, a.Value, other)
			continue
		}
		seen[key] = p.name
	}
}

// optionalStruct makes def, the required input of a struct of type t (not
// a pointer) whose properties are all optional, optional with the default
// {}: leaving it out reads as its properties' defaults, as sending {} does.
func optionalStruct(def *tool.Definition, t types.Type) {
	if !def.Required || def.Default != nil || def.Type != "map" || len(def.Properties) == 0 {
		return
	}
	if _, ok := types.Unalias(t).Underlying().(*types.Struct); !ok {
		return
	}
	for _, p := range def.Properties {
		if p.Required {
			return
		}
	}
	def.Required = false
	def.Default = map[string]any{}
}

// configInput describes a config= input: the config struct's fields. The
// parameter is the struct (or a pointer to it) or map[string]any.
func (pi *pkgInference) configInput(t types.Type, name string) (*tool.Definition, error) {
	key, ok := pi.configs[name]
	if !ok {
		return nil, fmt.Errorf("config=%s: no type declares //tool:config %s", name, name)
	}
	td := pi.decls.types[key]
	st := td.obj.Type().Underlying().(*types.Struct)
	pt := derefType(t)
	isMap := false
	if m, ok := pt.Underlying().(*types.Map); ok && isEmptyInterface(m.Elem()) {
		isMap = true
	}
	if !isMap && typeKey(namedObj(pt)) != key {
		return nil, fmt.Errorf("config=%s: the parameter must be %s or map[string]any, not %s", name, td.obj.Name(), types.TypeString(t, nil))
	}
	d, err := pi.structInput(td.obj.Type(), st)
	if err != nil {
		return nil, err
	}
	return d, nil
}

// definitionFunc checks a definition= function: a package-level func
// returning *tool.Definition, in this package or (pkg.Func) one it
// imports.
func (pi *pkgInference) definitionFunc(name string) (*funcRef, error) {
	ref := &funcRef{name: name}
	var obj types.Object
	qual, fname, qualified := strings.Cut(name, ".")
	if !qualified {
		obj = pi.pkg.types.Scope().Lookup(name)
	} else {
		for _, imp := range pi.pkg.types.Imports() {
			if imp.Name() == qual {
				if obj = imp.Scope().Lookup(fname); obj != nil {
					ref = &funcRef{pkg: imp, name: fname}
				}
			}
		}
	}
	fn, ok := obj.(*types.Func)
	if !ok {
		return nil, errors.New("no such function")
	}
	sig := fn.Type().(*types.Signature)
	if sig.Params().Len() != 0 || sig.Results().Len() != 1 || !isPtrToNamed(sig.Results().At(0).Type(), toolPath, "Definition") {
		return nil, errors.New("must be func() *tool.Definition")
	}
	return ref, nil
}

func isPtrToNamed(t types.Type, path, name string) bool {
	p, ok := t.(*types.Pointer)
	return ok && isNamed(p.Elem(), path, name)
}

// exported reports whether a named type can be used by an input: not
// unexported.
func checkExported(t types.Type) error {
	if obj := namedObj(t); obj != nil && !obj.Exported() {
		return fmt.Errorf("type %s is unexported", obj.Name())
	}
	return nil
}

// inputDef returns the definition of an input of Go type t. Pointers are
// looked through: the caller decides what optional means.
func (pi *pkgInference) inputDef(t types.Type, inMap bool) (*tool.Definition, error) {
	if p, ok := t.(*types.Pointer); ok {
		if ids := pi.entityIDs(p); ids != nil {
			return pi.inputDef(p.Elem(), inMap)
		}
		if _, isPtr := p.Elem().(*types.Pointer); isPtr {
			return nil, fmt.Errorf("type %s: a pointer to a pointer cannot be an input", types.TypeString(t, nil))
		}
		return pi.inputDef(p.Elem(), inMap)
	}
	t = types.Unalias(t)
	if ids := pi.entityIDs(t); ids != nil {
		if inMap {
			return nil, errors.New("an entity inside a map input cannot be access-checked")
		}
		d := &tool.Definition{Type: entityDataType(ids)}
		if len(ids) > 1 {
			d.EntityTypes = ids
		}
		return d, nil
	}
	switch {
	case isTime(t):
		return &tool.Definition{Type: "datetime_iso8601"}, nil
	case isDuration(t):
		return &tool.Definition{Type: "duration"}, nil
	case isContext(t):
		return nil, errors.New("context.Context is only allowed as the first parameter")
	case isError(t):
		return nil, errors.New("error cannot be an input")
	}
	if obj := namedObj(t); obj != nil {
		if obj.Pkg() != nil && obj.Pkg().Path() == toolPath {
			return nil, fmt.Errorf("type tool.%s cannot be an input", obj.Name())
		}
		if err := checkExported(t); err != nil {
			return nil, err
		}
		if why := pi.outputOnly(t); why != "" {
			return nil, fmt.Errorf("%s is a value object, as %s, and value objects are outputs only: take a struct whose fields carry input options in their tool tags (default=, range=...)", obj.Name(), why)
		}
	}
	if isBytes(t) {
		// Bytes travel as a standard base64 string.
		return &tool.Definition{Type: "string", Constraints: tool.Constraints{Encoding: "base64"}}, nil
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		typ, rng, ok := scalar(u)
		if !ok {
			return nil, fmt.Errorf("type %s cannot be an input", types.TypeString(t, nil))
		}
		d := &tool.Definition{Type: typ, Constraints: tool.Constraints{Range: rng}}
		if _, named := t.(*types.Named); named && (typ == "string" || typ == "integer") {
			d.Constraints.Choice = enumChoices(t)
		}
		return d, nil
	case *types.Slice:
		item, err := pi.inputDef(u.Elem(), inMap)
		if err != nil {
			return nil, err
		}
		if _, isPtr := u.Elem().(*types.Pointer); isPtr && pi.entityIDs(u.Elem()) == nil {
			return nil, fmt.Errorf("type %s: list items cannot be pointers", types.TypeString(t, nil))
		}
		return &tool.Definition{Type: "list", Items: item}, nil
	case *types.Map:
		if b, ok := u.Key().Underlying().(*types.Basic); !ok || b.Kind() != types.String {
			return nil, fmt.Errorf("type %s: map keys must be strings", types.TypeString(t, nil))
		}
		d := &tool.Definition{Type: "map"}
		if !isEmptyInterface(u.Elem()) {
			v, err := pi.inputDef(u.Elem(), true)
			if err != nil {
				return nil, err
			}
			d.Values = v
		}
		return d, nil
	case *types.Struct:
		return pi.structInput(t, u)
	case *types.Interface:
		return nil, fmt.Errorf("type %s: an interface (any) cannot be an input", types.TypeString(t, nil))
	case *types.Chan:
		return nil, fmt.Errorf("type %s: a channel cannot be an input", types.TypeString(t, nil))
	case *types.Signature:
		return nil, fmt.Errorf("type %s: a func cannot be an input", types.TypeString(t, nil))
	}
	return nil, fmt.Errorf("type %s cannot be an input", types.TypeString(t, nil))
}

func isEmptyInterface(t types.Type) bool {
	i, ok := t.Underlying().(*types.Interface)
	return ok && i.Empty()
}

// A structField is an exported field of a struct as a map property.
type structField struct {
	v        *types.Var
	name     string // property name
	optional bool
	tag      *directive.Tag // its tool tag, nil when none
}

// structFields returns the properties of a struct: exported fields, named
// by their tool tag, else their json tag, else in snake_case; a pointer
// field or omitempty or omitzero makes a key optional.
func structFields(st *types.Struct) ([]structField, error) {
	var out []structField
	for i := range st.NumFields() {
		f := st.Field(i)
		tv, tagged, err := toolTag(f, st.Tag(i))
		if err != nil {
			return nil, atField(f, fmt.Errorf("field %s: %w", f.Name(), err))
		}
		if !f.Exported() {
			continue
		}
		if f.Embedded() {
			return nil, fmt.Errorf("embedded field %s is not supported; name the field", f.Name())
		}
		name, opts, _ := strings.Cut(tagLookup(st.Tag(i), "json"), ",")
		if name == "-" && opts == "" {
			if tagged {
				return nil, atField(f, fmt.Errorf(`field %s: json:"-" leaves it out of the input, so its tool tag does nothing: remove json:"-" to take the field, or the tool tag to leave it out`, f.Name()))
			}
			continue
		}
		if name == "" {
			name = snake(f.Name())
		}
		sf := structField{v: f, name: name}
		if tagged {
			tag, err := directive.ParseTag(tv)
			if err != nil {
				return nil, atField(f, fmt.Errorf("field %s: %w", f.Name(), err))
			}
			sf.tag = &tag
			if tag.Name != "" {
				sf.name = tag.Name
			}
		}
		_, isPtr := f.Type().(*types.Pointer)
		sf.optional = isPtr
		for _, o := range strings.Split(opts, ",") {
			if o == "omitempty" || o == "omitzero" {
				sf.optional = true
			}
		}
		out = append(out, sf)
	}
	return out, nil
}

func tagLookup(tag, key string) string {
	v, _ := reflect.StructTag(tag).Lookup(key)
	return v
}

// structInput returns the map definition of a struct parameter.
func (pi *pkgInference) structInput(t types.Type, st *types.Struct) (*tool.Definition, error) {
	fields, err := structFields(st)
	if err != nil {
		return nil, err
	}
	if len(fields) == 0 {
		return nil, fmt.Errorf("type %s has no exported field, so no value can set it: take a type with exported fields, or its parts as parameters", types.TypeString(t, shortQualifier))
	}
	d := &tool.Definition{Type: "map"}
	owner := namedObj(t)
	if owner != nil {
		pi.pkg.objects[d] = t
	}
	for _, f := range fields {
		fd, err := pi.inputDef(f.v.Type(), true)
		if err != nil {
			return nil, atField(f.v, fmt.Errorf("field %s: %w", f.v.Name(), err))
		}
		fd.Name = f.name
		fd.Required = !f.optional
		fd.Description = fieldDoc(pi.decls.fieldDecl(owner, f.v), f.v.Pkg())
		if f.tag != nil {
			if key := f.tag.First(directive.OutputOnly); key != "" {
				return nil, atField(f.v, fmt.Errorf("field %s: %s in its tool tag applies to a published member, not to an input", f.v.Name(), key))
			}
			if _, err := pi.applyKeys(fd, f.v.Type(), f.tag.Args, false); err != nil {
				return nil, atField(f.v, fmt.Errorf("field %s: %w", f.v.Name(), err))
			}
		}
		optionalStruct(fd, f.v.Type())
		d.Properties = append(d.Properties, fd)
	}
	return d, nil
}
