package gen

import (
	"errors"
	"fmt"
	"go/types"
	"reflect"
	"slices"
	"strings"

	"github.com/toolapi/toolapi/internal/directive"
	"github.com/toolapi/toolapi/tool"
)

// A pubFn returns the Go expression that publishes the value of src.
type pubFn func(src string) string

func identity(src string) string { return src }

// A member is a member of a value object: an exported field or a getter.
type member struct {
	name   string // member name on the wire
	goName string
	method bool
	typ    types.Type
	desc   string
	marked bool
	prop   *directive.Directive // the getter's //tool:property
	tag    *directive.Tag       // the field's tool tag
	pos    int
}

// members returns the members of a struct or interface type: every
// exported field and getter, marked or not, marked ones flagged. They are
// read once per type; callers do not change them.
func (ty *typer) members(t types.Type) ([]member, error) {
	ty.x.mu.Lock()
	r, ok := ty.x.members[t]
	ty.x.mu.Unlock()
	if ok {
		return r.members, r.err
	}
	ms, err := ty.readMembers(t)
	ty.x.mu.Lock()
	ty.x.members[t] = membersOf{ms, err}
	ty.x.mu.Unlock()
	return ms, err
}

type membersOf struct {
	members []member
	err     error
}

func (ty *typer) readMembers(t types.Type) ([]member, error) {
	obj := namedObj(t)
	var out []member
	if st, ok := t.Underlying().(*types.Struct); ok {
		for i := range st.NumFields() {
			f := st.Field(i)
			if !f.Exported() || f.Embedded() {
				continue
			}
			m := member{name: snake(f.Name()), goName: f.Name(), typ: f.Type(), pos: i}
			if tv, ok := reflectLookup(st.Tag(i), "tool"); ok {
				tag, err := directive.ParseTag(tv)
				if err != nil {
					return nil, fmt.Errorf("%s.%s: %w", obj.Name(), f.Name(), err)
				}
				m.marked, m.tag = true, &tag
				if tag.Name != "" {
					m.name = tag.Name
				}
			}
			m.desc = fieldDoc(ty.x.fieldDecl(obj, f))
			out = append(out, m)
		}
	}
	if obj == nil {
		return out, nil
	}
	var methods []*types.Func
	if it, ok := t.Underlying().(*types.Interface); ok {
		for i := range it.NumMethods() {
			methods = append(methods, it.Method(i))
		}
	} else {
		ms := types.NewMethodSet(types.NewPointer(t))
		for i := range ms.Len() {
			methods = append(methods, ms.At(i).Obj().(*types.Func))
		}
	}
	slices.SortStableFunc(methods, func(a, b *types.Func) int { return int(a.Pos() - b.Pos()) })
	for _, fn := range methods {
		if !fn.Exported() {
			continue
		}
		sig := fn.Type().(*types.Signature)
		doc, _ := ty.x.methodDoc(obj, fn.Name())
		var prop *directive.Directive
		for _, d := range ty.x.directives(doc) {
			if d.Name == "property" {
				prop = d
			}
		}
		getter := sig.Params().Len() == 0 && sig.Results().Len() == 1
		if prop != nil && !getter {
			return nil, fmt.Errorf("%s.%s is marked //tool:property but is not a getter (no parameters, one result)", obj.Name(), fn.Name())
		}
		if !getter {
			continue
		}
		m := member{name: memberName(fn.Name()), goName: fn.Name(), method: true, typ: sig.Results().At(0).Type(), pos: 1 << 20}
		if prop != nil {
			m.marked, m.prop = true, prop
			if n := prop.String("name"); n != "" {
				m.name = n
			}
		}
		m.desc = readDoc(doc, "").Description
		out = append(out, m)
	}
	return out, nil
}

func reflectLookup(tag, key string) (string, bool) {
	return reflect.StructTag(tag).Lookup(key)
}

// isValueObject reports a named struct or interface that marks members.
func (ty *typer) isValueObject(t types.Type) bool {
	if namedObj(t) == nil {
		return false
	}
	switch t.Underlying().(type) {
	case *types.Struct, *types.Interface:
	default:
		return false
	}
	ms, err := ty.members(t)
	if err != nil {
		return true // described, and failing, as an output
	}
	for _, m := range ms {
		if m.marked {
			return true
		}
	}
	return false
}

// configName returns the //tool:config name of a named struct type.
func (ty *typer) configName(t types.Type) string {
	obj := namedObj(t)
	if obj == nil {
		return ""
	}
	key := typeKey(obj)
	for name, k := range ty.x.configs {
		if k == key {
			return name
		}
	}
	return ""
}

// output returns the definition of an output of Go type t and how its
// values are published. sel is a members= selection; stack lists the value
// objects being described (a member referring back to one is typed any).
func (ty *typer) output(t types.Type, sel []directive.Member, stack []string) (*tool.Definition, pubFn, error) {
	t = types.Unalias(t)
	if ids := ty.entityIDs(t); ids != nil {
		if sel != nil {
			return nil, nil, errors.New("members= selects nothing: an entity has no members")
		}
		d := &tool.Definition{Type: entityDataType(ids)}
		if _, isPtr := t.(*types.Pointer); isPtr {
			d.Nullable = true
			return d, ty.nilHelper(t, identity), nil
		}
		return d, identity, nil
	}
	if p, ok := t.(*types.Pointer); ok {
		d, pub, err := ty.output(p.Elem(), sel, stack)
		if err != nil {
			return nil, nil, err
		}
		d.Nullable = true
		return d, ty.nilHelper(t, func(src string) string { return pub("*" + src) }), nil
	}
	switch {
	case isTime(t):
		return &tool.Definition{Type: "datetime_iso8601"}, identity, selNone(sel)
	case isDuration(t):
		return &tool.Definition{Type: "duration"}, identity, selNone(sel)
	case isToolResult(t):
		return nil, nil, errors.New("a tool.Result can only be the method's result")
	case isError(t) || isContext(t):
		return nil, nil, fmt.Errorf("%s cannot be an output", types.TypeString(t, nil))
	}
	obj := namedObj(t)
	if obj != nil && isMarshaler(t) {
		return nil, nil, fmt.Errorf("%s publishes its own JSON: give its output type= or definition=", obj.Name())
	}
	if isBytes(t) {
		// The tool package publishes bytes as a standard base64 string.
		d := &tool.Definition{Type: "string", Constraints: tool.Constraints{Encoding: "base64"}}
		if types.Identical(t, byteSlice) {
			return d, identity, selNone(sel)
		}
		return d, func(src string) string { return "[]byte(" + src + ")" }, selNone(sel)
	}
	if isNamed(t, toolPath, "Resource") {
		// Published by the tool package as a map of uri, mime_type, and
		// text or blob.
		d := tool.ResourceDefinition("", "")
		d.Required = false
		return d, identity, selNone(sel)
	}
	if name := ty.configName(t); name != "" {
		d, pub, err := ty.shape(t, t.Underlying().(*types.Struct), stack)
		if err != nil {
			return nil, nil, err
		}
		d.Config = name
		return d, pub, selNone(sel)
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		typ, rng, ok := scalar(u)
		if !ok {
			return nil, nil, fmt.Errorf("type %s cannot be an output", types.TypeString(t, nil))
		}
		d := &tool.Definition{Type: typ, Constraints: tool.Constraints{Range: rng}}
		if obj != nil && (typ == "string" || typ == "integer") {
			d.Constraints.Choice = enumChoices(t)
		}
		wire := wireGoType(u)
		if types.Identical(t, types.Typ[u.Kind()]) && wire == u.Name() {
			return d, identity, selNone(sel)
		}
		return d, func(src string) string { return wire + "(" + src + ")" }, selNone(sel)
	case *types.Slice:
		item, pub, err := ty.output(u.Elem(), sel, stack)
		if err != nil {
			return nil, nil, err
		}
		if sel != nil {
			item.Name = ""
		}
		d := &tool.Definition{Type: "list", Items: item}
		return d, ty.listHelper(t, u, pub, sel), nil
	case *types.Map:
		if b, ok := u.Key().Underlying().(*types.Basic); !ok || b.Kind() != types.String {
			return nil, nil, fmt.Errorf("type %s: map keys must be strings", types.TypeString(t, nil))
		}
		if sel != nil {
			return nil, nil, errors.New("members= selects nothing: a map has no members")
		}
		d := &tool.Definition{Type: "map"}
		if isEmptyInterface(u.Elem()) {
			if obj == nil && types.Identical(u.Key(), types.Typ[types.String]) {
				return d, identity, nil
			}
			return d, func(src string) string { return "map[string]any(" + src + ")" }, nil
		}
		v, pub, err := ty.output(u.Elem(), nil, stack)
		if err != nil {
			return nil, nil, err
		}
		d.Values = v
		return d, ty.mapHelper(t, u, pub), nil
	case *types.Struct:
		if obj == nil {
			if sel != nil {
				return nil, nil, errors.New("members= selects nothing: an anonymous struct publishes all its fields")
			}
			return ty.shape(t, u, stack)
		}
		return ty.valueObject(t, sel, stack)
	case *types.Interface:
		if u.Empty() {
			return nil, nil, errors.New("an any result needs type= or definition= on its output")
		}
		return ty.valueObject(t, sel, stack)
	}
	return nil, nil, fmt.Errorf("type %s cannot be an output", types.TypeString(t, nil))
}

var byteSlice = types.NewSlice(types.Typ[types.Byte])

func selNone(sel []directive.Member) error {
	if sel != nil {
		return errors.New("members= selects nothing: the value has no members")
	}
	return nil
}

// shape describes a struct whose exported fields are all published: an
// anonymous struct result or a config object.
func (ty *typer) shape(t types.Type, st *types.Struct, stack []string) (*tool.Definition, pubFn, error) {
	fields, err := structFields(st)
	if err != nil {
		return nil, nil, err
	}
	d := &tool.Definition{Type: "map"}
	owner := namedObj(t)
	pubs := make([]pubFn, len(fields))
	for i, f := range fields {
		fd, pub, err := ty.output(f.v.Type(), nil, stack)
		if err != nil {
			return nil, nil, fmt.Errorf("field %s: %w", f.v.Name(), err)
		}
		fd.Name = f.name
		fd.Required = !f.optional
		fd.Description = fieldDoc(ty.x.fieldDecl(owner, f.v))
		d.Properties = append(d.Properties, fd)
		pubs[i] = pub
	}
	if !ty.code {
		return d, identity, nil // only described: no code publishes it
	}
	key := "publish " + types.TypeString(t, nil)
	name, h, done := ty.helper(key, "publish"+slug(t, ty.pkg))
	if !done {
		w := ty.writer()
		ts := ty.pkg.imports.typeString(t)
		w.line("// %s publishes the fields of a %s.", name, strings.ReplaceAll(ts, "\n", " "))
		w.line("func %s(v %s) tool.Object {", name, ts)
		w.line("m := make(tool.Object, %d)", len(fields))
		for i, f := range fields {
			raw := "v." + f.v.Name()
			get := pubs[i](raw)
			if cond := nonZero(ty.pkg.imports, f.v.Type(), raw); f.optional && cond != "" {
				w.line("if %s {", cond)
				w.line("m[%q] = %s", f.name, get)
				w.line("}")
			} else {
				w.line("m[%q] = %s", f.name, get)
			}
		}
		w.line("return m")
		w.line("}")
		h.code = w.b.String()
	}
	return d, call(name), nil
}

func call(name string) pubFn { return func(src string) string { return name + "(" + src + ")" } }

// helper reserves a generated function for key. done reports that it was
// already written (or is being written: a type referring to itself).
func (ty *typer) helper(key, base string) (string, *helper, bool) {
	if name, ok := ty.pkg.helperBy[key]; ok {
		return name, ty.pkg.helpers[name], true
	}
	name := ty.pkg.helperName(base)
	h := &helper{name: name}
	ty.pkg.helpers[name] = h
	ty.pkg.helperBy[key] = name
	return name, h, false
}

// nilHelper publishes a pointer: nil as nil, else what pub makes of it.
func (ty *typer) nilHelper(t types.Type, pub pubFn) pubFn {
	if !ty.code {
		return identity // only described: no code publishes it
	}
	key := "publish " + types.TypeString(t, nil) + " " + pub("v")
	name, h, done := ty.helper(key, "publish"+slug(t, ty.pkg))
	if !done {
		w := ty.writer()
		w.line("// %s publishes a %s: nil as null.", name, ty.pkg.imports.typeString(t))
		w.line("func %s(v %s) any {", name, ty.pkg.imports.typeString(t))
		w.line("if v == nil {")
		w.line("return nil")
		w.line("}")
		w.line("return %s", pub("v"))
		w.line("}")
		h.code = w.b.String()
	}
	return call(name)
}

func (ty *typer) listHelper(t types.Type, u *types.Slice, pub pubFn, sel []directive.Member) pubFn {
	if !ty.code {
		return identity // only described: no code publishes it
	}
	key := "publish " + types.TypeString(t, nil) + " " + pub("x")
	name, h, done := ty.helper(key, "publish"+slug(t, ty.pkg))
	if !done {
		w := ty.writer()
		w.line("// %s publishes a %s as a list.", name, ty.pkg.imports.typeString(t))
		w.line("func %s(v %s) []any {", name, ty.pkg.imports.typeString(t))
		w.line("out := make([]any, len(v))")
		w.line("for i, x := range v {")
		w.line("out[i] = %s", pub("x"))
		w.line("}")
		w.line("return out")
		w.line("}")
		h.code = w.b.String()
	}
	return call(name)
}

func (ty *typer) mapHelper(t types.Type, u *types.Map, pub pubFn) pubFn {
	if !ty.code {
		return identity // only described: no code publishes it
	}
	key := "publish " + types.TypeString(t, nil) + " " + pub("x")
	name, h, done := ty.helper(key, "publish"+slug(t, ty.pkg))
	if !done {
		w := ty.writer()
		w.line("// %s publishes a %s as a map.", name, ty.pkg.imports.typeString(t))
		w.line("func %s(v %s) map[string]any {", name, ty.pkg.imports.typeString(t))
		w.line("out := make(map[string]any, len(v))")
		w.line("for k, x := range v {")
		w.line("out[string(k)] = %s", pub("x"))
		w.line("}")
		w.line("return out")
		w.line("}")
		h.code = w.b.String()
	}
	return call(name)
}

// selKey renders a selection for helper keys.
func selKey(sel []directive.Member) string {
	var b strings.Builder
	for i, m := range sel {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(m.Name)
		if m.Members != nil {
			b.WriteString("(" + selKey(m.Members) + ")")
		}
		if len(m.Refine) > 0 {
			b.WriteByte('{')
			for _, a := range m.Refine {
				b.WriteString(a.Key + "=" + a.Value + ";")
			}
			b.WriteByte('}')
		}
	}
	return b.String()
}

// valueObject describes a value object: the members it marks, or those a
// members= selection chooses.
func (ty *typer) valueObject(t types.Type, sel []directive.Member, stack []string) (*tool.Definition, pubFn, error) {
	obj := namedObj(t)
	key := "publish " + types.TypeString(t, nil)
	if sel != nil {
		key += " members=" + selKey(sel)
	}
	if slices.Contains(stack, key) {
		// A member referring back to a type being described.
		name := ty.pkg.helperBy[key]
		return &tool.Definition{Type: "any"}, call(name), nil
	}
	all, err := ty.members(t)
	if err != nil {
		return nil, nil, err
	}
	type chosen struct {
		m   member
		sub []directive.Member
		ref []directive.Arg
	}
	var picked []chosen
	if sel == nil {
		for _, m := range all {
			if m.marked {
				picked = append(picked, chosen{m: m})
			}
		}
		if len(picked) == 0 {
			if _, isIface := t.Underlying().(*types.Interface); isIface {
				return nil, nil, fmt.Errorf("interface %s marks no method with //tool:property", obj.Name())
			}
			return nil, nil, fmt.Errorf("%s marks no member: mark fields with a tool struct tag or getters with //tool:property, or select members with members=", obj.Name())
		}
	} else {
		for _, s := range sel {
			i := slices.IndexFunc(all, func(m member) bool { return m.name == s.Name || m.goName == s.Name })
			if i < 0 {
				var names []string
				for _, m := range all {
					names = append(names, m.name)
				}
				return nil, nil, fmt.Errorf("members=: %q is not a member of %s (members: %s)", s.Name, obj.Name(), strings.Join(names, ", "))
			}
			picked = append(picked, chosen{m: all[i], sub: s.Members, ref: s.Refine})
		}
	}
	base := "publish" + slug(t, ty.pkg)
	name, h, _ := ty.helper(key, base)
	stack = append(stack, key)
	d := &tool.Definition{Type: "map"}
	type line struct {
		name, get string
		omit      bool
	}
	var lines []line
	for _, c := range picked {
		m := c.m
		md, pub, err := ty.output(m.typ, c.sub, stack)
		if err != nil {
			return nil, nil, fmt.Errorf("member %s: %w", m.name, err)
		}
		md.Name = m.name
		md.Required = true
		md.Description = m.desc
		var refine []directive.Arg
		if m.prop != nil {
			refine = append(refine, m.prop.Args...)
		}
		if m.tag != nil {
			refine = append(refine, tagArgs(m.tag)...)
		}
		refine = append(refine, c.ref...)
		omit := false
		var convert pubFn
		for _, a := range refine {
			switch a.Key {
			case "name":
				md.Name = a.Value
			case "omitnull":
				omit = a.Value != "false"
			}
		}
		convert, err = ty.applyKeys(md, m.typ, refine, true)
		if err != nil {
			return nil, nil, fmt.Errorf("member %s: %w", m.name, err)
		}
		if convert != nil {
			pub = convert
		}
		if omit {
			if !md.Nullable {
				return nil, nil, fmt.Errorf("member %s: omitnull needs a member that can be nil (a pointer)", m.name)
			}
			md.Required = false
			md.Nullable = false
		}
		d.Properties = append(d.Properties, md)
		if !ty.code {
			continue
		}
		get := "v." + m.goName
		if m.method {
			get += "()"
		}
		lines = append(lines, line{name: md.Name, get: pub(get), omit: omit})
	}
	if !ty.code {
		return d, call(name), nil // only described: no code publishes it
	}
	w := ty.writer()
	ts := ty.pkg.imports.typeString(t)
	_, isIface := t.Underlying().(*types.Interface)
	ret := "tool.Object"
	if isIface {
		ret = "any"
	}
	w.line("// %s publishes %s as the map of its members.", name, article(obj.Name()))
	w.line("func %s(v %s) %s {", name, ts, ret)
	if isIface {
		w.line("if v == nil {")
		w.line("return nil")
		w.line("}")
	}
	w.line("m := make(tool.Object, %d)", len(lines))
	for _, l := range lines {
		if l.omit {
			w.line("if x := %s; x != nil {", l.get)
			w.line("m[%q] = x", l.name)
			w.line("}")
		} else {
			w.line("m[%q] = %s", l.name, l.get)
		}
	}
	w.line("return m")
	w.line("}")
	h.code = w.b.String()
	return d, call(name), nil
}

func tagArgs(t *directive.Tag) []directive.Arg {
	var out []directive.Arg
	add := func(k, v string) {
		if v != "" {
			out = append(out, directive.Arg{Key: k, Value: v})
		}
	}
	add("type", t.Type)
	add("media", t.Media)
	add("label", t.Label)
	if t.OmitNull {
		out = append(out, directive.Arg{Key: "omitnull", Value: "true", Bare: true})
	}
	return out
}

// article prefixes a name with "a" or "an".
func article(name string) string {
	if name != "" && strings.ContainsRune("AEIOUaeiou", rune(name[0])) {
		return "an " + name
	}
	return "a " + name
}

// nonZero returns a condition that holds when expr, of type t, is not its
// zero value (what encoding/json's omitempty leaves out), or "" when
// there is none to write.
func nonZero(im *imports, t types.Type, expr string) string {
	switch u := t.Underlying().(type) {
	case *types.Pointer, *types.Interface, *types.Signature, *types.Chan:
		return expr + " != nil"
	case *types.Slice, *types.Map:
		return "len(" + expr + ") > 0"
	case *types.Basic:
		switch {
		case u.Info()&types.IsString != 0:
			return expr + ` != ""`
		case u.Info()&types.IsBoolean != 0:
			return expr
		case u.Info()&types.IsNumeric != 0:
			return expr + " != 0"
		}
	case *types.Struct:
		if isTime(t) {
			return "!" + expr + ".IsZero()"
		}
		if types.Comparable(t) {
			return expr + " != (" + im.typeString(t) + "{})"
		}
	}
	return ""
}
