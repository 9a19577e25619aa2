package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// wordsOnly compares violations by their paths and words alone, for the
// tests about what is said where; TestViolationRules checks the rules.
var wordsOnly = cmpopts.IgnoreFields(Violation{}, "Rule", "Limit", "Choices", "Detail", "Value")

// TestViolationRules checks that each violation carries its rule key and
// datum, that its Message is built from them, and the words ForPeople
// says, on both the JSON path and the path of decoded values.
func TestViolationRules(t *testing.T) {
	str := func(c Constraints) *Definition { return &Definition{Name: "x", Type: "string", Constraints: c} }
	tests := []struct {
		name   string
		def    *Definition
		args   string
		want   Violation
		people string
	}{
		{"required", &Definition{Name: "x", Type: "string", Required: true}, `{}`,
			Violation{Path: "x", Rule: RuleRequired, Message: "is required"}, "is required"},
		{"not null", &Definition{Name: "x", Type: "integer", Default: 1, Constraints: Constraints{NotNull: true}}, `{"x":null}`,
			Violation{Path: "x", Rule: RuleNotNull, Message: "must not be null"}, "must not be null"},
		{"type integer", &Definition{Name: "x", Type: "integer"}, `{"x":"a"}`,
			Violation{Path: "x", Rule: RuleType, Message: "must be an integer", Detail: "integer"}, "must be a whole number such as 7"},
		{"type number", &Definition{Name: "x", Type: "float"}, `{"x":true}`,
			Violation{Path: "x", Rule: RuleType, Message: "must be a number", Detail: "number"}, "must be a number such as 2.5"},
		{"type boolean", &Definition{Name: "x", Type: "boolean"}, `{"x":1}`,
			Violation{Path: "x", Rule: RuleType, Message: "must be true or false", Detail: "boolean"}, "must be yes or no"},
		{"type string", &Definition{Name: "x", Type: "string"}, `{"x":1}`,
			Violation{Path: "x", Rule: RuleType, Message: "must be a string", Detail: "string"}, "must be a string"},
		{"type list", &Definition{Name: "x", Type: "list", Items: &Definition{Type: "string"}}, `{"x":1}`,
			Violation{Path: "x", Rule: RuleType, Message: "must be a list", Detail: "list"}, "must be a list"},
		{"format email", &Definition{Name: "x", Type: "email"}, `{"x":"ann"}`,
			Violation{Path: "x", Rule: RuleFormat, Message: "must be an email address", Detail: "email"}, "must be an email address such as ann@example.com"},
		{"format date", &Definition{Name: "x", Type: "datetime_iso8601", Constraints: Constraints{DateOnly: true}}, `{"x":"May"}`,
			Violation{Path: "x", Rule: RuleFormat, Message: "must be a date such as 2024-05-01", Detail: "date"}, "must be a date such as 2024-05-01"},
		{"format duration", &Definition{Name: "x", Type: "duration"}, `{"x":"soon"}`,
			Violation{Path: "x", Rule: RuleFormat, Message: "must be an ISO 8601 duration such as PT1H30M", Detail: "duration"}, "must be a duration such as 1h30m, 90s or PT1H30M"},
		{"pattern", str(Constraints{Pattern: "^[a-z]+$"}), `{"x":"A"}`,
			Violation{Path: "x", Rule: RulePattern, Message: "must match the pattern ^[a-z]+$", Detail: "^[a-z]+$"}, "is not in the expected form"},
		{"encoding", str(Constraints{Encoding: "base64"}), `{"x":"%%"}`,
			Violation{Path: "x", Rule: RuleContentEncoding, Message: "must be base64 (standard alphabet, padded)", Detail: "base64"}, "must be data encoded as base64"},
		{"nul", str(Constraints{}), `{"x":"a\u0000"}`,
			Violation{Path: "x", Rule: RuleNULCharacter, Message: "must not contain the NUL character (U+0000)"}, "must not contain the NUL character (U+0000)"},
		{"not blank", str(Constraints{NotBlank: true}), `{"x":""}`,
			Violation{Path: "x", Rule: RuleMinLength, Message: "must not be blank", Limit: Ptr(1.0)}, "must not be blank"},
		{"min length", str(Constraints{Length: &Bounds{Min: Ptr(3)}}), `{"x":"ab"}`,
			Violation{Path: "x", Rule: RuleMinLength, Message: "must be at least 3 characters long", Limit: Ptr(3.0)}, "must be at least 3 characters long"},
		{"one character", str(Constraints{Length: &Bounds{Max: Ptr(1)}}), `{"x":"ab"}`,
			Violation{Path: "x", Rule: RuleMaxLength, Message: "must be at most 1 character long", Limit: Ptr(1.0)}, "must be at most 1 character long"},
		{"minimum", &Definition{Name: "x", Type: "float", Constraints: Constraints{Range: &Range{Min: Ptr(0.5)}}}, `{"x":0}`,
			Violation{Path: "x", Rule: RuleMinimum, Message: "must be at least 0.5", Limit: Ptr(0.5)}, "must be at least 0.5"},
		{"maximum", &Definition{Name: "x", Type: "integer", Constraints: Constraints{Range: &Range{Max: Ptr(0.0)}}}, `{"x":1}`,
			Violation{Path: "x", Rule: RuleMaximum, Message: "must be at most 0", Limit: Ptr(0.0)}, "must be at most 0"},
		{"enum", &Definition{Name: "x", Type: "integer", Constraints: Constraints{Choice: []any{1, 2}}}, `{"x":3}`,
			Violation{Path: "x", Rule: RuleEnum, Message: "must be one of: 1, 2", Choices: []string{"1", "2"}}, "must be one of: 1, 2"},
		{"not empty", &Definition{Name: "x", Type: "list", Items: &Definition{Type: "string"}, Constraints: Constraints{NotBlank: true}}, `{"x":[]}`,
			Violation{Path: "x", Rule: RuleMinItems, Message: "must not be empty", Limit: Ptr(1.0)}, "must not be empty"},
		{"max items", &Definition{Name: "x", Type: "list", Items: &Definition{Type: "string"}, Constraints: Constraints{Count: &Bounds{Max: Ptr(1)}}}, `{"x":["a","b"]}`,
			Violation{Path: "x", Rule: RuleMaxItems, Message: "must have at most 1 item", Limit: Ptr(1.0)}, "must have at most 1 item"},
		{"min properties", &Definition{Name: "x", Type: "map", Constraints: Constraints{Count: &Bounds{Min: Ptr(2)}}}, `{"x":{"a":1}}`,
			Violation{Path: "x", Rule: RuleMinProperties, Message: "must have at least 2 properties", Limit: Ptr(2.0)}, "must have at least 2 properties"},
		{"unknown property", &Definition{Name: "x", Type: "map", Properties: []*Definition{{Name: "a", Type: "string"}}}, `{"x":{"b":"1"}}`,
			Violation{Path: "x.b", Rule: RuleAdditionalProperties, Message: "is not a known property"}, "is not a known property"},
		{"unknown input", str(Constraints{}), `{"y":1}`,
			Violation{Path: "y", Rule: RuleAdditionalProperties, Message: "is not an input of this tool", Detail: "input"}, "is not an input of this tool"},
		{"locked", &Definition{Name: "x", Type: "string", Default: "a", Locked: true}, `{"x":"b"}`,
			Violation{Path: "x", Rule: RuleLocked, Message: "is locked and cannot be set"}, "is locked and cannot be set"},
		{"entity id", &Definition{Name: "x", Type: "entity:album", EntityOp: "view"}, `{"x":12}`,
			Violation{Path: "x", Rule: RuleEntityID, Message: "must be the ID of an album as a string", Detail: "album"}, "must name an album: type its label or its ID"},
		{"entity reference", &Definition{Name: "x", Type: "entity", EntityOp: "view"}, `{"x":"12"}`,
			Violation{Path: "x", Rule: RuleEntityID, Message: `must be an entity reference of the form "type:id"`}, "must name an entity as TYPE:ID, such as album:12"},
		{"entity not found", &Definition{Name: "x", Type: "entity:album", EntityOp: "view"}, `{"x":"9"}`,
			Violation{Path: "x", Rule: RuleEntityNotFound, Message: `no album has the ID "9"`, Detail: "album", Value: "9"}, "no album has the ID “9”"},
		{"entity not found, sensitive", &Definition{Name: "x", Type: "entity:album", EntityOp: "view", Sensitive: true}, `{"x":"9"}`,
			Violation{Path: "x", Rule: RuleEntityNotFound, Message: "an album with this ID does not exist", Detail: "album"}, "an album with this ID does not exist"},
		{"unknown entity type", &Definition{Name: "x", Type: "entity", EntityOp: "view"}, `{"x":"song:1"}`,
			Violation{Path: "x", Rule: RuleEntityType, Message: `names an unknown entity type "song"`, Value: "song"}, `names an unknown entity type "song"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got *Values
			r := NewRegistry(&Options{Logger: slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil))})
			r.AddEntityType(&EntityType{ID: "album",
				Load:     func(context.Context, string) (any, error) { return nil, ErrEntityNotFound },
				Access:   func(context.Context, Account, any, string) (bool, error) { return true, nil },
				Describe: func(any) (string, string, bool) { return "", "", false }})
			if err := r.Add(echoTool(&got, tt.def)); err != nil {
				t.Fatal(err)
			}
			var args map[string]any
			if err := json.Unmarshal([]byte(tt.args), &args); err != nil {
				t.Fatal(err)
			}
			ctx := WithAccount(context.Background(), editor)
			for path, res := range map[string]*Result{"RunJSON": must(r.RunJSON(ctx, "test.echo", []byte(tt.args))), "Run": must(r.Run(ctx, "test.echo", args))} {
				if res.Failure != FailureInput || len(res.Violations) != 1 {
					t.Fatalf("%s: got %+v, want one violation", path, res)
				}
				v := res.Violations[0]
				if diff := cmp.Diff(tt.want, v); diff != "" {
					t.Errorf("%s: violation (-want +got):\n%s", path, diff)
				}
				if got := v.ForPeople(); got != tt.people {
					t.Errorf("%s: ForPeople() = %q, want %q", path, got, tt.people)
				}
			}
		})
	}
}

// TestViolationArgumentRules checks the rules of a whole arguments
// document that is not an object or not JSON.
func TestViolationArgumentRules(t *testing.T) {
	var got *Values
	r := newTestRegistry(t, echoTool(&got, &Definition{Name: "x", Type: "string"}))
	ctx := WithAccount(context.Background(), editor)
	for args, want := range map[string]Violation{
		`[1]`:  {Rule: RuleType, Detail: "object", Message: "arguments must be a JSON object"},
		`{"x"`: {Rule: RuleJSON, Detail: `unexpected EOF within "/x" after offset 4`, Message: `arguments are not valid JSON: unexpected EOF within "/x" after offset 4`},
	} {
		res := must(r.RunJSON(ctx, "test.echo", []byte(args)))
		if len(res.Violations) != 1 {
			t.Fatalf("%s: got %+v, want one violation", args, res)
		}
		if diff := cmp.Diff(want, res.Violations[0]); diff != "" {
			t.Errorf("%s: violation (-want +got):\n%s", args, diff)
		}
	}
}
