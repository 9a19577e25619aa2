package funcall_test

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/toolapi/toolapi/funcall"
	"github.com/toolapi/toolapi/internal/kitchensink"
	"github.com/toolapi/toolapi/tool"
)

func kitchen(t *testing.T) (*tool.Registry, *funcall.Toolset) {
	t.Helper()
	reg, err := kitchensink.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return reg, funcall.New(reg, tool.Anonymous)
}

// A declaration as every format has it: a name, whether it is strict, and
// its schema as JSON.
type decl struct {
	name   string
	strict bool
	schema map[string]any // nil when the format declares none
}

func decls(t *testing.T, set *funcall.Toolset, f funcall.Format) []decl {
	t.Helper()
	d, err := set.Declarations(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	var raw []map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	var out []decl
	for _, r := range raw {
		if fn, ok := r["function"].(map[string]any); ok {
			r = fn
		}
		sch, _ := r["parameters"].(map[string]any)
		if sch == nil {
			sch, _ = r["input_schema"].(map[string]any)
		}
		strict, _ := r["strict"].(bool)
		out = append(out, decl{name: r["name"].(string), strict: strict, schema: sch})
	}
	return out
}

func TestDeclarationsGolden(t *testing.T) {
	_, set := kitchen(t)
	for _, f := range funcall.Formats() {
		d, err := set.Declarations(f)
		if err != nil {
			t.Fatal(err)
		}
		golden(t, "kitchen-"+string(f)+".json", d)
	}
	if _, err := set.Declarations("cohere"); err == nil || !strings.Contains(err.Error(), `unknown format "cohere"`) {
		t.Errorf("unknown format: %v", err)
	}
}

// Which tools each strict format can express: all but those with a map
// without declared properties or a value of any type.
func TestStrictChoice(t *testing.T) {
	_, set := kitchen(t)
	for _, f := range []funcall.Format{funcall.OpenAIStrict, funcall.OpenAIResponsesStrict, funcall.AnthropicStrict} {
		var loose []string
		for _, d := range decls(t, set, f) {
			if !d.strict {
				loose = append(loose, d.name)
			}
		}
		if diff := cmp.Diff([]string{"kitchen__nested"}, loose); diff != "" {
			t.Errorf("%s: tools not strict (-want +got):\n%s", f, diff)
		}
	}
}

// The rules each dialect sets, checked on every node of every schema.
func TestDialectRules(t *testing.T) {
	_, set := kitchen(t)
	openai := set_("type", "title", "description", "enum", "const", "properties", "required",
		"additionalProperties", "items", "anyOf", "pattern", "format", "minimum", "maximum",
		"exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems", "maxItems")
	anthropic := set_("type", "title", "description", "enum", "const", "properties", "required",
		"additionalProperties", "items", "anyOf", "allOf", "format", "minItems")
	gemini := set_("type", "title", "description", "enum", "properties", "required", "items", "anyOf",
		"format", "nullable", "minimum", "maximum", "minLength", "maxLength", "pattern", "minItems",
		"maxItems", "minProperties", "maxProperties", "default", "example", "propertyOrdering")
	for _, f := range funcall.Formats() {
		for _, d := range decls(t, set, f) {
			if !validName.MatchString(d.name) {
				t.Errorf("%s: name %q", f, d.name)
			}
			if d.schema == nil {
				if f != funcall.Gemini {
					t.Errorf("%s: %s declares no schema", f, d.name)
				}
				continue
			}
			walk(d.schema, "", func(path string, s map[string]any) {
				where := string(f) + " " + d.name + " " + path
				switch {
				case f == funcall.Gemini:
					for k := range s {
						if !gemini[k] {
							t.Errorf("%s: keyword %q is outside the Gemini subset", where, k)
						}
					}
					if _, ok := s["type"].(string); !ok && s["anyOf"] == nil {
						t.Errorf("%s: type %v is not one type", where, s["type"])
					}
					if s["type"] == "object" && len(props(s)) == 0 {
						t.Errorf("%s: an object without properties", where)
					}
				case d.strict && (f == funcall.OpenAIStrict || f == funcall.OpenAIResponsesStrict):
					for k := range s {
						if !openai[k] {
							t.Errorf("%s: keyword %q is outside the strict subset", where, k)
						}
					}
					if isObject(s) {
						if s["additionalProperties"] != false {
							t.Errorf("%s: additionalProperties %v", where, s["additionalProperties"])
						}
						if diff := cmp.Diff(slices.Sorted(maps.Keys(props(s))), strings_(s["required"])); diff != "" && len(props(s)) > 0 {
							t.Errorf("%s: not every property is required (-properties +required):\n%s", where, diff)
						}
					}
				case d.strict && f == funcall.AnthropicStrict:
					for k := range s {
						if !anthropic[k] {
							t.Errorf("%s: keyword %q is outside Anthropic's strict subset", where, k)
						}
					}
					if isObject(s) && s["additionalProperties"] != false {
						t.Errorf("%s: additionalProperties %v", where, s["additionalProperties"])
					}
				}
			})
		}
	}
	// What a dialect leaves out is said in the description.
	var types map[string]any
	for _, d := range decls(t, set, funcall.Gemini) {
		if d.name == "kitchen__types" {
			types = props(d.schema)
		}
	}
	for name, want := range map[string]string{
		"text":    `Example: "hello".`,
		"picture": "Media type: image/svg+xml.",
		"blob":    "Encoding: base64.",
		"level":   "One of: 1, 2, 3.",
		"link":    "Format: uri.",
	} {
		p, _ := types[name].(map[string]any)
		if desc, _ := p["description"].(string); !strings.Contains(desc, want) {
			t.Errorf("gemini kitchen__types %s: description %q lacks %q", name, desc, want)
		}
	}
}

// In every format the dispatcher runs the tool a name declares, with the
// arguments as that format sends them mapped back: what the tool receives
// is what the sample sent in plain JSON gives it.
func TestDispatchEveryFormat(t *testing.T) {
	reg, set := kitchen(t)
	ctx := context.Background()
	for _, f := range funcall.Formats() {
		for _, d := range decls(t, set, f) {
			id := set.ID(d.name)
			if id == "" {
				t.Fatalf("%s: %s names no tool", f, d.name)
			}
			tl, _ := reg.Tool(id)
			var sample map[string]any
			if err := json.Unmarshal([]byte(kitchensink.Samples[id]), &sample); err != nil {
				t.Fatal(err)
			}
			want := set.Dispatch(ctx, d.name, []byte(kitchensink.Samples[id]))
			if !want.Success || want.Outputs["tool"] != id {
				t.Fatalf("%s: the plain sample fails: %+v", id, want)
			}
			var orig map[string]any
			json.Unmarshal(reg.InputSchemaJSON(tl.ID), &orig)
			args := sample
			if d.schema != nil {
				args = asDialect(sample, orig, d.schema, f, d.strict).(map[string]any)
				if d.strict && f != funcall.Gemini {
					if err := compile(t, d.schema).Validate(roundTrip(t, args)); err != nil {
						t.Errorf("%s %s: the arguments as the model sends them break the declared schema: %v", f, d.name, err)
					}
				}
			}
			b, _ := json.Marshal(args)
			got := set.DispatchFormat(ctx, f, d.name, b)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s %s with %s (-plain +%s):\n%s", f, d.name, b, f, diff)
			}
			// The same call in the envelope the API hands over.
			call := envelope(f, d.name, b)
			if diff := cmp.Diff(want, set.DispatchCall(ctx, f, call)); diff != "" {
				t.Errorf("%s call %s (-plain +call):\n%s", f, call, diff)
			}
		}
	}
	if r := set.DispatchCall(ctx, funcall.OpenAI, []byte(`{"id":"x"}`)); r.ErrorType != funcall.InvalidInput {
		t.Errorf("a call without a name: %+v", r)
	}
}

// Strict nulls are absences, so an input that refuses null still refuses
// it outside strict formats, and gets its default in them.
func TestDispatchStrictNull(t *testing.T) {
	_, set := kitchen(t)
	ctx := context.Background()
	args := []byte(`{"text":"hi","strict_null":null}`)
	if r := set.Dispatch(ctx, "kitchen__types", args); r.ErrorType != funcall.InvalidInput {
		t.Errorf("plain: null for a notnull input: %+v", r)
	}
	r := set.DispatchFormat(ctx, funcall.OpenAIStrict, "kitchen__types", args)
	if !r.Success || slices.Contains(r.Outputs["received"].([]any), "strict_null") {
		t.Errorf("strict: null for an optional input: %+v", r)
	}
}

// asDialect returns the arguments v, valid under the original schema orig,
// as a model declared d in format f sends them: in strict OpenAI every
// optional property absent is null; in Gemini a map without declared
// properties, or a value of any type, is its JSON text.
func asDialect(v any, orig, d map[string]any, f funcall.Format, strict bool) any {
	openaiStrict := strict && (f == funcall.OpenAIStrict || f == funcall.OpenAIResponsesStrict)
	if f == funcall.Gemini && d["type"] == "string" && (orig["type"] == nil || isObject(orig) && orig["properties"] == nil) {
		b, _ := json.Marshal(v)
		return string(b)
	}
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		dp, op := props(d), props(orig)
		for k, pv := range x {
			ds, _ := dp[k].(map[string]any)
			os, _ := op[k].(map[string]any)
			if ds == nil {
				out[k] = pv
				continue
			}
			out[k] = asDialect(pv, os, ds, f, strict)
		}
		if openaiStrict {
			for k := range dp {
				if _, ok := out[k]; !ok {
					out[k] = nil
				}
			}
		}
		return out
	case []any:
		di, _ := d["items"].(map[string]any)
		oi, _ := orig["items"].(map[string]any)
		out := make([]any, len(x))
		for i, iv := range x {
			if di == nil {
				out[i] = iv
				continue
			}
			out[i] = asDialect(iv, oi, di, f, strict)
		}
		return out
	}
	return v
}

func envelope(f funcall.Format, name string, args []byte) []byte {
	var call any
	switch f {
	case funcall.OpenAI, funcall.OpenAIStrict:
		call = map[string]any{"id": "call_1", "type": "function", "function": map[string]any{"name": name, "arguments": string(args)}}
	case funcall.OpenAIResponses, funcall.OpenAIResponsesStrict:
		call = map[string]any{"type": "function_call", "call_id": "call_1", "name": name, "arguments": string(args)}
	case funcall.Anthropic, funcall.AnthropicStrict:
		call = map[string]any{"type": "tool_use", "id": "toolu_1", "name": name, "input": json.RawMessage(args)}
	default:
		call = map[string]any{"functionCall": map[string]any{"name": name, "args": json.RawMessage(args)}}
	}
	b, _ := json.Marshal(call)
	return b
}

func walk(s map[string]any, path string, visit func(string, map[string]any)) {
	visit(path, s)
	for k, p := range props(s) {
		if ps, ok := p.(map[string]any); ok {
			walk(ps, path+"."+k, visit)
		}
	}
	if is, ok := s["items"].(map[string]any); ok {
		walk(is, path+"[]", visit)
	}
	if list, ok := s["anyOf"].([]any); ok {
		for _, b := range list {
			if bs, ok := b.(map[string]any); ok {
				walk(bs, path, visit)
			}
		}
	}
}

func props(s map[string]any) map[string]any {
	p, _ := s["properties"].(map[string]any)
	return p
}

func isObject(s map[string]any) bool {
	switch t := s["type"].(type) {
	case string:
		return t == "object"
	case []any:
		return slices.Contains(t, any("object"))
	}
	return false
}

func strings_(v any) []string {
	l, _ := v.([]any)
	out := []string{}
	for _, x := range l {
		out = append(out, x.(string))
	}
	slices.Sort(out)
	return out
}

func set_(ks ...string) map[string]bool {
	m := map[string]bool{}
	for _, k := range ks {
		m[k] = true
	}
	return m
}

func compile(t *testing.T, s map[string]any) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("mem://schema.json", roundTrip(t, s)); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("mem://schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

func roundTrip(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	out, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return out
}
