package tool

import (
	"encoding/json"
	"sync"

	"github.com/toolapi/toolapi/internal/schemajson"
)

// InputSchemaJSON returns the JSON of the tool's input schema, or nil.
func (r *Registry) InputSchemaJSON(id string) json.RawMessage {
	p := r.entry(id)
	if p == nil {
		return nil
	}
	p.inJSON.once.Do(func() { p.inJSON.b = schemajson.Append(nil, p.inSchema) })
	return p.inJSON.b
}

// OutputSchemaJSON is [Registry.InputSchemaJSON] for the output schema.
func (r *Registry) OutputSchemaJSON(id string) json.RawMessage {
	p := r.entry(id)
	if p == nil {
		return nil
	}
	p.outJSON.once.Do(func() { p.outJSON.b = schemajson.Append(nil, p.outSchema) })
	return p.outJSON.b
}

type encodedSchema struct {
	once sync.Once
	b    []byte
}
