package explorer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/toolapi/toolapi/tool"
)

// A Preset is a named set of input values of one tool, stored for one
// account: a person saves what they typed and runs it again later.
type Preset struct {
	// Tool is the ID of the tool.
	Tool string
	// Name names the preset among the tool's presets of its account.
	Name string
	// Values holds the inputs by name, as a JSON object valid against the
	// tool's preset schema (see [PresetSchema]).
	Values json.RawMessage
	// Updated is when the preset was last saved.
	Updated time.Time
}

// ErrNoPreset is wrapped by [Presets.Preset] when no preset has the name.
var ErrNoPreset = errors.New("no such preset")

// Presets stores presets. Each account (its [tool.Account.AccountID], the
// owner) has presets of its own. Implementations must be safe for
// concurrent use.
type Presets interface {
	// Presets returns the owner's presets of a tool, ordered by name.
	Presets(ctx context.Context, owner, toolID string) ([]Preset, error)
	// Preset returns the owner's preset of a tool with the given name, or
	// an error wrapping [ErrNoPreset].
	Preset(ctx context.Context, owner, toolID, name string) (*Preset, error)
	// SavePreset stores p for the owner, replacing the preset of the same
	// tool and name.
	SavePreset(ctx context.Context, owner string, p *Preset) error
	// DeletePreset deletes the owner's preset of a tool with the given
	// name; deleting a preset that does not exist is not an error.
	DeletePreset(ctx context.Context, owner, toolID, name string) error
}

// PresetSchemaID returns the name of the suggested schema of a tool's
// presets: "tool.preset." and the tool's ID.
func PresetSchemaID(toolID string) string { return "tool.preset." + toolID }

// PresetSchema returns the suggested schema of t's presets: t's input
// schema (where locked inputs are already left out) with every input
// optional, since a preset may fix some inputs and leave the others to
// the person running it. It returns nil when t's definitions are invalid.
func PresetSchema(t *tool.Tool) *jsonschema.Schema {
	in := t.Describe().InputSchema
	if in == nil {
		return nil
	}
	s := *in
	s.Required = nil
	s.Title = PresetSchemaID(t.ID)
	s.Description = "Stored input values of " + t.ID + ": its inputs, each optional."
	return &s
}

// presetTools holds, per tool, a registry of its own where the tool takes
// every input as optional, the way its preset schema does: the values of a
// preset go through that registry's [tool.Registry.Validate], the same
// decoding and validation as a run, and come out as canonical JSON.
type presetTools struct {
	reg *tool.Registry
	mu  sync.Mutex
	m   map[string]*tool.Registry // by tool ID; nil when the tool cannot be copied
}

func newPresetTools(reg *tool.Registry) *presetTools {
	return &presetTools{reg: reg, m: make(map[string]*tool.Registry)}
}

func (pt *presetTools) reset() {
	pt.mu.Lock()
	clear(pt.m)
	pt.mu.Unlock()
}

// registry returns the preset registry of t, or nil when t uses what a
// registry of its own cannot hold (a data type of the application's).
func (pt *presetTools) registry(t *tool.Tool) *tool.Registry {
	pt.mu.Lock()
	defer pt.mu.Unlock()
	if r, ok := pt.m[t.ID]; ok {
		return r
	}
	r := tool.NewRegistry(&tool.Options{Logger: pt.reg.Logger()})
	c := *t
	c.Inputs = make([]*tool.Definition, len(t.Inputs))
	types := map[string]bool{}
	for i, def := range t.Inputs {
		d := *def
		d.Required = false
		c.Inputs[i] = &d
		collectEntityTypes(def, types)
	}
	for typ := range types {
		if et, ok := pt.reg.EntityType(typ); ok {
			if err := r.AddEntityType(et); err != nil {
				r = nil
				break
			}
		}
	}
	if r != nil && r.Add(&c) != nil {
		r = nil
	}
	pt.m[t.ID] = r
	return r
}

// collectEntityTypes adds the entity types def and its items and
// properties take to types.
func collectEntityTypes(def *tool.Definition, types map[string]bool) {
	if def == nil {
		return
	}
	if typ := entityTypeOf(def); typ != "" {
		types[typ] = true
	}
	collectEntityTypes(def.Items, types)
	collectEntityTypes(def.Values, types)
	for _, p := range def.Properties {
		collectEntityTypes(p, types)
	}
}

// presetValues checks the arguments of a form (text as typed, and JSON
// values) as a preset of t and returns the canonical JSON object a preset
// stores, or the violations found. Every input is optional in a preset;
// everything else is checked as a run checks it, entity lookups included.
func (e *server) presetValues(ctx context.Context, acct tool.Account, t *tool.Tool, args map[string]any) (json.RawMessage, []tool.Violation, error) {
	ctx = tool.WithAccount(ctx, acct)
	reg := e.presets.registry(t)
	if reg == nil {
		// Checked as a run would be: a preset of this tool holds every
		// required input.
		reg = e.reg
	}
	values, vs, err := reg.Validate(ctx, t.ID, args)
	if err != nil || len(vs) > 0 {
		return nil, vs, err
	}
	return values, nil, nil
}

// presetName checks a preset name typed by a person.
func presetName(name string) (string, error) {
	name = strings.TrimSpace(name)
	switch {
	case name == "":
		return "", errors.New("give the preset a name")
	case len([]rune(name)) > 100:
		return "", errors.New("a preset name has at most 100 characters")
	case strings.IndexFunc(name, unicode.IsControl) >= 0:
		return "", errors.New("a preset name cannot hold control characters")
	}
	return name, nil
}

// presetArgs decodes a preset's values into run arguments.
func presetArgs(p *Preset) (map[string]any, error) {
	var args map[string]any
	if err := json.Unmarshal(p.Values, &args); err != nil {
		return nil, fmt.Errorf("preset %q: %w", p.Name, err)
	}
	return args, nil
}
