package gen

import (
	"bytes"
	"encoding/json"
	"errors"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// MarshalIndented returns d as indented JSON ending in a newline: the bytes
// json.MarshalIndent(d, "", "  ") gives, plus the newline.
//
// It writes them in one pass. encoding/json would encode each nested
// schema through [jsonschema.Schema.MarshalJSON], which encodes its
// properties and items with json.Marshal in turn and has every level's
// bytes compacted again by the level above, so that most of a -describe
// run went to encoding. The schemas are written here field by field in the
// order MarshalJSON uses; TestDescribeJSONMatches checks every field of
// [jsonschema.Schema] against json.MarshalIndent. The tools are written
// in parallel, in as many runs of consecutive tools as there are
// processors, and joined.
func (d *Description) MarshalIndented() ([]byte, error) {
	runs := min(runtime.GOMAXPROCS(0), (len(d.Tools)+31)/32)
	parts := make([][]byte, runs)
	errs := make([]error, runs)
	var wg sync.WaitGroup
	for r := range runs {
		wg.Go(func() {
			tools := d.Tools[r*len(d.Tools)/runs : (r+1)*len(d.Tools)/runs]
			w := &jsonWriter{b: make([]byte, 0, len(tools)*3072), depth: 2}
			for i, t := range tools {
				if i > 0 || r > 0 {
					w.b = append(w.b, ',')
				}
				w.newline()
				if err := w.tool(t); err != nil {
					errs[r] = err
					return
				}
			}
			parts[r] = w.b
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	size := 256
	for _, p := range parts {
		size += len(p)
	}
	w := &jsonWriter{b: make([]byte, 0, size)}
	o := w.object()
	o.key("tools")
	if len(d.Tools) == 0 {
		w.raw("[]")
	} else {
		w.b = append(w.b, '[')
		for _, p := range parts {
			w.b = append(w.b, p...)
		}
		w.newline()
		w.b = append(w.b, ']')
	}
	o.key("diagnostics")
	if err := w.value(d.Diagnostics); err != nil {
		return nil, err
	}
	o.end()
	w.b = append(w.b, '\n')
	return w.b, nil
}

// A jsonWriter writes indented JSON as json.MarshalIndent(v, "", "  ")
// does.
type jsonWriter struct {
	b     []byte
	depth int
}

func (w *jsonWriter) raw(s string) { w.b = append(w.b, s...) }

// spaces indents the lines of schemas nested up to 32 levels at once.
const spaces = "                                                                "

func (w *jsonWriter) newline() {
	w.b = append(w.b, '\n')
	n := 2 * w.depth
	for n > len(spaces) {
		w.b = append(w.b, spaces...)
		n -= len(spaces)
	}
	w.b = append(w.b, spaces[:n]...)
}

// An objectWriter writes the members of one object, opening it at the
// first member: an object without members is {}.
type objectWriter struct {
	w     *jsonWriter
	n     int
	start int // where the object starts in w.b
}

func (w *jsonWriter) object() *objectWriter { return &objectWriter{w: w, start: len(w.b)} }

// key starts a member.
func (o *objectWriter) key(name string) {
	w := o.w
	if o.n == 0 {
		w.b = append(w.b, '{')
		w.depth++
	} else {
		w.b = append(w.b, ',')
	}
	o.n++
	w.newline()
	w.str(name)
	w.b = append(w.b, ": "...)
}

// end closes the object.
func (o *objectWriter) end() {
	w := o.w
	if o.n == 0 {
		w.b = append(w.b, "{}"...)
		return
	}
	w.depth--
	w.newline()
	w.b = append(w.b, '}')
}

// An arrayWriter writes the items of one non-empty array.
type arrayWriter struct {
	w *jsonWriter
	n int
}

func (w *jsonWriter) array() *arrayWriter {
	w.b = append(w.b, '[')
	w.depth++
	return &arrayWriter{w: w}
}

func (a *arrayWriter) next() {
	if a.n > 0 {
		a.w.b = append(a.w.b, ',')
	}
	a.n++
	a.w.newline()
}

func (a *arrayWriter) end() {
	a.w.depth--
	a.w.newline()
	a.w.b = append(a.w.b, ']')
}

// str writes a JSON string as encoding/json does (HTML characters
// escaped): plain printable ASCII directly, anything else through
// json.Marshal.
func (w *jsonWriter) str(s string) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			data, _ := json.Marshal(s)
			w.b = append(w.b, data...)
			return
		}
	}
	w.b = append(w.b, '"')
	w.b = append(w.b, s...)
	w.b = append(w.b, '"')
}

// value writes any value through encoding/json, indented in place.
func (w *jsonWriter) value(v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return w.rawJSON(data)
}

// rawJSON writes compact JSON, indented in place.
func (w *jsonWriter) rawJSON(data []byte) error {
	if len(data) == 0 || (data[0] != '{' && data[0] != '[') {
		w.b = append(w.b, data...)
		return nil
	}
	var buf bytes.Buffer
	prefix := make([]byte, 0, 2*w.depth)
	for range w.depth {
		prefix = append(prefix, "  "...)
	}
	if err := json.Indent(&buf, data, string(prefix), "  "); err != nil {
		return err
	}
	w.b = append(w.b, buf.Bytes()...)
	return nil
}

func (w *jsonWriter) tool(t *ToolDescription) error {
	o := w.object()
	o.key("id")
	w.str(t.ID)
	o.key("label")
	w.str(t.Label)
	o.key("description")
	w.str(t.Info.Description)
	o.key("operation")
	w.str(string(t.Operation))
	o.key("destructive")
	w.raw(strconv.FormatBool(t.Destructive))
	o.key("permission")
	w.str(t.Permission)
	o.key("input_schema")
	if err := w.schema(t.InputSchema); err != nil {
		return err
	}
	o.key("output_schema")
	if err := w.schema(t.OutputSchema); err != nil {
		return err
	}
	if len(t.Undescribed) > 0 {
		o.key("undescribed")
		a := w.array()
		for _, s := range t.Undescribed {
			a.next()
			w.str(s)
		}
		a.end()
	}
	o.end()
	return nil
}

// schema writes s as [jsonschema.Schema.MarshalJSON] encodes it: "type",
// "properties", "dependencies" and "items" first, then the other fields in
// the order of the struct, then the keys of Extra, sorted; an empty schema
// is true and {"not": true} is false.
func (w *jsonWriter) schema(s *jsonschema.Schema) error {
	if s == nil {
		w.raw("null")
		return nil
	}
	o := w.object()
	str := func(name, v string) {
		if v != "" {
			o.key(name)
			w.str(v)
		}
	}
	flag := func(name string, v bool) {
		if v {
			o.key(name)
			w.raw("true")
		}
	}
	var err error
	val := func(name string, v any) {
		if err == nil {
			o.key(name)
			err = w.value(v)
		}
	}
	num := func(name string, v *float64) {
		if v != nil {
			val(name, *v)
		}
	}
	count := func(name string, v *int) {
		if v != nil {
			o.key(name)
			w.b = strconv.AppendInt(w.b, int64(*v), 10)
		}
	}
	sub := func(name string, v *jsonschema.Schema) {
		if v != nil && err == nil {
			o.key(name)
			err = w.schema(v)
		}
	}
	list := func(name string, v []*jsonschema.Schema) {
		if len(v) == 0 || err != nil {
			return
		}
		o.key(name)
		a := w.array()
		for _, x := range v {
			a.next()
			if err == nil {
				err = w.schema(x)
			}
		}
		a.end()
	}
	schemas := func(name string, m map[string]*jsonschema.Schema, order []string) {
		if len(m) == 0 || err != nil {
			return
		}
		o.key(name)
		keys := make([]string, 0, len(m))
		seen := make(map[string]bool, len(order))
		for _, k := range order {
			if _, ok := m[k]; ok && !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
		n := len(keys)
		for k := range m {
			if !seen[k] {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys[n:])
		po := w.object()
		for _, k := range keys {
			po.key(k)
			if err == nil {
				err = w.schema(m[k])
			}
		}
		po.end()
	}

	switch {
	case s.Type != "":
		o.key("type")
		w.str(s.Type)
	case s.Types != nil:
		val("type", s.Types)
	}
	if s.Properties != nil {
		// Written even when empty, as MarshalJSON does.
		if len(s.Properties) == 0 {
			o.key("properties")
			w.raw("{}")
		} else {
			schemas("properties", s.Properties, s.PropertyOrder)
		}
	}
	if len(s.DependencySchemas)+len(s.DependencyStrings) > 0 {
		dep := make(map[string]any, len(s.DependencySchemas)+len(s.DependencyStrings))
		for k, v := range s.DependencySchemas {
			dep[k] = v
		}
		for k, v := range s.DependencyStrings {
			dep[k] = v
		}
		val("dependencies", dep)
	}
	switch {
	case s.Items != nil:
		sub("items", s.Items)
	case s.ItemsArray != nil:
		o.key("items")
		if len(s.ItemsArray) == 0 {
			w.raw("[]")
		} else {
			a := w.array()
			for _, x := range s.ItemsArray {
				a.next()
				if err == nil {
					err = w.schema(x)
				}
			}
			a.end()
		}
	}
	str("$id", s.ID)
	str("$schema", s.Schema)
	str("$ref", s.Ref)
	str("$comment", s.Comment)
	schemas("$defs", s.Defs, nil)
	schemas("definitions", s.Definitions, nil)
	str("$anchor", s.Anchor)
	str("$dynamicAnchor", s.DynamicAnchor)
	str("$dynamicRef", s.DynamicRef)
	if len(s.Vocabulary) > 0 {
		val("$vocabulary", s.Vocabulary)
	}
	str("title", s.Title)
	str("description", s.Description)
	if len(s.Default) > 0 {
		val("default", s.Default)
	}
	flag("deprecated", s.Deprecated)
	flag("readOnly", s.ReadOnly)
	flag("writeOnly", s.WriteOnly)
	if len(s.Examples) > 0 {
		val("examples", s.Examples)
	}
	if len(s.Enum) > 0 {
		val("enum", s.Enum)
	}
	if s.Const != nil {
		val("const", s.Const)
	}
	num("multipleOf", s.MultipleOf)
	num("minimum", s.Minimum)
	num("maximum", s.Maximum)
	num("exclusiveMinimum", s.ExclusiveMinimum)
	num("exclusiveMaximum", s.ExclusiveMaximum)
	count("minLength", s.MinLength)
	count("maxLength", s.MaxLength)
	str("pattern", s.Pattern)
	list("prefixItems", s.PrefixItems)
	count("minItems", s.MinItems)
	count("maxItems", s.MaxItems)
	sub("additionalItems", s.AdditionalItems)
	flag("uniqueItems", s.UniqueItems)
	sub("contains", s.Contains)
	count("minContains", s.MinContains)
	count("maxContains", s.MaxContains)
	sub("unevaluatedItems", s.UnevaluatedItems)
	count("minProperties", s.MinProperties)
	count("maxProperties", s.MaxProperties)
	if len(s.Required) > 0 {
		o.key("required")
		a := w.array()
		for _, r := range s.Required {
			a.next()
			w.str(r)
		}
		a.end()
	}
	if len(s.DependentRequired) > 0 {
		val("dependentRequired", s.DependentRequired)
	}
	schemas("patternProperties", s.PatternProperties, nil)
	sub("additionalProperties", s.AdditionalProperties)
	sub("propertyNames", s.PropertyNames)
	sub("unevaluatedProperties", s.UnevaluatedProperties)
	list("allOf", s.AllOf)
	list("anyOf", s.AnyOf)
	list("oneOf", s.OneOf)
	notTrue := false
	if s.Not != nil && err == nil {
		o.key("not")
		at := len(w.b)
		err = w.schema(s.Not)
		notTrue = string(w.b[at:]) == "true"
	}
	sub("if", s.If)
	sub("then", s.Then)
	sub("else", s.Else)
	schemas("dependentSchemas", s.DependentSchemas, nil)
	str("contentEncoding", s.ContentEncoding)
	str("contentMediaType", s.ContentMediaType)
	sub("contentSchema", s.ContentSchema)
	str("format", s.Format)
	if len(s.Extra) > 0 {
		keys := make([]string, 0, len(s.Extra))
		for k := range s.Extra {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			val(k, s.Extra[k])
		}
	}
	if err != nil {
		return err
	}
	switch {
	case o.n == 0:
		w.raw("true")
	case o.n == 1 && notTrue:
		w.b = append(w.b[:o.start], "false"...)
		w.depth--
	default:
		o.end()
	}
	return nil
}
