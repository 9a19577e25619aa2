package dialect_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolapi/toolapi/internal/dialect"
)

func decode(t *testing.T, s string) map[string]any {
	t.Helper()
	m, err := dialect.Decode([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// normalize turns json.Numbers into float64s, for comparing with literals.
func normalize(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestConvert(t *testing.T) {
	tests := []struct {
		name    string
		dialect dialect.Dialect
		in      string
		want    string // "" when the dialect cannot express in
	}{
		{
			name: "openai strict: optional becomes nullable, annotations folded", dialect: dialect.OpenAIStrict,
			in: `{"$schema":"x","type":"object","properties":{
				"word":{"type":"string","minLength":1,"examples":["blue"]},
				"limit":{"type":"integer","default":10,"minimum":1},
				"size":{"type":"string","enum":["s","m"]},
				"link":{"type":"string","format":"uri"}},
				"required":["word"],"additionalProperties":false}`,
			want: `{"type":"object","properties":{
				"word":{"type":"string","description":"Example: \"blue\". At least 1 character."},
				"limit":{"type":["integer","null"],"description":"Default: 10.","minimum":1},
				"size":{"type":["string","null"],"enum":["s","m",null]},
				"link":{"type":["string","null"],"description":"Format: uri."}},
				"required":["limit","link","size","word"],"additionalProperties":false}`,
		},
		{
			name: "openai strict: a typed map has no strict form", dialect: dialect.OpenAIStrict,
			in: `{"type":"object","properties":{"m":{"type":"object","additionalProperties":{"type":"integer"}}}}`,
		},
		{
			name: "anthropic strict: any has no strict form", dialect: dialect.AnthropicStrict,
			in: `{"type":"object","properties":{"a":{"not":{"type":"null"}}}}`,
		},
		{
			name: "anthropic strict: optional stays optional, minItems above 1 folded", dialect: dialect.AnthropicStrict,
			in: `{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string","pattern":"^a"},"minItems":2},
				"link":{"type":"string","format":"uri"}},"additionalProperties":false}`,
			want: `{"type":"object","properties":{
				"tags":{"type":"array","items":{"type":"string","description":"Matches the regular expression \"^a\"."},"description":"At least 2 items."},
				"link":{"type":"string","format":"uri"}},"additionalProperties":false}`,
		},
		{
			name: "gemini: one type plus nullable, maps and any as JSON text", dialect: dialect.Gemini,
			in: `{"type":"object","properties":{
				"n":{"type":["integer","null"],"enum":[1,2,null]},
				"s":{"type":"string","contentMediaType":"image/png","contentEncoding":"base64","examples":["x"]},
				"m":{"type":"object","additionalProperties":{"type":"integer"}},
				"a":{"not":{"type":"null"},"description":"Anything."},
				"o":{"type":"object","properties":{"k":{"type":"string"}},"additionalProperties":false}},
				"required":["s"],"additionalProperties":false}`,
			want: `{"type":"object","properties":{
				"n":{"type":"integer","nullable":true,"description":"One of: 1, 2, null."},
				"s":{"type":"string","description":"Encoding: base64. Media type: image/png. Example: \"x\"."},
				"m":{"type":"string","description":"A JSON object with integers as values, written as JSON text."},
				"a":{"type":"string","description":"Anything. Any JSON value, written as JSON text."},
				"o":{"type":"object","properties":{"k":{"type":"string"}}}},
				"required":["s"]}`,
		},
		{
			name: "gemini: no inputs, no parameters", dialect: dialect.Gemini,
			in: `{"type":"object","properties":{},"additionalProperties":false}`, want: `null`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := dialect.Convert(decode(t, tt.in), tt.dialect)
			if tt.want == "" {
				var u *dialect.Unsupported
				if !errors.As(err, &u) {
					t.Fatalf("Convert = %v, %v; want an Unsupported error", got, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var want any
			if err := json.Unmarshal([]byte(tt.want), &want); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, normalize(t, got)); diff != "" {
				t.Errorf("Convert (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRestore(t *testing.T) {
	schema := `{"type":"object","properties":{
		"word":{"type":"string"},"limit":{"type":"integer"},
		"m":{"type":"object","additionalProperties":{"type":"integer"}},
		"a":{"not":{"type":"null"}},
		"s":{"type":"string"},
		"list":{"type":"array","items":{"type":"object","properties":{"x":{"type":"integer"}}}}},
		"required":["word"]}`
	tests := []struct {
		name    string
		dialect dialect.Dialect
		in      string
		want    string
	}{
		{"strict nulls become absences", dialect.OpenAIStrict,
			`{"word":"w","limit":null,"list":[{"x":null}]}`, `{"word":"w","list":[{}]}`},
		{"a required null stays", dialect.OpenAIStrict, `{"word":null}`, `{"word":null}`},
		{"gemini JSON text becomes values", dialect.Gemini,
			`{"word":"w","m":"{\"a\":1}","a":"[1,\"b\"]","s":"{\"kept\":true}"}`,
			`{"word":"w","m":{"a":1},"a":[1,"b"],"s":"{\"kept\":true}"}`},
		{"gemini text that is not JSON stays text", dialect.Gemini, `{"word":"w","a":"hello"}`, `{"word":"w","a":"hello"}`},
		{"gemini objects sent as objects stay", dialect.Gemini, `{"word":"w","m":{"a":1}}`, `{"word":"w","m":{"a":1}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var in, want any
			json.Unmarshal([]byte(tt.in), &in)
			json.Unmarshal([]byte(tt.want), &want)
			got := dialect.Restore(in, decode(t, schema), tt.dialect)
			if diff := cmp.Diff(want, normalize(t, got)); diff != "" {
				t.Errorf("Restore (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFoldAnnotations(t *testing.T) {
	in := decode(t, `{"type":"object","properties":{
		"img":{"type":"string","contentMediaType":"image/png","description":"A picture."},
		"tags":{"type":"array","items":{"type":"string","examples":["a"]},"default":[]}},
		"additionalProperties":false}`)
	want := `{"type":"object","properties":{
		"img":{"type":"string","description":"A picture. Media type: image/png."},
		"tags":{"type":"array","items":{"type":"string","description":"Example: \"a\"."},"description":"Default: []."}},
		"additionalProperties":false}`
	var w any
	json.Unmarshal([]byte(want), &w)
	if diff := cmp.Diff(w, normalize(t, dialect.FoldAnnotations(in))); diff != "" {
		t.Errorf("FoldAnnotations (-want +got):\n%s", diff)
	}
}

// OpenAI's strict mode takes objects nested 10 levels deep, not 11.
func TestStrictDepth(t *testing.T) {
	nest := func(levels int) map[string]any {
		s := map[string]any{"type": "string"}
		for range levels {
			s = map[string]any{"type": "object", "properties": map[string]any{"p": s}, "required": []any{"p"}}
		}
		return s
	}
	if _, err := dialect.Convert(nest(10), dialect.OpenAIStrict); err != nil {
		t.Errorf("10 levels: %v", err)
	}
	var u *dialect.Unsupported
	if _, err := dialect.Convert(nest(11), dialect.OpenAIStrict); !errors.As(err, &u) {
		t.Errorf("11 levels: %v, want an Unsupported error", err)
	}
	if _, err := dialect.Convert(nest(11), dialect.AnthropicStrict); err != nil {
		t.Errorf("Anthropic, 11 levels: %v", err)
	}
}

// TestNotesInWords checks what a dialect says in a description for the
// keywords it drops: a bound of 0 and the rule against NUL say nothing,
// a not of a value says it in words, and no keyword is quoted as a raw
// schema fragment.
func TestNotesInWords(t *testing.T) {
	in := `{"type":"object","properties":{
		"a":{"type":"string","minLength":0,"maxLength":5,"pattern":"^[^\\x00]*$"},
		"b":{"type":"string","pattern":"^[a-z]+$","not":{"pattern":"\\x00"}},
		"c":{"type":"string","not":{"const":"x"}},
		"d":{"type":"string","not":{"enum":["x","y"]}},
		"e":{"type":"array","items":{"type":"string"},"minItems":0,"uniqueItems":true},
		"f":{"type":"string","if":{"const":"a"},"then":{"minLength":2}}},
		"required":["a","b","c","d","e","f"],"additionalProperties":false}`
	want := map[dialect.Dialect]map[string]string{
		dialect.OpenAIStrict: {"a": "At most 5 characters.", "b": "", "c": "Not \"x\".", "d": "Not one of: \"x\", \"y\".", "e": "Items are unique.", "f": ""},
		dialect.AnthropicStrict: {"a": "At most 5 characters.", "b": "Matches the regular expression \"^[a-z]+$\".", "c": "Not \"x\".",
			"d": "Not one of: \"x\", \"y\".", "e": "Items are unique.", "f": ""},
		dialect.Gemini: {"a": "", "b": "", "c": "Not \"x\".", "d": "Not one of: \"x\", \"y\".", "e": "Items are unique.", "f": ""},
	}
	for d, descs := range want {
		out, err := dialect.Convert(decode(t, in), d)
		if err != nil {
			t.Fatalf("dialect %d: %v", d, err)
		}
		props := out["properties"].(map[string]any)
		for name, w := range descs {
			got, _ := props[name].(map[string]any)["description"].(string)
			if got != w {
				t.Errorf("dialect %d: %s: description %q, want %q", d, name, got, w)
			}
		}
	}
}

// TestTitledChoices checks that every dialect takes titled choices (oneOf
// constants, and anyOf constants on a multi-select list's items) as a
// plain enum, with their titles said in the description.
func TestTitledChoices(t *testing.T) {
	in := `{"type":"object","properties":{
		"status":{"type":"string","description":"The status.","oneOf":[{"const":"draft","title":"Draft"},{"const":"live","title":"Published"}]},
		"tags":{"type":"array","items":{"anyOf":[{"const":"a","title":"Alpha"},{"const":"b","title":"b"}]}},
		"level":{"type":"integer","oneOf":[{"const":1},{"const":2}]}},
		"required":["status","tags","level"],"additionalProperties":false}`
	for _, d := range []dialect.Dialect{dialect.OpenAIStrict, dialect.AnthropicStrict, dialect.Gemini} {
		out, err := dialect.Convert(decode(t, in), d)
		if err != nil {
			t.Fatalf("dialect %d: %v", d, err)
		}
		props := normalize(t, out["properties"]).(map[string]any)
		status := props["status"].(map[string]any)
		if diff := cmp.Diff([]any{"draft", "live"}, status["enum"]); diff != "" || status["oneOf"] != nil {
			t.Errorf("dialect %d: status %v", d, status)
		}
		if got, want := status["description"], `The status. Choices: "draft" (Draft), "live" (Published).`; got != want {
			t.Errorf("dialect %d: status description %q, want %q", d, got, want)
		}
		items := props["tags"].(map[string]any)["items"].(map[string]any)
		if diff := cmp.Diff([]any{"a", "b"}, items["enum"]); diff != "" || items["anyOf"] != nil || items["type"] != "string" {
			t.Errorf("dialect %d: tags items %v", d, items)
		}
		if got, want := items["description"], `Choices: "a" (Alpha), "b".`; got != want {
			t.Errorf("dialect %d: tags items description %q, want %q", d, got, want)
		}
		level := props["level"].(map[string]any)
		if d == dialect.Gemini {
			// Gemini takes string enums only: the integer choices are said.
			if level["enum"] != nil || level["description"] != "One of: 1, 2." {
				t.Errorf("dialect %d: level %v", d, level)
			}
		} else if diff := cmp.Diff([]any{1.0, 2.0}, level["enum"]); diff != "" || level["description"] != nil {
			t.Errorf("dialect %d: level %v", d, level)
		}
	}
}
