package gen

import (
	"fmt"
	"go/types"
	"strconv"
	"strings"
)

// A body collects the statements of a generated function and hands out
// fresh names.
type body struct {
	b strings.Builder
	n int
	// fail returns the statement that ends the function when an input
	// cannot be decoded, given the error expression; nil means a handler's
	// "return nil, err".
	fail func(err string) string
}

func (w *body) line(format string, args ...any) {
	fmt.Fprintf(&w.b, format, args...)
	w.b.WriteByte('\n')
}

func (w *body) fresh(base string) string {
	w.n++
	return base + strconv.Itoa(w.n)
}

func (w *body) failWith(err string) string {
	if w.fail == nil {
		return "return nil, " + err
	}
	return w.fail(err)
}

// A valuePath returns the Go expression of the path of a value, for the
// input error of a value that cannot be decoded. It is called only when
// the expression is written, so that what it uses is imported only then.
type valuePath func() string

// literalPath is the path of an input: its name.
func literalPath(name string) valuePath {
	q := strconv.Quote(name)
	return func() string { return q }
}

// joined returns the path of a value inside the value at p.
func (p valuePath) joined(suffix string) valuePath {
	return func() string { return joinPath(p(), suffix) }
}

// joinPath returns the Go expression of the path of a value inside the
// value at path (a Go string expression): a literal when path is one.
func joinPath(path, suffix string) string {
	if s, err := strconv.Unquote(path); err == nil {
		return strconv.Quote(s + suffix)
	}
	return path + " + " + strconv.Quote(suffix)
}

// decodeInputs returns the statements declaring the method's arguments,
// named by locals, from in; fail ends the function when an input cannot
// be decoded (nil: the handler's "return nil, err").
func (r *renderer) decodeInputs(t *Tool, locals []string, fail func(string) string) string {
	all := &body{fail: fail}
	for i, p := range t.params {
		src := fmt.Sprintf("in.At(%d)", i)
		if asserted := r.assertedType(p.v.Type()); asserted != "" {
			all.line("%s, _ := %s.(%s)", locals[i], src, asserted)
			continue
		}
		all.line("var %s %s", locals[i], r.typeString(p.v.Type()))
		r.decode(all, locals[i], p.v.Type(), src, literalPath(p.name))
	}
	return all.b.String()
}

// decode writes statements that set dst (a declared variable of type t)
// from src, a simple expression of a tool value of t's definition. An
// absent value (nil) leaves dst as it is. path names the value for the
// input error of a value that cannot be decoded (a byte slice that is not
// base64).
func (r *renderer) decode(w *body, dst string, t types.Type, src string, path valuePath) {
	if asserted := r.assertedType(t); asserted != "" {
		w.line("%s, _ = %s.(%s)", dst, src, asserted)
		return
	}
	switch {
	case r.isEntity(t):
		r.decodeEntity(w, dst, t, src, path)
	case isTime(t):
		tv := w.fresh("t")
		w.line("if %s, ok := %s.(%s); ok {", tv, src, r.typeString(t))
		w.line("%s = %s.UTC()", dst, tv)
		w.line("}")
	case isBytes(t):
		r.decodeBytes(w, dst, src, path)
	default:
		switch u := t.Underlying().(type) {
		case *types.Pointer:
			r.decodePointer(w, dst, u, src, path)
		case *types.Basic:
			x := w.fresh("x")
			w.line("if %s, ok := %s.(%s); ok {", x, src, wireGoType(u))
			w.line("%s = %s(%s)", dst, r.typeString(t), x)
			w.line("}")
		case *types.Slice:
			r.decodeList(w, dst, t, u, src, path)
		case *types.Map:
			r.decodeMap(w, dst, t, u, src, path)
		case *types.Struct:
			r.decodeNamedStruct(w, dst, t, u, src, path)
		}
	}
}

// decodeEntity takes an entity, or a pointer to one, as the run path
// loaded it: a value or a pointer. A Go type that is the class of several
// entity types takes a reference of any entity type the registry knows,
// so an entity of another Go type is the caller's mistake: an input error
// naming the types, rather than a zero value reaching the method.
func (r *renderer) decodeEntity(w *body, dst string, t types.Type, src string, path valuePath) {
	w.line("switch e := %s.(type) {", src)
	w.line("case %s:", r.typeString(t))
	w.line("%s = e", dst)
	if p, ok := t.(*types.Pointer); ok {
		w.line("case %s:", r.typeString(p.Elem()))
		w.line("%s = &e", dst)
	} else {
		w.line("case *%s:", r.typeString(t))
		w.line("%s = *e", dst)
	}
	if ids := entityIDs(r.pkg.entityTypes, t); len(ids) > 1 {
		msg := "must be an entity of type " + orList(ids) + ", such as " + ids[0] + ":12"
		w.line("case nil:")
		w.line("default:")
		w.line("%s", w.failWith(fmt.Sprintf("&tool.InputError{Input: %s, Message: %q}", path(), msg)))
	}
	w.line("}")
}

// decodePointer sets a pointer to the decoded value, or leaves it nil.
func (r *renderer) decodePointer(w *body, dst string, p *types.Pointer, src string, path valuePath) {
	x := w.fresh("x")
	if asserted := r.assertedType(p.Elem()); asserted != "" {
		w.line("if %s, ok := %s.(%s); ok {", x, src, asserted)
		w.line("%s = &%s", dst, x)
		w.line("}")
		return
	}
	w.line("if %s != nil {", src)
	w.line("var %s %s", x, r.typeString(p.Elem()))
	r.decode(w, x, p.Elem(), src, path)
	w.line("%s = &%s", dst, x)
	w.line("}")
}

// decodeBytes decodes standard base64, as the tool package publishes
// bytes; a value that is not base64 fails the run as an input error.
func (r *renderer) decodeBytes(w *body, dst, src string, path valuePath) {
	sv, b := w.fresh("s"), w.fresh("b")
	w.line("if %s, ok := %s.(string); ok {", sv, src)
	w.line("%s, err := %s.StdEncoding.DecodeString(%s)", b, r.use("encoding/base64", "base64"), sv)
	w.line("if err != nil {")
	w.line("%s", w.failWith(r.notBase64()+"("+path()+")"))
	w.line("}")
	w.line("%s = %s", dst, b)
	w.line("}")
}

func (r *renderer) decodeList(w *body, dst string, t types.Type, u *types.Slice, src string, path valuePath) {
	l, i, item := w.fresh("list"), w.fresh("i"), w.fresh("item")
	w.line("if %s, ok := %s.([]any); ok {", l, src)
	w.line("%s = make(%s, len(%s))", dst, r.typeString(t), l)
	w.line("for %s, %s := range %s {", i, item, l)
	itemPath := func() string {
		return fmt.Sprintf("%s.Sprintf(\"%%s[%%d]\", %s, %s)", r.use("fmt", "fmt"), path(), i)
	}
	r.decode(w, dst+"["+i+"]", u.Elem(), item, itemPath)
	w.line("}")
	w.line("}")
}

func (r *renderer) decodeMap(w *body, dst string, t types.Type, u *types.Map, src string, path valuePath) {
	m, k, item, x := w.fresh("m"), w.fresh("k"), w.fresh("item"), w.fresh("x")
	w.line("if %s, ok := %s.(map[string]any); ok {", m, src)
	w.line("%s = make(%s, len(%s))", dst, r.typeString(t), m)
	w.line("for %s, %s := range %s {", k, item, m)
	w.line("var %s %s", x, r.typeString(u.Elem()))
	r.decode(w, x, u.Elem(), item, func() string { return joinPath(path(), ".") + " + " + k })
	w.line("%s[%s(%s)] = %s", dst, r.typeString(u.Key()), k, x)
	w.line("}")
	w.line("}")
}

// decodeNamedStruct calls the generated decoder of a named struct type;
// an anonymous struct is decoded in place.
func (r *renderer) decodeNamedStruct(w *body, dst string, t types.Type, u *types.Struct, src string, path valuePath) {
	if namedObj(t) == nil {
		r.decodeStruct(w, dst, u, src, path)
		return
	}
	name, fallible := r.structDecoder(t, u)
	if !fallible {
		w.line("%s = %s(%s)", dst, name, src)
		return
	}
	x := w.fresh("x")
	w.line("%s, err := %s(%s, %s)", x, name, src, path())
	w.line("if err != nil {")
	w.line("%s", w.failWith("err"))
	w.line("}")
	w.line("%s = %s", dst, x)
}

func (r *renderer) decodeStruct(w *body, dst string, st *types.Struct, src string, path valuePath) {
	fields, _ := structFields(st)
	m := w.fresh("m")
	w.line("if %s, ok := %s.(map[string]any); ok {", m, src)
	for _, f := range fields {
		r.decode(w, dst+"."+f.v.Name(), f.v.Type(), fmt.Sprintf("%s[%q]", m, f.name), path.joined("."+f.name))
	}
	w.line("}")
}

// structDecoder returns the name of a generated function that decodes a
// named struct type from a map value. When decoding can fail (the struct
// holds bytes), the function takes the value's path and returns an error
// too.
func (r *renderer) structDecoder(t types.Type, st *types.Struct) (name string, fallible bool) {
	fallible = r.hasBytes(t, map[types.Type]bool{})
	name = r.helper("decode "+types.TypeString(t, nil), "decode"+r.slug(t), func(name string) string {
		w := &body{}
		ts := r.typeString(t)
		w.line("// %s returns the %s a map input holds.", name, ts)
		if !fallible {
			w.line("func %s(v any) (x %s) {", name, ts)
			r.decodeStruct(w, "x", st, "v", literalPath(""))
			w.line("return x")
		} else {
			w.fail = func(err string) string { return "return x, " + err }
			w.line("func %s(v any, path string) (x %s, err error) {", name, ts)
			r.decodeStruct(w, "x", st, "v", func() string { return "path" })
			w.line("return x, nil")
		}
		w.line("}")
		return w.b.String()
	})
	return name, fallible
}

// notBase64 returns the name of the helper returning the input error of a
// value that is not base64.
func (r *renderer) notBase64() string {
	return r.helper("notBase64", "notBase64", func(name string) string {
		return fmt.Sprintf(`// %[1]s returns the input error of a value at path that is not
// base64.
func %[1]s(path string) error {
	return &tool.InputError{Input: path, Message: "must be base64 (standard alphabet, padded)"}
}
`, name)
	})
}

// isEntity reports a Go type (or pointer) that is the class of entity types.
func (r *renderer) isEntity(t types.Type) bool { return entityIDs(r.pkg.entityTypes, t) != nil }

// hasBytes reports whether decoding a value of t decodes a byte slice,
// which can fail.
func (r *renderer) hasBytes(t types.Type, seen map[types.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	if isBytes(t) {
		return true
	}
	if r.isEntity(t) || isTime(t) || isDuration(t) {
		return false
	}
	switch u := t.Underlying().(type) {
	case *types.Pointer:
		return r.hasBytes(u.Elem(), seen)
	case *types.Slice:
		return r.hasBytes(u.Elem(), seen)
	case *types.Map:
		return r.hasBytes(u.Elem(), seen)
	case *types.Struct:
		fields, _ := structFields(u)
		for _, f := range fields {
			if r.hasBytes(f.v.Type(), seen) {
				return true
			}
		}
	}
	return false
}

// assertedType returns the Go type a value of t is taken from
// tool.Values as, with a plain type assertion; "" when decoding it takes
// more (a conversion, a loop, a decoder).
func (r *renderer) assertedType(t types.Type) string {
	switch {
	case r.isEntity(t) || isTime(t) || isBytes(t):
		return ""
	case isDuration(t):
		return r.typeString(t)
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		if wire := wireGoType(u); types.Identical(t, types.Typ[u.Kind()]) && wire == u.Name() {
			return wire
		}
	case *types.Map:
		if _, named := t.(*types.Named); !named && isEmptyInterface(u.Elem()) && types.Identical(u.Key(), types.Typ[types.String]) {
			return "map[string]any"
		}
	case *types.Pointer, *types.Slice, *types.Struct:
	default:
		return r.typeString(t)
	}
	return ""
}

// orList returns "a", "a or b", "a, b or c".
func orList(words []string) string {
	if len(words) == 1 {
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}
