package tool

import "github.com/google/jsonschema-go/jsonschema"

// A Description is a tool's definition as every caller prints it
// (toolgen -describe, the CLI's info, the explorer): its ID, label,
// description, operation, destructive mark, permission and schemas.
type Description struct {
	ID           string             `json:"id"`
	Label        string             `json:"label"`
	Description  string             `json:"description"`
	Operation    Operation          `json:"operation"`
	Destructive  bool               `json:"destructive"`
	Permission   string             `json:"permission"`
	InputSchema  *jsonschema.Schema `json:"input_schema"`
	OutputSchema *jsonschema.Schema `json:"output_schema"`
}

// Describe returns t's description. The permission is normalised ("a, b"
// reads "a,b"); the schemas are nil when t's definitions are invalid (see
// [Tool.Check]).
func (t *Tool) Describe() *Description {
	d := &Description{
		ID: t.ID, Label: t.Label, Description: t.Description, Operation: t.Op(),
		Destructive: t.Destructive, Permission: t.Permission,
	}
	if p, err := t.prepare(); err == nil {
		d.Permission = p.permission.String()
		d.InputSchema, d.OutputSchema = p.inSchema, p.outSchema
	}
	return d
}

// Check reports what is wrong with t's definitions (built-in data types
// only; a [Registry] also checks the data and entity types it knows and
// that the tool has a handler), or nil.
func (t *Tool) Check() error {
	_, err := t.prepare()
	return err
}

// ErrorType returns the name callers give the failure category in JSON
// ("invalid_input", "access_denied", "execution_failed").
func (f Failure) ErrorType() string {
	switch f {
	case FailureInput:
		return "invalid_input"
	case FailureAccess:
		return "access_denied"
	case FailureRuntime:
		return "execution_failed"
	}
	return ""
}
