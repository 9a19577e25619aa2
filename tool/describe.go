package tool

import "github.com/google/jsonschema-go/jsonschema"

// An Info is a tool's definition as every caller prints it.
type Info struct {
	ID           string             `json:"id"`
	Label        string             `json:"label"`
	Description  string             `json:"description"`
	Operation    Operation          `json:"operation"`
	Destructive  bool               `json:"destructive"`
	Permission   string             `json:"permission"`
	Deprecated   string             `json:"deprecated,omitempty"`
	InputSchema  *jsonschema.Schema `json:"input_schema"`
	OutputSchema *jsonschema.Schema `json:"output_schema"`
}

// Describe returns the Info of t alone, knowing the built-in data types
// only; its schemas are nil when t's definitions are invalid.
func (t *Tool) Describe() *Info {
	e, _ := compileTool(nil, t)
	return e.withSchemas().info(t)
}

// Describe returns the tool's Info, or nil; do not modify its schemas.
func (r *Registry) Describe(id string) *Info {
	e := r.entry(id)
	if e == nil {
		return nil
	}
	return e.info(e.tool)
}

// info returns the Info of t, compiled as e (nil when t's definitions are
// invalid).
func (e *entry) info(t *Tool) *Info {
	d := &Info{
		ID: t.ID, Label: t.Label, Description: t.Description, Operation: t.EffectiveOperation(),
		Destructive: t.IsDestructive(), Permission: t.Permission, Deprecated: t.Deprecated,
	}
	if e != nil {
		d.Permission = e.permission.String()
		d.InputSchema, d.OutputSchema = e.inSchema, e.outSchema
	}
	return d
}

// Check reports what is wrong with t's definitions (built-in types only).
func (t *Tool) Check() error {
	_, err := compileTool(nil, t)
	return err
}
