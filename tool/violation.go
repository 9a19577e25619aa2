package tool

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/toolapi/toolapi/internal/english"
)

// A Violation is one problem with a value: the path of the value
// ("tags[2]", "settings.limit") and what is wrong, in plain words
// ("must be one of: red, blue").
type Violation struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

func (v Violation) String() string {
	if v.Path == "" {
		return v.Message
	}
	return v.Path + ": " + v.Message
}

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

func (vs *violations) add(p *pathSeg, msg string) {
	if len(vs.list) >= maxViolations {
		vs.more++
		return
	}
	vs.list = append(vs.list, Violation{Path: shorten(p.String(), maxPathBytes), Message: msg})
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
	return append(vs.list, Violation{Message: "and " + strconv.Itoa(vs.more) + " more " + pluralWord(vs.more, "violation") + ", left out"})
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
			vs.add(&seg, "is locked and cannot be set")
		} else {
			vs.add(&seg, "is not an input of this tool")
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
