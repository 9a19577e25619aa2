package tool

import "slices"

// A Definition describes one value a tool takes or gives: an input, an
// output, the item of a list or a property of a map. Applications build
// definitions by hand for hand-written tools; toolgen builds them from Go
// signatures for method tools. A Definition must not change once the tool
// that holds it is added to a [Registry].
type Definition struct {
	// Name is the input or output name, or the property name inside a map.
	// List items have no name.
	Name string
	// Type is the data type: one of the built-in types (string integer
	// float boolean email uri datetime_iso8601 timestamp duration entity
	// entity:ID list map any) or one registered with [Registry.AddType].
	Type string
	// Label is a short human name; empty means none.
	Label string
	// Description says what the value means; empty means none.
	Description string
	// Required: for an input or property, the value must be present and not
	// null. For an output, the key must be present.
	Required bool
	// Nullable says null is a value (outputs, list items and map
	// properties). Inputs are never nullable: an optional input sent as
	// null reads as its default.
	Nullable bool
	// Default is the value an optional input takes when it is absent or
	// null; nil means no default. It is given in its JSON form (string,
	// float64 or int, bool, []any, map[string]any).
	Default any
	// Locked fixes an input to its Default: callers cannot set it and it is
	// left out of the advertised schema.
	Locked bool
	// Examples are emitted as annotations, never validated.
	Examples []any
	// Items defines each item of a list.
	Items *Definition
	// Properties are the declared properties of a map, in order. A map with
	// no properties takes any keys, each value defined by Values.
	Properties []*Definition
	// Values defines each value of a map without properties; nil means any
	// value.
	Values *Definition
	// EntityOp is the operation checked on an entity input for the calling
	// account on every run ("view", "update", "delete", ...). Every item
	// of a list of entities is checked.
	EntityOp string
	// Sensitive marks an input whose value is a secret: the run path never
	// quotes it in a violation message, [Call.InputsJSON] leaves it out,
	// and callers mask it, log it and audit it nowhere.
	Sensitive bool
	// Constraints restrict the value.
	Constraints Constraints
}

// Constraints restrict a value. On a list, NotBlank and Count bind the list
// itself and every other constraint binds each item.
type Constraints struct {
	// NotBlank rejects empty strings, lists and maps.
	NotBlank bool
	// NotNull rejects null for an optional input (which would otherwise read
	// as its default).
	NotNull bool
	// Count bounds the number of items of a list or properties of a map. A
	// list input with no maximum takes at most [DefaultMaxItems] items; set
	// Max to take more.
	Count *Bounds
	// Length bounds the number of characters of a string.
	Length *Bounds
	// Range bounds a number.
	Range *Range
	// Choice lists the allowed values.
	Choice []any
	// Pattern is a regular expression (RE2 syntax) a string must match
	// somewhere, as in JSON Schema; anchor it with ^ and $ to match whole.
	Pattern string
	// Email requires a string to be an email address, as the email data
	// type does.
	Email bool
	// Encoding, when "base64", makes a string the standard, padded base64
	// form of bytes: advertised as contentEncoding with the pattern it
	// implies, and checked. It is the only encoding.
	Encoding string
	// DateOnly makes a datetime_iso8601 a calendar date (YYYY-MM-DD).
	DateOnly bool
	// AllowNUL lets a string input hold the NUL character (U+0000), which
	// string inputs otherwise reject (the input schema says so with a
	// pattern).
	AllowNUL bool
	// Media is the media type of the content, an annotation
	// (contentMediaType); it is never validated.
	Media string
}

// Bounds is an inclusive range of counts. A nil bound is open.
type Bounds struct {
	Min, Max *int
}

// Range is an inclusive range of numbers. A nil bound is open.
type Range struct {
	Min, Max *float64
}

// intersect returns the range of the numbers both r and o allow; a nil
// range allows every number.
func (r *Range) intersect(o *Range) *Range {
	if r == nil {
		return o
	}
	if o == nil {
		return r
	}
	out := &Range{Min: r.Min, Max: r.Max}
	if o.Min != nil && (out.Min == nil || *o.Min > *out.Min) {
		out.Min = o.Min
	}
	if o.Max != nil && (out.Max == nil || *o.Max < *out.Max) {
		out.Max = o.Max
	}
	return out
}

// Ptr returns a pointer to v, for the optional fields of [Bounds] and [Range].
func Ptr[T any](v T) *T { return &v }

// Clone returns a deep copy of d: its items, properties and values, its
// constraints' bounds, choices and examples are copies too (a default, a
// JSON value, is shared: replace it rather than change it).
func (d *Definition) Clone() *Definition {
	if d == nil {
		return nil
	}
	c := *d
	c.Items = d.Items.Clone()
	c.Values = d.Values.Clone()
	c.Properties = cloneAll(d.Properties)
	c.Examples = slices.Clone(d.Examples)
	c.Constraints.Choice = slices.Clone(d.Constraints.Choice)
	if b := d.Constraints.Count; b != nil {
		c.Constraints.Count = &Bounds{Min: b.Min, Max: b.Max}
	}
	if b := d.Constraints.Length; b != nil {
		c.Constraints.Length = &Bounds{Min: b.Min, Max: b.Max}
	}
	if rg := d.Constraints.Range; rg != nil {
		c.Constraints.Range = &Range{Min: rg.Min, Max: rg.Max}
	}
	return &c
}

func cloneAll(defs []*Definition) []*Definition {
	if defs == nil {
		return nil
	}
	out := make([]*Definition, len(defs))
	for i, d := range defs {
		out[i] = d.Clone()
	}
	return out
}
