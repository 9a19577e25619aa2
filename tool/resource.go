package tool

import "encoding/base64"

// MediaResource is the media type of an output that holds a [Resource].
const MediaResource = "application/vnd.toolapi.resource+json"

// A Resource is content a tool returns by reference and value, as MCP's
// embedded resources.
type Resource struct {
	URI       string
	MediaType string
	Text      string
	Blob      []byte
}

// ResourceDefinition defines a required output that holds a [Resource].
func ResourceDefinition(name, description string) *Definition {
	return &Definition{
		Name: name, Type: "map", Description: description, Required: true,
		Constraints: Constraints{Media: MediaResource},
		Properties: []*Definition{
			{Name: "uri", Type: "uri", Required: true},
			{Name: "mime_type", Type: "string", Required: true},
			{Name: "text", Type: "string"},
			{Name: "blob", Type: "string", Constraints: Constraints{Media: "application/octet-stream"}},
		},
	}
}

func (res Resource) toMap() map[string]any {
	m := map[string]any{"uri": res.URI, "mime_type": res.MediaType}
	if res.Blob != nil {
		m["blob"] = base64.StdEncoding.EncodeToString(res.Blob)
	} else {
		m["text"] = res.Text
	}
	return m
}
