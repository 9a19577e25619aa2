// Package contract compares two versions of a catalog of tools and sorts
// the differences into breaking and compatible ones, so that a change that
// would break the callers of a tool cannot land by accident.
//
// A catalog is what toolgen writes to a lock file: each tool's ID, its
// deprecation note, its task mode and its input and output schemas (JSON Schema 2020-12 as
// the registry advertises them). A change is breaking when a caller that
// worked against the old version can fail against the new one:
//
//   - inputs: the new version must accept everything the old one accepted.
//     A removed tool or input, a new required input, an optional input made
//     required, and any narrowing (a type, a choice removed, a bound
//     tightened, a pattern or format added or changed) break callers; a new
//     optional input, a choice added or a bound loosened does not.
//   - task mode: every call becoming a background task (task required), or
//     calls no longer running as tasks, break callers; letting a call
//     run as a task (task optional) does not.
//   - outputs: the new version must give only what the old one promised. A
//     removed output or property, one that may now be missing or null, a type
//     changed, a choice added or a bound loosened break callers; a new output
//     or narrowing does not.
package contract

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// A Tool is one entry of a catalog.
type Tool struct {
	ID string `json:"id"`
	// Deprecated says what replaces a deprecated tool; empty means the tool
	// is not deprecated.
	Deprecated string `json:"deprecated,omitempty"`
	// Task is "optional" or "required" for a tool whose calls may or must
	// run as background tasks; empty for one whose calls never do.
	Task         string             `json:"task,omitempty"`
	InputSchema  *jsonschema.Schema `json:"input_schema"`
	OutputSchema *jsonschema.Schema `json:"output_schema"`
}

// A Lock is a catalog as a lock file holds it, tools ordered by ID.
type Lock struct {
	Tools []Tool `json:"tools"`
}

// Marshal returns l as indented JSON ending in a newline, tools ordered by
// ID, the form a lock file is written in.
func (l *Lock) Marshal() ([]byte, error) {
	out := Lock{Tools: slices.Clone(l.Tools)}
	slices.SortFunc(out.Tools, func(a, b Tool) int { return strings.Compare(a.ID, b.ID) })
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// A Change is one difference between two versions of a catalog.
type Change struct {
	// Tool is the ID of the tool that changed.
	Tool string
	// Path names what changed inside it: "inputs.limit",
	// "outputs.result[].title"; empty for the tool itself.
	Path string
	// Keyword is the JSON Schema keyword the change is about ("enum",
	// "maxLength", "required", "properties"...); empty for a tool added,
	// removed or deprecated.
	Keyword string
	// Message says what changed.
	Message string
	// Breaking marks a change that can make a caller fail.
	Breaking bool
}

func (c Change) String() string {
	kind := "compatible"
	if c.Breaking {
		kind = "breaking"
	}
	where := c.Tool
	if c.Path != "" {
		where += " " + c.Path
	}
	return kind + ": " + where + ": " + c.Message
}

// Compare returns the changes from old to new, ordered by tool, then path.
func Compare(old, new []Tool) []Change {
	c := &comparer{}
	byID := make(map[string]Tool, len(new))
	for _, t := range new {
		byID[t.ID] = t
	}
	seen := make(map[string]bool, len(old))
	for _, o := range old {
		seen[o.ID] = true
		n, ok := byID[o.ID]
		if !ok {
			c.add(o.ID, "", "", true, "the tool was removed")
			continue
		}
		c.tool = o.ID
		if o.Deprecated == "" && n.Deprecated != "" {
			c.add(o.ID, "", "", false, "the tool is deprecated: %s", n.Deprecated)
		}
		c.task(o.Task, n.Task)
		c.object("inputs", o.InputSchema, n.InputSchema, input)
		c.object("outputs", o.OutputSchema, n.OutputSchema, output)
	}
	for _, n := range new {
		if !seen[n.ID] {
			c.add(n.ID, "", "", false, "the tool was added")
		}
	}
	slices.SortStableFunc(c.changes, func(a, b Change) int {
		if x := strings.Compare(a.Tool, b.Tool); x != 0 {
			return x
		}
		return strings.Compare(a.Path, b.Path)
	})
	return c.changes
}

// task adds the change of a tool's task mode from a to b: a caller that
// waits for a call's answer breaks when every call becomes a task, and one
// that asks for a task breaks when the tool no longer runs them.
func (c *comparer) task(a, b string) {
	mode := func(m string) string {
		if m == "" {
			return "never"
		}
		return m
	}
	if a == b {
		return
	}
	switch b {
	case "required":
		c.add(c.tool, "", "task", true, "every call now runs as a background task (task %s, was %s)", mode(b), mode(a))
	case "":
		c.add(c.tool, "", "task", true, "calls no longer run as background tasks (task never, was %s)", mode(a))
	default:
		c.add(c.tool, "", "task", false, "a call may now run as a background task (task %s, was %s)", mode(b), mode(a))
	}
}

// Breaking reports whether any of changes is breaking.
func Breaking(changes []Change) bool {
	return slices.ContainsFunc(changes, func(c Change) bool { return c.Breaking })
}

type direction int

const (
	input  direction = iota // callers send it: the new schema must accept more
	output                  // callers read it: the new schema must allow less
)

type comparer struct {
	tool    string
	changes []Change
}

func (c *comparer) add(toolID, path, keyword string, breaking bool, format string, args ...any) {
	c.changes = append(c.changes, Change{Tool: toolID, Path: path, Keyword: keyword, Message: fmt.Sprintf(format, args...), Breaking: breaking})
}

// narrows reports whether a change that makes a schema accept less breaks
// callers in this direction (it does for inputs), and widens the opposite.
func (d direction) narrows() bool { return d == input }

// object compares the properties of two object schemas, as the top level of
// a tool's inputs or outputs and as a map with declared properties.
func (c *comparer) object(path string, a, b *jsonschema.Schema, d direction) {
	if a == nil || b == nil {
		if (a == nil) != (b == nil) {
			c.add(c.tool, path, "", true, "the schema was %s", map[bool]string{true: "added", false: "removed"}[a == nil])
		}
		return
	}
	join := func(name string) string { return path + "." + name }
	for _, name := range sortedKeys(a.Properties) {
		bp, ok := b.Properties[name]
		wasRequired := slices.Contains(a.Required, name)
		if !ok {
			what := "input"
			if d == output {
				what = "output"
			}
			if path != "inputs" && path != "outputs" {
				what = "property"
			}
			c.add(c.tool, join(name), "properties", true, "the %s was removed", what)
			continue
		}
		isRequired := slices.Contains(b.Required, name)
		switch {
		case d == input && !wasRequired && isRequired:
			c.add(c.tool, join(name), "required", true, "it is now required")
		case d == input && wasRequired && !isRequired:
			c.add(c.tool, join(name), "required", false, "it is now optional")
		case d == output && wasRequired && !isRequired:
			c.add(c.tool, join(name), "required", true, "it may now be missing")
		case d == output && !wasRequired && isRequired:
			c.add(c.tool, join(name), "required", false, "it is now always present")
		}
		c.schema(join(name), a.Properties[name], bp, d)
	}
	for _, name := range sortedKeys(b.Properties) {
		if _, ok := a.Properties[name]; ok {
			continue
		}
		required := slices.Contains(b.Required, name)
		switch {
		case d == input && required:
			c.add(c.tool, join(name), "properties", true, "a new required input")
		case d == input:
			c.add(c.tool, join(name), "properties", false, "a new optional input")
		default:
			c.add(c.tool, join(name), "properties", false, "a new output")
		}
	}
	c.bounds(path, "properties", "Properties", a.MinProperties, a.MaxProperties, b.MinProperties, b.MaxProperties, d)
	if a.AdditionalProperties != nil || b.AdditionalProperties != nil {
		ap, bp := a.AdditionalProperties, b.AdditionalProperties
		switch {
		case ap == nil || bp == nil:
			// true (nil) against a schema: treat nil as accepting anything.
			if ap == nil {
				ap = &jsonschema.Schema{}
			}
			if bp == nil {
				bp = &jsonschema.Schema{}
			}
		}
		if !isFalse(ap) && !isFalse(bp) {
			c.schema(path+"{}", ap, bp, d)
		} else if isFalse(ap) != isFalse(bp) {
			// Keys a map took that it no longer takes, or the reverse.
			narrowed := isFalse(bp)
			c.add(c.tool, path, "additionalProperties", narrowed == d.narrows(), "undeclared keys are %s", map[bool]string{true: "no longer accepted", false: "now accepted"}[narrowed])
		}
	}
}

// isFalse reports whether s is the schema false (no value is valid).
func isFalse(s *jsonschema.Schema) bool { return s != nil && s.Not != nil && isEmpty(s.Not) }

func isEmpty(s *jsonschema.Schema) bool {
	b, _ := json.Marshal(s)
	return string(b) == "{}" || string(b) == "true"
}

func (c *comparer) schema(path string, a, b *jsonschema.Schema, d direction) {
	if a == nil || b == nil {
		return
	}
	c.types(path, a, b, d)
	c.enum(path, a, b, d)
	c.numbers(path, "", "minimum", "maximum", a.Minimum, a.Maximum, b.Minimum, b.Maximum, d)
	c.bounds(path, "characters", "Length", a.MinLength, a.MaxLength, b.MinLength, b.MaxLength, d)
	c.bounds(path, "items", "Items", a.MinItems, a.MaxItems, b.MinItems, b.MaxItems, d)
	c.text(path, "pattern", "pattern", a.Pattern, b.Pattern, d)
	c.text(path, "format", "format", a.Format, b.Format, d)
	c.text(path, "content encoding", "contentEncoding", a.ContentEncoding, b.ContentEncoding, d)
	if a.Items != nil || b.Items != nil {
		c.schema(path+"[]", a.Items, b.Items, d)
	}
	if len(a.Properties) > 0 || len(b.Properties) > 0 || a.AdditionalProperties != nil || b.AdditionalProperties != nil {
		c.object(path, a, b, d)
	}
}

// typeSet returns the JSON types s allows; nil means any. Titled choices
// without a type (a multi-select list's items) allow the types of their
// constants.
func typeSet(s *jsonschema.Schema) []string {
	if s.Type != "" {
		return []string{s.Type}
	}
	if s.Types == nil {
		if vs := choiceValues(s); vs != nil {
			var ts []string
			for _, v := range vs {
				t := jsonType(v)
				if t == "" {
					return nil
				}
				if !slices.Contains(ts, t) {
					ts = append(ts, t)
				}
			}
			return ts
		}
	}
	return s.Types
}

// jsonType returns the JSON type of a decoded constant, "" when unknown.
func jsonType(v any) string {
	switch v := v.(type) {
	case string:
		return "string"
	case bool:
		return "boolean"
	case float64:
		if v == float64(int64(v)) {
			return "integer"
		}
		return "number"
	case int, int64:
		return "integer"
	case nil:
		return "null"
	}
	return ""
}

// choiceValues returns the values s is limited to: its enum, or the
// constants of titled choices (a oneOf, or anyOf, whose branches are each
// a const); nil when s is not limited so.
func choiceValues(s *jsonschema.Schema) []any {
	if s.Enum != nil {
		return s.Enum
	}
	for _, list := range [][]*jsonschema.Schema{s.OneOf, s.AnyOf} {
		if len(list) == 0 {
			continue
		}
		vs := make([]any, 0, len(list))
		for _, b := range list {
			if b == nil || b.Const == nil {
				return nil
			}
			vs = append(vs, *b.Const)
		}
		return vs
	}
	return nil
}

// allows reports whether a schema of types allows values of type t.
func allows(types []string, t string) bool {
	return types == nil || slices.Contains(types, t) || t == "integer" && slices.Contains(types, "number")
}

func (c *comparer) types(path string, a, b *jsonschema.Schema, d direction) {
	at, bt := typeSet(a), typeSet(b)
	lost := func(from, to []string) []string { // types from allows that to does not
		if from == nil {
			if to == nil {
				return nil
			}
			return []string{"any"}
		}
		var out []string
		for _, t := range from {
			if !allows(to, t) {
				out = append(out, t)
			}
		}
		return out
	}
	if l := lost(at, bt); len(l) > 0 {
		c.add(c.tool, path, "type", d.narrows(), "no longer allows %s (type %s, was %s)", strings.Join(l, ", "), typeString(bt), typeString(at))
	}
	if g := lost(bt, at); len(g) > 0 {
		c.add(c.tool, path, "type", !d.narrows(), "now allows %s (type %s, was %s)", strings.Join(g, ", "), typeString(bt), typeString(at))
	}
}

func typeString(ts []string) string {
	if ts == nil {
		return "any"
	}
	return strings.Join(ts, " or ")
}

func (c *comparer) enum(path string, a, b *jsonschema.Schema, d direction) {
	key := func(v any) string { j, _ := json.Marshal(v); return string(j) }
	in := func(vs []any, v any) bool {
		return slices.ContainsFunc(vs, func(w any) bool { return key(w) == key(v) })
	}
	ae, be := choiceValues(a), choiceValues(b)
	switch {
	case ae == nil && be == nil:
	case ae == nil:
		c.add(c.tool, path, "enum", d.narrows(), "now limited to the choices %s", choices(be))
	case be == nil:
		c.add(c.tool, path, "enum", !d.narrows(), "no longer limited to the choices %s", choices(ae))
	default:
		for _, v := range ae {
			if !in(be, v) {
				c.add(c.tool, path, "enum", d.narrows(), "the choice %s was removed", key(v))
			}
		}
		for _, v := range be {
			if !in(ae, v) {
				c.add(c.tool, path, "enum", !d.narrows(), "the choice %s was added", key(v))
			}
		}
	}
}

func choices(vs []any) string {
	b, _ := json.Marshal(vs)
	return string(b)
}

// numbers compares numeric bounds, the keywords minKeyword and maxKeyword;
// nil is open. what qualifies the bound (" number of items"), empty for a
// number's own value.
func (c *comparer) numbers(path, what, minKeyword, maxKeyword string, amin, amax, bmin, bmax *float64, d direction) {
	f := func(p *float64) string {
		if p == nil {
			return "none"
		}
		return fmt.Sprint(*p)
	}
	if tighter(amin, bmin, func(x, y float64) bool { return y > x }) {
		c.add(c.tool, path, minKeyword, d.narrows(), "the minimum%s rose from %s to %s", what, f(amin), f(bmin))
	} else if tighter(bmin, amin, func(x, y float64) bool { return y > x }) {
		c.add(c.tool, path, minKeyword, !d.narrows(), "the minimum%s fell from %s to %s", what, f(amin), f(bmin))
	}
	if tighter(amax, bmax, func(x, y float64) bool { return y < x }) {
		c.add(c.tool, path, maxKeyword, d.narrows(), "the maximum%s fell from %s to %s", what, f(amax), f(bmax))
	} else if tighter(bmax, amax, func(x, y float64) bool { return y < x }) {
		c.add(c.tool, path, maxKeyword, !d.narrows(), "the maximum%s rose from %s to %s", what, f(amax), f(bmax))
	}
}

// bounds compares inclusive count bounds (of characters, items or
// properties: the keywords "min"+suffix and "max"+suffix); nil is open, and
// so is a minimum of 0 (no count is less).
func (c *comparer) bounds(path, what, suffix string, amin, amax, bmin, bmax *int, d direction) {
	fl := func(p *int, min bool) *float64 {
		if p == nil || min && *p <= 0 {
			return nil
		}
		v := float64(*p)
		return &v
	}
	c.numbers(path, " number of "+what, "min"+suffix, "max"+suffix, fl(amin, true), fl(amax, false), fl(bmin, true), fl(bmax, false), d)
}

// tighter reports whether the bound b is tighter than a: set where a is
// open, or beyond it by more.
func tighter(a, b *float64, more func(x, y float64) bool) bool {
	if b == nil {
		return false
	}
	return a == nil || more(*a, *b)
}

// text compares keyword, one that restricts a string (pattern, format),
// named what in messages: any new or changed one narrows, a removed one
// widens.
func (c *comparer) text(path, what, keyword, a, b string, d direction) {
	switch {
	case a == b:
	case b == "":
		c.add(c.tool, path, keyword, !d.narrows(), "the %s %q was removed", what, a)
	case a == "":
		c.add(c.tool, path, keyword, d.narrows(), "the %s %q was added", what, b)
	default:
		c.add(c.tool, path, keyword, true, "the %s changed from %q to %q", what, a, b)
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
