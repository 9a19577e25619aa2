package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolapi/toolapi/tool"
)

// TestElicitationSchema builds a form of every kind of field and sends it
// through a real MCP client, which checks elicitation schemas as the
// protocol restricts them: the client takes it and its handler sees
// titled single and multi-select choices.
func TestElicitationSchema(t *testing.T) {
	s, err := tool.ElicitationSchema(
		&tool.Definition{Name: "name", Type: "string", Label: "Name", Required: true, Constraints: tool.Constraints{Length: &tool.Bounds{Max: tool.Ptr(40)}}},
		&tool.Definition{Name: "mail", Type: "email"},
		&tool.Definition{Name: "born", Type: "datetime_iso8601", Constraints: tool.Constraints{DateOnly: true}},
		&tool.Definition{Name: "age", Type: "integer", Default: 30, Constraints: tool.Constraints{Range: &tool.Range{Min: tool.Ptr(0.0)}}},
		&tool.Definition{Name: "score", Type: "float"},
		&tool.Definition{Name: "agree", Type: "boolean"},
		&tool.Definition{Name: "plain", Type: "string", Constraints: tool.Constraints{Choice: []any{"a", "b"}}},
		&tool.Definition{Name: "status", Type: "string", Constraints: tool.Constraints{Choice: []any{"draft", "live"}, ChoiceLabels: []string{"Draft", "Published"}}},
		&tool.Definition{Name: "tags", Type: "list", Items: &tool.Definition{Type: "string"},
			Constraints: tool.Constraints{Choice: []any{"x", "y"}, ChoiceLabels: []string{"Ex", "Why"}, Count: &tool.Bounds{Max: tool.Ptr(2)}}},
		&tool.Definition{Name: "sizes", Type: "list", Items: &tool.Definition{Type: "string"}, Constraints: tool.Constraints{Choice: []any{"s", "m"}}},
	)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	json.Unmarshal(b, &got)
	props := got["properties"].(map[string]any)
	want := map[string]any{
		"name":   map[string]any{"type": "string", "title": "Name", "maxLength": 40.0},
		"status": map[string]any{"type": "string", "oneOf": []any{map[string]any{"const": "draft", "title": "Draft"}, map[string]any{"const": "live", "title": "Published"}}},
		"tags": map[string]any{"type": "array", "maxItems": 2.0,
			"items": map[string]any{"anyOf": []any{map[string]any{"const": "x", "title": "Ex"}, map[string]any{"const": "y", "title": "Why"}}}},
		"sizes": map[string]any{"type": "array", "maxItems": 1000.0, "items": map[string]any{"type": "string", "enum": []any{"s", "m"}}},
		"born":  map[string]any{"type": "string", "format": "date"},
	}
	for name, w := range want {
		if diff := cmp.Diff(w, props[name]); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
	if _, ok := got["additionalProperties"]; ok {
		t.Errorf("a form refuses additional properties: %s", b)
	}

	// A real client takes it.
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	var seen *mcp.ElicitRequest
	c := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			seen = r
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada", "status": "live", "tags": []any{"x"}}}, nil
		},
	})
	cs, err := c.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := ss.Elicit(ctx, &mcp.ElicitParams{Message: "Who are you?", RequestedSchema: s})
	if err != nil {
		t.Fatalf("the client refuses the form: %v", err)
	}
	if res.Action != "accept" || seen == nil {
		t.Fatalf("result %+v", res)
	}
}

// A form field is a string, number, boolean or list of string choices.
func TestElicitationSchemaRefuses(t *testing.T) {
	for _, tt := range []struct {
		def  *tool.Definition
		want string
	}{
		{&tool.Definition{Name: "m", Type: "map", Properties: []*tool.Definition{{Name: "a", Type: "string"}}}, "not map"},
		{&tool.Definition{Name: "l", Type: "list", Items: &tool.Definition{Type: "string"}}, "not list"},
		{&tool.Definition{Name: "e", Type: "entity:album", EntityOp: "view"}, "not entity:album"},
		{&tool.Definition{Name: "n", Type: "integer", Constraints: tool.Constraints{Choice: []any{1, 2}}}, "not integer"},
		{&tool.Definition{Name: "c", Type: "string", Constraints: tool.Constraints{Choice: []any{"a"}, ChoiceLabels: []string{"A", "B"}}}, "2 choice labels for 1 choices"},
		{&tool.Definition{Type: "string"}, "has no name"},
	} {
		_, err := tool.ElicitationSchema(tt.def)
		var de *tool.DefinitionError
		if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.As(err, &de) {
			t.Errorf("%s: error %v, want a DefinitionError containing %q", tt.def.Name, err, tt.want)
		}
	}
	if _, err := tool.ElicitationSchema(&tool.Definition{Name: "a", Type: "string"}, &tool.Definition{Name: "a", Type: "string"}); err == nil || !strings.Contains(err.Error(), "defined twice") {
		t.Errorf("two fields of one name: %v", err)
	}
}
