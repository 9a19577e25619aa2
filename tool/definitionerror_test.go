package tool

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// definitionErrorsOf returns every *DefinitionError err holds, however
// wrapped and joined.
func definitionErrorsOf(err error) []DefinitionError {
	var out []DefinitionError
	var walk func(error)
	walk = func(err error) {
		switch x := err.(type) {
		case nil:
		case *DefinitionError:
			out = append(out, *x)
		case interface{ Unwrap() []error }:
			for _, e := range x.Unwrap() {
				walk(e)
			}
		case interface{ Unwrap() error }:
			walk(x.Unwrap())
		}
	}
	walk(err)
	return out
}

// TestDefinitionErrors checks that Check and Add report every problem of a
// tool, each a *DefinitionError with its path and rule.
func TestDefinitionErrors(t *testing.T) {
	h := func(context.Context, *Values) (*Result, error) { return nil, nil }
	bad := &Tool{ID: "t.bad", Description: "Has many problems.", Operation: "delete", Permission: "a,b+c",
		Deprecated: " \t",
		Inputs: []*Definition{
			{Name: "limit", Type: "integer", Default: 500, Constraints: Constraints{Range: &Range{Max: Ptr(100.0)}}},
			{Name: "mode", Type: "string", Locked: true},
			{Name: "when", Type: "duration", Constraints: Constraints{Pattern: "^P"}},
			{Name: "limit", Type: "integer"},
			{Name: "tags", Type: "list", Items: &Definition{Type: "colour"}},
			{Name: "n", Type: "integer", Nullable: true, Constraints: Constraints{Choice: []any{"x"}}},
		},
		Outputs: []*Definition{
			{Name: "result", Type: "list", Items: &Definition{Type: "map", Properties: []*Definition{
				{Name: "title", Type: "string", Constraints: Constraints{Pattern: "("}},
			}}},
		},
		Handler: h,
	}
	want := []DefinitionError{
		{"", "deprecated", `a deprecation note is blank: say what to use instead ("use album.search2")`},
		{"", "op", `operation "delete" is not one of read, write, trigger, transform, explain`},
		{"", "permission", `permission "a,b+c" mixes "," (all of) and "+" (any of)`},
		{"inputs.limit", "default", "default 500: must be at most 100"},
		{"inputs.mode", "locked", "a locked input needs a default"},
		{"inputs.when", "pattern", "pattern applies to strings, not duration"},
		{"inputs.limit", "name", `input "limit" is defined twice`},
		{"inputs.tags.items", "type", `unknown data type "colour"`},
		{"inputs.n", "nullable", "an input cannot be nullable (an optional input sent as null takes its default)"},
		{"inputs.n", "choice", `choice x: must be an integer`},
		{"outputs.result.items.title", "pattern", "pattern \"(\" does not compile: error parsing regexp: missing closing ): `(`"},
	}
	err := bad.Check()
	if diff := cmp.Diff(want, definitionErrorsOf(err)); diff != "" {
		t.Errorf("Check (-want +got):\n%s", diff)
	}
	var de *DefinitionError
	if !errors.As(err, &de) || de.Rule != "deprecated" || de.Error() != de.Message {
		t.Errorf("errors.As: %+v", de)
	}
	r := newQuietRegistry()
	bad.Handler = nil
	err = r.Add(bad)
	got := definitionErrorsOf(err)
	if len(got) != len(want)+1 || got[0] != (DefinitionError{"", "handler", "a tool needs a handler (is its service missing?)"}) {
		t.Errorf("Add: %+v", got)
	}
	if !errors.As(err, &de) {
		t.Error("Add's error holds no *DefinitionError")
	}
	ok := &Tool{ID: "t.ok", Label: "OK", Description: "Fine.", Permission: "p", Handler: h}
	if err := r.Add(ok); err != nil {
		t.Fatal(err)
	}
	err = r.Add(ok)
	if diff := cmp.Diff([]DefinitionError{{"", "id", `ID "t.ok" is already taken`}}, definitionErrorsOf(err)); diff != "" {
		t.Errorf("ID taken (-want +got):\n%s", diff)
	}
	dep := &Tool{ID: "t.old", Label: "Old", Description: "Old.", Permission: "p", Deprecated: "use t.ok", Handler: h}
	if err := r.Add(dep); err != nil {
		t.Errorf("a deprecated tool: %v", err)
	}
	if info := r.Describe("t.old"); info == nil || info.Deprecated != "use t.ok" {
		t.Errorf("Describe of a deprecated tool: %+v", info)
	}
	if got := (&DefinitionError{Path: "inputs.x", Message: "m"}).Error(); got != "inputs.x: m" {
		t.Errorf("Error() = %q", got)
	}
}
