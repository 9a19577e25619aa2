package mcpserver

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/toolapi/toolapi/tool"
)

// Bounds of the text of a failed call, so that the answer to arguments
// built to fail in every possible way stays small whatever the run path
// reports: the message, the violations listed and the length of each.
const (
	maxMessageBytes   = 2048
	maxViolations     = 50
	maxViolationBytes = 200
	maxRuleBytes      = 64
)

// violationsText returns the text block listing the violations of a
// failed call: at most maxViolations of them, each cut to
// maxViolationBytes and followed by its rule key ("- limit: must be at
// most 100 (rule: maximum)"), a stable code an agent can act on, and how
// many more there were.
func violationsText(vs []tool.Violation) string {
	var b strings.Builder
	b.WriteString("Violations:")
	for i, v := range vs {
		if i == maxViolations {
			fmt.Fprintf(&b, "\n- and %d more", len(vs)-i)
			break
		}
		b.WriteString("\n- ")
		b.WriteString(clip(v.String(), maxViolationBytes))
		if v.Rule != "" {
			b.WriteString(" (rule: " + clip(v.Rule, maxRuleBytes) + ")")
		}
	}
	return b.String()
}

// clip returns s cut to at most max bytes, on a rune boundary, with "…"
// at the end when it was cut. It copies the runes that fit rather than
// slicing s, and so never looks into the words it bounds.
func clip(s string, max int) string {
	if len(s) <= max {
		return s
	}
	const ellipsis = "…"
	var b strings.Builder
	for _, r := range s {
		if b.Len()+utf8.RuneLen(r) > max-len(ellipsis) {
			break
		}
		b.WriteRune(r)
	}
	return b.String() + ellipsis
}
