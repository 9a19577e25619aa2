package tool

import (
	"context"
	"errors"
	"strings"
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

// TestDefinitionRules checks, one rule at a time, that Check refuses a
// hand-written tool breaking a rule toolgen also keeps for method tools,
// with the rule's name.
func TestDefinitionRules(t *testing.T) {
	h := func(context.Context, *Values) (*Result, error) { return nil, nil }
	anyone := func(context.Context, *Values) (bool, error) { return true, nil }
	tests := []struct {
		name string
		tool Tool
		want []DefinitionError
	}{
		{"ID with a space", Tool{ID: "a bad id", Description: "D.", Permission: "p"},
			[]DefinitionError{{"", "id", `ID "a bad id" holds ' ': an ID holds only letters, digits, '_', '.' and '-' (album.search)`}}},
		{"ID starting with a digit", Tool{ID: "9lives.check", Description: "D.", Permission: "p"},
			[]DefinitionError{{"", "id", `ID "9lives.check" must start with a letter or '_' (album.search), as model APIs require of a tool's name`}}},
		{"ID too long", Tool{ID: strings.Repeat("x", 65), Description: "D.", Permission: "p"},
			[]DefinitionError{{"", "id", `ID "` + strings.Repeat("x", 65) + `" is named ` + strings.Repeat("x", 65) + `, 65 characters, more than the 64 model APIs allow in a tool's name (each '.' counts as the two characters of "__"): shorten it`}}},
		{"ID of 64 characters", Tool{ID: strings.Repeat("x", 64), Description: "D.", Permission: "p"}, nil},
		{"blank description", Tool{ID: "t.x", Description: " \n", Permission: "p"},
			[]DefinitionError{{"", "description", "a tool needs a description"}}},
		{"stray characters in a permission", Tool{ID: "t.x", Description: "D.", Permission: "read notes &&"},
			[]DefinitionError{{"", "permission", `permission "read notes &&": "read notes &&" is no permission name, which holds letters, digits, spaces, '_', '.', ':' and '-'; join names with "," (all of) or "+" (any of)`}}},
		{"permission names with spaces and colons", Tool{ID: "t.x", Description: "D.", Permission: "read notes+notes:edit"}, nil},
		{"no access check", Tool{ID: "t.x", Description: "D."},
			[]DefinitionError{{"", "access", "no access check: declare a permission, an access method, or an entity op on a required single entity input"}}},
		{"an access method is a check", Tool{ID: "t.x", Description: "D.", Access: anyone}, nil},
		{"entity op on an optional entity only", Tool{ID: "t.x", Description: "D.",
			Inputs: []*Definition{{Name: "node", Type: "entity", EntityOp: "view"}}},
			[]DefinitionError{{"", "access", "no access check a caller cannot skip: an entity op on an optional or list input may check nothing; declare a permission, an access method, or an entity op on a required single entity input"}}},
		{"entity op on a list of entities only", Tool{ID: "t.x", Description: "D.",
			Inputs: []*Definition{{Name: "nodes", Type: "list", Required: true, Items: &Definition{Type: "entity"}, EntityOp: "view"}}},
			[]DefinitionError{{"", "access", "no access check a caller cannot skip: an entity op on an optional or list input may check nothing; declare a permission, an access method, or an entity op on a required single entity input"}}},
		{"entity op on a required entity", Tool{ID: "t.x", Description: "D.",
			Inputs: []*Definition{{Name: "node", Type: "entity", Required: true, EntityOp: "view"}}}, nil},
		{"count on a string", Tool{ID: "t.x", Description: "D.", Permission: "p",
			Inputs: []*Definition{{Name: "word", Type: "string", Constraints: Constraints{Count: &Bounds{Max: Ptr(3)}}}}},
			[]DefinitionError{{"inputs.word", "count", "count bounds a list or map, not string"}}},
		{"count on any", Tool{ID: "t.x", Description: "D.", Permission: "p",
			Outputs: []*Definition{{Name: "v", Type: "any", Constraints: Constraints{Count: &Bounds{Max: Ptr(3)}}}}},
			[]DefinitionError{{"outputs.v", "count", "count bounds a list or map, not any"}}},
		{"count on a list and a map", Tool{ID: "t.x", Description: "D.", Permission: "p",
			Inputs: []*Definition{
				{Name: "words", Type: "list", Items: &Definition{Type: "string"}, Constraints: Constraints{Count: &Bounds{Max: Ptr(3)}}},
				{Name: "pairs", Type: "map", Constraints: Constraints{Count: &Bounds{Max: Ptr(3)}}},
			}}, nil},
		{"dateonly on a timestamp", Tool{ID: "t.x", Description: "D.", Permission: "p",
			Inputs: []*Definition{{Name: "at", Type: "timestamp", Constraints: Constraints{DateOnly: true}}}},
			[]DefinitionError{{"inputs.at", "dateonly", "dateonly needs a datetime_iso8601, not timestamp"}}},
		{"dateonly on a list of strings binds the items", Tool{ID: "t.x", Description: "D.", Permission: "p",
			Outputs: []*Definition{{Name: "days", Type: "list", Items: &Definition{Type: "string"}, Constraints: Constraints{DateOnly: true}}}},
			[]DefinitionError{{"outputs.days.items", "dateonly", "dateonly needs a datetime_iso8601, not string"}}},
		{"dateonly on a list of dates", Tool{ID: "t.x", Description: "D.", Permission: "p",
			Inputs: []*Definition{{Name: "days", Type: "list", Items: &Definition{Type: "datetime_iso8601"}, Constraints: Constraints{DateOnly: true}}}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.tool.Label, tt.tool.Handler = "X", h
			if diff := cmp.Diff(tt.want, definitionErrorsOf(tt.tool.Check())); diff != "" {
				t.Errorf("Check (-want +got):\n%s", diff)
			}
		})
	}
}
