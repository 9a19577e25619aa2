package explorer

import (
	"strings"

	"github.com/toolapi/toolapi/tool"
)

// plainMessage rewords a violation of a form field for the person filling
// it in: what to type, with an example, rather than a regular expression
// or the name of a standard. Messages it does not know stay as they are.
func plainMessage(def *tool.Definition, msg string) string {
	example := ""
	if len(def.Examples) > 0 {
		if s, ok := def.Examples[0].(string); ok {
			example = s
		}
	}
	switch {
	case strings.HasPrefix(msg, "must match the pattern "):
		if example != "" {
			return "is not in the expected form: type something like “" + example + "”"
		}
		return "is not in the expected form" + describeHint(def)
	case strings.Contains(msg, "RFC 3339"):
		return "must be a date and time such as 2024-05-01 12:00 (UTC)"
	case strings.HasPrefix(msg, "must be an ISO 8601 duration"):
		return "must be a duration such as 1h30m, 90s or PT1H30M"
	case msg == "must be an integer":
		return "must be a whole number such as 7"
	case msg == "must be a number":
		return "must be a number such as 2.5"
	case msg == "must be an email address":
		return "must be an email address such as ann@example.com"
	case msg == "must be an absolute URI":
		return "must be a full web address such as https://example.com/page"
	case msg == "must be true or false":
		return "must be yes or no (tick the box or leave it)"
	case strings.HasPrefix(msg, "must be the ID of a "):
		typ := strings.TrimSuffix(strings.TrimPrefix(msg, "must be the ID of a "), " as a string")
		return "must name a " + typ + ": type its label or its ID"
	case strings.HasPrefix(msg, "must be base64"):
		return "must be data encoded as base64"
	}
	return msg
}

// describeHint returns ": " and the definition's description, to say
// what a value should be when no example says it.
func describeHint(def *tool.Definition) string {
	if def.Description == "" {
		return ""
	}
	return ": " + strings.TrimSuffix(def.Description, ".")
}
