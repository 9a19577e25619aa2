package gen

import (
	"encoding/json"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/toolapi/toolapi/internal/schemajson"
	"github.com/toolapi/toolapi/tool"
)

// benchDescription returns a description of n tools, each with the
// inputs and outputs of a typical search tool.
func benchDescription(n int) *Description {
	d := &Description{Diagnostics: []DiagnosticJSON{}}
	for i := range n {
		info := (&tool.Tool{
			ID: fmt.Sprintf("svc%03d.search", i), Label: "Search", Description: "Finds the records whose name contains a word.",
			Operation: tool.OpRead, Permission: "access content",
			Inputs: []*tool.Definition{
				{Name: "word", Type: "string", Description: "The word to look for.", Required: true, Examples: []any{"cat"}},
				{Name: "limit", Type: "integer", Description: "How many at most.", Default: 10, Constraints: tool.Constraints{Range: &tool.Range{Min: tool.Ptr(1.0), Max: tool.Ptr(100.0)}}},
				{Name: "tags", Type: "list", Items: &tool.Definition{Type: "string", Constraints: tool.Constraints{Choice: []any{"new", "hot"}}}},
				{Name: "since", Type: "datetime_iso8601"},
			},
			Outputs: []*tool.Definition{
				{Name: "result", Type: "list", Required: true, Description: "The records that matched.", Items: &tool.Definition{Type: "map", Properties: []*tool.Definition{
					{Name: "name", Type: "string", Required: true, Description: "Name names it."},
					{Name: "at", Type: "datetime_iso8601", Required: true, Description: "At is when it was made."},
				}}},
			},
		}).Describe()
		d.Tools = append(d.Tools, &ToolDescription{Info: *info})
	}
	return d
}

// BenchmarkDescribeJSON measures the -describe document of 300 tools
// written by MarshalIndented (schemas by [schemajson.Append]) against
// json.MarshalIndent, and the schemas alone by schemajson.Append against
// json.Marshal, alternating in one run. The metrics are medians.
func BenchmarkDescribeJSON(b *testing.B) {
	d := benchDescription(300)
	if _, err := d.MarshalIndented(); err != nil {
		b.Fatal(err)
	}
	var fast, std, fastSchema, stdSchema []time.Duration
	for b.Loop() {
		runtime.GC()
		t0 := time.Now()
		if _, err := d.MarshalIndented(); err != nil {
			b.Fatal(err)
		}
		fast = append(fast, time.Since(t0))
		runtime.GC()
		t0 = time.Now()
		if _, err := json.MarshalIndent(d, "", "  "); err != nil {
			b.Fatal(err)
		}
		std = append(std, time.Since(t0))
		runtime.GC()
		t0 = time.Now()
		for _, t := range d.Tools {
			schemajson.Append(nil, t.InputSchema)
			schemajson.Append(nil, t.OutputSchema)
		}
		fastSchema = append(fastSchema, time.Since(t0))
		runtime.GC()
		t0 = time.Now()
		for _, t := range d.Tools {
			json.Marshal(t.InputSchema)
			json.Marshal(t.OutputSchema)
		}
		stdSchema = append(stdSchema, time.Since(t0))
	}
	b.ReportMetric(median(fast).Seconds()*1e3, "indented-ms")
	b.ReportMetric(median(std).Seconds()*1e3, "json-indent-ms")
	b.ReportMetric(median(std).Seconds()/median(fast).Seconds(), "json/indented")
	b.ReportMetric(median(fastSchema).Seconds()*1e3, "append-ms")
	b.ReportMetric(median(stdSchema).Seconds()*1e3, "json-marshal-ms")
	b.ReportMetric(median(stdSchema).Seconds()/median(fastSchema).Seconds(), "marshal/append")
}
