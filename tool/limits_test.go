package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// manyUnknownKeys returns a JSON object of n keys no tool takes.
func manyUnknownKeys(n int) []byte {
	var b strings.Builder
	b.WriteByte('{')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"k%07d":1`, i)
	}
	b.WriteByte('}')
	return []byte(b.String())
}

// TestViolationsAreCapped checks that a run keeps the first violations
// and counts the rest, on both paths, so that what reaches a caller (the
// result with the input schema, as MCP sends it) stays small however many
// problems the arguments have, and decoding them takes memory bounded by
// the document.
func TestViolationsAreCapped(t *testing.T) {
	var got *Values
	r := newTestRegistry(t, echoTool(&got, &Definition{Name: "word", Type: "string", Required: true}))
	ctx := WithAccount(context.Background(), editor)
	doc := manyUnknownKeys(290_000)
	if len(doc) < 3_400_000 {
		t.Fatalf("document of %d bytes, want 3.5 MB", len(doc))
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res, _ := r.RunJSON(ctx, "test.echo", doc)
	runtime.ReadMemStats(&after)
	if allocated := after.TotalAlloc - before.TotalAlloc; allocated > 2*uint64(len(doc)) {
		t.Errorf("decoding a %d-byte document allocated %d bytes; want at most twice the document", len(doc), allocated)
	}
	if res.Failure != FailureInput || len(res.Violations) != maxViolations+1 {
		t.Fatalf("got %s with %d violations, want an input failure with %d", res.Failure, len(res.Violations), maxViolations+1)
	}
	want := []Violation{{"word", "is required"}, {"k0000000", "is not an input of this tool"}}
	if diff := cmp.Diff(want, res.Violations[:2]); diff != "" {
		t.Errorf("first violations (-want +got):\n%s", diff)
	}
	last := res.Violations[maxViolations]
	if want := (Violation{Message: "and 289951 more violations, left out"}); last != want {
		t.Errorf("closing violation %+v, want %+v", last, want)
	}
	reply, _ := json.Marshal(map[string]any{"message": res.Message, "violations": res.Violations, "input_schema": r.InputSchemaJSON("test.echo")})
	if len(reply) >= 64<<10 {
		t.Errorf("a reply of %d bytes, want under 64 KB", len(reply))
	}

	// The tree path caps the same way.
	var args map[string]any
	if err := json.Unmarshal(doc, &args); err != nil {
		t.Fatal(err)
	}
	res, _ = r.Run(ctx, "test.echo", args)
	if len(res.Violations) != maxViolations+1 || res.Violations[maxViolations].Message != "and 289951 more violations, left out" {
		t.Errorf("tree path: %d violations, last %+v", len(res.Violations), res.Violations[len(res.Violations)-1])
	}
}

// TestLongPathsAreCut checks that a key of a megabyte is not echoed whole.
func TestLongPathsAreCut(t *testing.T) {
	var got *Values
	r := newTestRegistry(t, echoTool(&got, &Definition{Name: "word", Type: "string"}))
	long := strings.Repeat("é", 500_000)
	res, _ := r.RunJSON(WithAccount(context.Background(), editor), "test.echo", []byte(`{"`+long+`":1}`))
	if len(res.Violations) != 1 || len(res.Violations[0].Path) > maxPathBytes || !strings.HasSuffix(res.Violations[0].Path, "é…") || len(res.Message) > 1000 {
		t.Errorf("got %d violations, path of %d bytes, message of %d bytes", len(res.Violations), len(res.Violations[0].Path), len(res.Message))
	}
}
