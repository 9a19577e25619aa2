package tool

import (
	"math"
	"regexp"
	"slices"
	"strings"
)

// kind is the built-in shape of a data type.
type kind uint8

const (
	kString kind = iota
	kInteger
	kFloat
	kBoolean
	kEmail
	kURI
	kDateTime
	kTimestamp
	kDuration
	kEntity
	kList
	kMap
	kAny
)

var kindByName = map[string]kind{
	"string": kString, "integer": kInteger, "float": kFloat, "boolean": kBoolean,
	"email": kEmail, "uri": kURI, "datetime_iso8601": kDateTime, "timestamp": kTimestamp,
	"duration": kDuration, "entity": kEntity, "list": kList, "map": kMap, "any": kAny,
}

// A node is a Definition compiled for decoding, validation and schema
// emission: type names resolved, the pattern compiled, the choices and
// the default decoded.
type node struct {
	def        *Definition
	kind       kind
	custom     *DataType   // application data type refining kind
	entityType string      // for entity:ID; empty for any entity type
	et         *EntityType // the registry's entity type for entity:ID, once known
	pattern    *regexp.Regexp
	choice     []any // decoded
	deflt      any   // decoded default, nil when none
	items      *node
	props      []*node
	propIndex  map[string]int
	values     *node // map values without properties; nil means any
	minLen     int   // -1 when open
	maxLen     int
	minCount   int
	maxCount   int
	min, max   float64
	hasMin     bool
	hasMax     bool
	noNUL      bool // a string input that rejects U+0000
}

// DefaultMaxItems is a list input's maxItems when Constraints.Count has none.
const DefaultMaxItems = 1000

// compile compiles def, the definition of an input at path; types
// resolves application data types (nil means only the built-in ones). It reports every problem,
// each a *DefinitionError.
func compile(def *Definition, types func(string) *DataType, path string) (*node, error) {
	var errs definitionErrors
	n := compileNode(def, types, path, true, &errs)
	if len(errs) > 0 {
		return nil, errs.err()
	}
	return n, nil
}

// compileNode compiles def, adding its problems to errs; input says
// whether def is (part of) an input, which limits lists and strings more
// than outputs. It returns nil when def cannot be compiled at all (no
// definition, an unknown type).
func compileNode(def *Definition, types func(string) *DataType, path string, input bool, errs *definitionErrors) *node {
	if def == nil {
		errs.add(path, "definition", "no definition")
		return nil
	}
	before := len(*errs)
	n := &node{def: def, minLen: -1, maxLen: -1, minCount: -1, maxCount: -1}
	if !n.resolveType(types, path, errs) {
		return nil
	}
	n.compileBounds(path, input, errs)
	if !n.compileChildren(types, path, input, errs) {
		return nil
	}
	n.checkConstraintKinds(path, errs)
	n.compileEncoding(path, errs)
	if len(*errs) > before {
		// Choices and the default are checked against sound constraints
		// only.
		return n
	}
	n.compileValues(path, errs)
	return n
}

// resolveType sets n's kind from its data type name; it reports false when
// the name resolves to no type.
func (n *node) resolveType(types func(string) *DataType, path string, errs *definitionErrors) bool {
	typ := n.def.Type
	if et, ok := strings.CutPrefix(typ, "entity:"); ok {
		n.kind, n.entityType = kEntity, et
		if et == "" {
			errs.add(path, "type", "data type %q names no entity type", typ)
			return false
		}
		return true
	}
	k, ok := kindByName[typ]
	if !ok {
		var dt *DataType
		if types != nil {
			dt = types(typ)
		}
		if dt == nil {
			errs.add(path, "type", "unknown data type %q", typ)
			return false
		}
		n.custom = dt
		k = kindByName[dt.Base]
	}
	n.kind = k
	return true
}

// compileBounds compiles the pattern, the length, count and range bounds,
// and the limits an input has by default.
func (n *node) compileBounds(path string, input bool, errs *definitionErrors) {
	c := &n.def.Constraints
	if c.Pattern != "" {
		re, err := regexp.Compile(c.Pattern)
		if err != nil {
			errs.add(path, "pattern", "pattern %q does not compile: %v", c.Pattern, err)
		}
		n.pattern = re
	}
	if c.Length != nil {
		n.minLen, n.maxLen = bound(c.Length.Min), bound(c.Length.Max)
	}
	if c.Count != nil {
		n.minCount, n.maxCount = bound(c.Count.Min), bound(c.Count.Max)
	}
	if input && n.kind == kList && n.maxCount < 0 {
		n.maxCount = DefaultMaxItems
	}
	if input && n.kind == kString && !c.AllowNUL {
		n.noNUL = true
	}
	if c.Range != nil {
		if (c.Range.Min != nil && !finite(*c.Range.Min)) || (c.Range.Max != nil && !finite(*c.Range.Max)) {
			errs.add(path, "range", "a range bound must be a finite number")
			return
		}
		if n.kind == kInteger && (!exactInteger(c.Range.Min) || !exactInteger(c.Range.Max)) {
			errs.add(path, "range", "a range bound of an integer must be a whole number from -%d to %d, the integers a JSON Schema bound holds exactly", maxExactInteger, maxExactInteger)
			return
		}
		if c.Range.Min != nil {
			n.min, n.hasMin = *c.Range.Min, true
		}
		if c.Range.Max != nil {
			n.max, n.hasMax = *c.Range.Max, true
		}
	}
}

// compileChildren compiles the items of a list and the properties or
// values of a map; it reports false when a list has no compilable item.
func (n *node) compileChildren(types func(string) *DataType, path string, input bool, errs *definitionErrors) bool {
	def := n.def
	switch n.kind {
	case kList:
		if def.Items == nil {
			errs.add(path, "type", "a list needs an item definition")
			return false
		}
		// Constraints other than NotBlank and Count bind each item: a
		// list's own Length, Range, Choice, Pattern and DateOnly move to
		// its items.
		item := *def.Items
		moveItemConstraints(&item.Constraints, def.Constraints)
		n.items = compileNode(&item, types, path+".items", input, errs)
		if n.items == nil {
			return false
		}
		n.pattern, n.minLen, n.maxLen, n.hasMin, n.hasMax = nil, -1, -1, false, false
	case kMap:
		if len(def.Properties) == 0 {
			if def.Values != nil {
				n.values = compileNode(def.Values, types, path+".values", input, errs)
			}
			return true
		}
		n.propIndex = make(map[string]int, len(def.Properties))
		for i, p := range def.Properties {
			if p == nil || p.Name == "" {
				errs.add(path, "name", "property %d has no name", i)
				continue
			}
			if _, dup := n.propIndex[p.Name]; dup {
				errs.add(childPath(path, p.Name), "name", "property %q is defined twice", p.Name)
				continue
			}
			if pn := compileNode(p, types, childPath(path, p.Name), input, errs); pn != nil {
				n.propIndex[p.Name] = len(n.props)
				n.props = append(n.props, pn)
			}
		}
	}
	return true
}

// compileEncoding checks the encoding, which gives a string its pattern.
func (n *node) compileEncoding(path string, errs *definitionErrors) {
	c := &n.def.Constraints
	if c.Encoding == "" || n.kind == kList {
		return
	}
	switch {
	case c.Encoding != "base64":
		errs.add(path, "encoding", "encoding %q is not base64, the only one", c.Encoding)
	case n.kind != kString:
		errs.add(path, "encoding", "base64 encodes strings, not %s", n.def.Type)
	case c.Pattern != "":
		errs.add(path, "pattern", "a base64 string has its own pattern; leave the pattern out")
	default:
		n.pattern = base64Pattern
	}
}

// compileValues decodes the choices and the default, which must be values
// of n, and checks that a locked input has a default.
func (n *node) compileValues(path string, errs *definitionErrors) {
	def := n.def
	if labels := def.Constraints.ChoiceLabels; len(labels) > 0 && n.kind != kList {
		switch {
		case len(labels) != len(def.Constraints.Choice):
			errs.add(path, "choice", "%d choice labels for %d choices: give one label to each choice, in order", len(labels), len(def.Constraints.Choice))
		case slices.ContainsFunc(labels, func(l string) bool { return strings.TrimSpace(l) == "" }):
			errs.add(path, "choice", "a choice label is blank: label each choice")
		}
	}
	if len(def.Constraints.Choice) > 0 && n.kind != kList {
		for _, ch := range def.Constraints.Choice {
			var vs violations
			v, _ := n.decodeScalar(ch, nil, &vs)
			if !vs.empty() {
				errs.add(path, "choice", "choice %v: %s", ch, vs.first())
				continue
			}
			if s, ok := v.(string); ok && n.noNUL && strings.IndexByte(s, 0) >= 0 {
				errs.add(path, "choice", "choice %q holds the NUL character (U+0000); allow it with AllowNUL", s)
				continue
			}
			n.choice = append(n.choice, v)
		}
	}
	if def.Default != nil {
		var vs violations
		v := n.decode(def.Default, nil, &vs)
		if !vs.empty() {
			errs.add(path, "default", "default %v: %s", def.Default, vs.first())
		}
		n.deflt = v
	}
	if def.Locked && def.Default == nil {
		errs.add(path, "locked", "a locked input needs a default")
	}
}

func moveItemConstraints(item *Constraints, list Constraints) {
	if list.Length != nil {
		item.Length = list.Length
	}
	if list.Range != nil {
		// The list's range narrows the item's own (a sized integer's
		// bounds, say); it never widens it.
		item.Range = item.Range.intersect(list.Range)
	}
	if len(list.Choice) > 0 {
		item.Choice = list.Choice
		item.ChoiceLabels = list.ChoiceLabels
	}
	if list.Pattern != "" {
		item.Pattern = list.Pattern
	}
	if list.DateOnly {
		item.DateOnly = true
	}
	if list.Email {
		item.Email = true
	}
	if list.AllowNUL {
		item.AllowNUL = true
	}
	if list.Encoding != "" {
		item.Encoding = list.Encoding
	}
	if list.Media != "" && item.Media == "" {
		item.Media = list.Media
	}
}

func bound(p *int) int {
	if p == nil {
		return -1
	}
	return *p
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// checkConstraintKinds refuses constraints that mean nothing for n's data
// type, where the schema would say one thing and validation another:
// length, pattern and choice on dates, durations and entities (whose
// schema is a string but whose value is not), a range on non-numbers, a
// count on what is neither a list nor a map, a date-only value that is no
// datetime_iso8601.
func (n *node) checkConstraintKinds(path string, errs *definitionErrors) {
	c := &n.def.Constraints
	plainString := n.kind == kString || n.kind == kEmail || n.kind == kURI
	number := n.kind == kInteger || n.kind == kFloat
	if c.Count != nil && n.kind != kList && n.kind != kMap {
		errs.add(path, "count", "count bounds a list or map, not %s", n.def.Type)
	}
	if c.DateOnly && n.kind != kDateTime && n.kind != kList {
		errs.add(path, "dateonly", "dateonly needs a datetime_iso8601, not %s", n.def.Type)
	}
	if n.kind == kList || n.kind == kAny {
		return // list constraints move to the items; any takes none
	}
	if c.Length != nil && !plainString {
		errs.add(path, "length", "length applies to strings, not %s", n.def.Type)
	}
	if c.Pattern != "" && !plainString {
		errs.add(path, "pattern", "pattern applies to strings, not %s", n.def.Type)
	}
	if len(c.Choice) > 0 && !plainString && !number && n.kind != kBoolean {
		errs.add(path, "choice", "choice applies to strings and numbers, not %s", n.def.Type)
	}
	if c.Range != nil && !number {
		errs.add(path, "range", "range applies to numbers, not %s", n.def.Type)
	}
}

// base64Pattern matches the standard, padded base64 form of any bytes, as
// JSON Schema's pattern would (Go's decoder also skips newlines; the
// advertised schema does not, so neither does the check).
var base64Pattern = regexp.MustCompile(`^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$`)

// entityTypeName returns the name of n's entity type for messages: its
// label in lower case once the registry's type is known ("album"), else
// its ID.
func (n *node) entityTypeName() string {
	if n.et != nil {
		return typeName(n.et)
	}
	return n.entityType
}

// maxExactInteger is 2^53-1, the largest integer a float64 (a range bound,
// and a bound in JSON Schema as most validators read it) holds along with
// every integer below it.
const maxExactInteger = 1<<53 - 1

// exactInteger reports whether b is nil or a whole number a float64 holds
// exactly, in reach of every neighbour.
func exactInteger(b *float64) bool {
	return b == nil || *b == math.Trunc(*b) && math.Abs(*b) <= maxExactInteger
}
