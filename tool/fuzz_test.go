package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// everyTypeTool has an input of every data type, with constraints.
func everyTypeTool() *Tool {
	return &Tool{ID: "fuzz.every", Label: "Every", Description: "Takes every data type.", Permission: "p",
		Inputs: []*Definition{
			{Name: "s", Type: "string", Constraints: Constraints{Length: &Bounds{Max: Ptr(8)}, Pattern: "^[a-z]*$"}},
			{Name: "i", Type: "integer", Constraints: Constraints{Range: &Range{Min: Ptr(-5.0), Max: Ptr(5.0)}}},
			{Name: "f", Type: "float"},
			{Name: "b", Type: "boolean"},
			{Name: "e", Type: "email"},
			{Name: "u", Type: "uri"},
			{Name: "dt", Type: "datetime_iso8601"},
			{Name: "d", Type: "datetime_iso8601", Constraints: Constraints{DateOnly: true}},
			{Name: "ts", Type: "timestamp"},
			{Name: "dur", Type: "duration"},
			{Name: "ent", Type: "entity:album", EntityOp: "view"},
			{Name: "anyent", Type: "entity", EntityOp: "view"},
			{Name: "tags", Type: "list", Items: &Definition{Type: "string"}, Constraints: Constraints{Count: &Bounds{Max: Ptr(3)}, Choice: []any{"a", "b"}}},
			{Name: "m", Type: "map", Properties: []*Definition{{Name: "limit", Type: "integer", Required: true}, {Name: "note", Type: "string", Nullable: true}}},
			{Name: "free", Type: "map", Values: &Definition{Type: "float"}},
			{Name: "x", Type: "any"},
			{Name: "c", Type: "string", Constraints: Constraints{Choice: []any{"x", "y"}, NotBlank: true}},
		},
		Handler: func(context.Context, *Values) (*Result, error) { return nil, nil },
	}
}

// FuzzDecode runs decode and validation over arbitrary argument
// documents: it must never panic, and what it accepts must be valid
// against the advertised schema (an optional input sent as null aside).
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		`{}`, `{"s":"abc","i":3,"f":1.5,"b":true}`, `{"e":"a@b.co","u":"http://x.y","dt":"2024-05-01T00:00:00Z"}`,
		`{"d":"2024-05-01","ts":"2024-05-01T00:00:00+02:00","dur":"P1DT2H"}`, `{"ent":"1","anyent":"album:2"}`,
		`{"tags":["a","b"],"m":{"limit":1,"note":null},"free":{"k":1}}`, `{"x":[1,{"a":null}],"c":"x"}`,
		`{"s":null}`, `[`, `{"tags":"a"}`, `{"i":1e400}`, `{"s":"\ud800"}`,
		`{"tags":["c","c","c","c"]}`, `{"f":-1e400}`, `{"i":9007199254740993}`, `{"anyent":"album\n:1"}`,
	} {
		f.Add([]byte(seed))
	}
	tl := everyTypeTool()
	r := NewRegistry(&Options{Logger: slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil))})
	r.AddEntityType(albumType(nil))
	if err := r.Add(tl); err != nil {
		f.Fatal(err)
	}
	schemaJSON, _ := json.Marshal(r.Describe(tl.ID).InputSchema)
	doc, _ := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	c.AddResource("mem://s.json", doc)
	sch := c.MustCompile("mem://s.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		// The token path (RunJSON) and the tree path (Run) must agree.
		_, jvs := decodeJSONInputs(r.entry(tl.ID), data)
		args, argErr := decodeArgs(data)
		if argErr != nil {
			if len(jvs) == 0 {
				t.Fatalf("%q: the tree path rejects the document (%v), the JSON path accepts it", data, argErr)
			}
			return
		}
		_, vs := r.decodeInputs(context.Background(), r.entry(tl.ID), args)
		if diff := cmp.Diff(vs, jvs, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("%q: violations differ between the tree path and the JSON path (-tree +json):\n%s", data, diff)
		}
		if len(vs) > 0 {
			return
		}
		if args == nil {
			args = map[string]any{} // an empty document means no arguments
		}
		for k, v := range args {
			if v == nil {
				delete(args, k) // the documented exception
			}
		}
		b, err := json.Marshal(args)
		if err != nil {
			t.Fatalf("accepted arguments do not marshal: %v", err)
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(inst); err != nil {
			t.Errorf("accepted %s, which the schema rejects: %v", data, err)
		}
	})
}
