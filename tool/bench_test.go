package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	segjson "github.com/segmentio/encoding/json"
)

// The benchmark tool takes three inputs (a string, an integer with a range
// and a list of choices) and counts. Every variant below does the same
// work from the same JSON arguments, so their ratios are the cost of each
// way to get from JSON to a typed call.
var benchArgs = []byte(`{"word":"sunset","limit":10,"tags":["red","blue","green"]}`)

type searchArgs struct {
	Word  string   `json:"word"`
	Limit int      `json:"limit,omitempty"`
	Tags  []string `json:"tags,omitempty"`
}

//go:noinline
func benchSearch(word string, limit int, tags []string) int {
	return len(word) + limit + len(tags)
}

func benchTool() *Tool {
	return &Tool{
		ID: "album.search", Label: "Search", Description: "Finds images.", Operation: OpRead, Permission: "access content",
		Inputs: []*Definition{
			{Name: "word", Type: "string", Required: true, Constraints: Constraints{NotBlank: true}},
			{Name: "limit", Type: "integer", Default: 20, Constraints: Constraints{Range: &Range{Min: Ptr(1.0), Max: Ptr(100.0)}}},
			{Name: "tags", Type: "list", Items: &Definition{Type: "string"}, Constraints: Constraints{Choice: []any{"red", "green", "blue"}}},
		},
		Outputs: []*Definition{{Name: "result", Type: "integer", Required: true}},
		Handler: func(_ context.Context, in *Values) (*Result, error) {
			n := benchSearch(in.At(0).(string), int(in.At(1).(int64)), ListOf[string](in.At(2)))
			return &Result{Success: true, Outputs: map[string]any{"result": n}}, nil
		},
	}
}

// BenchmarkRun compares, on the same arguments:
//
//	impl=toolapi  Registry.RunJSON: decode, validate, permission, call, publish and check outputs
//	impl=direct   the method called directly with typed values
//	impl=sdk      the MCP Go SDK's typed AddTool input path: unmarshal to a
//	              map, ApplyDefaults, jsonschema-go Validate, re-marshal,
//	              unmarshal into the struct (as mcp/server.go and mcp/tool.go do)
//	impl=json     the floor: one json.Unmarshal into a typed struct
//
// Compare with: go test -run XXX -bench BenchmarkRun -count 10 ./tool | benchstat -col /impl -
func BenchmarkRun(b *testing.B) {
	b.Run("impl=toolapi", func(b *testing.B) {
		r := NewRegistry(&Options{Logger: slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil))})
		if err := r.Add(benchTool()); err != nil {
			b.Fatal(err)
		}
		ctx := WithAccount(context.Background(), &User{ID: "u", Permissions: []string{"access content"}})
		b.ReportAllocs()
		for b.Loop() {
			res, err := r.RunJSON(ctx, "album.search", benchArgs)
			if err != nil || !res.Success {
				b.Fatal(err, res)
			}
		}
	})
	b.Run("impl=direct", func(b *testing.B) {
		b.ReportAllocs()
		tags := []string{"red", "blue", "green"}
		for b.Loop() {
			benchSearch("sunset", 10, tags)
		}
	})
	b.Run("impl=sdk", func(b *testing.B) {
		schema, err := jsonschema.For[searchArgs](nil)
		if err != nil {
			b.Fatal(err)
		}
		schema.Properties["limit"].Minimum = Ptr(1.0)
		schema.Properties["limit"].Maximum = Ptr(100.0)
		schema.Properties["limit"].Default = json.RawMessage("20")
		schema.Properties["tags"].Items.Enum = []any{"red", "green", "blue"}
		resolved, err := schema.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			v := make(map[string]any)
			dec := segjson.NewDecoder(bytes.NewReader(benchArgs))
			dec.DontMatchCaseInsensitiveStructFields()
			if err := dec.Decode(&v); err != nil {
				b.Fatal(err)
			}
			var m any = v
			if err := resolved.ApplyDefaults(&m); err != nil {
				b.Fatal(err)
			}
			if err := resolved.Validate(&m); err != nil {
				b.Fatal(err)
			}
			data, err := json.Marshal(m)
			if err != nil {
				b.Fatal(err)
			}
			var in searchArgs
			dec = segjson.NewDecoder(bytes.NewReader(data))
			dec.DontMatchCaseInsensitiveStructFields()
			if err := dec.Decode(&in); err != nil {
				b.Fatal(err)
			}
			benchSearch(in.Word, in.Limit, in.Tags)
		}
	})
	b.Run("impl=json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var in searchArgs
			if err := json.Unmarshal(benchArgs, &in); err != nil {
				b.Fatal(err)
			}
			benchSearch(in.Word, in.Limit, in.Tags)
		}
	})
}

// BenchmarkRegister1000 registers 1,000 tools (built beforehand, as an
// application's generated code builds them) and emits their input and
// output schemas as JSON.
func BenchmarkRegister1000(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		tools := make([]*Tool, 1000)
		for i := range tools {
			tools[i] = benchTool()
			tools[i].ID = fmt.Sprintf("bench.tool_%d", i)
		}
		b.StartTimer()
		r := NewRegistry(&Options{Logger: slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil))})
		for _, t := range tools {
			if err := r.Add(t); err != nil {
				b.Fatal(err)
			}
			if len(r.InputSchemaJSON(t.ID)) == 0 {
				b.Fatal("no schema")
			}
		}
	}
}
