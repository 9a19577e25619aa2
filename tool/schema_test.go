package tool

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolapi/toolapi/internal/schemajson"
)

// TestSchema checks every row of the definition-to-JSON-Schema mapping.
func TestSchema(t *testing.T) {
	tests := []struct {
		name   string
		def    *Definition
		output bool
		want   string
	}{
		{"string", &Definition{Name: "x", Type: "string"}, false, `{"type":"string","pattern":"^[^\\x00]*$"}`},
		{"string allowing NUL", &Definition{Name: "x", Type: "string", Constraints: Constraints{AllowNUL: true}}, false, `{"type":"string"}`},
		{"string output", &Definition{Name: "x", Type: "string"}, true, `{"type":"string"}`},
		{"integer", &Definition{Name: "x", Type: "integer"}, false, `{"type":"integer"}`},
		{"float", &Definition{Name: "x", Type: "float"}, false, `{"type":"number"}`},
		{"boolean", &Definition{Name: "x", Type: "boolean"}, false, `{"type":"boolean"}`},
		{"email", &Definition{Name: "x", Type: "email"}, false, `{"type":"string","format":"email"}`},
		{"uri", &Definition{Name: "x", Type: "uri"}, false, `{"type":"string","format":"uri"}`},
		{"datetime", &Definition{Name: "x", Type: "datetime_iso8601"}, false, `{"type":"string","format":"date-time"}`},
		{"dateonly", &Definition{Name: "x", Type: "datetime_iso8601", Constraints: Constraints{DateOnly: true}}, false, `{"type":"string","format":"date"}`},
		{"timestamp", &Definition{Name: "x", Type: "timestamp"}, false, `{"type":"string","format":"date-time"}`},
		{"duration", &Definition{Name: "x", Type: "duration"}, false, `{"type":"string","format":"duration"}`},
		{"entity:ID input", &Definition{Name: "x", Type: "entity:album", EntityOp: "view"}, false, `{"type":"string","description":"The ID of an album.","minLength":1}`},
		{"entity:ID input of a type starting with a u spoken you", &Definition{Name: "x", Type: "entity:user", EntityOp: "view"}, false, `{"type":"string","description":"The ID of a user.","minLength":1}`},
		{"entity:ID input of a type starting with a silent h", &Definition{Name: "x", Type: "entity:hour", EntityOp: "view"}, false, `{"type":"string","description":"The ID of an hour.","minLength":1}`},
		{"entity:ID input with a description", &Definition{Name: "x", Type: "entity:album", EntityOp: "view", Description: "The album to publish"}, false, `{"type":"string","description":"The album to publish. The ID of an album.","minLength":1}`},
		{"list of entities", &Definition{Name: "x", Type: "list", Description: "Albums to merge.", Items: &Definition{Type: "entity:image"}, EntityOp: "view"}, false, `{"type":"array","description":"Albums to merge. Each item is the ID of an image.","items":{"type":"string","minLength":1},"maxItems":1000}`},
		{"entity input", &Definition{Name: "x", Type: "entity", EntityOp: "view"}, false, `{"type":"string","description":"An entity reference TYPE:ID, such as node:12.","minLength":1,"pattern":"^[^:\\n]+:[\\s\\S]+$"}`},
		{"entity input of named types", &Definition{Name: "x", Type: "entity", EntityOp: "view", EntityTypes: []string{"customer", "supplier"}}, false, `{"type":"string","description":"An entity reference TYPE:ID, such as customer:12.","minLength":1,"pattern":"^[^:\\n]+:[\\s\\S]+$"}`},
		{"entity output", &Definition{Name: "x", Type: "entity:album"}, true,
			`{"type":"object","properties":{"entity_type":{"type":"string"},"id":{"type":"string"},"label":{"type":"string"}},"required":["entity_type","id","label"],"additionalProperties":false}`},
		{"list", &Definition{Name: "x", Type: "list", Items: &Definition{Type: "string"}}, false, `{"type":"array","items":{"type":"string","pattern":"^[^\\x00]*$"},"maxItems":1000}`},
		{"list notblank", &Definition{Name: "x", Type: "list", Items: &Definition{Type: "string"}, Constraints: Constraints{NotBlank: true}}, false, `{"type":"array","items":{"type":"string","pattern":"^[^\\x00]*$"},"minItems":1,"maxItems":1000}`},
		{"list count", &Definition{Name: "x", Type: "list", Items: &Definition{Type: "integer"}, Constraints: Constraints{Count: &Bounds{Min: Ptr(2), Max: Ptr(5)}}}, false, `{"type":"array","items":{"type":"integer"},"minItems":2,"maxItems":5}`},
		{"list count above the default", &Definition{Name: "x", Type: "list", Items: &Definition{Type: "integer"}, Constraints: Constraints{Count: &Bounds{Max: Ptr(5000)}}}, false, `{"type":"array","items":{"type":"integer"},"maxItems":5000}`},
		{"list output", &Definition{Name: "x", Type: "list", Items: &Definition{Type: "integer"}}, true, `{"type":"array","items":{"type":"integer"}}`},
		{"list item constraints", &Definition{Name: "x", Type: "list", Items: &Definition{Type: "string"}, Constraints: Constraints{Choice: []any{"a", "b"}, Length: &Bounds{Max: Ptr(3)}}}, false, `{"type":"array","items":{"type":"string","enum":["a","b"],"maxLength":3},"maxItems":1000}`},
		{"list examples on items", &Definition{Name: "x", Type: "list", Items: &Definition{Type: "string"}, Examples: []any{"red"}}, false, `{"type":"array","items":{"type":"string","examples":["red"],"pattern":"^[^\\x00]*$"},"maxItems":1000}`},
		{"map with properties", &Definition{Name: "x", Type: "map", Properties: []*Definition{
			{Name: "b", Type: "integer", Required: true}, {Name: "a", Type: "string"}}}, false,
			`{"type":"object","properties":{"b":{"type":"integer"},"a":{"type":"string","pattern":"^[^\\x00]*$"}},"required":["b"],"additionalProperties":false}`},
		{"map notblank", &Definition{Name: "x", Type: "map", Properties: []*Definition{{Name: "a", Type: "string"}}, Constraints: Constraints{NotBlank: true}}, false,
			`{"type":"object","properties":{"a":{"type":"string","pattern":"^[^\\x00]*$"}},"additionalProperties":false,"minProperties":1}`},
		{"map without properties", &Definition{Name: "x", Type: "map", Values: &Definition{Type: "integer"}}, false, `{"type":"object","additionalProperties":{"type":"integer"}}`},
		{"free-form map", &Definition{Name: "x", Type: "map"}, false, `{"type":"object"}`},
		{"any", &Definition{Name: "x", Type: "any"}, false, `{"not":{"type":"null"}}`},
		{"nullable any", &Definition{Name: "x", Type: "any", Nullable: true}, true, `true`},
		{"label and description", &Definition{Name: "x", Type: "string", Label: "Word", Description: "A word."}, false, `{"type":"string","title":"Word","description":"A word.","pattern":"^[^\\x00]*$"}`},
		{"text needing escapes", &Definition{Name: "x", Type: "string", Description: "Say \"hi\" <b>\u00e9\t\x01\u2028"}, false, `{"type":"string","description":"Say \"hi\" <b>\u00e9\t\u0001\u2028","pattern":"^[^\\x00]*$"}`},
		{"default and example", &Definition{Name: "x", Type: "integer", Default: 10, Examples: []any{5}}, false, `{"type":"integer","default":10,"examples":[5]}`},
		{"choice", &Definition{Name: "x", Type: "string", Constraints: Constraints{Choice: []any{"a", "b"}}}, false, `{"type":"string","enum":["a","b"]}`},
		{"titled choice", &Definition{Name: "x", Type: "string", Constraints: Constraints{Choice: []any{"draft", "live"}, ChoiceLabels: []string{"Draft", "Published"}}}, false,
			`{"type":"string","oneOf":[{"const":"draft","title":"Draft"},{"const":"live","title":"Published"}]}`},
		{"titled integer choice", &Definition{Name: "x", Type: "integer", Constraints: Constraints{Choice: []any{1, 2}, ChoiceLabels: []string{"One", "Two"}}}, false,
			`{"type":"integer","oneOf":[{"const":1,"title":"One"},{"const":2,"title":"Two"}]}`},
		{"titled multi-select list", &Definition{Name: "x", Type: "list", Items: &Definition{Type: "string"}, Constraints: Constraints{Choice: []any{"a", "b"}, ChoiceLabels: []string{"A", "B"}, Count: &Bounds{Max: Ptr(2)}}}, false,
			`{"type":"array","items":{"anyOf":[{"const":"a","title":"A"},{"const":"b","title":"B"}]},"maxItems":2}`},
		{"titled choice output", &Definition{Name: "x", Type: "string", Constraints: Constraints{Choice: []any{"draft"}, ChoiceLabels: []string{"Draft"}}}, true,
			`{"type":"string","enum":["draft"]}`},
		{"nullable choice", &Definition{Name: "x", Type: "string", Nullable: true, Constraints: Constraints{Choice: []any{"a"}}}, true, `{"type":["string","null"],"enum":["a",null]}`},
		{"notblank string", &Definition{Name: "x", Type: "string", Constraints: Constraints{NotBlank: true}}, false, `{"type":"string","minLength":1,"pattern":"^[^\\x00]*$"}`},
		{"length", &Definition{Name: "x", Type: "string", Constraints: Constraints{Length: &Bounds{Min: Ptr(2), Max: Ptr(4)}}}, false, `{"type":"string","minLength":2,"maxLength":4,"pattern":"^[^\\x00]*$"}`},
		{"range", &Definition{Name: "x", Type: "float", Constraints: Constraints{Range: &Range{Min: Ptr(0.5), Max: Ptr(9.5)}}}, false, `{"type":"number","minimum":0.5,"maximum":9.5}`},
		{"pattern", &Definition{Name: "x", Type: "string", Constraints: Constraints{Pattern: "^[a-z]+$"}}, false, `{"type":"string","pattern":"^[a-z]+$","not":{"pattern":"\\x00"}}`},
		{"email constraint", &Definition{Name: "x", Type: "string", Constraints: Constraints{Email: true}}, false, `{"type":"string","format":"email","pattern":"^[^\\x00]*$"}`},
		{"base64", &Definition{Name: "x", Type: "string", Constraints: Constraints{Encoding: "base64", Media: "image/png"}}, false,
			`{"type":"string","pattern":"^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$","contentEncoding":"base64","contentMediaType":"image/png"}`},
		{"media on a non-string", &Definition{Name: "x", Type: "integer", Constraints: Constraints{Media: "text/html"}}, true, `{"type":"integer"}`},
		{"media on a nullable string", &Definition{Name: "x", Type: "string", Nullable: true, Constraints: Constraints{Media: "text/html"}}, true, `{"type":["string","null"],"contentMediaType":"text/html"}`},
		{"list examples beside item examples", &Definition{Name: "x", Type: "list", Items: &Definition{Type: "string", Examples: []any{"blue"}}, Examples: []any{"red"}}, true, `{"type":"array","items":{"type":"string","examples":["blue"]}}`},
		{"media", &Definition{Name: "x", Type: "string", Constraints: Constraints{Media: "text/html"}}, false, `{"type":"string","contentMediaType":"text/html","pattern":"^[^\\x00]*$"}`},
		{"nullable", &Definition{Name: "x", Type: "integer", Nullable: true}, true, `{"type":["integer","null"]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var errs definitionErrors
			n := compileNode(tt.def, nil, "x", !tt.output, &errs)
			if err := errs.err(); err != nil {
				t.Fatal(err)
			}
			sch := n.schema(tt.output)
			got, err := json.Marshal(sch)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(decodeJSON(t, tt.want), decodeJSON(t, string(got))); diff != "" {
				t.Errorf("schema mismatch (-want +got):\n%s\ngot %s", diff, got)
			}
			// The encoder the registry uses writes the same document.
			fast := schemajson.Append(nil, sch)
			if diff := cmp.Diff(decodeJSON(t, string(got)), decodeJSON(t, string(fast))); diff != "" {
				t.Errorf("schemajson.Append differs from json.Marshal (-marshal +append):\n%s", diff)
			}
		})
	}
}

// TestToolSchemas checks the object schemas of a tool's inputs and
// outputs: optional inputs left out of required, locked inputs left out
// entirely, additionalProperties false.
func TestToolSchemas(t *testing.T) {
	tl := &Tool{
		ID: "x.y", Label: "Y", Description: "Does y.", Permission: "p",
		Inputs: []*Definition{
			{Name: "word", Type: "string", Required: true},
			{Name: "limit", Type: "integer", Default: 10},
			{Name: "mode", Type: "string", Default: "fast", Locked: true},
		},
		Outputs: []*Definition{{Name: "result", Type: "list", Required: true, Items: &Definition{Type: "string"}}},
		Handler: func(context.Context, *Values) (*Result, error) { return nil, nil },
	}
	in, _ := json.Marshal(tl.Describe().InputSchema)
	out, _ := json.Marshal(tl.Describe().OutputSchema)
	wantIn := `{"type":"object","properties":{"word":{"type":"string","pattern":"^[^\\x00]*$"},"limit":{"type":"integer","default":10}},"required":["word"],"additionalProperties":false}`
	wantOut := `{"type":"object","properties":{"result":{"type":"array","items":{"type":"string"}}},"required":["result"],"additionalProperties":false}`
	if diff := cmp.Diff(decodeJSON(t, wantIn), decodeJSON(t, string(in))); diff != "" {
		t.Errorf("input schema (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(decodeJSON(t, wantOut), decodeJSON(t, string(out))); diff != "" {
		t.Errorf("output schema (-want +got):\n%s", diff)
	}
}

func decodeJSON(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("bad JSON %s: %v", s, err)
	}
	return v
}

// TestIntegerBoundsExact checks that an integer's range bounds must be
// whole numbers a float64 holds exactly, so that the schema's bound and
// the validator's are the same number.
func TestIntegerBoundsExact(t *testing.T) {
	for _, rng := range []*Range{
		{Max: Ptr(float64(1 << 63))},
		{Min: Ptr(-float64(1<<53) - 2)},
		{Min: Ptr(0.5)},
	} {
		r := newQuietRegistry()
		err := r.Add(&Tool{ID: "t.n", Label: "N", Description: "Takes a number.", Permission: "p",
			Inputs:  []*Definition{{Name: "n", Type: "integer", Constraints: Constraints{Range: rng}}},
			Handler: func(context.Context, *Values) (*Result, error) { return nil, nil }})
		if err == nil || !strings.Contains(err.Error(), "inputs.n: a range bound of an integer must be a whole number from -9007199254740991 to 9007199254740991") {
			t.Errorf("range %v..%v: %v, want the bound refused", rng.Min, rng.Max, err)
		}
	}
	r := newQuietRegistry()
	err := r.Add(&Tool{ID: "t.n", Label: "N", Description: "Takes a number.", Permission: "p",
		Inputs: []*Definition{
			{Name: "n", Type: "integer", Constraints: Constraints{Range: &Range{Min: Ptr(-9007199254740991.0), Max: Ptr(9007199254740991.0)}}},
			{Name: "f", Type: "float", Constraints: Constraints{Range: &Range{Min: Ptr(0.5), Max: Ptr(1e300)}}},
		},
		Handler: func(context.Context, *Values) (*Result, error) { return nil, nil }})
	if err != nil {
		t.Errorf("exact integer bounds and any float bounds: %v", err)
	}
}

// Choice labels go one to each choice, none blank.
func TestChoiceLabelsChecked(t *testing.T) {
	for _, tt := range []struct {
		c    Constraints
		want string
	}{
		{Constraints{Choice: []any{"a", "b"}, ChoiceLabels: []string{"A"}}, "1 choice labels for 2 choices"},
		{Constraints{Choice: []any{"a"}, ChoiceLabels: []string{" "}}, "a choice label is blank"},
	} {
		var errs definitionErrors
		compileNode(&Definition{Name: "x", Type: "string", Constraints: tt.c}, nil, "inputs.x", true, &errs)
		err := errs.err()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: error %v, want %q", tt.c, err, tt.want)
		}
		var de *DefinitionError
		if !errors.As(err, &de) || de.Rule != "choice" || de.Path != "inputs.x" {
			t.Errorf("%+v: error %#v, want rule choice at inputs.x", tt.c, de)
		}
	}
}
