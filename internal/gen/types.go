package gen

import (
	"errors"
	"fmt"
	"go/constant"
	"go/types"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/toolapi/toolapi/tool"
)

const toolPath = "github.com/toolapi/toolapi/tool"

// typer turns Go types into definitions and writes the Go code that
// converts values between a method's Go types and the tool's values.
type typer struct {
	x   *index
	pkg *Package
	// code says to write the Go code; without it, writers discard what
	// they are given and only the definitions are built.
	code bool
}

// writer returns a writer for generated code, which discards it when ty
// writes no code.
func (ty *typer) writer() *writer { return &writer{off: !ty.code} }

func isNamed(t types.Type, path, name string) bool {
	n, ok := types.Unalias(t).(*types.Named)
	if !ok {
		return false
	}
	obj := n.Obj()
	return obj.Pkg() != nil && obj.Pkg().Path() == path && obj.Name() == name
}

func isContext(t types.Type) bool { return isNamed(t, "context", "Context") }
func isError(t types.Type) bool {
	return types.Identical(t, types.Universe.Lookup("error").Type())
}
func isTime(t types.Type) bool       { return isNamed(t, "time", "Time") }
func isDuration(t types.Type) bool   { return isNamed(t, "time", "Duration") }
func isToolResult(t types.Type) bool { return isNamed(t, toolPath, "Result") }

// isToolResultType reports tool.Result or *tool.Result.
func isToolResultType(t types.Type) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	return isToolResult(t)
}

func namedObj(t types.Type) *types.TypeName {
	if n, ok := types.Unalias(t).(*types.Named); ok {
		return n.Obj()
	}
	return nil
}

// entityIDs returns the entity type IDs t (or *t) is the class of.
func (ty *typer) entityIDs(t types.Type) []string {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	if obj := namedObj(t); obj != nil {
		return ty.x.entityTypes[typeKey(obj)]
	}
	return nil
}

func entityDataType(ids []string) string {
	if len(ids) == 1 {
		return "entity:" + ids[0]
	}
	return "entity"
}

// isEntityDef reports a definition of an entity or a list of them.
func isEntityDef(d *tool.Definition) bool {
	if d == nil {
		return false
	}
	if d.Type == "list" && d.Items != nil {
		return isEntityDef(d.Items)
	}
	return d.Type == "entity" || strings.HasPrefix(d.Type, "entity:")
}

var jsonMarshaler = func() *types.Interface {
	sig := types.NewSignatureType(nil, nil, nil, nil,
		types.NewTuple(
			types.NewVar(0, nil, "", types.NewSlice(types.Typ[types.Byte])),
			types.NewVar(0, nil, "", types.Universe.Lookup("error").Type()),
		), false)
	fn := types.NewFunc(0, nil, "MarshalJSON", sig)
	return types.NewInterfaceType([]*types.Func{fn}, nil).Complete()
}()

func isMarshaler(t types.Type) bool {
	if _, isIface := t.Underlying().(*types.Interface); isIface {
		return false
	}
	return types.Implements(t, jsonMarshaler) || types.Implements(types.NewPointer(t), jsonMarshaler)
}

// scalar returns the data type of a basic type and, for sized integers,
// their bounds.
func scalar(b *types.Basic) (typ string, rng *tool.Range, ok bool) {
	f := func(lo, hi float64) *tool.Range { return &tool.Range{Min: tool.Ptr(lo), Max: tool.Ptr(hi)} }
	switch b.Kind() {
	case types.String:
		return "string", nil, true
	case types.Bool:
		return "boolean", nil, true
	case types.Int, types.Int64:
		return "integer", nil, true
	case types.Int8:
		return "integer", f(math.MinInt8, math.MaxInt8), true
	case types.Int16:
		return "integer", f(math.MinInt16, math.MaxInt16), true
	case types.Int32:
		return "integer", f(math.MinInt32, math.MaxInt32), true
	case types.Uint8:
		return "integer", f(0, math.MaxUint8), true
	case types.Uint16:
		return "integer", f(0, math.MaxUint16), true
	case types.Uint32:
		return "integer", f(0, math.MaxUint32), true
	case types.Uint, types.Uint64, types.Uintptr:
		// Integer values travel as int64: the largest is MaxInt64.
		return "integer", f(0, math.MaxInt64), true
	case types.Float32:
		return "float", f(-math.MaxFloat32, math.MaxFloat32), true
	case types.Float64:
		return "float", nil, true
	}
	return "", nil, false
}

// enumChoices returns the values of the constants of named type t declared
// in its package, in source order.
func enumChoices(t types.Type) []any {
	obj := namedObj(t)
	if obj == nil || obj.Pkg() == nil {
		return nil
	}
	scope := obj.Pkg().Scope()
	var consts []*types.Const
	for _, name := range scope.Names() {
		c, ok := scope.Lookup(name).(*types.Const)
		if ok && types.Identical(c.Type(), t) {
			consts = append(consts, c)
		}
	}
	slices.SortStableFunc(consts, func(a, b *types.Const) int { return int(a.Pos() - b.Pos()) })
	var out []any
	seen := map[string]bool{}
	for _, c := range consts {
		v := c.Val()
		var x any
		switch v.Kind() {
		case constant.String:
			x = constant.StringVal(v)
		case constant.Int:
			n, exact := constant.Int64Val(v)
			if !exact {
				continue
			}
			x = int(n)
		default:
			continue
		}
		if k := fmt.Sprint(x); !seen[k] {
			seen[k] = true
			out = append(out, x)
		}
	}
	return out
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
func (ty *typer) inputDef(t types.Type, inMap bool) (*tool.Definition, error) {
	if p, ok := t.(*types.Pointer); ok {
		if ids := ty.entityIDs(p); ids != nil {
			return ty.inputDef(p.Elem(), inMap)
		}
		if _, isPtr := p.Elem().(*types.Pointer); isPtr {
			return nil, fmt.Errorf("type %s: a pointer to a pointer cannot be an input", types.TypeString(t, nil))
		}
		return ty.inputDef(p.Elem(), inMap)
	}
	t = types.Unalias(t)
	if ids := ty.entityIDs(t); ids != nil {
		if inMap {
			return nil, errors.New("an entity inside a map input cannot be access-checked")
		}
		return &tool.Definition{Type: entityDataType(ids)}, nil
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
		if ty.isValueObject(t) {
			return nil, fmt.Errorf("%s is a value object: value objects are outputs only", obj.Name())
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
		item, err := ty.inputDef(u.Elem(), inMap)
		if err != nil {
			return nil, err
		}
		if _, isPtr := u.Elem().(*types.Pointer); isPtr && ty.entityIDs(u.Elem()) == nil {
			return nil, fmt.Errorf("type %s: list items cannot be pointers", types.TypeString(t, nil))
		}
		return &tool.Definition{Type: "list", Items: item}, nil
	case *types.Map:
		if b, ok := u.Key().Underlying().(*types.Basic); !ok || b.Kind() != types.String {
			return nil, fmt.Errorf("type %s: map keys must be strings", types.TypeString(t, nil))
		}
		d := &tool.Definition{Type: "map"}
		if !isEmptyInterface(u.Elem()) {
			v, err := ty.inputDef(u.Elem(), true)
			if err != nil {
				return nil, err
			}
			d.Values = v
		}
		return d, nil
	case *types.Struct:
		return ty.structInput(t, u)
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
}

// structFields returns the properties of a struct: exported fields, json
// tag names honoured, else snake_case; a pointer field or omitempty or
// omitzero makes a key optional.
func structFields(st *types.Struct) ([]structField, error) {
	var out []structField
	for i := range st.NumFields() {
		f := st.Field(i)
		if !f.Exported() {
			continue
		}
		if f.Embedded() {
			return nil, fmt.Errorf("embedded field %s is not supported; name the field", f.Name())
		}
		name, opts, _ := strings.Cut(tagLookup(st.Tag(i), "json"), ",")
		if name == "-" && opts == "" {
			continue
		}
		if name == "" {
			name = snake(f.Name())
		}
		_, isPtr := f.Type().(*types.Pointer)
		optional := isPtr
		for _, o := range strings.Split(opts, ",") {
			if o == "omitempty" || o == "omitzero" {
				optional = true
			}
		}
		out = append(out, structField{v: f, name: name, optional: optional})
	}
	return out, nil
}

func tagLookup(tag, key string) string {
	v, _ := reflect.StructTag(tag).Lookup(key)
	return v
}

// structInput returns the map definition of a struct parameter.
func (ty *typer) structInput(t types.Type, st *types.Struct) (*tool.Definition, error) {
	fields, err := structFields(st)
	if err != nil {
		return nil, err
	}
	d := &tool.Definition{Type: "map"}
	owner := namedObj(t)
	for _, f := range fields {
		fd, err := ty.inputDef(f.v.Type(), true)
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", f.v.Name(), err)
		}
		fd.Name = f.name
		fd.Required = !f.optional
		fd.Description = fieldDoc(ty.x.fieldDecl(owner, f.v))
		d.Properties = append(d.Properties, fd)
	}
	return d, nil
}

// A writer collects generated statements and hands out fresh names.
type writer struct {
	b   strings.Builder
	n   int
	off bool // discard what is written
	// fail returns the statement that ends the function when an input
	// cannot be decoded, given the error expression; nil means a handler's
	// "return nil, err".
	fail func(err string) string
}

func (w *writer) line(format string, args ...any) {
	if w.off {
		return
	}
	fmt.Fprintf(&w.b, format, args...)
	w.b.WriteByte('\n')
}

func (w *writer) fresh(base string) string {
	w.n++
	return base + strconv.Itoa(w.n)
}

func (w *writer) failWith(err string) string {
	if w.fail == nil {
		return "return nil, " + err
	}
	return w.fail(err)
}

// isBytes reports a byte slice ([]byte or a named type over it).
func isBytes(t types.Type) bool {
	s, ok := t.Underlying().(*types.Slice)
	if !ok {
		return false
	}
	b, ok := s.Elem().Underlying().(*types.Basic)
	return ok && b.Kind() == types.Byte
}

// hasBytes reports whether decoding a value of t decodes a byte slice,
// which can fail.
func (ty *typer) hasBytes(t types.Type, seen map[types.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	if isBytes(t) {
		return true
	}
	if ty.entityIDs(t) != nil || isTime(t) || isDuration(t) {
		return false
	}
	switch u := t.Underlying().(type) {
	case *types.Pointer:
		return ty.hasBytes(u.Elem(), seen)
	case *types.Slice:
		return ty.hasBytes(u.Elem(), seen)
	case *types.Map:
		return ty.hasBytes(u.Elem(), seen)
	case *types.Struct:
		fields, _ := structFields(u)
		for _, f := range fields {
			if ty.hasBytes(f.v.Type(), seen) {
				return true
			}
		}
	}
	return false
}

// joinPath returns the Go expression of the path of a value inside the
// value at path (a Go string expression): a literal when path is one.
func joinPath(path, suffix string) string {
	if s, err := strconv.Unquote(path); err == nil {
		return strconv.Quote(s + suffix)
	}
	return path + " + " + strconv.Quote(suffix)
}

// decode writes statements that set dst (a declared variable of type t)
// from src, a simple expression of a tool value of t's definition. An
// absent value (nil) leaves dst as it is. path is a Go string expression
// naming the value for the input error of a value that cannot be decoded
// (a byte slice that is not base64); it is evaluated only then, or when
// passed to a generated decoder that can fail.
func (ty *typer) decode(w *writer, dst string, t types.Type, src, path string) {
	im := ty.pkg.imports
	ts := im.typeString(t)
	if p, ok := t.(*types.Pointer); ok {
		if ids := ty.entityIDs(t); ids != nil {
			elem := im.typeString(p.Elem())
			w.line("switch e := %s.(type) {", src)
			w.line("case %s:", ts)
			w.line("%s = e", dst)
			w.line("case %s:", elem)
			w.line("%s = &e", dst)
			w.line("}")
			return
		}
		x := w.fresh("x")
		w.line("if %s != nil {", src)
		w.line("var %s %s", x, im.typeString(p.Elem()))
		ty.decode(w, x, p.Elem(), src, path)
		w.line("%s = &%s", dst, x)
		w.line("}")
		return
	}
	if ids := ty.entityIDs(t); ids != nil {
		w.line("switch e := %s.(type) {", src)
		w.line("case %s:", ts)
		w.line("%s = e", dst)
		w.line("case *%s:", ts)
		w.line("%s = *e", dst)
		w.line("}")
		return
	}
	switch {
	case isTime(t):
		tv := w.fresh("t")
		w.line("if %s, ok := %s.(time.Time); ok {", tv, src)
		w.line("%s = %s.UTC()", dst, tv)
		w.line("}")
		im.add("time", "time")
		return
	case isDuration(t):
		w.line("%s, _ = %s.(time.Duration)", dst, src)
		im.add("time", "time")
		return
	case isBytes(t):
		// Bytes travel as standard base64, as the tool package publishes
		// them.
		sv, b := w.fresh("s"), w.fresh("b")
		w.line("if %s, ok := %s.(string); ok {", sv, src)
		w.line("%s, err := base64.StdEncoding.DecodeString(%s)", b, sv)
		w.line("if err != nil {")
		w.line("%s", w.failWith("notBase64("+path+")"))
		w.line("}")
		w.line("%s = %s", dst, b)
		w.line("}")
		im.add("encoding/base64", "base64")
		ty.pkg.helpers["notBase64"] = &helper{name: "notBase64", code: notBase64Code}
		if strings.Contains(path, "fmt.") {
			im.add("fmt", "fmt")
		}
		return
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		wire := wireGoType(u)
		if types.Identical(t, types.Typ[u.Kind()]) && wire == u.Name() {
			w.line("%s, _ = %s.(%s)", dst, src, wire)
			return
		}
		x := w.fresh("x")
		w.line("if %s, ok := %s.(%s); ok {", x, src, wire)
		w.line("%s = %s(%s)", dst, ts, x)
		w.line("}")
	case *types.Slice:
		l, i, item := w.fresh("list"), w.fresh("i"), w.fresh("item")
		w.line("if %s, ok := %s.([]any); ok {", l, src)
		w.line("%s = make(%s, len(%s))", dst, ts, l)
		w.line("for %s, %s := range %s {", i, item, l)
		ty.decode(w, dst+"["+i+"]", u.Elem(), item, fmt.Sprintf("fmt.Sprintf(\"%%s[%%d]\", %s, %s)", path, i))
		w.line("}")
		w.line("}")
	case *types.Map:
		if isEmptyInterface(u.Elem()) && types.Identical(u.Key(), types.Typ[types.String]) {
			if _, named := t.(*types.Named); !named {
				w.line("%s, _ = %s.(map[string]any)", dst, src)
				return
			}
		}
		m, k, item, x := w.fresh("m"), w.fresh("k"), w.fresh("item"), w.fresh("x")
		w.line("if %s, ok := %s.(map[string]any); ok {", m, src)
		w.line("%s = make(%s, len(%s))", dst, ts, m)
		w.line("for %s, %s := range %s {", k, item, m)
		w.line("var %s %s", x, im.typeString(u.Elem()))
		ty.decode(w, x, u.Elem(), item, joinPath(path, ".")+" + "+k)
		w.line("%s[%s(%s)] = %s", dst, im.typeString(u.Key()), k, x)
		w.line("}")
		w.line("}")
	case *types.Struct:
		if obj := namedObj(t); obj != nil {
			name, fallible := ty.decodeHelper(t, u)
			if !fallible {
				w.line("%s = %s(%s)", dst, name, src)
				return
			}
			x := w.fresh("x")
			w.line("%s, err := %s(%s, %s)", x, name, src, path)
			w.line("if err != nil {")
			w.line("%s", w.failWith("err"))
			w.line("}")
			w.line("%s = %s", dst, x)
			return
		}
		ty.decodeStruct(w, dst, u, src, path)
	default:
		w.line("%s, _ = %s.(%s)", dst, src, ts)
	}
}

const notBase64Code = `// notBase64 returns the input error of a value at path that is not
// base64.
func notBase64(path string) error {
	return &tool.InputError{Input: path, Message: "must be base64 (standard alphabet, padded)"}
}
`

// wireGoType returns the Go type tool.Values holds for a basic kind.
func wireGoType(b *types.Basic) string {
	switch {
	case b.Info()&types.IsString != 0:
		return "string"
	case b.Info()&types.IsBoolean != 0:
		return "bool"
	case b.Info()&types.IsInteger != 0:
		return "int64"
	case b.Info()&types.IsFloat != 0:
		return "float64"
	}
	return b.Name()
}

func (ty *typer) decodeStruct(w *writer, dst string, st *types.Struct, src, path string) {
	fields, _ := structFields(st)
	m := w.fresh("m")
	w.line("if %s, ok := %s.(map[string]any); ok {", m, src)
	for _, f := range fields {
		ty.decode(w, dst+"."+f.v.Name(), f.v.Type(), fmt.Sprintf("%s[%q]", m, f.name), joinPath(path, "."+f.name))
	}
	w.line("}")
}

// decodeHelper returns the name of a generated function that decodes a
// named struct type from a map value. When decoding can fail (the struct
// holds bytes), the function takes the value's path and returns an error
// too.
func (ty *typer) decodeHelper(t types.Type, st *types.Struct) (name string, fallible bool) {
	key := "decode " + types.TypeString(t, nil)
	fallible = ty.hasBytes(t, map[types.Type]bool{})
	if name, ok := ty.pkg.helperBy[key]; ok {
		return name, fallible
	}
	name = ty.pkg.helperName("decode" + slug(t, ty.pkg))
	ty.pkg.helperBy[key] = name
	h := &helper{name: name}
	ty.pkg.helpers[name] = h
	w := &writer{}
	ts := ty.pkg.imports.typeString(t)
	w.line("// %s returns the %s a map input holds.", name, ts)
	if !fallible {
		w.line("func %s(v any) (x %s) {", name, ts)
		ty.decodeStruct(w, "x", st, "v", `""`)
		w.line("return x")
	} else {
		w.fail = func(err string) string { return "return x, " + err }
		w.line("func %s(v any, path string) (x %s, err error) {", name, ts)
		ty.decodeStruct(w, "x", st, "v", "path")
		w.line("return x, nil")
	}
	w.line("}")
	h.code = w.b.String()
	return name, fallible
}

// slug names a type inside generated function names: Image, AlbumImage
// (from package album), ImageList, ImagePtr.
func slug(t types.Type, pkg *Package) string {
	switch t := types.Unalias(t).(type) {
	case *types.Named:
		name := upperFirst(t.Obj().Name())
		if p := t.Obj().Pkg(); p != nil && p.Path() != pkg.Path {
			name = upperFirst(p.Name()) + name
		}
		return name
	case *types.Pointer:
		return slug(t.Elem(), pkg) + "Ptr"
	case *types.Slice:
		return slug(t.Elem(), pkg) + "List"
	case *types.Map:
		return slug(t.Elem(), pkg) + "Map"
	case *types.Basic:
		return upperFirst(t.Name())
	case *types.Struct:
		return "Shape"
	case *types.Interface:
		return "Any"
	}
	return "Value"
}

// helperName returns an unused name for a generated function.
func (p *Package) helperName(base string) string {
	name := base
	for i := 2; ; i++ {
		_, taken := p.helpers[name]
		if !taken && (p.types == nil || p.types.Scope().Lookup(name) == nil) {
			return name
		}
		name = base + strconv.Itoa(i)
	}
}
