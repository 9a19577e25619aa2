package gen

import (
	"errors"
	"fmt"
	"go/constant"
	"go/types"
	"math"
	"reflect"
	"slices"
	"strings"

	"github.com/toolapi/toolapi/tool"
)

const toolPath = "github.com/toolapi/toolapi/tool"

// typer turns Go types into definitions.
type typer struct {
	x   *index
	pkg *Package
}

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
func (ty *typer) entityIDs(t types.Type) []string { return entityIDs(ty.x.entityTypes, t) }

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
	if len(fields) == 0 {
		return nil, fmt.Errorf("type %s has no exported field, so no value can set it: take a type with exported fields, or its parts as parameters", types.TypeString(t, shortQualifier))
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

// isBytes reports a byte slice ([]byte or a named type over it).
func isBytes(t types.Type) bool {
	s, ok := t.Underlying().(*types.Slice)
	if !ok {
		return false
	}
	b, ok := s.Elem().Underlying().(*types.Basic)
	return ok && b.Kind() == types.Byte
}

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
