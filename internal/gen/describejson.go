package gen

import (
	"encoding/json"

	"github.com/toolapi/toolapi/internal/schemajson"
	"github.com/toolapi/toolapi/tool"
)

// MarshalIndented returns d as indented JSON ending in a newline: the bytes
// json.MarshalIndent(d, "", "  ") gives, plus the newline.
//
// encoding/json would encode each schema through
// [jsonschema.Schema.MarshalJSON], which encodes every level with
// reflection and has its bytes compacted again by the level above; the
// schemas are encoded instead by the tool package's encoder
// ([schemajson.Append]), and the document is indented once.
func (d *Description) MarshalIndented() ([]byte, error) {
	type toolJSON struct {
		ID           string          `json:"id"`
		Label        string          `json:"label"`
		Description  string          `json:"description"`
		Operation    tool.Operation  `json:"operation"`
		Destructive  bool            `json:"destructive"`
		Permission   string          `json:"permission"`
		Deprecated   string          `json:"deprecated,omitempty"`
		InputSchema  json.RawMessage `json:"input_schema"`
		OutputSchema json.RawMessage `json:"output_schema"`
		Undescribed  []string        `json:"undescribed,omitempty"`
	}
	doc := struct {
		Tools       []toolJSON       `json:"tools"`
		Diagnostics []DiagnosticJSON `json:"diagnostics"`
	}{Tools: make([]toolJSON, len(d.Tools)), Diagnostics: d.Diagnostics}
	for i, t := range d.Tools {
		doc.Tools[i] = toolJSON{
			ID: t.ID, Label: t.Label, Description: t.Info.Description, Operation: t.Operation,
			Destructive: t.Destructive, Permission: t.Permission,
			Deprecated:   t.Deprecated,
			InputSchema:  schemajson.Append(nil, t.InputSchema),
			OutputSchema: schemajson.Append(nil, t.OutputSchema),
			Undescribed:  t.Undescribed,
		}
	}
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}
