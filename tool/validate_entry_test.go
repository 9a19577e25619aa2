package tool

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestValidateCanonicalJSON checks, for every data type, that text a
// person typed validates to canonical JSON which RunJSON accepts, giving
// the tool the same value the typed text gives it.
func TestValidateCanonicalJSON(t *testing.T) {
	tests := []struct {
		name  string
		def   *Definition
		typed any
		want  string // the canonical JSON
	}{
		{"string", &Definition{Type: "string"}, Text(" hi "), `" hi "`},
		{"integer", &Definition{Type: "integer"}, Text(" 42 "), `42`},
		{"float", &Definition{Type: "float"}, Text("2.50"), `2.5`},
		{"float, big", &Definition{Type: "float"}, Text("1e300"), `1e+300`},
		{"boolean", &Definition{Type: "boolean"}, Text("yes"), `true`},
		{"email", &Definition{Type: "email"}, Text("ann@example.com"), `"ann@example.com"`},
		{"uri", &Definition{Type: "uri"}, Text("https://example.com/a"), `"https://example.com/a"`},
		{"datetime, local form", &Definition{Type: "datetime_iso8601"}, Text("2024-05-01 10:30"), `"2024-05-01T10:30:00Z"`},
		{"datetime, offset", &Definition{Type: "datetime_iso8601"}, Text("2024-05-01T10:30:00.25+02:00"), `"2024-05-01T08:30:00.25Z"`},
		{"date", &Definition{Type: "datetime_iso8601", Constraints: Constraints{DateOnly: true}}, Text("2024-05-01"), `"2024-05-01"`},
		{"timestamp", &Definition{Type: "timestamp"}, Text("2024-05-01T10:30:00Z"), `"2024-05-01T10:30:00Z"`},
		{"duration, Go form", &Definition{Type: "duration"}, Text("1h30m"), `"PT1H30M"`},
		{"duration, days", &Definition{Type: "duration"}, Text("49h"), `"P2DT1H"`},
		{"duration, ISO form", &Definition{Type: "duration"}, Text("P1W"), `"P7D"`},
		{"duration, zero", &Definition{Type: "duration"}, Text("0s"), `"PT0S"`},
		{"entity:ID", &Definition{Type: "entity:album", EntityOp: "view"}, Text(" 1 "), `"1"`},
		{"entity", &Definition{Type: "entity", EntityOp: "view"}, Text("album:2"), `"album:2"`},
		{"list of integers", &Definition{Type: "list", Items: &Definition{Type: "integer"}}, []any{Text("1"), Text("2")}, `[1,2]`},
		{"list as JSON text", &Definition{Type: "list", Items: &Definition{Type: "duration"}}, Text(`["PT1M","PT2M"]`), `["PT1M","PT2M"]`},
		{"list of one typed item", &Definition{Type: "list", Items: &Definition{Type: "datetime_iso8601", Constraints: Constraints{DateOnly: true}}}, Text("2024-05-01"), `["2024-05-01"]`},
		{"map", &Definition{Type: "map", Properties: []*Definition{{Name: "n", Type: "integer"}, {Name: "d", Type: "duration"}}}, map[string]any{"n": Text("3"), "d": Text("90s")}, `{"d":"PT1M30S","n":3}`},
		{"map as JSON text", &Definition{Type: "map", Values: &Definition{Type: "float"}}, Text(`{"a":1}`), `{"a":1}`},
		{"free-form map", &Definition{Type: "map"}, Text(`{"a":[1,"x"]}`), `{"a":[1,"x"]}`},
		{"any", &Definition{Type: "any"}, Text("anything"), `"anything"`},
		{"custom type", &Definition{Type: "color"}, Text("#ff8800"), `"#ff8800"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []any
			r := newQuietRegistry()
			r.AddEntityType(albumType(nil))
			r.AddType(&DataType{Name: "color", Base: "string"})
			def := *tt.def
			def.Name, def.Required = "x", true
			if err := r.Add(&Tool{ID: "t.v", Label: "V", Description: "V.", Permission: "p", Inputs: []*Definition{&def},
				Handler: func(_ context.Context, in *Values) (*Result, error) { got = append(got, in.At(0)); return nil, nil }}); err != nil {
				t.Fatal(err)
			}
			ctx := WithAccount(context.Background(), editor)
			canonical, vs, err := r.Validate(ctx, "t.v", map[string]any{"x": tt.typed})
			if err != nil || vs != nil {
				t.Fatalf("Validate: %v %v", vs, err)
			}
			if want := `{"x":` + tt.want + `}`; string(canonical) != want {
				t.Errorf("canonical JSON %s, want %s", canonical, want)
			}
			if res, _ := r.Run(ctx, "t.v", map[string]any{"x": tt.typed}); !res.Success {
				t.Fatalf("typed run: %+v", res)
			}
			if res, _ := r.RunJSON(ctx, "t.v", canonical); !res.Success {
				t.Fatalf("RunJSON refuses the canonical JSON %s: %+v", canonical, res)
			}
			if diff := cmp.Diff(got[0], got[1], cmp.AllowUnexported(album{})); diff != "" {
				t.Errorf("the typed text and its canonical JSON give different values (-typed +canonical):\n%s", diff)
			}
			again, _, _ := r.ValidateJSON(ctx, "t.v", canonical)
			if string(again) != string(canonical) {
				t.Errorf("ValidateJSON of the canonical JSON gives %s", again)
			}
		})
	}
}

// TestValidateRefusesWhatHasNoCanonicalJSON checks that typed durations
// JSON cannot hold are refused, not silently changed.
func TestValidateRefusesWhatHasNoCanonicalJSON(t *testing.T) {
	var got *Values
	r := newTestRegistry(t, echoTool(&got, &Definition{Name: "d", Type: "duration"}))
	ctx := WithAccount(context.Background(), editor)
	for _, typed := range []Text{"1.5s", "-2m", "PT1.5S", "1ms"} {
		_, vs, err := r.Validate(ctx, "test.echo", map[string]any{"d": typed})
		if err != nil || len(vs) != 1 || vs[0].Path != "d" {
			t.Errorf("Validate %q: %v %v, want one violation", typed, vs, err)
		}
		if res, _ := r.Run(ctx, "test.echo", map[string]any{"d": typed}); res.Failure != FailureInput {
			t.Errorf("Run %q: %+v, want an input failure", typed, res)
		}
	}
}

// TestValidateFindsEverything checks that Validate reports the problems
// of decoding and the missing entities together, runs no access method or
// handler, and answers only for tools the account may run.
func TestValidateFindsEverything(t *testing.T) {
	calls := 0
	r := newQuietRegistry()
	r.AddEntityType(albumType(nil))
	err := r.Add(&Tool{ID: "t.v", Label: "V", Description: "V.", Permission: "p",
		Inputs: []*Definition{
			{Name: "album", Type: "entity:album", Required: true, EntityOp: "update"},
			{Name: "others", Type: "list", Items: &Definition{Type: "entity:album"}, EntityOp: "view"},
			{Name: "n", Type: "integer", Constraints: Constraints{Range: &Range{Max: Ptr(10.0)}}},
			{Name: "secret", Type: "string", Sensitive: true},
		},
		Access:  func(context.Context, *Values) (bool, error) { calls++; return false, nil },
		Handler: func(context.Context, *Values) (*Result, error) { calls++; return nil, nil }})
	if err != nil {
		t.Fatal(err)
	}
	ctx := WithAccount(context.Background(), editor)
	_, vs, err := r.ValidateJSON(ctx, "t.v", []byte(`{"album":"99","others":["1","98","1"],"n":11,"zz":1}`))
	want := []Violation{
		{Path: "album", Rule: RuleEntityNotFound, Message: `no album has the ID "99"`, Detail: "album", Value: "99"},
		{Path: "others[1]", Rule: RuleEntityNotFound, Message: `no album has the ID "98"`, Detail: "album", Value: "98"},
		{Path: "n", Rule: RuleMaximum, Message: "must be at most 10", Limit: Ptr(10.0)},
		{Path: "zz", Rule: RuleAdditionalProperties, Message: "is not an input of this tool", Detail: "input"},
	}
	if diff := cmp.Diff(want, vs); diff != "" || err != nil {
		t.Errorf("violations (-want +got):\n%s\n%v", diff, err)
	}
	// Album 2 is another's: validation checks no op on it.
	canonical, vs, err := r.Validate(ctx, "t.v", map[string]any{"album": Text("2"), "secret": "x"})
	if string(canonical) != `{"album":"2","secret":"x"}` || vs != nil || err != nil {
		t.Errorf("valid: %s %v %v", canonical, vs, err)
	}
	if calls != 0 {
		t.Errorf("Validate ran the access method or handler %d times", calls)
	}
	if _, _, err := r.Validate(context.Background(), "t.v", nil); !errors.Is(err, ErrNotFound) {
		t.Errorf("anonymous: err = %v, want ErrNotFound", err)
	}
	if _, _, err := r.ValidateJSON(ctx, "t.nope", nil); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown tool: err = %v, want ErrNotFound", err)
	}
	if _, vs, _ := r.ValidateJSON(ctx, "t.v", []byte(`[1]`)); len(vs) != 1 || vs[0].Path != "" {
		t.Errorf("not an object: %v", vs)
	}
}
