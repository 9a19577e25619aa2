package gen

import (
	"regexp"
	"testing"
)

// The doc-line matchers are hand-written for speed; these are the regular
// expressions they implement.
var (
	goDirectiveRE = regexp.MustCompile(`^//(line |extern |export |[a-z0-9]+:[a-z0-9])`)
	itemLineRE    = regexp.MustCompile(`^\s*[-*+•]\s+([A-Za-z_][A-Za-z0-9_]*)\s*:\s*(.*)$`)
)

func TestDocLineMatchers(t *testing.T) {
	lines := []string{
		"", "-", "- ", "- a", "- a:", "- a: b", "-a: b", "  - word: A word.", "\t* n2 : x", "+ _x:y",
		"• mood: How.", "•mood: x", "- 9a: x", "- a b: c", "- é: x", "- a:\tb ", "  -  a  :  b  ", "x - a: b",
		"//line a.go:1", "//go:generate x", "//nolint:errcheck", "//export F", "//extern f", "// go:x",
		"//Go:x", "//go:", "//go: x", "//a1:b", "//tool:method id=x", "//x:", "/* a */", "//:x",
	}
	for _, l := range lines {
		m := itemLineRE.FindStringSubmatch(l)
		name, text, ok := parseItem(l)
		if ok != (m != nil) || ok && (name != m[1] || trimmed(text) != trimmed(m[2])) {
			t.Errorf("parseItem(%q) = %q, %q, %v; the expression gives %q", l, name, text, ok, m)
		}
		if got, want := isGoDirective(l), goDirectiveRE.MatchString(l); got != want {
			t.Errorf("isGoDirective(%q) = %v, want %v", l, got, want)
		}
	}
}

func trimmed(s string) string {
	for len(s) > 0 && isDocSpace(s[0]) {
		s = s[1:]
	}
	for len(s) > 0 && isDocSpace(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
}
