package tool

import "slices"

// A Definition describes one value a tool takes or gives: an input, an
// output, a list's item or a map's property. It must not change once its
// tool is added to a [Registry].
type Definition struct {
	// Name names an input, an output or a map's property; list items have
	// none.
	Name string
	// Type is the data type: one of the built-in types (string integer
	// float boolean email uri datetime_iso8601 timestamp duration entity
	// entity:ID list map any) or one registered with [Registry.AddType].
	Type string
	// Label (a short human name) and Description (what the value means)
	// may be empty.
	Label, Description string
	// Required: an input or property must be present and not null; an
	// output's key must be present.
	Required bool
	// Nullable says null is a value of an output, a list item or a map
	// property. An optional input sent as null reads as its default.
	Nullable bool
	// Default is the JSON form of the value an optional input takes when
	// absent or null; nil means none.
	Default any
	// Locked fixes an input to its Default and leaves it out of the schema.
	Locked bool
	// Examples are annotations, never validated.
	Examples []any
	// Items defines each item of a list.
	Items *Definition
	// Properties are a map's declared properties, in order; without them
	// a map takes any keys, each value defined by Values (nil: any value).
	Properties []*Definition
	Values     *Definition
	// EntityOp is the operation checked on an entity input (each item of
	// a list) for the calling account on every run ("view", "update").
	EntityOp string
	// EntityTypes names the entity types an input of type "entity" is
	// meant for; its description cites the first ("such as customer:12").
	// It does not restrict: the input takes any entity type the registry knows.
	EntityTypes []string
	// Sensitive marks a secret input: never quoted in a message, left out
	// of [Call.InputsJSON] and confirmations, masked, logged nowhere.
	Sensitive bool
	// Constraints restrict the value.
	Constraints Constraints
}

// Constraints restrict a value. On a list, NotBlank and Count bind the list
// itself and every other constraint binds each item.
type Constraints struct {
	// NotBlank rejects empty strings, lists and maps.
	NotBlank bool
	// NotNull rejects null for an optional input (else read as its default).
	NotNull bool
	// Count bounds the items of a list or properties of a map. A list input
	// takes at most [DefaultMaxItems] items unless Max says more.
	Count *Bounds
	// Length bounds the number of characters of a string.
	Length *Bounds
	// Range bounds a number.
	Range *Range
	// Choice lists the allowed values.
	Choice []any
	// Pattern is an RE2 regexp a string must match (anchor with ^ and $).
	Pattern string
	// Email requires a string to be an email address.
	Email bool
	// Encoding "base64" makes a string the padded standard base64 of bytes.
	Encoding string
	// DateOnly makes a datetime_iso8601 a calendar date (YYYY-MM-DD).
	DateOnly bool
	// AllowNUL lets a string input hold U+0000, otherwise refused.
	AllowNUL bool
	// Media is the content's media type (contentMediaType), not validated.
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

// Clone returns a deep copy of d; only Default is shared (replace it rather
// than change it).
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
