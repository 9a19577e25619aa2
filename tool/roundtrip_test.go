package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestRoundTrip checks our validator (both its paths) against an independent JSON Schema
// validator, both ways: for every definition below and many generated
// values, the value is accepted by our decoder exactly when
// santhosh-tekuri/jsonschema accepts it against the schema we emit (with
// format assertions on). The one documented exception, an optional input
// sent as null, is kept out by making the input under test required.
func TestRoundTrip(t *testing.T) {
	defs := roundTripDefinitions()
	rng := rand.New(rand.NewPCG(1, 2))
	perDef := 1500
	if testing.Short() {
		perDef = 200
	}
	tried, disagreements := 0, 0
	for _, def := range defs {
		tl := &Tool{ID: "rt.tool", Label: "RT", Description: "Round trip.", Permission: "p",
			Inputs:  []*Definition{def},
			Handler: func(context.Context, *Values) (*Result, error) { return nil, nil }}
		r := NewRegistry(&Options{Logger: slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil))})
		r.AddEntityType(albumType(nil))
		if err := r.Add(tl); err != nil {
			t.Fatalf("%s: %v", describeDef(def), err)
		}
		schemaJSON, _ := json.Marshal(r.Describe(tl.ID).InputSchema)
		sch := compileSchema(t, schemaJSON)
		values := candidates(def, rng, perDef)
		for _, v := range values {
			doc, _ := json.Marshal(map[string]any{def.Name: v})
			tried++
			// Both of our paths: the tree (Registry.Run) and the token
			// stream (Registry.RunJSON).
			args, argErr := decodeArgs(doc)
			var ours bool
			if argErr == nil {
				_, vs := r.decodeInputs(context.Background(), r.entry(tl.ID), args)
				ours = len(vs) == 0
			}
			_, jvs := decodeJSONInputs(r.entry(tl.ID), doc)
			if oursJSON := len(jvs) == 0; oursJSON != ours {
				disagreements++
				t.Errorf("%s: value %s: tree path accepts=%v, JSON path accepts=%v", describeDef(def), doc, ours, oursJSON)
			}
			// The one documented exception: an optional map property
			// sent as null reads as absent, though the schema does not
			// allow null there.
			theirDoc, _ := json.Marshal(map[string]any{def.Name: withoutOptionalNulls(def, v)})
			inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(theirDoc))
			if err != nil {
				t.Fatal(err)
			}
			theirs := sch.Validate(inst) == nil
			if ours != theirs {
				disagreements++
				if disagreements <= 20 {
					t.Errorf("%s: value %s: ours accepts=%v, JSON Schema accepts=%v\nschema: %s", describeDef(def), doc, ours, theirs, schemaJSON)
				}
			}
		}
	}
	t.Logf("round trip: %d definitions, %d values tried, %d disagreements", len(defs), tried, disagreements)
	if disagreements > 0 {
		t.Errorf("%d disagreements", disagreements)
	}
}

func compileSchema(t *testing.T, schemaJSON []byte) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	if err := c.AddResource("mem://schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("mem://schema.json")
	if err != nil {
		t.Fatalf("our schema does not compile: %v\n%s", err, schemaJSON)
	}
	return sch
}

func describeDef(d *Definition) string {
	b, _ := json.Marshal(d)
	return string(b)
}

// roundTripDefinitions returns a definition for each data type and
// constraint combination.
func roundTripDefinitions() []*Definition {
	scalar := func(typ string, c Constraints) *Definition {
		return &Definition{Name: "x", Type: typ, Required: true, Constraints: c}
	}
	var defs []*Definition
	for _, typ := range []string{"string", "integer", "float", "boolean", "email", "uri", "datetime_iso8601", "timestamp", "duration", "any"} {
		defs = append(defs, scalar(typ, Constraints{}))
	}
	defs = append(defs,
		scalar("string", Constraints{NotBlank: true}),
		scalar("string", Constraints{Length: &Bounds{Min: Ptr(2), Max: Ptr(4)}}),
		scalar("string", Constraints{Choice: []any{"red", "green", "blue"}}),
		scalar("string", Constraints{Pattern: "^[a-z]+$"}),
		scalar("string", Constraints{Pattern: "o", NotBlank: true, Length: &Bounds{Max: Ptr(5)}}),
		scalar("integer", Constraints{Range: &Range{Min: Ptr(1.0), Max: Ptr(100.0)}}),
		scalar("integer", Constraints{Range: &Range{Min: Ptr(-128.0), Max: Ptr(127.0)}}),
		scalar("integer", Constraints{Choice: []any{1, 2, 3}}),
		scalar("float", Constraints{Range: &Range{Min: Ptr(-1.5), Max: Ptr(2.5)}}),
		scalar("float", Constraints{Choice: []any{0.5, 1}}),
		scalar("datetime_iso8601", Constraints{DateOnly: true}),
		scalar("email", Constraints{Length: &Bounds{Max: Ptr(12)}}),
		scalar("string", Constraints{Email: true}),
		scalar("string", Constraints{Encoding: "base64"}),
		scalar("string", Constraints{AllowNUL: true}),
		scalar("string", Constraints{AllowNUL: true, Pattern: "^[a-z]"}),
		&Definition{Name: "x", Type: "list", Required: true, Items: &Definition{Type: "string"}, Constraints: Constraints{Count: &Bounds{Max: Ptr(1200)}}},
		&Definition{Name: "x", Type: "entity:album", Required: true, EntityOp: "view"},
		&Definition{Name: "x", Type: "entity", Required: true, EntityOp: "view"},
		&Definition{Name: "x", Type: "list", Required: true, Items: &Definition{Type: "string"}},
		&Definition{Name: "x", Type: "list", Required: true, Items: &Definition{Type: "integer"}, Constraints: Constraints{NotBlank: true, Range: &Range{Min: Ptr(0.0)}}},
		&Definition{Name: "x", Type: "list", Required: true, Items: &Definition{Type: "string"}, Constraints: Constraints{Count: &Bounds{Min: Ptr(1), Max: Ptr(3)}, Choice: []any{"red", "green", "blue"}}},
		&Definition{Name: "x", Type: "list", Required: true, Items: &Definition{Type: "string", Nullable: true}},
		&Definition{Name: "x", Type: "list", Required: true, Items: &Definition{Type: "string"}, Constraints: Constraints{NotBlank: true, Count: &Bounds{Min: Ptr(0), Max: Ptr(2)}}},
		scalar("string", Constraints{NotBlank: true, Length: &Bounds{Min: Ptr(0)}}),
		&Definition{Name: "x", Type: "map", Required: true, Constraints: Constraints{NotBlank: true, Count: &Bounds{Min: Ptr(0)}}},
		&Definition{Name: "x", Type: "list", Required: true, Items: &Definition{Type: "datetime_iso8601"}},
		&Definition{Name: "x", Type: "map", Required: true},
		&Definition{Name: "x", Type: "map", Required: true, Constraints: Constraints{NotBlank: true}},
		&Definition{Name: "x", Type: "map", Required: true, Values: &Definition{Type: "integer"}},
		&Definition{Name: "x", Type: "map", Required: true, Constraints: Constraints{Count: &Bounds{Max: Ptr(2)}}, Properties: []*Definition{
			{Name: "limit", Type: "integer", Required: true, Constraints: Constraints{Range: &Range{Max: Ptr(100.0)}}},
			{Name: "label", Type: "string"},
			{Name: "note", Type: "string", Nullable: true},
			{Name: "tags", Type: "list", Items: &Definition{Type: "string"}},
		}},
		&Definition{Name: "x", Type: "map", Required: true, Properties: []*Definition{
			{Name: "limit", Type: "integer", Required: true},
			{Name: "label", Type: "string", Default: "none"},
			{Name: "size", Type: "integer", Default: 10, Constraints: Constraints{NotNull: true}},
			{Name: "note", Type: "string", Nullable: true, Default: "n"},
		}},
		&Definition{Name: "x", Type: "map", Required: true, Properties: []*Definition{
			{Name: "inner", Type: "map", Required: true, Properties: []*Definition{{Name: "when", Type: "timestamp", Required: true}}},
		}},
	)
	return defs
}

// Pools of JSON values, chosen to sit on both sides of every rule above.
var (
	stringPool = []any{"", "a", "ab", "abc", "abcd", "abcde", "red", "green", "Blue", "hello world", "éé", "日本語", "foo", " ",
		"1", "3", "true", "null", "a@b.co", "ann@example.com", "ann.lee@example.com", "a..b@example.com", ".a@example.com", "a@b",
		"a@-b.com", "a@[127.0.0.1]", "\"q\"@example.com", "ann@exa_mple.com", "no-at-sign",
		"http://example.com", "https://example.com/a?b=c#d", "mailto:ann@example.com", "urn:isbn:123", "/relative", "example.com",
		"http://[::1]/", "http://::1/", "ht tp://x", "2024-05-01T12:00:00Z", "2024-05-01t12:00:00z", "2024-05-01T12:00:00.123+02:00",
		"2024-05-01T12:00:00", "2024-05-01 12:00:00Z", "2024-13-01T12:00:00Z", "2024-02-30T00:00:00Z", "2016-12-31T23:59:60Z",
		"2016-12-31T22:59:60-01:00", "2016-12-31T12:59:60Z", "2024-05-01T24:00:00Z", "2024-05-01", "2024-5-1", "20240501",
		"P1D", "PT1H30M", "P1Y2M3DT4H5M6S", "P2W", "P", "PT", "P1DT", "PT1.5S", "P1M1Y", "1h30m", "P1H",
		"album:1", "album:", ":1", "node:12", "12", "album:1:2",
		"AQID", "AQI=", "AQ==", "AQ=", "AQIDBA==", "AQ\nID", "+/+/", "-_-_", "\x00", "a\x00b", "red\x00"}
	numberPool = []any{0, 1, -1, 2, 3, 100, 101, 127, 128, -128, -129, 2.5, -1.5, -1.6, 0.5, 1.0, 3.0, 1e3, 1e15, 0.1, 99.99, -0.0, int64(9007199254740993), int64(9223372036854775807)}
	otherPool  = []any{true, false, nil}
)

func scalarPool() []any {
	p := append(append(append([]any{}, stringPool...), numberPool...), otherPool...)
	return p
}

// candidates returns n values for def: the whole scalar pool, then random
// lists and maps built from it.
func candidates(def *Definition, rng *rand.Rand, n int) []any {
	pool := scalarPool()
	out := append([]any{}, pool...)
	randScalar := func() any { return pool[rng.IntN(len(pool))] }
	var randValue func(depth int) any
	randValue = func(depth int) any {
		switch k := rng.IntN(10); {
		case k < 6 || depth > 2:
			return randScalar()
		case k < 8:
			l := make([]any, rng.IntN(5))
			for i := range l {
				if rng.IntN(3) == 0 {
					l[i] = randValue(depth + 1)
				} else {
					l[i] = sameKind(randScalar(), pool, rng)
				}
			}
			return l
		default:
			m := map[string]any{}
			keys := []string{"limit", "label", "note", "tags", "inner", "when", "a", "b"}
			for range rng.IntN(4) {
				m[keys[rng.IntN(len(keys))]] = randValue(depth + 1)
			}
			return m
		}
	}
	for len(out) < n {
		out = append(out, randValue(0))
	}
	// Lists at the default cap of a list input and past it.
	for _, size := range []int{DefaultMaxItems, DefaultMaxItems + 1, 1200, 1201} {
		l := make([]any, size)
		for i := range l {
			l[i] = "a"
		}
		out = append(out, l)
	}
	// Shaped values: lists of one kind and maps with the right keys, so
	// the valid side is well covered too.
	for range n / 4 {
		l := make([]any, rng.IntN(4))
		first := randScalar()
		for i := range l {
			l[i] = sameKind(first, pool, rng)
		}
		out = append(out, l)
		m := map[string]any{"limit": numberPool[rng.IntN(len(numberPool))]}
		if rng.IntN(2) == 0 {
			m["label"] = stringPool[rng.IntN(len(stringPool))]
		}
		if rng.IntN(3) == 0 {
			m["note"] = nil
		}
		if rng.IntN(4) == 0 {
			m["label"] = nil // optional, not nullable: reads as absent
		}
		if rng.IntN(4) == 0 {
			m["size"] = []any{nil, 3, "big"}[rng.IntN(3)]
		}
		if rng.IntN(3) == 0 {
			m["tags"] = []any{"a", "b"}
		}
		if rng.IntN(3) == 0 {
			m["inner"] = map[string]any{"when": stringPool[rng.IntN(len(stringPool))]}
		}
		out = append(out, m)
	}
	return out
}

// sameKind returns a random pool value of the same JSON kind as v.
func sameKind(v any, pool []any, rng *rand.Rand) any {
	for range 20 {
		w := pool[rng.IntN(len(pool))]
		if fmt.Sprintf("%T", w) == fmt.Sprintf("%T", v) || (isNum(v) && isNum(w)) {
			return w
		}
	}
	return v
}

func isNum(v any) bool {
	switch v.(type) {
	case int, int64, float64:
		return true
	}
	return false
}

// withoutOptionalNulls returns v without the null values of the optional,
// non-nullable properties of the maps def defines, where null reads as
// absent (unless the property is NotNull).
func withoutOptionalNulls(def *Definition, v any) any {
	switch x := v.(type) {
	case []any:
		if def.Type != "list" || def.Items == nil {
			return v
		}
		out := make([]any, len(x))
		for i, item := range x {
			out[i] = withoutOptionalNulls(def.Items, item)
		}
		return out
	case map[string]any:
		if def.Type != "map" {
			return v
		}
		out := make(map[string]any, len(x))
		for k, item := range x {
			var pd *Definition
			for _, p := range def.Properties {
				if p.Name == k {
					pd = p
				}
			}
			switch {
			case pd == nil:
				out[k] = item
			case item == nil && !pd.Required && !pd.Nullable && !pd.Constraints.NotNull:
				// left out
			default:
				out[k] = withoutOptionalNulls(pd, item)
			}
		}
		return out
	}
	return v
}
