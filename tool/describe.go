package tool

import (
	"slices"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
)

// An Info is a tool's definition as every caller prints it.
type Info struct {
	ID          string    `json:"id"`
	Label       string    `json:"label"`
	Description string    `json:"description"`
	Operation   Operation `json:"operation"`
	Destructive bool      `json:"destructive"`
	Permission  string    `json:"permission"`
	Deprecated  string    `json:"deprecated,omitempty"`
	// Approver is the permission of the accounts that approve the tool's
	// calls before they run (see [Tool.Approver]); empty for none.
	Approver string `json:"approver,omitempty"`
	// Task is "optional" or "required" for a tool whose calls may or
	// must run as tasks, empty for one that never does.
	Task TaskMode `json:"task,omitempty"`
	// TaskTTL is how long a task's outcome is kept after it ends, as a Go
	// duration ("24h0m0s"): the tool's TaskTTL, else one day. Empty when
	// Task is.
	TaskTTL string `json:"task_ttl,omitempty"`
	// Icon is the address of the tool's picture, if any.
	Icon string `json:"icon,omitempty"`
	// Budget is the tool's own budget, if it declares one.
	Budget *Budget `json:"budget,omitempty"`
	// Needs lists what the tool asks of the client while it runs.
	Needs []ClientFeature `json:"needs,omitempty"`
	// Groups are the toolsets the tool belongs to.
	Groups       []string           `json:"groups,omitempty"`
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
		Destructive: t.IsDestructive(), Permission: t.Permission, Deprecated: t.Deprecated, Approver: t.Approver,
		Task: t.Task, Icon: t.Icon, Needs: slices.Clone(t.Needs), Groups: slices.Clone(t.Groups),
	}
	if t.Task != TaskNever {
		d.TaskTTL = t.EffectiveTaskTTL().String()
	}
	if t.Budget != (Budget{}) {
		b := t.Budget
		d.Budget = &b
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

// DefaultTaskTTL is how long a task's outcome is kept after it ends when
// its tool sets no TaskTTL.
const DefaultTaskTTL = 24 * time.Hour

// EffectiveTaskTTL returns how long the outcome of a task of t is kept
// after it ends: t.TaskTTL, else [DefaultTaskTTL]; zero when t's calls
// never run as tasks.
func (t *Tool) EffectiveTaskTTL() time.Duration {
	switch {
	case t.Task == TaskNever:
		return 0
	case t.TaskTTL > 0:
		return t.TaskTTL
	}
	return DefaultTaskTTL
}
