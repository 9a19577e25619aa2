package tool

import "slices"

// A Definition describes an input, an output, a list's item or a map's
// property. It must not change once its tool is added to a [Registry].
type Definition struct {
	// Name names an input, an output or a property; list items have none.
	Name string
	// Type is a built-in data type (string integer float boolean email uri
	// datetime_iso8601 timestamp duration entity entity:ID list map any) or
	// one added with [Registry.AddType].
	Type string
	// Label is a short human name, Description what the value means.
	Label, Description string
	// Required: an input or property must be present and not null, an
	// output present.
	Required bool
	// Nullable lets an output, item or property be null.
	Nullable bool
	// Default is the JSON value an optional input takes when absent or null.
	Default any
	// Locked fixes an input to its Default and leaves it out of the schema.
	Locked bool
	// Examples are annotations, never validated.
	Examples []any
	// Items defines each item of a list.
	Items *Definition
	// Properties are a map's properties; else Values (nil: any) defines each.
	Properties []*Definition
	Values     *Definition
	// EntityOp is the operation ("view") the account must be allowed on an
	// entity input.
	EntityOp string
	// EntityTypes names the types an "entity" input is meant for, the first
	// cited in its description; it does not restrict the input.
	EntityTypes []string
	// Sensitive marks a secret input: masked, never logged, never quoted in
	// a message, a confirmation or [Call.InputsJSON].
	Sensitive bool
	// Constraints restrict the value.
	Constraints Constraints
	// Header, on a top-level input of a primitive type, names an HTTP
	// header ("Region") in which MCP clients mirror the input's value, so
	// that gateways may route a call by it without reading its body.
	Header string
}

// Constraints restrict a value; on a list, all but NotBlank and Count bind
// each item.
type Constraints struct {
	// NotBlank rejects empty strings, lists and maps.
	NotBlank bool
	// NotNull rejects null for an optional input (else read as its default).
	NotNull bool
	// Count bounds the items of a list or properties of a map.
	Count *Bounds
	// Length bounds the number of characters of a string.
	Length *Bounds
	// Range bounds a number.
	Range *Range
	// Choice lists the allowed values.
	Choice []any
	// ChoiceLabels, when set, holds a label of each choice, in the order
	// of Choice: what a person is shown for it ("Published" for "live").
	// Input schemas give the choices as titled constants.
	ChoiceLabels []string
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

// clone returns a deep copy of d; only Default is shared (replace it rather
// than change it).
func (d *Definition) clone() *Definition {
	if d == nil {
		return nil
	}
	c := *d
	c.Items = d.Items.clone()
	c.Values = d.Values.clone()
	c.Properties = cloneAll(d.Properties)
	c.Examples = slices.Clone(d.Examples)
	c.Constraints.Choice = slices.Clone(d.Constraints.Choice)
	c.Constraints.ChoiceLabels = slices.Clone(d.Constraints.ChoiceLabels)
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
		out[i] = d.clone()
	}
	return out
}
