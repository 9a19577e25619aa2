package gen

import (
	"encoding/json"
	"fmt"
	"go/types"
	"strconv"
	"strings"

	"github.com/toolapi/toolapi/internal/directive"
	"github.com/toolapi/toolapi/tool"
)

// builtin lists the built-in data types by the group of Go values that
// carry them: a type= override must stay within its group, or name an
// application type.
var builtin = map[string]string{
	"string": "text", "email": "text", "uri": "text",
	"integer": "integer", "float": "float", "boolean": "boolean",
	"datetime_iso8601": "time", "timestamp": "time", "duration": "duration",
	"list": "list", "map": "map", "any": "any", "entity": "entity",
}

func typeGroup(typ string) (string, bool) {
	if strings.HasPrefix(typ, "entity:") {
		return "entity", true
	}
	g, ok := builtin[typ]
	return g, ok
}

// overrideType applies a type= override to def, inferred from goType. On a
// list it types the items. For an output it may return a conversion: an
// integer published as a timestamp is converted from Unix seconds.
func (pi *pkgInference) overrideType(def *tool.Definition, goType types.Type, typ string, output bool) (*publication, error) {
	if def.Type == "list" && typ != "list" && def.Items != nil {
		var elem types.Type
		if s, ok := goType.Underlying().(*types.Slice); ok {
			elem = s.Elem()
		}
		if _, err := pi.overrideType(def.Items, elem, typ, output); err != nil {
			return nil, err
		}
		return nil, nil
	}
	from, _ := typeGroup(def.Type)
	to, known := typeGroup(typ)
	switch {
	case !known:
		// An application data type: its base is checked by the registry.
		if from != "text" && from != "integer" && from != "float" && from != "boolean" {
			return nil, fmt.Errorf("type=%s: an application data type needs a string, integer, float or boolean value, not %s", typ, def.Type)
		}
		pi.setAppBase(def, def.Type)
	case from == to:
	case output && from == "integer" && to == "time":
		def.Type = typ
		return &publication{kind: pubUnixTime, typ: goType}, nil
	case output && to == "any":
	default:
		return nil, fmt.Errorf("type=%s does not fit the Go type, which is %s", typ, def.Type)
	}
	def.Type = typ
	return nil, nil
}

// parseValue parses a default, example or choice written in a directive as
// a value of def: numbers and booleans for those types, JSON for lists,
// maps and any, the text itself otherwise.
func parseValue(def *tool.Definition, text string) (any, error) {
	g, _ := typeGroup(def.Type)
	switch g {
	case "integer":
		n, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not an integer", text)
		}
		return int(n), nil
	case "float":
		f, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", text)
		}
		return f, nil
	case "boolean":
		b, err := strconv.ParseBool(text)
		if err != nil {
			return nil, fmt.Errorf("%q is not true or false", text)
		}
		return b, nil
	case "list", "map", "any":
		var v any
		if err := json.Unmarshal([]byte(text), &v); err != nil {
			return nil, fmt.Errorf("%q is not JSON", text)
		}
		return v, nil
	}
	return text, nil
}

// applyKeys applies the keys of a directive that refine a definition
// (description, label, type, example, default, constraints...). Keys that
// name or place the value are the caller's. It returns a publishing
// conversion a type= override needs, if any.
func (pi *pkgInference) applyKeys(def *tool.Definition, goType types.Type, args []directive.Arg, output bool) (*publication, error) {
	var conv *publication
	// type first: the other values parse by it.
	for _, a := range args {
		if a.Key == "type" {
			c, err := pi.overrideType(def, goType, a.Value, output)
			if err != nil {
				return nil, err
			}
			conv = c
		}
	}
	item := def
	if def.Type == "list" && def.Items != nil {
		item = def.Items
	}
	c := &def.Constraints
	for _, a := range args {
		switch a.Key {
		case "description":
			def.Description = a.Value
		case "label":
			def.Label = a.Value
		case "example":
			v, err := parseValue(item, a.Value)
			if err != nil {
				return nil, fmt.Errorf("example: %w", err)
			}
			def.Examples = append(def.Examples, v)
		case "default":
			v, err := parseValue(def, a.Value)
			if err != nil {
				return nil, fmt.Errorf("default: %w", err)
			}
			def.Default = v
			def.Required = false
		case "notblank":
			c.NotBlank = a.Value != "false"
		case "notnull":
			c.NotNull = a.Value != "false"
		case "count":
			c.Count = &tool.Bounds{Min: a.Bounds.Min, Max: a.Bounds.Max}
		case "length":
			c.Length = &tool.Bounds{Min: a.Bounds.Min, Max: a.Bounds.Max}
		case "range":
			// A declared range narrows the bounds of the Go type (int8,
			// uint16, ...) and never widens them: values outside the type
			// would wrap when converted.
			c.Range = narrow(c.Range, a.Range.Min, a.Range.Max)
		case "choice":
			var vs []any
			for _, s := range a.Choice {
				v, err := parseValue(item, s)
				if err != nil {
					return nil, fmt.Errorf("choice: %w", err)
				}
				vs = append(vs, v)
			}
			c.Choice = vs
		case "labels":
			c.ChoiceLabels = a.Choice
		case "pattern":
			c.Pattern = a.Value
		case "media":
			c.Media = a.Value
		case "dateonly":
			c.DateOnly = a.Value != "false"
		case "locked":
			def.Locked = a.Value != "false"
		case "sensitive":
			def.Sensitive = a.Value != "false"
		case "nullable":
			def.Nullable = a.Value != "false"
		}
	}
	if n := len(c.ChoiceLabels); n > 0 && n != len(c.Choice) {
		if len(c.Choice) == 0 {
			return nil, fmt.Errorf("labels: there are no choices to label: give choice= (or use a Go type with constants)")
		}
		return nil, fmt.Errorf("labels: %d labels for %d choices: give one label to each choice, in their order", n, len(c.Choice))
	}
	return conv, nil
}

// narrow returns the range of the numbers both r and min..max allow; a nil
// range or bound allows every number.
func narrow(r *tool.Range, min, max *float64) *tool.Range {
	out := &tool.Range{Min: min, Max: max}
	if r == nil {
		return out
	}
	if r.Min != nil && (out.Min == nil || *r.Min > *out.Min) {
		out.Min = r.Min
	}
	if r.Max != nil && (out.Max == nil || *r.Max < *out.Max) {
		out.Max = r.Max
	}
	return out
}
