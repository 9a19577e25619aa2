package gen

import (
	"errors"
	"fmt"
	"go/token"
	"go/types"
	"reflect"
	"slices"
	"strings"

	"github.com/toolapi/toolapi/internal/directive"
	"github.com/toolapi/toolapi/tool"
)

// asIs publishes a value of t as it is.
func asIs(t types.Type) *publication { return &publication{kind: pubAsIs, typ: t} }

// converted publishes a value of t converted to the Go type conv.
func converted(t types.Type, conv string) *publication {
	return &publication{kind: pubConvert, typ: t, conv: conv}
}

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
	at     token.Pos // the field or getter
}

// members returns the members of a struct or interface type: every
// exported field and getter, marked or not, marked ones flagged. They are
// read once per type; callers do not change them.
func (pi *pkgInference) members(t types.Type) ([]member, error) {
	if r, ok := pi.memberCache[t]; ok {
		return r.members, r.err
	}
	ms, err := pi.readMembers(t)
	pi.memberCache[t] = membersOf{ms, err}
	return ms, err
}

type membersOf struct {
	members []member
	err     error
}

func (pi *pkgInference) readMembers(t types.Type) ([]member, error) {
	obj := namedObj(t)
	var out []member
	if st, ok := t.Underlying().(*types.Struct); ok {
		for i := range st.NumFields() {
			f := st.Field(i)
			tv, tagged, err := toolTag(f, st.Tag(i))
			if err != nil {
				return nil, atField(f, fmt.Errorf("%s.%s: %w", obj.Name(), f.Name(), err))
			}
			if !f.Exported() || f.Embedded() {
				continue
			}
			m := member{name: snake(f.Name()), goName: f.Name(), typ: f.Type(), pos: i, at: f.Pos()}
			if tagged {
				tag, err := directive.ParseTag(tv)
				if err != nil {
					return nil, atField(f, fmt.Errorf("%s.%s: %w", obj.Name(), f.Name(), err))
				}
				m.marked, m.tag = true, &tag
				if tag.Name != "" {
					m.name = tag.Name
				}
			}
			m.desc = fieldDoc(pi.decls.fieldDecl(obj, f), f.Pkg())
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
		doc, _ := pi.decls.methodDoc(obj, fn.Name())
		var prop *directive.Directive
		for _, d := range pi.directives(doc) {
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
		m := member{name: memberName(fn.Name()), goName: fn.Name(), method: true, typ: sig.Results().At(0).Type(), pos: 1 << 20, at: fn.Pos()}
		if prop != nil {
			m.marked, m.prop = true, prop
			if n := prop.String("name"); n != "" {
				m.name = n
			}
		}
		m.desc = readDoc(doc, "", fn.Pkg()).Description
		out = append(out, m)
	}
	return out, nil
}

// toolTag returns the tool key of the struct tag of field f, ok false
// when it has none. A tag that mentions tool but breaks the syntax
// reflect.StructTag reads, which would drop the key silently, is an
// error, as is a tool tag on an unexported field, which nothing reads.
func toolTag(f *types.Var, tag string) (value string, ok bool, err error) {
	if strings.Contains(tag, "tool") {
		if err := directive.CheckStructTag(tag); err != nil {
			return "", false, err
		}
	}
	value, ok = reflect.StructTag(tag).Lookup("tool")
	if ok && !f.Exported() {
		return "", false, fmt.Errorf("the field is unexported, so it is neither an input property nor a published member and its tool tag does nothing: export the field (%s), or remove the tag", upperFirst(f.Name()))
	}
	return value, ok, nil
}

// outputOnly says why a named struct or interface is a value object that
// only outputs take: a getter marked //tool:property, or a field whose
// tool tag has an option only a published member takes (omitnull). It
// returns "" for any other type: a struct whose fields carry tool tags
// is then a map input, its tags giving each property's input options.
func (pi *pkgInference) outputOnly(t types.Type) string {
	if namedObj(t) == nil {
		return ""
	}
	switch t.Underlying().(type) {
	case *types.Struct, *types.Interface:
	default:
		return ""
	}
	ms, err := pi.members(t)
	if err != nil {
		return "" // reported where the struct is described
	}
	for _, m := range ms {
		switch {
		case m.prop != nil:
			return fmt.Sprintf("its getter %s is marked //tool:property", m.goName)
		case m.tag != nil && m.tag.First(directive.OutputOnly) != "":
			return fmt.Sprintf("the tool tag of its field %s has %s", m.goName, m.tag.First(directive.OutputOnly))
		}
	}
	return ""
}

// configName returns the //tool:config name of a named struct type.
func (pi *pkgInference) configName(t types.Type) string {
	obj := namedObj(t)
	if obj == nil {
		return ""
	}
	key := typeKey(obj)
	for name, k := range pi.configs {
		if k == key {
			return name
		}
	}
	return ""
}

// output returns the definition of an output of Go type t and how its
// values are published. sel is a members= selection; stack holds the value
// objects being described (a member referring back to one is typed any).
func (pi *pkgInference) output(t types.Type, sel []directive.Member, stack []*publication) (*tool.Definition, *publication, error) {
	t = types.Unalias(t)
	if ids := pi.entityIDs(t); ids != nil {
		if sel != nil {
			return nil, nil, errors.New("members= selects nothing: an entity has no members")
		}
		d := &tool.Definition{Type: entityDataType(ids)}
		if _, isPtr := t.(*types.Pointer); isPtr {
			// The tool package publishes an entity from its pointer.
			d.Nullable = true
			return d, &publication{kind: pubPointer, typ: t}, nil
		}
		return d, asIs(t), nil
	}
	if p, ok := t.(*types.Pointer); ok {
		d, pub, err := pi.output(p.Elem(), sel, stack)
		if err != nil {
			return nil, nil, err
		}
		d.Nullable = true
		return d, &publication{kind: pubPointer, typ: t, elem: pub}, nil
	}
	switch {
	case isTime(t):
		return &tool.Definition{Type: "datetime_iso8601"}, asIs(t), selNone(sel)
	case isDuration(t):
		return &tool.Definition{Type: "duration"}, asIs(t), selNone(sel)
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
			return d, asIs(t), selNone(sel)
		}
		return d, converted(t, "[]byte"), selNone(sel)
	}
	if isNamed(t, toolPath, "Resource") {
		// Published by the tool package as a map of uri, mime_type, and
		// text or blob.
		d := tool.ResourceDefinition("", "")
		d.Required = false
		return d, asIs(t), selNone(sel)
	}
	if name := pi.configName(t); name != "" {
		d, pub, err := pi.shape(t, t.Underlying().(*types.Struct), stack)
		if err != nil {
			return nil, nil, err
		}
		return d, pub, selNone(sel)
	}
	return pi.outputByKind(t, obj, sel, stack)
}

// outputByKind describes an output by the kind of its Go type: a scalar,
// a list, a map, a struct or an interface.
func (pi *pkgInference) outputByKind(t types.Type, obj *types.TypeName, sel []directive.Member, stack []*publication) (*tool.Definition, *publication, error) {
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
			return d, asIs(t), selNone(sel)
		}
		return d, converted(t, wire), selNone(sel)
	case *types.Slice:
		item, pub, err := pi.output(u.Elem(), sel, stack)
		if err != nil {
			return nil, nil, err
		}
		if sel != nil {
			item.Name = ""
		}
		return &tool.Definition{Type: "list", Items: item}, &publication{kind: pubList, typ: t, elem: pub}, nil
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
				return d, asIs(t), nil
			}
			return d, converted(t, "map[string]any"), nil
		}
		v, pub, err := pi.output(u.Elem(), nil, stack)
		if err != nil {
			return nil, nil, err
		}
		d.Values = v
		return d, &publication{kind: pubMap, typ: t, elem: pub}, nil
	case *types.Struct:
		if obj == nil {
			if sel != nil {
				return nil, nil, errors.New("members= selects nothing: an anonymous struct publishes all its fields")
			}
			return pi.shape(t, u, stack)
		}
		return pi.valueObject(t, sel, stack)
	case *types.Interface:
		if u.Empty() {
			return nil, nil, errors.New("an any result needs type= or definition= on its output")
		}
		return pi.valueObject(t, sel, stack)
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
func (pi *pkgInference) shape(t types.Type, st *types.Struct, stack []*publication) (*tool.Definition, *publication, error) {
	fields, err := structFields(st)
	if err != nil {
		return nil, nil, err
	}
	d := &tool.Definition{Type: "map"}
	if namedObj(t) != nil {
		pi.pkg.objects[d] = t
	}
	pub := &publication{kind: pubFields, typ: t}
	owner := namedObj(t)
	for _, f := range fields {
		fd, fp, err := pi.output(f.v.Type(), nil, stack)
		if err != nil {
			return nil, nil, atField(f.v, fmt.Errorf("field %s: %w", f.v.Name(), err))
		}
		fd.Name = f.name
		fd.Required = !f.optional
		fd.Description = fieldDoc(pi.decls.fieldDecl(owner, f.v), f.v.Pkg())
		pm := &publishedMember{name: f.name, goName: f.v.Name(), typ: f.v.Type(), pub: fp, omitZero: f.optional}
		if f.tag != nil {
			if err := pi.taggedField(fd, pm, f.tag); err != nil {
				return nil, nil, atField(f.v, fmt.Errorf("field %s: %w", f.v.Name(), err))
			}
		}
		d.Properties = append(d.Properties, fd)
		pub.members = append(pub.members, pm)
	}
	return d, pub, nil
}

// taggedField applies the tool tag of a field of a struct published
// whole: its output options, omitnull included.
func (pi *pkgInference) taggedField(fd *tool.Definition, pm *publishedMember, tag *directive.Tag) error {
	for _, key := range []string{"default", "notnull", "sensitive"} {
		if tag.Has(key) {
			return fmt.Errorf("%s in its tool tag applies when the struct is an input; a published field takes none", key)
		}
	}
	conv, err := pi.applyKeys(fd, pm.typ, tag.Args, true)
	if err != nil {
		return err
	}
	if conv != nil {
		pm.pub = conv
	}
	if tag.Has("omitnull") {
		if !fd.Nullable {
			return errors.New("omitnull needs a field that can be nil (a pointer)")
		}
		fd.Required, fd.Nullable = false, false
		pm.omitZero, pm.omitNil = false, true
	}
	return nil
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
func (pi *pkgInference) valueObject(t types.Type, sel []directive.Member, stack []*publication) (*tool.Definition, *publication, error) {
	key := types.TypeString(t, nil)
	if sel != nil {
		key += " members=" + selKey(sel)
	}
	if i := slices.IndexFunc(stack, func(p *publication) bool { return p.key == key }); i >= 0 {
		// A member referring back to a type being described.
		return &tool.Definition{Type: "any"}, stack[i], nil
	}
	picked, err := pi.pickMembers(t, sel)
	if err != nil {
		return nil, nil, err
	}
	pub := &publication{kind: pubMembers, typ: t, key: key}
	stack = append(stack, pub)
	d := &tool.Definition{Type: "map"}
	pi.pkg.objects[d] = t
	for _, c := range picked {
		md, mp, err := pi.member(c.m, c.sub, c.ref, stack)
		if err != nil {
			return nil, nil, atPos(c.m.at, fmt.Errorf("member %s: %w", c.m.name, err))
		}
		d.Properties = append(d.Properties, md)
		pub.members = append(pub.members, mp)
	}
	return d, pub, nil
}

// A chosenMember is a member a value object publishes, with the members=
// selection and refinements of its call site.
type chosenMember struct {
	m   member
	sub []directive.Member
	ref []directive.Arg
}

// pickMembers returns the members a value object publishes: those it
// marks, or those sel selects.
func (pi *pkgInference) pickMembers(t types.Type, sel []directive.Member) ([]chosenMember, error) {
	obj := namedObj(t)
	all, err := pi.members(t)
	if err != nil {
		return nil, err
	}
	var picked []chosenMember
	if sel == nil {
		for _, m := range all {
			if m.marked {
				picked = append(picked, chosenMember{m: m})
			}
		}
		if len(picked) == 0 {
			if _, isIface := t.Underlying().(*types.Interface); isIface {
				return nil, fmt.Errorf("interface %s marks no method with //tool:property", obj.Name())
			}
			return nil, fmt.Errorf("%s marks no member: mark fields with a tool struct tag or getters with //tool:property, or select members with members=", obj.Name())
		}
		return picked, nil
	}
	for _, s := range sel {
		i := slices.IndexFunc(all, func(m member) bool { return m.name == s.Name || m.goName == s.Name })
		if i < 0 {
			var names []string
			for _, m := range all {
				names = append(names, m.name)
			}
			return nil, fmt.Errorf("members=: %q is not a member of %s%s (members: %s)", s.Name, obj.Name(), directive.DidYouMean(snake(s.Name), names), strings.Join(names, ", "))
		}
		picked = append(picked, chosenMember{m: all[i], sub: s.Members, ref: s.Refine})
	}
	return picked, nil
}

// member describes one member of a value object, refined by its
// //tool:property, its tool tag and its call site, in that order.
func (pi *pkgInference) member(m member, sub []directive.Member, callSite []directive.Arg, stack []*publication) (*tool.Definition, *publishedMember, error) {
	md, pub, err := pi.output(m.typ, sub, stack)
	if err != nil {
		return nil, nil, err
	}
	md.Name = m.name
	md.Required = true
	md.Description = m.desc
	var refine []directive.Arg
	if m.prop != nil {
		refine = append(refine, m.prop.Args...)
	}
	if m.tag != nil {
		for _, key := range []string{"default", "notnull", "sensitive"} {
			if m.tag.Has(key) {
				return nil, nil, fmt.Errorf("%s in its tool tag applies when the struct is an input; a published member takes none", key)
			}
		}
		refine = append(refine, m.tag.Args...)
	}
	refine = append(refine, callSite...)
	omit := false
	for _, a := range refine {
		switch a.Key {
		case "name":
			md.Name = a.Value
		case "omitnull":
			omit = a.Value != "false"
		}
	}
	convert, err := pi.applyKeys(md, m.typ, refine, true)
	if err != nil {
		return nil, nil, err
	}
	if convert != nil {
		pub = convert
	}
	if omit {
		if !md.Nullable {
			return nil, nil, errors.New("omitnull needs a member that can be nil (a pointer)")
		}
		md.Required = false
		md.Nullable = false
	}
	return md, &publishedMember{name: md.Name, goName: m.goName, method: m.method, typ: m.typ, pub: pub, omitNil: omit}, nil
}
