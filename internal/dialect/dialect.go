// Package dialect rewrites the JSON Schema of a tool's inputs into the
// dialects that model APIs accept, and maps the arguments a model sends in
// a dialect back to what the schema accepts.
//
// Schemas are JSON values decoded into map[string]any. Every rewrite keeps
// the meaning of a keyword the dialect lacks by moving it into the
// description ("Examples: \"de\".", "At least 1 character."), so the model
// still reads it, while the run path goes on validating against the tool's
// own definitions. Only words reach a description: a bound of 0, the rule
// against NUL every string has, and a keyword that words do not say well
// (if/then, a not of a schema) are left out, never quoted as JSON.
//
// The dialects:
//
//   - [OpenAIStrict]: OpenAI's Structured Outputs subset for strict
//     function calling: every property required, an optional one as a
//     union with null, additionalProperties false on every object, and
//     only the keywords the subset lists. Maps without declared
//     properties, values of any type, objects nested more than 10 deep and
//     more than 5000 properties in all cannot be expressed.
//   - [AnthropicStrict]: Anthropic's strict tool use: additionalProperties
//     false on every object and the keywords its structured outputs
//     support (optional properties stay optional). Maps without declared
//     properties and values of any type cannot be expressed.
//   - [Gemini]: the OpenAPI 3.0 subset of Gemini's function declarations:
//     one type plus nullable, no additionalProperties, examples,
//     contentEncoding, contentMediaType, not or $schema. A map without
//     declared properties, and a value of any type, travel as a string
//     holding their JSON, which [Restore] decodes.
package dialect

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/toolapi/toolapi/internal/english"
)

// A Dialect is a schema dialect of a model API.
type Dialect int

// The dialects.
const (
	OpenAIStrict Dialect = iota + 1
	AnthropicStrict
	Gemini
)

// Schema is a JSON Schema as a decoded JSON value.
type Schema = map[string]any

// Decode decodes the JSON of a schema.
func Decode(b []byte) (Schema, error) {
	var s Schema
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	if err := dec.Decode(&s); err != nil {
		return nil, err
	}
	return s, nil
}

// An Unsupported error says why a schema cannot be expressed in a dialect.
type Unsupported struct {
	Path   string // "inputs.settings"; "" for the root
	Reason string
}

func (e *Unsupported) Error() string {
	if e.Path == "" {
		return e.Reason
	}
	return e.Path + ": " + e.Reason
}

// Convert returns a copy of the input schema s in dialect d. It returns an
// *Unsupported error when d cannot express s; the caller then falls back
// to the schema as it is (OpenAI and Anthropic accept it without strict
// mode).
func Convert(s Schema, d Dialect) (Schema, error) {
	c := &converter{d: d}
	out := c.node(s, "", false, 0)
	if c.err != nil {
		return nil, c.err
	}
	delete(out, "$schema")
	if d == Gemini {
		// Gemini refuses an object with no properties: a tool without
		// inputs declares no parameters.
		if props, _ := out["properties"].(map[string]any); len(props) == 0 {
			return nil, nil
		}
	}
	return out, nil
}

type converter struct {
	d     Dialect
	err   error
	props int // the object properties converted so far
}

// OpenAI's strict mode takes at most 5000 object properties in all, nested
// at most 10 levels deep.
const (
	maxStrictProperties = 5000
	maxStrictDepth      = 10
)

func (c *converter) fail(path, reason string) {
	if c.err == nil {
		c.err = &Unsupported{Path: path, Reason: reason}
	}
}

// kept lists the keywords each dialect keeps as they are; every other
// keyword is folded into the description.
var kept = map[Dialect]map[string]bool{
	OpenAIStrict: set("type", "title", "description", "enum", "const", "properties", "required",
		"additionalProperties", "items", "anyOf", "$defs", "$ref", "pattern", "format",
		"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems", "maxItems"),
	AnthropicStrict: set("type", "title", "description", "enum", "const", "properties", "required",
		"additionalProperties", "items", "anyOf", "allOf", "$defs", "$ref", "format", "minItems"),
	Gemini: set("type", "title", "description", "enum", "properties", "required", "items", "anyOf",
		"format", "nullable", "minimum", "maximum", "minLength", "maxLength", "pattern",
		"minItems", "maxItems", "minProperties", "maxProperties", "default", "example", "propertyOrdering"),
}

// formats lists the string formats each dialect keeps.
var formats = map[Dialect]map[string]bool{
	OpenAIStrict:    set("date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"),
	AnthropicStrict: set("date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"),
	Gemini:          set("date-time", "enum", "float", "double", "int32", "int64"),
}

func set(ks ...string) map[string]bool {
	m := make(map[string]bool, len(ks))
	for _, k := range ks {
		m[k] = true
	}
	return m
}

// node converts one schema; optional says it is the schema of a property
// its object does not require, depth how many objects hold it.
func (c *converter) node(s Schema, path string, optional bool, depth int) Schema {
	out := make(Schema, len(s))
	var notes []string
	if plain, titles, ok := untitled(s); ok {
		// Titled choices (oneOf, or anyOf on a multi-select list's items,
		// of titled constants) are a plain enum in every dialect, their
		// titles said in words.
		s = plain
		if titles != "" {
			notes = append(notes, titles)
		}
	}
	types := typesOf(s)
	object := slices.Contains(types, "object")
	_, hasProps := s["properties"]
	open := object && !hasProps
	if open || len(types) == 0 {
		what := "a map without declared properties"
		if len(types) == 0 {
			what = "a value of any type"
		}
		if c.d != Gemini {
			c.fail(path, what+" has no strict form")
			return out
		}
		return c.asJSONText(s, what)
	}
	for _, k := range slices.Sorted(maps.Keys(s)) {
		v := s[k]
		fold := false
		switch k {
		case "$schema", "$comment", "type", "description":
			continue // dropped, or below
		case "properties":
			props, _ := v.(map[string]any)
			required := stringSet(s["required"])
			conv := make(map[string]any, len(props))
			c.props += len(props)
			if c.d == OpenAIStrict && c.props > maxStrictProperties {
				c.fail(path, fmt.Sprintf("more than %d properties in all have no strict form", maxStrictProperties))
			}
			if c.d == OpenAIStrict && depth >= maxStrictDepth {
				c.fail(path, fmt.Sprintf("objects nested more than %d levels deep have no strict form", maxStrictDepth))
			}
			for name, p := range props {
				ps, _ := p.(map[string]any)
				conv[name] = c.node(ps, join(path, name), !required[name], depth+1)
			}
			out[k] = conv
			continue
		case "required":
			if c.d == OpenAIStrict {
				continue // below: every property
			}
		case "additionalProperties":
			if c.d != Gemini {
				out[k] = false // below too, for objects without it
			}
			// Gemini sends only declared properties: a closed object
			// needs no word.
			continue
		case "items":
			is, _ := v.(map[string]any)
			out[k] = c.node(is, path+"[]", false, depth)
			continue
		case "anyOf", "allOf":
			if list, ok := v.([]any); ok && kept[c.d][k] {
				conv := make([]any, len(list))
				for i, b := range list {
					bs, _ := b.(map[string]any)
					conv[i] = c.node(bs, path, false, depth)
				}
				out[k] = conv
				continue
			}
		case "format":
			f, _ := v.(string)
			fold = !formats[c.d][f]
		case "enum":
			if c.d == Gemini {
				if !allStrings(v) {
					fold = true
				} else {
					out[k] = withoutNull(v)
					continue
				}
			}
		case "minItems":
			if c.d == AnthropicStrict {
				n, ok := intOf(v)
				if ok && n <= 1 {
					out[k] = v
					continue
				}
				fold = true
			}
		case "not":
			if ns, ok := v.(map[string]any); ok && len(ns) == 1 && ns["type"] == "null" && len(types) > 0 {
				continue // what a type without null says already
			}
		}
		if !fold && kept[c.d][k] {
			out[k] = v
			continue
		}
		notes = append(notes, note(k, v))
	}
	if object && c.d != Gemini {
		out["additionalProperties"] = false
	}
	if object && c.d == OpenAIStrict {
		props, _ := out["properties"].(map[string]any)
		out["required"] = slices.Sorted(maps.Keys(props))
	}
	// The type: OpenAI strict makes an optional property nullable; Gemini
	// takes one type and a nullable flag.
	nullable := slices.Contains(types, "null")
	plain := slices.DeleteFunc(slices.Clone(types), func(t string) bool { return t == "null" })
	switch c.d {
	case OpenAIStrict:
		if optional && !nullable {
			nullable = true
			if e, ok := out["enum"].([]any); ok && !slices.Contains(e, nil) {
				out["enum"] = append(slices.Clone(e), nil)
			}
		}
		out["type"] = typeValue(plain, nullable)
	case AnthropicStrict:
		out["type"] = typeValue(plain, nullable)
	case Gemini:
		if len(plain) == 1 {
			out["type"] = plain[0]
		} else {
			branches := make([]any, len(plain))
			for i, t := range plain {
				branches[i] = map[string]any{"type": t}
			}
			out["anyOf"] = branches
		}
		if nullable {
			out["nullable"] = true
		}
	}
	if d := describe(s["description"], notes); d != "" {
		out["description"] = d
	}
	return out
}

// untitled returns s with titled choices, a oneOf or anyOf whose branches
// are each a const with an optional title, as a plain enum, and the titles
// in words ("Choices: \"draft\" (Draft), \"live\" (Published)"; "" when
// no title says more than its value). It reports false when s has no
// titled choices.
func untitled(s Schema) (Schema, string, bool) {
	for _, k := range []string{"oneOf", "anyOf"} {
		list, ok := s[k].([]any)
		if !ok || len(list) == 0 {
			continue
		}
		values := make([]any, len(list))
		parts := make([]string, len(list))
		titled := false
		for i, b := range list {
			bs, _ := b.(map[string]any)
			v, hasConst := bs["const"]
			title, _ := bs["title"].(string)
			if !hasConst || len(bs) > 2 || len(bs) == 2 && title == "" {
				return s, "", false
			}
			values[i], parts[i] = v, jsonText(v)
			if title != "" && title != fmt.Sprint(v) {
				parts[i] += " (" + title + ")"
				titled = true
			}
		}
		out := maps.Clone(s)
		delete(out, k)
		out["enum"] = values
		if _, typed := out["type"]; !typed {
			// A multi-select list's items are typed by their constants.
			if t := constType(values); t != "" {
				out["type"] = t
			}
		}
		if !titled {
			return out, "", true
		}
		return out, "Choices: " + strings.Join(parts, ", "), true
	}
	return s, "", false
}

// constType returns the JSON type of values, when they all have one:
// "string", "integer", "number" or "boolean"; "" otherwise.
func constType(values []any) string {
	t := ""
	for _, v := range values {
		var vt string
		switch v := v.(type) {
		case string:
			vt = "string"
		case bool:
			vt = "boolean"
		case json.Number:
			vt = "number"
			if _, err := v.Int64(); err == nil {
				vt = "integer"
			}
		case float64:
			vt = "number"
		default:
			return ""
		}
		switch {
		case t == "" || t == vt:
			t = vt
		case t == "integer" && vt == "number" || t == "number" && vt == "integer":
			t = "number"
		default:
			return ""
		}
	}
	return t
}

// asJSONText is the Gemini form of a map without declared properties or a
// value of any type: a string holding its JSON.
func (c *converter) asJSONText(s Schema, what string) Schema {
	out := Schema{"type": "string"}
	if t, ok := s["title"]; ok {
		out["title"] = t
	}
	var notes []string
	switch what {
	case "a value of any type":
		notes = append(notes, "Any JSON value, written as JSON text")
	default:
		values := "any values"
		if vs, ok := s["additionalProperties"].(map[string]any); ok && len(vs) > 0 {
			values = valuesText(vs)
		}
		notes = append(notes, "A JSON object with "+values+", written as JSON text")
	}
	for _, k := range slices.Sorted(maps.Keys(s)) {
		switch k {
		case "type", "title", "description", "additionalProperties", "$schema", "$comment", "not":
			continue
		}
		notes = append(notes, note(k, s[k]))
	}
	if slices.Contains(typesOf(s), "null") {
		out["nullable"] = true
	}
	out["description"] = describe(s["description"], notes)
	return out
}

// typeNouns names the values of each JSON type, in the plural.
var typeNouns = map[string]string{
	"string": "strings", "integer": "integers", "number": "numbers", "boolean": "booleans",
	"array": "lists", "object": "objects", "null": "nulls",
}

// valuesText says in words what the values of a map with schema vs are:
// "integer values (at least 0)".
func valuesText(vs Schema) string {
	var nouns []string
	for _, t := range typesOf(vs) {
		if n, ok := typeNouns[t]; ok {
			nouns = append(nouns, n)
		}
	}
	text := "values of any type"
	if len(nouns) > 0 {
		text = strings.Join(nouns, " or ") + " as values"
	}
	var notes []string
	for _, k := range slices.Sorted(maps.Keys(vs)) {
		switch k {
		case "type", "title", "description", "$schema", "$comment":
			continue
		}
		if n := note(k, vs[k]); n != "" {
			notes = append(notes, strings.ToLower(n[:1])+n[1:])
		}
	}
	if len(notes) > 0 {
		text += " (" + strings.Join(notes, "; ") + ")"
	}
	return text
}

// Restore maps arguments a model sent in dialect d for the input schema s
// (the tool's own) back to what s accepts: a null for a property s does
// not require is left out (OpenAI strict sends every property), and JSON
// text where s takes a map without declared properties or a value of any
// type is decoded (Gemini).
func Restore(args any, s Schema, d Dialect) any {
	return restore(args, s, d)
}

func restore(v any, s Schema, d Dialect) any {
	if s == nil {
		return v
	}
	types := typesOf(s)
	_, hasProps := s["properties"]
	if d == Gemini && (len(types) == 0 || slices.Contains(types, "object") && !hasProps) {
		if text, ok := v.(string); ok && !slices.Contains(types, "string") {
			dec := json.NewDecoder(strings.NewReader(text))
			dec.UseNumber()
			var decoded any
			if err := dec.Decode(&decoded); err == nil && !dec.More() {
				v = decoded
			}
		}
	}
	switch x := v.(type) {
	case map[string]any:
		props, _ := s["properties"].(map[string]any)
		required := stringSet(s["required"])
		out := make(map[string]any, len(x))
		for k, pv := range x {
			ps, _ := props[k].(map[string]any)
			if pv == nil && ps != nil && !required[k] {
				continue // an optional property: null means absent
			}
			if ps == nil {
				if as, ok := s["additionalProperties"].(map[string]any); ok {
					ps = as
				}
			}
			out[k] = restore(pv, ps, d)
		}
		return out
	case []any:
		is, _ := s["items"].(map[string]any)
		out := make([]any, len(x))
		for i, iv := range x {
			out[i] = restore(iv, is, d)
		}
		return out
	}
	return v
}

// FoldAnnotations returns a copy of s with its annotations that
// restrictive APIs refuse (examples, default, contentMediaType,
// contentEncoding, $comment, deprecated, readOnly, writeOnly) moved into
// the descriptions. The copy accepts exactly what s accepts.
func FoldAnnotations(s Schema) Schema {
	return foldAnnotations(s)
}

var annotations = set("examples", "default", "contentMediaType", "contentEncoding", "$comment", "deprecated", "readOnly", "writeOnly")

func foldAnnotations(s Schema) Schema {
	out := make(Schema, len(s))
	var notes []string
	for _, k := range slices.Sorted(maps.Keys(s)) {
		v := s[k]
		switch {
		case annotations[k]:
			notes = append(notes, note(k, v))
			continue
		case k == "description":
			continue
		}
		out[k] = foldChildren(k, v)
	}
	if d := describe(s["description"], notes); d != "" {
		out["description"] = d
	}
	return out
}

// foldChildren folds the annotations of the schemas that the value of
// keyword k holds.
func foldChildren(k string, v any) any {
	switch k {
	case "properties", "$defs", "patternProperties", "dependentSchemas":
		m, ok := v.(map[string]any)
		if !ok {
			return v
		}
		out := make(map[string]any, len(m))
		for name, c := range m {
			if cs, ok := c.(map[string]any); ok {
				out[name] = foldAnnotations(cs)
			} else {
				out[name] = c
			}
		}
		return out
	case "items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames",
		"unevaluatedItems", "unevaluatedProperties", "contentSchema":
		if cs, ok := v.(map[string]any); ok {
			return foldAnnotations(cs)
		}
	case "anyOf", "allOf", "oneOf", "prefixItems":
		list, ok := v.([]any)
		if !ok {
			return v
		}
		out := make([]any, len(list))
		for i, c := range list {
			if cs, ok := c.(map[string]any); ok {
				out[i] = foldAnnotations(cs)
			} else {
				out[i] = c
			}
		}
		return out
	}
	return v
}

// note says in words what keyword k with value v means.
func note(k string, v any) string {
	n, isInt := intOf(v)
	switch k {
	case "examples":
		if list, ok := v.([]any); ok {
			parts := make([]string, len(list))
			for i, e := range list {
				parts[i] = jsonText(e)
			}
			if len(parts) == 1 {
				return "Example: " + parts[0]
			}
			return "Examples: " + strings.Join(parts, ", ")
		}
	case "example":
		return "Example: " + jsonText(v)
	case "default":
		return "Default: " + jsonText(v)
	case "minLength":
		if isInt {
			return atLeast(n, "character")
		}
	case "maxLength":
		if isInt {
			return "At most " + count(n, "character")
		}
	case "minItems":
		if isInt {
			return atLeast(n, "item")
		}
	case "maxItems":
		if isInt {
			return "At most " + count(n, "item")
		}
	case "minProperties":
		if isInt {
			return atLeast(n, "entry")
		}
	case "maxProperties":
		if isInt {
			return "At most " + count(n, "entry")
		}
	case "minimum":
		return "At least " + jsonText(v)
	case "maximum":
		return "At most " + jsonText(v)
	case "exclusiveMinimum":
		return "More than " + jsonText(v)
	case "exclusiveMaximum":
		return "Less than " + jsonText(v)
	case "multipleOf":
		return "A multiple of " + jsonText(v)
	case "pattern":
		if v == noNULPattern {
			return "" // every string's rule, which no model needs told
		}
		return "Matches the regular expression " + jsonText(v)
	case "format":
		return "Format: " + fmt.Sprint(v)
	case "contentMediaType":
		return "Media type: " + fmt.Sprint(v)
	case "contentEncoding":
		return "Encoding: " + fmt.Sprint(v)
	case "enum":
		if list, ok := v.([]any); ok {
			parts := make([]string, len(list))
			for i, e := range list {
				parts[i] = jsonText(e)
			}
			return "One of: " + strings.Join(parts, ", ")
		}
	case "const":
		return "Always " + jsonText(v)
	case "uniqueItems":
		if v == true {
			return "Items are unique"
		}
	case "deprecated":
		if v == true {
			return "Deprecated"
		}
	case "readOnly", "writeOnly":
		return ""
	case "not":
		ns, _ := v.(map[string]any)
		switch {
		case len(ns) == 1 && ns["type"] == "null":
			return "Not null"
		case len(ns) == 1 && ns["const"] != nil:
			return "Not " + jsonText(ns["const"])
		case len(ns) == 1 && ns["enum"] != nil:
			return "Not o" + strings.TrimPrefix(note("enum", ns["enum"]), "O")
		}
		// The rule against NUL beside a string's own pattern, or a
		// schema no words say well: the run still checks it.
		return ""
	case "title", "$id", "$anchor", "$defs", "definitions", "propertyOrder", "x-order":
		return ""
	}
	// A keyword without words is left out rather than quoted as a schema
	// fragment: the run checks every rule whatever the declaration says.
	return ""
}

// noNULPattern is the pattern of a string that may not hold U+0000, the
// rule every string input has unless it allows NUL.
const noNULPattern = `^[^\x00]*$`

// atLeast says a lower bound of n of noun, or nothing for 0, which bounds
// nothing.
func atLeast(n int, noun string) string {
	if n <= 0 {
		return ""
	}
	return "At least " + count(n, noun)
}

// describe joins a description and notes into one description.
func describe(desc any, notes []string) string {
	d, _ := desc.(string)
	var parts []string
	if d = strings.TrimSpace(d); d != "" {
		parts = append(parts, d)
	}
	for _, n := range notes {
		if n == "" {
			continue
		}
		if !strings.HasSuffix(n, ".") {
			n += "."
		}
		parts = append(parts, n)
	}
	return strings.Join(parts, " ")
}

// count returns n and noun, in the plural unless n is 1.
func count(n int, noun string) string { return english.Count(n, noun) }

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// typesOf returns the types s allows: its type keyword as a list, or the
// type an enum's values imply; none for any value.
func typesOf(s Schema) []string {
	switch t := s["type"].(type) {
	case string:
		return []string{t}
	case []any:
		out := make([]string, 0, len(t))
		for _, x := range t {
			if str, ok := x.(string); ok {
				out = append(out, str)
			}
		}
		return out
	case []string:
		return t
	}
	return nil
}

func typeValue(types []string, nullable bool) any {
	if nullable {
		types = append(slices.Clone(types), "null")
	}
	if len(types) == 1 {
		return types[0]
	}
	out := make([]any, len(types))
	for i, t := range types {
		out[i] = t
	}
	return out
}

func stringSet(v any) map[string]bool {
	out := map[string]bool{}
	switch l := v.(type) {
	case []any:
		for _, x := range l {
			if s, ok := x.(string); ok {
				out[s] = true
			}
		}
	case []string:
		for _, s := range l {
			out[s] = true
		}
	}
	return out
}

func allStrings(v any) bool {
	l, ok := v.([]any)
	if !ok {
		return false
	}
	for _, x := range l {
		if _, ok := x.(string); !ok && x != nil {
			return false
		}
	}
	return true
}

func withoutNull(v any) any {
	l, _ := v.([]any)
	return slices.DeleteFunc(slices.Clone(l), func(x any) bool { return x == nil })
}

func intOf(v any) (int, bool) {
	switch n := v.(type) {
	case json.Number:
		i, err := strconv.Atoi(n.String())
		return i, err == nil
	case float64:
		if n == float64(int(n)) {
			return int(n), true
		}
	case int:
		return n, true
	}
	return 0, false
}
