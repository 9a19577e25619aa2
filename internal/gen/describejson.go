package gen

import (
	"bytes"
	"encoding/json"

	"github.com/toolapi/toolapi/internal/schemajson"
)

// MarshalIndented returns d as indented JSON ending in a newline: the bytes
// json.MarshalIndent(d, "", "  ") gives, plus the newline.
//
// encoding/json would encode each schema through
// [jsonschema.Schema.MarshalJSON], which encodes every level with
// reflection and has its bytes compacted again by the level above; the
// schemas are encoded instead by the tool package's encoder
// ([schemajson.Append]) and indented in place, and the rest of the
// document is written as it goes.
func (d *Description) MarshalIndented() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("{\n  \"tools\": [")
	for i, t := range d.Tools {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n    {")
		w := objectWriter{b: &b, indent: "\n      "}
		w.str("id", t.ID)
		w.str("label", t.Label)
		w.str("description", t.Info.Description)
		w.str("operation", string(t.Operation))
		w.raw("destructive", []byte(map[bool]string{true: "true", false: "false"}[t.Destructive]))
		w.str("permission", t.Permission)
		if t.Deprecated != "" {
			w.str("deprecated", t.Deprecated)
		}
		if t.Approver != "" {
			w.str("approver", t.Approver)
		}
		if t.Task != "" {
			w.str("task", string(t.Task))
			w.str("task_ttl", t.TaskTTL)
		}
		if t.Icon != "" {
			w.str("icon", t.Icon)
		}
		if t.Budget != nil {
			budget, err := json.MarshalIndent(t.Budget, w.indent[1:], "  ")
			if err != nil {
				return nil, err
			}
			w.raw("budget", budget)
		}
		if len(t.Needs) > 0 {
			needs, err := json.MarshalIndent(t.Needs, w.indent[1:], "  ")
			if err != nil {
				return nil, err
			}
			w.raw("needs", needs)
		}
		if len(t.Groups) > 0 {
			groups, err := json.MarshalIndent(t.Groups, w.indent[1:], "  ")
			if err != nil {
				return nil, err
			}
			w.raw("groups", groups)
		}
		w.schema("input_schema", schemajson.Append(nil, t.InputSchema))
		w.schema("output_schema", schemajson.Append(nil, t.OutputSchema))
		if len(t.Undescribed) > 0 {
			b.WriteString(",\n      \"undescribed\": [")
			for j, u := range t.Undescribed {
				if j > 0 {
					b.WriteByte(',')
				}
				b.WriteString("\n        ")
				b.Write(quote(u))
			}
			b.WriteString("\n      ]")
		}
		b.WriteString("\n    }")
	}
	if len(d.Tools) > 0 {
		b.WriteString("\n  ")
	}
	b.WriteString("],\n  \"diagnostics\": ")
	diags, err := json.MarshalIndent(d.Diagnostics, "  ", "  ")
	if err != nil {
		return nil, err
	}
	b.Write(diags)
	b.WriteString("\n}\n")
	return b.Bytes(), nil
}

// An objectWriter writes the members of a JSON object, one a line.
type objectWriter struct {
	b      *bytes.Buffer
	indent string
	n      int
}

func (w *objectWriter) key(name string) {
	if w.n > 0 {
		w.b.WriteByte(',')
	}
	w.n++
	w.b.WriteString(w.indent)
	w.b.Write(quote(name))
	w.b.WriteString(": ")
}

func (w *objectWriter) str(name, v string) { w.raw(name, quote(v)) }

func (w *objectWriter) raw(name string, v []byte) {
	w.key(name)
	w.b.Write(v)
}

// schema writes a schema's compact JSON indented to its place, with <, >,
// & and the line and paragraph separators escaped inside strings, as
// encoding/json escapes them.
func (w *objectWriter) schema(name string, v []byte) {
	w.key(name)
	var escaped bytes.Buffer
	json.HTMLEscape(&escaped, v)
	json.Indent(w.b, escaped.Bytes(), w.indent[1:], "  ")
}

// quote returns s as a JSON string, escaped as encoding/json escapes it.
func quote(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}
