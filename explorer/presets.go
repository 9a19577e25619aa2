package explorer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/google/jsonschema-go/jsonschema"
	validator "github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

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

// presetSchemas compiles preset schemas once per tool.
type presetSchemas struct {
	mu sync.Mutex
	m  map[*tool.Tool]*validator.Schema
}

func newPresetSchemas() *presetSchemas {
	return &presetSchemas{m: make(map[*tool.Tool]*validator.Schema)}
}

func (ps *presetSchemas) reset() {
	ps.mu.Lock()
	clear(ps.m)
	ps.mu.Unlock()
}

func (ps *presetSchemas) get(t *tool.Tool) (*validator.Schema, error) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if s, ok := ps.m[t]; ok {
		return s, nil
	}
	schema := PresetSchema(t)
	if schema == nil {
		return nil, errors.New("the tool's definitions are invalid")
	}
	b, err := json.Marshal(schema)
	if err != nil {
		return nil, err
	}
	doc, err := validator.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	c := validator.NewCompiler()
	c.DefaultDraft(validator.Draft2020)
	c.AssertFormat()
	const loc = "mem:///preset.json"
	if err := c.AddResource(loc, doc); err != nil {
		return nil, err
	}
	s, err := c.Compile(loc)
	if err != nil {
		return nil, err
	}
	ps.m[t] = s
	return s, nil
}

// presetValues turns the arguments of a form (text as typed) into the JSON
// object a preset stores, and checks it against t's preset schema. The
// text is converted as the schema's types say ("10" to 10 for an integer),
// so the stored values are typed JSON. It returns the violations found,
// by path.
func (e *server) presetValues(t *tool.Tool, args map[string]any) (json.RawMessage, []tool.Violation, error) {
	schema := PresetSchema(t)
	if schema == nil {
		return nil, nil, errors.New("the tool's definitions are invalid")
	}
	values := make(map[string]any, len(args))
	for k, v := range args {
		values[k] = jsonValue(schema.Properties[k], v)
	}
	b, err := json.Marshal(values)
	if err != nil {
		return nil, nil, err
	}
	vs, err := e.checkPreset(t, b)
	return b, vs, err
}

// checkPreset validates stored values against t's preset schema.
func (e *server) checkPreset(t *tool.Tool, values []byte) ([]tool.Violation, error) {
	compiled, err := e.schemas.get(t)
	if err != nil {
		return nil, err
	}
	inst, err := validator.UnmarshalJSON(bytes.NewReader(values))
	if err != nil {
		return []tool.Violation{{Message: "the values are not JSON"}}, nil
	}
	err = compiled.Validate(inst)
	var ve *validator.ValidationError
	if errors.As(err, &ve) {
		var vs []tool.Violation
		collectViolations(ve, inst, &vs)
		return vs, nil
	}
	return nil, err
}

var printer = message.NewPrinter(language.English)

// collectViolations turns the leaves of a validation error into
// violations with paths such as "tags[2]".
func collectViolations(ve *validator.ValidationError, inst any, vs *[]tool.Violation) {
	if len(ve.Causes) > 0 {
		for _, c := range ve.Causes {
			collectViolations(c, inst, vs)
		}
		return
	}
	path := instancePath(inst, ve.InstanceLocation)
	switch k := ve.ErrorKind.(type) {
	case *kind.Required:
		for _, m := range k.Missing {
			*vs = append(*vs, tool.Violation{Path: joinPath(path, m), Message: "is required"})
		}
	case *kind.AdditionalProperties:
		for _, p := range k.Properties {
			*vs = append(*vs, tool.Violation{Path: joinPath(path, p), Message: "is not a known property"})
		}
	case *kind.Not:
		*vs = append(*vs, tool.Violation{Path: path, Message: "must not be null"})
	default:
		*vs = append(*vs, tool.Violation{Path: path, Message: ve.ErrorKind.LocalizedString(printer)})
	}
}

func joinPath(parent, name string) string {
	if parent == "" {
		return name
	}
	return parent + "." + name
}

// instancePath turns a JSON pointer's tokens into a violation path,
// writing the items of arrays as "[i]".
func instancePath(inst any, tokens []string) string {
	var b strings.Builder
	cur := inst
	for _, tok := range tokens {
		switch c := cur.(type) {
		case []any:
			b.WriteString("[" + tok + "]")
			if i, err := strconv.Atoi(tok); err == nil && i >= 0 && i < len(c) {
				cur = c[i]
			} else {
				cur = nil
			}
		case map[string]any:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(tok)
			cur = c[tok]
		default:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(tok)
			cur = nil
		}
	}
	return b.String()
}

// jsonValue converts the text in v to the JSON types s asks for.
func jsonValue(s *jsonschema.Schema, v any) any {
	switch x := v.(type) {
	case tool.Text:
		return textValue(s, string(x))
	case []any:
		var items *jsonschema.Schema
		if s != nil {
			items = s.Items
		}
		out := make([]any, len(x))
		for i, item := range x {
			out[i] = jsonValue(items, item)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, pv := range x {
			var ps *jsonschema.Schema
			if s != nil {
				ps = s.Properties[k]
				if ps == nil {
					ps = s.AdditionalProperties
				}
			}
			out[k] = jsonValue(ps, pv)
		}
		return out
	}
	return v
}

func schemaType(s *jsonschema.Schema) string {
	if s == nil {
		return ""
	}
	if s.Type != "" {
		return s.Type
	}
	for _, t := range s.Types {
		if t != "null" {
			return t
		}
	}
	return ""
}

// textValue converts text typed by a person to the JSON type s asks for;
// text that does not convert stays text, for the schema to reject.
func textValue(s *jsonschema.Schema, t string) any {
	trimmed := strings.TrimSpace(t)
	switch schemaType(s) {
	case "integer":
		if i, err := strconv.ParseInt(trimmed, 10, 64); err == nil {
			return i
		}
	case "number":
		if f, err := strconv.ParseFloat(trimmed, 64); err == nil {
			return f
		}
	case "boolean":
		switch strings.ToLower(trimmed) {
		case "true", "1", "yes", "on":
			return true
		case "false", "0", "no", "off", "":
			return false
		}
	case "array":
		if strings.HasPrefix(trimmed, "[") {
			var l []any
			if json.Unmarshal([]byte(trimmed), &l) == nil {
				return l
			}
		}
		return []any{textValue(s.Items, t)}
	case "object":
		var m map[string]any
		if json.Unmarshal([]byte(trimmed), &m) == nil && m != nil {
			return m
		}
	case "string":
		switch s.Format {
		case "date-time":
			for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04", "2006-01-02T15:04:05", "2006-01-02 15:04", "2006-01-02 15:04:05", "2006-01-02"} {
				if tm, err := time.Parse(layout, trimmed); err == nil {
					return tm.UTC().Format(time.RFC3339Nano)
				}
			}
		case "date":
			return trimmed
		case "duration":
			if d, err := time.ParseDuration(trimmed); err == nil {
				return isoDuration(d)
			}
			return trimmed
		}
	}
	return t
}

// isoDuration writes d in ISO 8601 form: PT1H30M, PT0.5S, -PT2M.
func isoDuration(d time.Duration) string {
	var b strings.Builder
	if d < 0 {
		b.WriteByte('-')
		d = -d
	}
	b.WriteString("PT")
	if d == 0 {
		return b.String() + "0S"
	}
	if h := d / time.Hour; h > 0 {
		b.WriteString(strconv.FormatInt(int64(h), 10) + "H")
		d -= h * time.Hour
	}
	if m := d / time.Minute; m > 0 {
		b.WriteString(strconv.FormatInt(int64(m), 10) + "M")
		d -= m * time.Minute
	}
	if d > 0 {
		b.WriteString(strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "S")
	}
	return b.String()
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
