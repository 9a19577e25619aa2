package tool

import (
	"slices"
	"strings"
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

// violations collects violations as a value is decoded.
type violations []Violation

func (vs *violations) add(p *pathSeg, msg string) {
	*vs = append(*vs, Violation{Path: p.String(), Message: msg})
}

// addExtra reports the names sent that are not inputs, or are locked.
func addExtra(p *entry, extra []string, vs *violations) {
	slices.Sort(extra)
	for _, k := range extra {
		seg := pathSeg{name: k}
		if _, ok := p.inputIndex[k]; ok {
			vs.add(&seg, "is locked and cannot be set")
		} else {
			vs.add(&seg, "is not an input of this tool")
		}
	}
}

// sortViolations orders violations by input, in definition order, and
// those about names that are not inputs last; within an input they keep
// the order they were found in.
func sortViolations(p *entry, vs violations) []Violation {
	if len(vs) < 2 {
		return vs
	}
	rank := func(v Violation) int {
		root := v.Path
		if i := indexAny(root, ".["); i >= 0 {
			root = root[:i]
		}
		if i, ok := p.inputIndex[root]; ok && !p.inputs[i].def.Locked {
			return i
		}
		return len(p.inputs)
	}
	slices.SortStableFunc(vs, func(a, b Violation) int { return rank(a) - rank(b) })
	return vs
}

func indexAny(s, chars string) int {
	for i := 0; i < len(s); i++ {
		for j := 0; j < len(chars); j++ {
			if s[i] == chars[j] {
				return i
			}
		}
	}
	return -1
}
