package gen

import (
	"encoding/json"
	"reflect"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/toolapi/toolapi/tool"
)

// fill sets every field of the struct v points to (a jsonschema.Schema
// or a ToolDescription) to a value that is not empty, so that a field the
// writer of MarshalIndented does not know shows in the comparison with
// encoding/json. Nested schemas are filled to depth levels.
func fill(t *testing.T, v reflect.Value, depth int) {
	t.Helper()
	schemaType := reflect.TypeFor[*jsonschema.Schema]()
	sub := func() *jsonschema.Schema {
		s := &jsonschema.Schema{}
		if depth > 0 {
			fill(t, reflect.ValueOf(s).Elem(), depth-1)
			s.Types, s.Definitions, s.ItemsArray, s.DependencyStrings = nil, nil, nil, nil
		} else {
			s.Title = "leaf <b>&</b>"
		}
		return s
	}
	for i := range v.NumField() {
		f := v.Field(i)
		name := v.Type().Field(i).Name
		switch f.Interface().(type) {
		case string, tool.Operation:
			f.SetString(name + " \"quoted\" ünïcödé\n<tag> & \u2028")
		case bool:
			f.SetBool(true)
		case *jsonschema.Schema:
			f.Set(reflect.ValueOf(sub()))
		case []*jsonschema.Schema:
			f.Set(reflect.ValueOf([]*jsonschema.Schema{sub(), {}, {Not: &jsonschema.Schema{}}}))
		case map[string]*jsonschema.Schema:
			f.Set(reflect.ValueOf(map[string]*jsonschema.Schema{"zeta": sub(), "alpha": {Type: "string"}, "mid": nil}))
		case map[string][]string:
			f.Set(reflect.ValueOf(map[string][]string{"dep": {"a", "b"}}))
		case map[string]bool:
			f.Set(reflect.ValueOf(map[string]bool{"https://example.com/vocab": true}))
		case map[string]any:
			f.Set(reflect.ValueOf(map[string]any{"x-b": 1, "x-a": []any{"<", 2.5}}))
		case json.RawMessage:
			f.Set(reflect.ValueOf(json.RawMessage(`{ "a" : [1, 2, {"b": "<c>"}] }`)))
		case []any:
			f.Set(reflect.ValueOf([]any{"x", 1.5, 1e21, map[string]any{"k": "<v>"}, nil}))
		case []string:
			f.Set(reflect.ValueOf([]string{"zeta", "alpha", "m&m"}))
		case *any:
			var c any = map[string]any{"c": 1}
			f.Set(reflect.ValueOf(&c))
		case *float64:
			x := -2.5e-7
			f.Set(reflect.ValueOf(&x))
		case *int:
			n := 3
			f.Set(reflect.ValueOf(&n))
		case tool.Info:
			fill(t, f, depth)
		default:
			t.Fatalf("fill: field %s of %s has type %s, which the test does not know; teach it and the writer of MarshalIndented", name, v.Type(), f.Type())
		}
		if f.Type() == schemaType && name == "Not" {
			f.Set(reflect.ValueOf(&jsonschema.Schema{}))
		}
	}
}

// TestDescribeJSONMatches checks that MarshalIndented writes the bytes
// json.MarshalIndent gives for descriptions that use every field of
// jsonschema.Schema and tool.Description, and the special forms of
// schemas (true, false, an empty properties map, items as an array).
func TestDescribeJSONMatches(t *testing.T) {
	full := func(clear func(*jsonschema.Schema)) *jsonschema.Schema {
		s := &jsonschema.Schema{}
		fill(t, reflect.ValueOf(s).Elem(), 2)
		clear(s)
		return s
	}
	schemas := map[string]*jsonschema.Schema{
		"every field, Type, Defs, Items": full(func(s *jsonschema.Schema) {
			s.Types, s.Definitions, s.ItemsArray, s.DependencyStrings = nil, nil, nil, nil
		}),
		"every field, Types, Definitions, ItemsArray": full(func(s *jsonschema.Schema) {
			s.Type, s.Defs, s.Items, s.DependencySchemas = "", nil, nil, nil
		}),
		"true":             {},
		"false":            {Not: &jsonschema.Schema{}},
		"not and more":     {Not: &jsonschema.Schema{}, Title: "t"},
		"empty properties": {Type: "object", Properties: map[string]*jsonschema.Schema{}, PropertyOrder: []string{"gone"}},
		"empty items":      {ItemsArray: []*jsonschema.Schema{}, Types: []string{}},
		"ordered":          {Properties: map[string]*jsonschema.Schema{"b": {}, "a": {}, "c": {}}, PropertyOrder: []string{"c", "x"}},
		"extra only":       {Extra: map[string]any{"x": true}},
	}
	for name, s := range schemas {
		td := &ToolDescription{}
		fill(t, reflect.ValueOf(td).Elem(), 0)
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
	// Many tools are written in parallel runs and joined.
	many := &Description{Diagnostics: []DiagnosticJSON{}}
	for i := range 101 {
		td := &ToolDescription{Info: tool.Info{ID: strconv.Itoa(i), InputSchema: schemas["ordered"]}}
		many.Tools = append(many.Tools, td)
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
