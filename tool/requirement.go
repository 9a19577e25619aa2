package tool

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/toolapi/toolapi/internal/english"
)

// A Requirement is one thing a definition's constraints require of a
// value.
type Requirement struct {
	// Rule is the key of a [Violation] of it; a range's lower bound's when
	// it has both.
	Rule string
	// Text says it in a short phrase ("1 to 5 items", "one of: red, blue").
	Text string
}

// Requirements says what d's constraints require, one [Requirement] each in
// the order of [Constraints]' fields: the wording callers show people.
func (d *Definition) Requirements() []Requirement {
	c := &d.Constraints
	var out []Requirement
	minCount, maxCount, noun := RuleMinItems, RuleMaxItems, "item"
	if d.Type == "map" {
		minCount, maxCount, noun = RuleMinProperties, RuleMaxProperties, "property"
	}
	if c.NotBlank {
		switch d.Type {
		case "list", "map":
			out = append(out, Requirement{minCount, "not empty"})
		default:
			out = append(out, Requirement{RuleMinLength, "not blank"})
		}
	}
	if c.NotNull {
		out = append(out, Requirement{RuleNotNull, "not null"})
	}
	if c.Count != nil {
		if r, ok := boundsRequirement(c.Count, minCount, maxCount, noun); ok {
			out = append(out, r)
		}
	}
	if c.Length != nil {
		if r, ok := boundsRequirement(c.Length, RuleMinLength, RuleMaxLength, "character"); ok {
			out = append(out, r)
		}
	}
	if r := c.Range; r != nil {
		switch {
		case r.Min != nil && r.Max != nil:
			out = append(out, Requirement{RuleMinimum, "from " + formatNumber(*r.Min) + " to " + formatNumber(*r.Max)})
		case r.Min != nil:
			out = append(out, Requirement{RuleMinimum, "at least " + formatNumber(*r.Min)})
		case r.Max != nil:
			out = append(out, Requirement{RuleMaximum, "at most " + formatNumber(*r.Max)})
		}
	}
	if len(c.Choice) > 0 {
		out = append(out, Requirement{RuleEnum, "one of: " + strings.Join(choiceTexts(c.Choice), ", ")})
	}
	if c.Pattern != "" {
		out = append(out, Requirement{RulePattern, "matches " + c.Pattern})
	}
	if c.Email {
		out = append(out, Requirement{RuleFormat, "an email address"})
	}
	if c.Encoding != "" {
		out = append(out, Requirement{RuleContentEncoding, c.Encoding + "-encoded"})
	}
	if c.DateOnly {
		out = append(out, Requirement{RuleFormat, "a date (YYYY-MM-DD)"})
	}
	return out
}

// boundsRequirement says the bounds b of a count of nouns: "1 to 5
// items", "at least 1 item", "exactly 2 characters"; ok is false when b
// bounds nothing.
func boundsRequirement(b *Bounds, minRule, maxRule, noun string) (r Requirement, ok bool) {
	switch {
	case b.Min != nil && b.Max != nil && *b.Min == *b.Max:
		return Requirement{minRule, "exactly " + english.Count(*b.Min, noun)}, true
	case b.Min != nil && b.Max != nil:
		// A range counts in the plural: "0 to 1 items".
		return Requirement{minRule, strconv.Itoa(*b.Min) + " to " + strconv.Itoa(*b.Max) + " " + english.Plural(2, noun)}, true
	case b.Min != nil:
		return Requirement{minRule, "at least " + english.Count(*b.Min, noun)}, true
	case b.Max != nil:
		return Requirement{maxRule, "at most " + english.Count(*b.Max, noun)}, true
	}
	return Requirement{}, false
}

// choiceTexts returns the choices as messages show them: strings as they
// are, other values as JSON.
func choiceTexts(choices []any) []string {
	parts := make([]string, len(choices))
	for i, c := range choices {
		if s, ok := c.(string); ok {
			parts[i] = s
			continue
		}
		b, err := json.Marshal(c)
		if err != nil {
			parts[i] = "?"
			continue
		}
		parts[i] = string(b)
	}
	return parts
}
