package gen

import (
	"fmt"
	"go/types"
	"strings"

	"github.com/toolapi/toolapi/internal/english"
)

// publish returns the Go expression publishing src, a value of p.typ.
func (r *renderer) publish(p *publication, src string) string {
	switch p.kind {
	case pubAsIs:
		return src
	case pubConvert:
		return p.conv + "(" + src + ")"
	case pubUnixTime:
		return r.use("time", "time") + ".Unix(int64(" + src + "), 0).UTC()"
	case pubJSON:
		return r.publishJSON() + "(" + src + ")"
	}
	return r.publisher(p) + "(" + src + ")"
}

// id identifies what a publication writes, for sharing its helper.
func (p *publication) id() string {
	switch p.kind {
	case pubAsIs:
		return "as is"
	case pubConvert:
		return p.conv
	case pubUnixTime:
		return "unix"
	case pubJSON:
		return "json"
	case pubMembers:
		return "members " + p.key
	case pubFields:
		return "fields " + types.TypeString(p.typ, nil)
	}
	elem := "itself"
	if p.elem != nil {
		elem = p.elem.id()
	}
	return fmt.Sprintf("%d %s (%s)", p.kind, types.TypeString(p.typ, nil), elem)
}

// publisher returns the name of the generated function that publishes
// values as p says: a pointer, list, map, struct or value object.
func (r *renderer) publisher(p *publication) string {
	return r.helper("publish "+p.id(), "publish"+r.slug(p.typ), func(name string) string {
		w := &body{}
		ts := r.typeString(p.typ)
		switch p.kind {
		case pubPointer:
			w.line("// %s publishes a %s: nil as null.", name, ts)
			w.line("func %s(v %s) any {", name, ts)
			w.line("if v == nil {")
			w.line("return nil")
			w.line("}")
			if p.elem == nil {
				w.line("return v")
			} else {
				w.line("return %s", r.publish(p.elem, "*v"))
			}
		case pubList:
			w.line("// %s publishes a %s as a list.", name, ts)
			w.line("func %s(v %s) []any {", name, ts)
			w.line("out := make([]any, len(v))")
			w.line("for i, x := range v {")
			w.line("out[i] = %s", r.publish(p.elem, "x"))
			w.line("}")
			w.line("return out")
		case pubMap:
			w.line("// %s publishes a %s as a map.", name, ts)
			w.line("func %s(v %s) map[string]any {", name, ts)
			w.line("out := make(map[string]any, len(v))")
			w.line("for k, x := range v {")
			w.line("out[string(k)] = %s", r.publish(p.elem, "x"))
			w.line("}")
			w.line("return out")
		case pubFields:
			w.line("// %s publishes the fields of a %s.", name, strings.ReplaceAll(ts, "\n", " "))
			w.line("func %s(v %s) tool.Object {", name, ts)
			r.publishMembers(w, p.members)
		case pubMembers:
			_, isIface := p.typ.Underlying().(*types.Interface)
			w.line("// %s publishes %s as the map of its members.", name, article(namedObj(p.typ).Name()))
			if isIface {
				w.line("func %s(v %s) any {", name, ts)
				w.line("if v == nil {")
				w.line("return nil")
				w.line("}")
			} else {
				w.line("func %s(v %s) tool.Object {", name, ts)
			}
			r.publishMembers(w, p.members)
		}
		w.line("}")
		return w.b.String()
	})
}

// publishMembers writes the statements building the map of members of v.
func (r *renderer) publishMembers(w *body, members []*publishedMember) {
	w.line("m := make(tool.Object, %d)", len(members))
	for _, m := range members {
		get := "v." + m.goName
		if m.method {
			get += "()"
		}
		value := r.publish(m.pub, get)
		cond := ""
		if m.omitZero {
			cond = r.nonZero(m.typ, get)
		}
		switch {
		case m.omitNil:
			w.line("if x := %s; x != nil {", value)
			w.line("m[%q] = x", m.name)
			w.line("}")
		case m.omitZero && cond != "":
			w.line("if %s {", cond)
			w.line("m[%q] = %s", m.name, value)
			w.line("}")
		default:
			w.line("m[%q] = %s", m.name, value)
		}
	}
	w.line("return m")
}

// publishJSON returns the name of the helper publishing a json.Marshaler.
func (r *renderer) publishJSON() string {
	return r.helper("publishJSON", "publishJSON", func(name string) string {
		json := r.use("encoding/json", "json")
		return fmt.Sprintf(`// %[1]s publishes a value through its own JSON encoding. A value
// that fails to encode publishes as nil, which the registry reports.
func %[1]s(v %[2]s.Marshaler) any {
	data, err := v.MarshalJSON()
	if err != nil {
		return nil
	}
	var x any
	if err := %[2]s.Unmarshal(data, &x); err != nil {
		return nil
	}
	return x
}
`, name, json)
	})
}

// article prefixes a name with "a" or "an", as it is spoken ("a User",
// "an Album"), for the comments of generated code.
func article(name string) string { return english.WithArticle(name) }

// nonZero returns a condition that holds when expr, of type t, is not its
// zero value (what encoding/json's omitempty leaves out), or "" when
// there is none to write.
func (r *renderer) nonZero(t types.Type, expr string) string {
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
			return expr + " != (" + r.typeString(t) + "{})"
		}
	}
	return ""
}
