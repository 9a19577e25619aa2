package tool

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/toolapi/toolapi/internal/english"
)

// A Violation is one problem with a value: its Path ("tags[2]"), the Rule
// it breaks with the rule's datum, and a Message for models. Code switches
// on Rule and reads the datum, never the words, which may change.
type Violation struct {
	Path string `json:"path"`
	// Rule is one of the Rule constants (or empty, from a handler).
	Rule string `json:"rule"`
	// Message says what is wrong, without the path.
	Message string `json:"message"`
	// Limit is the bound of a minimum or maximum rule, or RuleTruncated's.
	Limit *float64 `json:"limit,omitempty"`
	// Choices are RuleEnum's values: strings as they are, others as JSON.
	Choices []string `json:"choices,omitempty"`
	// Detail is the rule's other datum, as its Rule constant says.
	Detail string `json:"detail,omitempty"`
	// Value is the value at fault, as its Rule says (never a secret one).
	Value string `json:"value,omitempty"`
}

// The rule keys of a [Violation]: the JSON Schema keyword the value
// breaks where there is one, else the core's own rule.
const (
	// RuleRequired: a required input or property is absent.
	RuleRequired = "required"
	// RuleNotNull: a value is null where null is not allowed.
	RuleNotNull = "not_null"
	// RuleType: the value is not of type Detail ("string", "integer",
	// "number", "boolean", "list", "map", "object", "int64").
	RuleType = "type"
	// RuleFormat: a string is not in format Detail ("email", "uri",
	// "date-time", "date", "duration").
	RuleFormat = "format"
	// RuleWholeSeconds: a duration is negative or not whole seconds.
	RuleWholeSeconds = "whole_seconds"
	// RuleContentEncoding: a string is not in encoding Detail ("base64").
	RuleContentEncoding = "contentEncoding"
	// RulePattern: a string does not match the pattern Detail.
	RulePattern = "pattern"
	// RuleNULCharacter: a string holds the NUL character (U+0000).
	RuleNULCharacter = "nul_character"
	// RuleMinLength, RuleMaxLength: a string has fewer, more characters
	// than Limit.
	RuleMinLength = "minLength"
	RuleMaxLength = "maxLength"
	// RuleMinimum, RuleMaximum: a number is below, above Limit.
	RuleMinimum = "minimum"
	RuleMaximum = "maximum"
	// RuleEnum: the value is not one of Choices.
	RuleEnum = "enum"
	// RuleMinItems, RuleMaxItems: a list has fewer, more items than Limit.
	RuleMinItems = "minItems"
	RuleMaxItems = "maxItems"
	// RuleMinProperties, RuleMaxProperties: a map has fewer, more
	// properties than Limit.
	RuleMinProperties = "minProperties"
	RuleMaxProperties = "maxProperties"
	// RuleAdditionalProperties: Path is not a property of the map, or
	// (Detail "input") not an input of the tool.
	RuleAdditionalProperties = "additionalProperties"
	// RuleLocked: a caller sent a locked input.
	RuleLocked = "locked"
	// RuleJSON: text is not JSON, Detail says why; an empty Path means the
	// arguments document itself.
	RuleJSON = "json"
	// RuleEntityID: the value is not an ID of entity type Detail (its label
	// in lower case, else its ID) or, Detail empty, not a "type:id".
	RuleEntityID = "entity_id"
	// RuleEntityType: a reference names the unknown type Value, or an
	// output entity is not of the type ID Detail.
	RuleEntityType = "entity_type"
	// RuleEntityNotFound: no entity of type Detail has the ID Value.
	RuleEntityNotFound = "entity_not_found"
	// RuleCheck: a data type's check refused the value, in its own words.
	RuleCheck = "check"
	// RuleHandler: the tool refused the value with an [InputError].
	RuleHandler = "handler"
	// RuleUnavailable: the value cannot be checked now (its refiner
	// failed); trying again may succeed.
	RuleUnavailable = "unavailable"
	// RuleTruncated: ends a list of violations that was cut; Limit is the
	// number left out.
	RuleTruncated = "truncated"
	// RuleCursorInvalid: the cursor was not given by this tool, for this
	// account and these other inputs, or was changed (see [Budget]).
	RuleCursorInvalid = "cursor_invalid"
)

func (v Violation) String() string {
	if v.Path == "" {
		return v.Message
	}
	return v.Path + ": " + v.Message
}

// ForPeople says what is wrong in words for people ("must be a whole number
// such as 7" where Message says "must be an integer").
func (v Violation) ForPeople() string {
	switch v.Rule {
	case RuleType:
		switch v.Detail {
		case "integer":
			return "must be a whole number such as 7"
		case "number":
			return "must be a number such as 2.5"
		case "boolean":
			return "must be yes or no"
		}
	case RuleFormat:
		switch v.Detail {
		case "date-time":
			return "must be a date and time such as 2024-05-01 12:00 (UTC)"
		case "duration":
			return "must be a duration such as 1h30m, 90s or PT1H30M"
		case "email":
			return "must be an email address such as ann@example.com"
		case "uri":
			return "must be a full web address such as https://example.com/page"
		}
	case RuleContentEncoding:
		return "must be data encoded as " + v.Detail
	case RulePattern:
		return "is not in the expected form"
	case RuleEntityID:
		if v.Detail != "" {
			return "must name " + withArticle(v.Detail) + ": type its label or its ID"
		}
		return "must name an entity as TYPE:ID, such as album:12"
	case RuleEntityNotFound:
		if v.Value != "" {
			return "no " + v.Detail + " has the ID “" + v.Value + "”"
		}
	}
	return v.Message
}

// violationMessage returns the words of v for models, from its rule and
// datum; it is the one place they are built. A violation of a rule
// without words of its own (RuleCheck, RuleHandler, none) keeps its
// Message.
func violationMessage(v *Violation) string {
	limit := func() int {
		if v.Limit == nil {
			return 0
		}
		return int(*v.Limit)
	}
	bound := func() string {
		if v.Limit == nil {
			return "?"
		}
		return formatNumber(*v.Limit)
	}
	switch v.Rule {
	case RuleRequired:
		return "is required"
	case RuleNotNull:
		return "must not be null"
	case RuleType:
		switch v.Detail {
		case "integer":
			return "must be an integer"
		case "int64":
			return "must be an integer between -9223372036854775808 and 9223372036854775807"
		case "number":
			return "must be a number"
		case "boolean":
			return "must be true or false"
		case "list":
			return "must be a list"
		case "map":
			return "must be a map (a JSON object)"
		case "object":
			return "arguments must be a JSON object"
		case "":
			return "has a type that cannot be decoded"
		}
		return "must be " + withArticle(v.Detail)
	case RuleFormat:
		switch v.Detail {
		case "email":
			return "must be an email address"
		case "uri":
			return "must be an absolute URI"
		case "date":
			return "must be a date such as 2024-05-01"
		case "date-time":
			return "must be a date and time in RFC 3339 form such as 2024-05-01T12:00:00Z"
		case "duration":
			return "must be an ISO 8601 duration such as PT1H30M"
		}
		return "must be in the format " + v.Detail
	case RuleWholeSeconds:
		return "must be a whole, non-negative number of seconds such as 1h30m or PT1H30M"
	case RuleContentEncoding:
		if v.Detail == "base64" {
			return "must be base64 (standard alphabet, padded)"
		}
		return "must be encoded as " + v.Detail
	case RulePattern:
		return "must match the pattern " + v.Detail
	case RuleNULCharacter:
		return "must not contain the NUL character (U+0000)"
	case RuleMinLength:
		if limit() == 1 {
			return "must not be blank"
		}
		return "must be at least " + english.Count(limit(), "character") + " long"
	case RuleMaxLength:
		return "must be at most " + english.Count(limit(), "character") + " long"
	case RuleMinimum:
		return "must be at least " + bound()
	case RuleMaximum:
		return "must be at most " + bound()
	case RuleEnum:
		return "must be one of: " + strings.Join(v.Choices, ", ")
	case RuleMinItems, RuleMinProperties:
		if limit() == 1 {
			return "must not be empty"
		}
		return "must have at least " + english.Count(limit(), countNoun(v.Rule))
	case RuleMaxItems, RuleMaxProperties:
		return "must have at most " + english.Count(limit(), countNoun(v.Rule))
	case RuleAdditionalProperties:
		if v.Detail == "input" {
			return "is not an input of this tool"
		}
		return "is not a known property"
	case RuleLocked:
		return "is locked and cannot be set"
	case RuleJSON:
		if v.Path == "" {
			return "arguments are not valid JSON: " + v.Detail
		}
		return "must be a list (the text is not a JSON array: " + v.Detail + ")"
	case RuleEntityID:
		if v.Detail != "" {
			return "must be the ID of " + withArticle(v.Detail) + " as a string"
		}
		return `must be an entity reference of the form "type:id"`
	case RuleEntityType:
		switch {
		case v.Detail != "":
			return "must be " + withArticle(v.Detail) + " entity"
		case v.Value != "":
			return "names an unknown entity type \"" + v.Value + "\""
		}
		return "names an unknown entity type"
	case RuleEntityNotFound:
		if v.Value == "" {
			return withArticle(v.Detail) + " with this ID does not exist"
		}
		return "no " + v.Detail + " has the ID \"" + v.Value + "\""
	case RuleUnavailable:
		return "cannot be checked now; try again"
	case RuleTruncated:
		return "and " + english.Count(limit(), "more violation") + ", left out"
	case RuleCursorInvalid:
		return "is not a cursor this tool gave for these inputs and this account; call again without it for the first page"
	}
	return v.Message
}

// countNoun is what the count rules count.
func countNoun(rule string) string {
	if rule == RuleMinProperties || rule == RuleMaxProperties {
		return "property"
	}
	return "item"
}

// limit returns a Limit of n.
func limit(n int) *float64 { return limitAt(float64(n)) }

// limitAt returns a Limit of f.
func limitAt(f float64) *float64 { return &f }

// maxViolations is the number of violations a result carries at most: a
// run that finds more keeps the first maxViolations and closes the list
// with one violation saying how many more there were, which it counted
// without keeping them.
const maxViolations = 50

// maxPathBytes bounds the path of a violation (a key a caller sent may be
// long): a longer path is cut and ends with "…".
const maxPathBytes = 200

// joinViolations renders violations one a line.
func joinViolations(vs []Violation) string {
	var b strings.Builder
	for i, v := range vs {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(v.String())
	}
	return b.String()
}

// violations collects the violations of one value or run: the first
// maxViolations, and a count of the rest.
type violations struct {
	list []Violation
	more int
}

// add adds v at the path p, its Message built from its rule and datum.
func (vs *violations) add(p *pathSeg, v Violation) {
	if len(vs.list) >= maxViolations {
		vs.more++
		return
	}
	v.Path = shorten(p.String(), maxPathBytes)
	v.Message = violationMessage(&v)
	vs.list = append(vs.list, v)
}

// rule returns a violation of rule, with no datum.
func rule(r string) Violation { return Violation{Rule: r} }

// newViolation returns v with its Message built from its rule and datum.
func newViolation(v Violation) Violation {
	v.Message = violationMessage(&v)
	return v
}

// empty reports whether no violation was found.
func (vs *violations) empty() bool { return len(vs.list) == 0 && vs.more == 0 }

// first returns the message of the first violation; vs must not be empty.
func (vs *violations) first() string { return vs.list[0].Message }

// result returns the violations found, closed by one saying how many more
// there were when there were more than maxViolations; nil when there were
// none.
func (vs *violations) result() []Violation {
	if vs.more == 0 {
		return vs.list
	}
	return append(vs.list, newViolation(Violation{Rule: RuleTruncated, Limit: limit(vs.more)}))
}

// shorten cuts s to at most max bytes on a rune boundary, marking the cut.
func shorten(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// extraNames collects the names a caller sent that are not inputs (or are
// locked), the first maxViolations of them, and counts the rest.
type extraNames struct {
	names []string
	more  int
}

func (x *extraNames) add(name string) {
	if len(x.names) >= maxViolations {
		x.more++
		return
	}
	x.names = append(x.names, name)
}

// report adds a violation for each name, in name order.
func (x *extraNames) report(e *entry, vs *violations) {
	slices.Sort(x.names)
	for _, k := range x.names {
		seg := pathSeg{name: k}
		if _, ok := e.inputIndex[k]; ok {
			vs.add(&seg, rule(RuleLocked))
		} else {
			vs.add(&seg, Violation{Rule: RuleAdditionalProperties, Detail: "input"})
		}
	}
	vs.more += x.more
}

// sortedViolations returns the violations of a run ordered by input, in
// definition order, and those about names that are not inputs last; within
// an input they keep the order they were found in.
func sortedViolations(e *entry, vs *violations) []Violation {
	if len(vs.list) >= 2 {
		rank := func(v Violation) int {
			root := v.Path
			if i := strings.IndexAny(root, ".["); i >= 0 {
				root = root[:i]
			}
			if i, ok := e.inputIndex[root]; ok && !e.inputs[i].def.Locked {
				return i
			}
			return len(e.inputs)
		}
		slices.SortStableFunc(vs.list, func(a, b Violation) int { return rank(a) - rank(b) })
	}
	return vs.result()
}

// withArticle returns noun with its indefinite article, as spoken: "an
// album", "a photo", "a user", "an hour".
func withArticle(noun string) string { return english.WithArticle(noun) }
