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
	want := []Violation{{Path: "word", Message: "is required"}, {Path: "k0000000", Message: "is not an input of this tool"}}
	if diff := cmp.Diff(want, res.Violations[:2], wordsOnly); diff != "" {
		t.Errorf("first violations (-want +got):\n%s", diff)
	}
	last := res.Violations[maxViolations]
	if want := (Violation{Rule: RuleTruncated, Message: "and 289951 more violations, left out", Limit: Ptr(289951.0)}); !cmp.Equal(last, want) {
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

// TestListInputsAreCapped checks the default maximum of a list input, and
// that a definition's own maximum replaces it.
func TestListInputsAreCapped(t *testing.T) {
	var got *Values
	r := newTestRegistry(t, echoTool(&got,
		&Definition{Name: "tags", Type: "list", Items: &Definition{Type: "string"}},
		&Definition{Name: "many", Type: "list", Items: &Definition{Type: "integer"}, Constraints: Constraints{Count: &Bounds{Max: Ptr(5000)}}},
	))
	ctx := WithAccount(context.Background(), editor)
	items := func(n int, item string) string {
		return "[" + strings.TrimSuffix(strings.Repeat(item+",", n), ",") + "]"
	}
	res, _ := r.RunJSON(ctx, "test.echo", []byte(`{"tags":`+items(1001, `"a"`)+`,"many":`+items(1001, "1")+`}`))
	if diff := cmp.Diff([]Violation{{Path: "tags", Message: "must have at most 1000 items"}}, res.Violations, wordsOnly); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
	res, _ = r.RunJSON(ctx, "test.echo", []byte(`{"tags":`+items(1000, `"a"`)+`,"many":`+items(5000, "1")+`}`))
	if !res.Success || len(got.List("many")) != 5000 {
		t.Errorf("at the limits: %+v", res)
	}
	if sch := r.Describe("test.echo").InputSchema; *sch.Properties["tags"].MaxItems != 1000 || *sch.Properties["many"].MaxItems != 5000 {
		t.Error("the schema does not advertise the limits")
	}
}

// TestListEntitiesLoadOnce checks that each distinct entity of a list is
// loaded and checked once, and that every item gets it.
func TestListEntitiesLoadOnce(t *testing.T) {
	loads := 0
	var got *Values
	r := newQuietRegistry()
	r.AddEntityType(albumType(&loads))
	err := r.Add(&Tool{ID: "t.albums", Label: "Albums", Description: "Takes albums.", Permission: "p",
		Inputs:  []*Definition{{Name: "albums", Type: "list", Required: true, Items: &Definition{Type: "entity:album"}, EntityOp: "view"}},
		Handler: func(_ context.Context, in *Values) (*Result, error) { got = in; return nil, nil }})
	if err != nil {
		t.Fatal(err)
	}
	ctx := WithAccount(context.Background(), editor)
	res, _ := r.RunJSON(ctx, "t.albums", []byte(`{"albums":["1","2","1","1","2"]}`))
	if !res.Success || loads != 2 {
		t.Fatalf("%+v after %d loads, want success after 2", res, loads)
	}
	l := got.List("albums")
	if l[0] != l[2] || l[1] != l[4] || l[0].(*album).title != "Mine" {
		t.Errorf("items %v", l)
	}
	loads = 0
	res, _ = r.RunJSON(ctx, "t.albums", []byte(`{"albums":["9","1","9"]}`))
	want := []Violation{{Path: "albums[0]", Message: `no album has the ID "9"`}, {Path: "albums[2]", Message: `no album has the ID "9"`}}
	if diff := cmp.Diff(want, res.Violations, wordsOnly); diff != "" || loads != 2 {
		t.Errorf("missing albums after %d loads (-want +got):\n%s", loads, diff)
	}
}

// TestNULInStrings checks that string inputs reject U+0000 unless their
// definition allows it, on both paths.
func TestNULInStrings(t *testing.T) {
	var got *Values
	r := newTestRegistry(t, echoTool(&got,
		&Definition{Name: "s", Type: "string"},
		&Definition{Name: "raw", Type: "string", Constraints: Constraints{AllowNUL: true}},
		&Definition{Name: "tags", Type: "list", Items: &Definition{Type: "string"}},
	))
	ctx := WithAccount(context.Background(), editor)
	res, _ := r.RunJSON(ctx, "test.echo", []byte(`{"s":"a\u0000b","raw":"a\u0000b","tags":["ok","\u0000"]}`))
	want := []Violation{{Path: "s", Message: "must not contain the NUL character (U+0000)"}, {Path: "tags[1]", Message: "must not contain the NUL character (U+0000)"}}
	if diff := cmp.Diff(want, res.Violations, wordsOnly); diff != "" {
		t.Errorf("RunJSON (-want +got):\n%s", diff)
	}
	res, _ = r.Run(ctx, "test.echo", map[string]any{"s": Text("a\x00"), "raw": "\x00"})
	if diff := cmp.Diff(want[:1], res.Violations, wordsOnly); diff != "" {
		t.Errorf("Run (-want +got):\n%s", diff)
	}
	res, _ = r.RunJSON(ctx, "test.echo", []byte(`{"raw":"a\u0000b"}`))
	if !res.Success || got.String("raw") != "a\x00b" {
		t.Errorf("allowed NUL: %+v", res)
	}
}

// TestSensitiveInputsAreNotEchoed checks that no message quotes the value
// of a sensitive input.
func TestSensitiveInputsAreNotEchoed(t *testing.T) {
	const secret = "s3cr3t-token"
	r := newQuietRegistry()
	r.AddEntityType(albumType(nil))
	h := func(context.Context, *Values) (*Result, error) { return nil, nil }
	err := r.Add(
		&Tool{ID: "t.key", Label: "Key", Description: "Takes a key.", Permission: "p", Handler: h,
			Inputs: []*Definition{{Name: "key", Type: "entity:album", Required: true, EntityOp: "update", Sensitive: true}}},
		&Tool{ID: "t.keys", Label: "Keys", Description: "Takes keys.", Permission: "p", Handler: h,
			Inputs: []*Definition{{Name: "keys", Type: "list", Required: true, Items: &Definition{Type: "entity"}, EntityOp: "view", Sensitive: true}}},
	)
	if err != nil {
		t.Fatal(err)
	}
	ctx := WithAccount(context.Background(), editor)
	for _, c := range []struct{ id, args string }{
		{"t.key", `{"key":"` + secret + `"}`},
		{"t.key", `{"key":"2"}`},
		{"t.keys", `{"keys":["album:` + secret + `"]}`},
		{"t.keys", `{"keys":["` + secret + `:1"]}`},
	} {
		res, _ := r.RunJSON(ctx, c.id, []byte(c.args))
		if res.Success {
			t.Errorf("%s %s succeeded", c.id, c.args)
		}
		text := res.Message + fmt.Sprint(res.Violations)
		if strings.Contains(text, secret) || strings.Contains(text, "album 2") {
			t.Errorf("%s %s: the message quotes the input: %s", c.id, c.args, text)
		}
	}
	res, _ := r.RunJSON(ctx, "t.key", []byte(`{"key":"`+secret+`"}`))
	if diff := cmp.Diff([]Violation{{Path: "key", Message: "an album with this ID does not exist"}}, res.Violations, wordsOnly); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
}
