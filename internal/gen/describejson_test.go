package gen

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/toolapi/toolapi/tool"
)

// TestDescribeJSONMatches checks that MarshalIndented writes the bytes
// json.MarshalIndent gives for the schemas the tool package builds,
// their special forms (true, false, ordered and empty properties)
// included, and for text that encoding/json escapes.
func TestDescribeJSONMatches(t *testing.T) {
	text := "\"quoted\" ünïcödé\n<tag> & \u2028"
	described := (&tool.Tool{
		ID: "a.b", Label: text, Description: text, Operation: tool.OpRead, Permission: "p",
		Inputs: []*tool.Definition{
			{Name: "word", Type: "string", Description: text, Required: true, Examples: []any{"<x>"},
				Constraints: tool.Constraints{Pattern: "^[a-z]+$", Length: &tool.Bounds{Min: tool.Ptr(1)}}},
			{Name: "limit", Type: "float", Default: 10, Constraints: tool.Constraints{Range: &tool.Range{Min: tool.Ptr(1.0), Max: tool.Ptr(1e21)}}},
			{Name: "tags", Type: "list", Items: &tool.Definition{Type: "string", Constraints: tool.Constraints{Choice: []any{"a", "b"}}}},
			{Name: "meta", Type: "map", Values: &tool.Definition{Type: "any"}},
			{Name: "at", Type: "datetime_iso8601", Constraints: tool.Constraints{DateOnly: true}},
		},
		Outputs: []*tool.Definition{
			{Name: "result", Type: "map", Required: true, Nullable: true, Properties: []*tool.Definition{
				{Name: "z", Type: "float", Required: true}, {Name: "a", Type: "boolean"},
				{Name: "html", Type: "string", Constraints: tool.Constraints{Media: "text/html"}},
			}},
		},
	}).Describe()
	if described.InputSchema == nil {
		t.Fatal("the tool does not describe")
	}
	schemas := map[string]*jsonschema.Schema{
		"described":        described.InputSchema,
		"described output": described.OutputSchema,
		"true":             {},
		"false":            {Not: &jsonschema.Schema{}},
		"empty properties": {Type: "object", Properties: map[string]*jsonschema.Schema{}},
		"ordered":          {Properties: map[string]*jsonschema.Schema{"b": {}, "a": {}, "c": {}}, PropertyOrder: []string{"c", "a", "b"}},
	}
	for name, s := range schemas {
		td := &ToolDescription{Info: *described, Undescribed: []string{"input <x>"}}
		td.InputSchema, td.OutputSchema = s, nil
		d := &Description{
			Tools:       []*ToolDescription{td, {Info: tool.Info{ID: "bare"}}},
			Diagnostics: []DiagnosticJSON{{Pos: "a.go:1:2", Tool: "a.x", Method: "S.X", Message: "<bad> & \"worse\""}},
		}
		want, err := json.MarshalIndent(d, "", "  ")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want = append(want, '\n')
		got, err := d.MarshalIndented()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if diff := cmp.Diff(string(want), string(got)); diff != "" {
			t.Errorf("%s: MarshalIndented differs from json.MarshalIndent (-want +got):\n%s", name, diff)
		}
	}
	many := &Description{Diagnostics: []DiagnosticJSON{}}
	for i := range 101 {
		many.Tools = append(many.Tools, &ToolDescription{Info: tool.Info{ID: strconv.Itoa(i), InputSchema: schemas["ordered"]}})
	}
	want, _ := json.MarshalIndent(many, "", "  ")
	if got, err := many.MarshalIndented(); err != nil || string(got) != string(want)+"\n" {
		t.Errorf("101 tools (%v):\n%s", err, cmp.Diff(string(want)+"\n", string(got)))
	}
	empty := &Description{Tools: []*ToolDescription{}, Diagnostics: []DiagnosticJSON{}}
	want, _ = json.MarshalIndent(empty, "", "  ")
	if got, _ := empty.MarshalIndented(); string(got) != string(want)+"\n" {
		t.Errorf("no tools: got\n%s\nwant\n%s", got, want)
	}
}
