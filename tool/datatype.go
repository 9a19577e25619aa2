package tool

import (
	"errors"
	"fmt"
)

// Text is a value a person typed, coerced to its input's type ("10": 10).
type Text string

// A DataType is a data type an application adds with [Registry.AddType].
type DataType struct {
	// Name is the type's name as definitions use it ("color").
	Name string
	// Base is the scalar type it refines: string, integer, float, boolean.
	Base string
	// Format is the JSON Schema format advertised, if any.
	Format string
	// Check returns what is wrong with a value ("must be a hex color"), or "".
	Check func(v any) string
}

// builtinTypes lists the built-in data type names (entity:ID aside).
var builtinTypes = []string{
	"string", "integer", "float", "boolean", "email", "uri",
	"datetime_iso8601", "timestamp", "duration", "entity", "list", "map", "any",
}

// AddType adds an application data type.
func (r *Registry) AddType(dt *DataType) error {
	if dt == nil || dt.Name == "" {
		return errors.New("data type needs a name")
	}
	for _, b := range builtinTypes {
		if dt.Name == b {
			return fmt.Errorf("data type %q is built in", dt.Name)
		}
	}
	switch dt.Base {
	case "string", "integer", "float", "boolean":
	default:
		return fmt.Errorf("data type %q: base %q must be string, integer, float or boolean", dt.Name, dt.Base)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.types[dt.Name]; ok {
		return fmt.Errorf("data type %q is already added", dt.Name)
	}
	r.types[dt.Name] = dt
	return nil
}
