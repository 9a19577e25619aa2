package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
)

// BenchmarkRunJSONLargeArguments runs a tool whose argument is 1 MiB of
// text, as MCP and function calling hand it over (Registry.RunJSON),
// beside the floor: one json.Unmarshal of the same document into a typed
// struct. Its ratio is the run path's time over the floor's; compare the
// B/op of the two:
//
//	go test -run XXX -bench RunJSONLargeArguments -benchmem ./tool
func BenchmarkRunJSONLargeArguments(b *testing.B) {
	args := []byte(`{"text":"` + strings.Repeat("abcdefgh", 1<<17) + `"}`)
	b.Run("impl=toolapi", func(b *testing.B) {
		r := NewRegistry(&Options{Logger: slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil))})
		err := r.Add(&Tool{
			ID: "bulk.count", Label: "Count", Description: "Counts bytes.", Operation: OpRead, Permission: "access content",
			Inputs:  []*Definition{{Name: "text", Type: "string", Required: true}},
			Outputs: []*Definition{{Name: "bytes", Type: "integer", Required: true}},
			Handler: func(_ context.Context, in *Values) (*Result, error) {
				return &Result{Success: true, Outputs: map[string]any{"bytes": len(in.String("text"))}}, nil
			},
		})
		if err != nil {
			b.Fatal(err)
		}
		ctx := WithAccount(context.Background(), &User{ID: "u", Permissions: []string{"access content"}})
		b.ReportAllocs()
		for b.Loop() {
			res, err := r.RunJSON(ctx, "bulk.count", args)
			if err != nil || !res.Success {
				b.Fatal(err, res)
			}
		}
	})
	b.Run("impl=json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var in struct {
				Text string `json:"text"`
			}
			if err := json.Unmarshal(args, &in); err != nil {
				b.Fatal(err)
			}
		}
	})
}
