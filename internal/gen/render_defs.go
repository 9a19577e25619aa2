package gen

import (
	"fmt"
	"go/types"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/toolapi/toolapi/tool"
)

// defLiteral returns the Go expression of a definition.
func (r *renderer) defLiteral(d *tool.Definition) string { return "&tool.Definition" + r.defBody(d) }

// defBody returns the braced fields of a definition, for slices of them.
func (r *renderer) defBody(d *tool.Definition) string {
	var b strings.Builder
	b.WriteString("{")
	r.writeDefFields(&b, d)
	b.WriteString("}")
	return b.String()
}

// outputLiteral returns the Go expression of an output definition in a
// slice: a call of tool.ResourceDefinition for the output it defines,
// else the braced fields.
func (r *renderer) outputLiteral(d *tool.Definition) string {
	if d.Constraints.Media == tool.MediaResource && reflect.DeepEqual(d, tool.ResourceDefinition(d.Name, d.Description)) {
		return fmt.Sprintf("tool.ResourceDefinition(%q, %q)", d.Name, d.Description)
	}
	return r.defBody(d)
}

func (r *renderer) writeDefFields(b *strings.Builder, d *tool.Definition) {
	field := func(name, value string) {
		b.WriteString("\n")
		b.WriteString(name)
		b.WriteString(": ")
		b.WriteString(value)
		b.WriteString(",")
	}
	q := strconv.Quote
	if d.Name != "" {
		field("Name", q(d.Name))
	}
	field("Type", q(d.Type))
	if d.Label != "" {
		field("Label", q(d.Label))
	}
	if d.Description != "" {
		field("Description", q(d.Description))
	}
	if d.Required {
		field("Required", "true")
	}
	if d.Nullable {
		field("Nullable", "true")
	}
	if d.Default != nil {
		field("Default", goValue(d.Default))
	}
	if d.Locked {
		field("Locked", "true")
	}
	if d.Sensitive {
		field("Sensitive", "true")
	}
	if len(d.Examples) > 0 {
		field("Examples", goValue(d.Examples))
	}
	if d.Items != nil {
		field("Items", r.defLiteral(d.Items))
	}
	if len(d.Properties) > 0 {
		props := r.propertiesLiteral(d.Properties)
		if t, ok := r.pkg.objects[d]; ok {
			props = r.propertiesHelper(t, props) + "()"
		}
		field("Properties", props)
	}
	if d.Values != nil {
		field("Values", r.defLiteral(d.Values))
	}
	if d.Header != "" {
		field("Header", q(d.Header))
	}
	if d.EntityOp != "" {
		field("EntityOp", q(d.EntityOp))
	}
	if len(d.EntityTypes) > 0 {
		quoted := make([]string, len(d.EntityTypes))
		for i, id := range d.EntityTypes {
			quoted[i] = q(id)
		}
		field("EntityTypes", "[]string{"+strings.Join(quoted, ", ")+"}")
	}
	if c := constraintsLiteral(d.Constraints); c != "" {
		field("Constraints", c)
	}
	b.WriteString("\n")
}

// propertiesLiteral returns the Go expression of a list of properties.
func (r *renderer) propertiesLiteral(props []*tool.Definition) string {
	var b strings.Builder
	b.WriteString("[]*tool.Definition{")
	for _, p := range props {
		b.WriteString("\n")
		b.WriteString(r.defBody(p))
		b.WriteString(",")
	}
	b.WriteString("\n}")
	return b.String()
}

// propertiesHelper returns the name of a generated function returning the
// properties of the struct or value object t, as literal writes them:
// each is written once, however many tools use it. Two descriptions of
// one type that differ (a members= selection, or a member referring back
// to a type being described) get a function each.
func (r *renderer) propertiesHelper(t types.Type, literal string) string {
	return r.helper("properties "+literal, lowerFirst(r.slug(t))+"Properties", func(name string) string {
		return fmt.Sprintf("// %s returns the properties of %s.\nfunc %s() []*tool.Definition {\nreturn %s\n}\n",
			name, article(r.typeString(t)), name, literal)
	})
}

func constraintsLiteral(c tool.Constraints) string {
	var parts []string
	add := func(name, value string) { parts = append(parts, name+": "+value) }
	if c.NotBlank {
		add("NotBlank", "true")
	}
	if c.NotNull {
		add("NotNull", "true")
	}
	if c.Count != nil {
		add("Count", boundsLiteral(c.Count))
	}
	if c.Length != nil {
		add("Length", boundsLiteral(c.Length))
	}
	if c.Range != nil {
		var rp []string
		if c.Range.Min != nil {
			rp = append(rp, "Min: tool.Ptr("+floatLiteral(*c.Range.Min)+")")
		}
		if c.Range.Max != nil {
			rp = append(rp, "Max: tool.Ptr("+floatLiteral(*c.Range.Max)+")")
		}
		add("Range", "&tool.Range{"+strings.Join(rp, ", ")+"}")
	}
	if len(c.Choice) > 0 {
		add("Choice", goValue(c.Choice))
	}
	if len(c.ChoiceLabels) > 0 {
		quoted := make([]string, len(c.ChoiceLabels))
		for i, l := range c.ChoiceLabels {
			quoted[i] = strconv.Quote(l)
		}
		add("ChoiceLabels", "[]string{"+strings.Join(quoted, ", ")+"}")
	}
	if c.Pattern != "" {
		add("Pattern", strconv.Quote(c.Pattern))
	}
	if c.Email {
		add("Email", "true")
	}
	if c.Encoding != "" {
		add("Encoding", strconv.Quote(c.Encoding))
	}
	if c.DateOnly {
		add("DateOnly", "true")
	}
	if c.Media != "" {
		add("Media", strconv.Quote(c.Media))
	}
	if len(parts) == 0 {
		return ""
	}
	return "tool.Constraints{" + strings.Join(parts, ", ") + "}"
}

func boundsLiteral(b *tool.Bounds) string {
	var parts []string
	if b.Min != nil {
		parts = append(parts, "Min: tool.Ptr("+strconv.Itoa(*b.Min)+")")
	}
	if b.Max != nil {
		parts = append(parts, "Max: tool.Ptr("+strconv.Itoa(*b.Max)+")")
	}
	return "&tool.Bounds{" + strings.Join(parts, ", ") + "}"
}

// floatLiteral writes f so that Go reads it as a float64.
func floatLiteral(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) <= maxExactInteger {
		// A whole number reads as one: 9007199254740991.0, not 9.007199254740991e+15.
		return strconv.FormatFloat(f, 'f', 1, 64)
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eEn") {
		s += ".0"
	}
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return "0.0"
	}
	return s
}

// goValue returns the Go expression of a JSON-form value.
func goValue(v any) string {
	switch v := v.(type) {
	case nil:
		return "nil"
	case string:
		return strconv.Quote(v)
	case bool:
		return strconv.FormatBool(v)
	case int:
		return strconv.Itoa(v)
	case float64:
		return "float64(" + floatLiteral(v) + ")"
	case []any:
		parts := make([]string, len(v))
		for i, x := range v {
			parts[i] = goValue(x)
		}
		return "[]any{" + strings.Join(parts, ", ") + "}"
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = strconv.Quote(k) + ": " + goValue(v[k])
		}
		return "map[string]any{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprintf("%#v", v)
}
