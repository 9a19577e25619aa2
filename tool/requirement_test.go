package tool

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRequirements(t *testing.T) {
	tests := []struct {
		def  *Definition
		want []Requirement
	}{
		{&Definition{Type: "string", Constraints: Constraints{NotBlank: true, Length: &Bounds{Min: Ptr(1), Max: Ptr(1)}}},
			[]Requirement{{RuleMinLength, "not blank"}, {RuleMinLength, "exactly 1 character"}}},
		{&Definition{Type: "string", Constraints: Constraints{Length: &Bounds{Max: Ptr(1)}, Pattern: "^[a-z]$"}},
			[]Requirement{{RuleMaxLength, "at most 1 character"}, {RulePattern, "matches ^[a-z]$"}}},
		{&Definition{Type: "list", Items: &Definition{Type: "string"}, Constraints: Constraints{NotBlank: true, Count: &Bounds{Min: Ptr(0), Max: Ptr(1)}}},
			[]Requirement{{RuleMinItems, "not empty"}, {RuleMinItems, "0 to 1 items"}}},
		{&Definition{Type: "map", Constraints: Constraints{Count: &Bounds{Min: Ptr(2)}, NotNull: true}},
			[]Requirement{{RuleNotNull, "not null"}, {RuleMinProperties, "at least 2 properties"}}},
		{&Definition{Type: "integer", Constraints: Constraints{Range: &Range{Min: Ptr(0.0), Max: Ptr(100.0)}, Choice: []any{1, 2}}},
			[]Requirement{{RuleMinimum, "from 0 to 100"}, {RuleEnum, "one of: 1, 2"}}},
		{&Definition{Type: "float", Constraints: Constraints{Range: &Range{Max: Ptr(0.5)}}},
			[]Requirement{{RuleMaximum, "at most 0.5"}}},
		{&Definition{Type: "string", Constraints: Constraints{Email: true, Encoding: "base64", Choice: []any{"a b", "c"}}},
			[]Requirement{{RuleEnum, "one of: a b, c"}, {RuleFormat, "an email address"}, {RuleContentEncoding, "base64-encoded"}}},
		{&Definition{Type: "datetime_iso8601", Constraints: Constraints{DateOnly: true}},
			[]Requirement{{RuleFormat, "a date (YYYY-MM-DD)"}}},
		{&Definition{Type: "string"}, nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, tt.def.Requirements()); diff != "" {
			t.Errorf("%+v: requirements (-want +got):\n%s", tt.def.Constraints, diff)
		}
	}
}
