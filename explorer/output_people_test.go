package explorer

import (
	"strings"
	"testing"

	"github.com/toolapi/toolapi/tool"
)

func TestHumanValues(t *testing.T) {
	durations := map[string]string{
		"PT18M5S": "18 min 5 s", "PT2H": "2 h", "P1DT2H": "1 d 2 h", "-PT0.5S": "minus 0.5 s", "PT0S": "0 s", "P1Y2M": "1 y 2 mo",
	}
	for in, want := range durations {
		if got, ok := humanDuration(in); !ok || got != want {
			t.Errorf("humanDuration(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, bad := range []string{"", "P", "18m", "PTXS", "PT5"} {
		if got, ok := humanDuration(bad); ok {
			t.Errorf("humanDuration(%q) = %q, want no reading", bad, got)
		}
	}
	times := []struct {
		in       string
		dateOnly bool
		want     string
	}{
		{"2026-12-01T14:30:00Z", false, "1 Dec 2026, 14:30 UTC"},
		{"2026-12-01T14:30:05+01:00", false, "1 Dec 2026, 13:30:05 UTC"},
		{"2026-12-01", true, "1 Dec 2026"},
		{"2026-12-01T00:00:00Z", true, "1 Dec 2026"},
	}
	for _, tt := range times {
		if got, ok := humanTime(tt.in, tt.dateOnly); !ok || got != tt.want {
			t.Errorf("humanTime(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	names := map[string]string{"track_count": "Track count", "result": "Result", "url": "Url"}
	for in, want := range names {
		if got := humanName(&tool.Definition{Name: in}); got != want {
			t.Errorf("humanName(%q) = %q, want %q", in, got, want)
		}
	}
	ov := &outputViews{e: &server{}}
	if v := ov.value(&tool.Definition{Type: "boolean"}, true); v.Kind != "mark" || v.Note != "✓" {
		t.Errorf("true shows as %+v", v)
	}
	if v := ov.value(&tool.Definition{Type: "duration"}, "PT18M5S"); v.Text != "18 min 5 s" {
		t.Errorf("PT18M5S shows as %+v", v)
	}
}

func TestPlainMessages(t *testing.T) {
	code := &tool.Definition{Name: "code", Type: "string", Examples: []any{"AB-12"}, Constraints: tool.Constraints{Pattern: "^[A-Z]{2}-[0-9]{2}$"}}
	for _, tt := range []struct {
		def  *tool.Definition
		v    tool.Violation
		want string
	}{
		{code, tool.Violation{Rule: tool.RulePattern, Detail: "^[A-Z]{2}-[0-9]{2}$", Message: "must match the pattern ^[A-Z]{2}-[0-9]{2}$"}, "is not in the expected form: type something like “AB-12”"},
		{&tool.Definition{Type: "string", Description: "A code.", Constraints: tool.Constraints{Pattern: "^x$"}}, tool.Violation{Rule: tool.RulePattern, Detail: "^x$"}, "is not in the expected form: A code"},
		{&tool.Definition{Type: "timestamp"}, tool.Violation{Rule: tool.RuleFormat, Detail: "date-time", Message: "must be a date and time in RFC 3339 form such as 2024-05-01T12:00:00Z"}, "must be a date and time such as 2024-05-01 12:00 (UTC)"},
		// The core's words for an album are "the ID of an album": the
		// rule, not the words, picks what a person reads.
		{&tool.Definition{Type: "entity:album"}, tool.Violation{Rule: tool.RuleEntityID, Detail: "album", Message: "must be the ID of an album as a string"}, "must name an album: type its label or its ID"},
		{&tool.Definition{Type: "boolean"}, tool.Violation{Rule: tool.RuleType, Detail: "boolean", Message: "must be true or false"}, "must be yes or no (tick the box or leave it)"},
		{&tool.Definition{Type: "integer"}, tool.Violation{Rule: tool.RuleMaximum, Limit: tool.Ptr(10.0), Message: "must be at most 10"}, "must be at most 10"},
		// Words a handler chose stay as they are.
		{&tool.Definition{Type: "string"}, tool.Violation{Rule: tool.RuleHandler, Message: "must be a pattern we like"}, "must be a pattern we like"},
	} {
		if got := plainMessage(tt.def, tt.v); got != tt.want {
			t.Errorf("plainMessage(%+v) = %q, want %q", tt.v, got, tt.want)
		}
	}
	f := (&form{}).newField(code, "code", nil, -1)
	if h := f.Hint(); strings.Contains(h, "[A-Z]") || !strings.Contains(h, "like “AB-12”") {
		t.Errorf("the hint of a pattern = %q", h)
	}
	// Counts are in English: one character, not "1 characters".
	initial := &tool.Definition{Name: "initial", Type: "string", Constraints: tool.Constraints{Length: &tool.Bounds{Min: tool.Ptr(1), Max: tool.Ptr(1)}}}
	if h := (&form{}).newField(initial, "initial", nil, -1).Hint(); h != "exactly 1 character" {
		t.Errorf("the hint of one character = %q", h)
	}
	if c := constraintTexts(initial); len(c) != 1 || c[0] != "exactly 1 character" {
		t.Errorf("the constraints of one character = %q", c)
	}
}
