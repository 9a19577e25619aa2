package directive

import (
	"fmt"
	"go/token"
	"strconv"
	"strings"
)

// parseMembers parses a members selection; at maps a byte offset of s to
// its position.
func parseMembers(s string, at func(int) token.Position) ([]Member, []Diagnostic) {
	mp := &memberParser{s: s, at: at}
	ms := mp.list(0, 0)
	if mp.i < len(s) && len(mp.diags) == 0 {
		mp.errorf(mp.i, "unexpected %q in members", s[mp.i])
	}
	return ms, mp.diags
}

type memberParser struct {
	s     string
	i     int
	at    func(int) token.Position
	diags []Diagnostic
}

func (mp *memberParser) errorf(i int, format string, args ...any) {
	mp.diags = append(mp.diags, Diagnostic{Pos: mp.at(i), Message: fmt.Sprintf(format, args...)})
}

func (mp *memberParser) skipSpace() {
	for mp.i < len(mp.s) && isSpace(mp.s[mp.i]) {
		mp.i++
	}
}

// list parses members up to a closing ")" (depth > 0) or the end.
func (mp *memberParser) list(depth, open int) []Member {
	var ms []Member
	seen := make(map[string]bool)
	for {
		mp.skipSpace()
		start := mp.i
		for mp.i < len(mp.s) && (isNameByte(mp.s[mp.i])) {
			mp.i++
		}
		name := mp.s[start:mp.i]
		if name == "" || !isIdent(name) {
			if mp.i < len(mp.s) {
				mp.errorf(start, "expected a member name at %q", mp.s[start:])
			} else {
				mp.errorf(start, "expected a member name")
			}
			mp.i = len(mp.s)
			return ms
		}
		m := Member{Name: name, Pos: mp.at(start)}
		if seen[name] {
			mp.errorf(start, "member %q is selected twice", name)
		}
		seen[name] = true
		mp.skipSpace()
		if mp.i < len(mp.s) && mp.s[mp.i] == '(' {
			open := mp.i
			mp.i++
			m.Members = mp.list(depth+1, open)
			if len(mp.diags) > 0 {
				return ms
			}
			if mp.i >= len(mp.s) || mp.s[mp.i] != ')' {
				mp.errorf(open, "unclosed \"(\" in members")
				return ms
			}
			mp.i++
			mp.skipSpace()
		}
		if mp.i < len(mp.s) && mp.s[mp.i] == '{' {
			m.Refine = mp.refine()
			if len(mp.diags) > 0 {
				return ms
			}
			mp.skipSpace()
		}
		ms = append(ms, m)
		if mp.i >= len(mp.s) {
			if depth > 0 {
				mp.errorf(open, "unclosed \"(\" in members")
			}
			return ms
		}
		switch mp.s[mp.i] {
		case ',':
			mp.i++
		case ')':
			if depth == 0 {
				mp.errorf(mp.i, "unexpected \")\" in members")
				mp.i = len(mp.s)
			}
			return ms
		default:
			mp.errorf(mp.i, "unexpected %q in members", mp.s[mp.i])
			mp.i = len(mp.s)
			return ms
		}
	}
}

func isNameByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// refine parses "{key=value, flag}" at mp.i.
func (mp *memberParser) refine() []Arg {
	open := mp.i
	mp.i++
	var args []Arg
	seen := make(map[string]bool)
	for {
		for mp.i < len(mp.s) && (isSpace(mp.s[mp.i]) || mp.s[mp.i] == ',') {
			mp.i++
		}
		if mp.i >= len(mp.s) {
			mp.errorf(open, "unclosed \"{\" in members")
			return args
		}
		if mp.s[mp.i] == '}' {
			mp.i++
			return args
		}
		start := mp.i
		for mp.i < len(mp.s) && isNameByte(mp.s[mp.i]) {
			mp.i++
		}
		key := mp.s[start:mp.i]
		spec, ok := propertyKeys[key]
		if !ok {
			if key == "" {
				mp.errorf(start, "expected a key at %q", mp.s[start:])
			} else {
				mp.errorf(start, "unknown key %q in a member refinement%s (known: %s)", key, DidYouMean(key, sortedKeys(propertyKeys)), strings.Join(sortedKeys(propertyKeys), ", "))
			}
			mp.i = len(mp.s)
			return args
		}
		if seen[key] && !spec.List {
			mp.errorf(start, "key %q is repeated", key)
		}
		seen[key] = true
		a := Arg{Key: key, Value: "true", Bare: true, Pos: mp.at(start), ValuePos: mp.at(mp.i)}
		if mp.i < len(mp.s) && mp.s[mp.i] == '=' {
			mp.i++
			a.Bare = false
			a.ValuePos = mp.at(mp.i)
			vs := mp.i
			if mp.i < len(mp.s) && mp.s[mp.i] == '"' {
				mp.i++
				for mp.i < len(mp.s) && mp.s[mp.i] != '"' {
					if mp.s[mp.i] == '\\' {
						mp.i++
					}
					mp.i++
				}
				if mp.i >= len(mp.s) {
					mp.errorf(vs, "unterminated quoted string")
					return args
				}
				mp.i++
				v, err := strconv.Unquote(mp.s[vs:mp.i])
				if err != nil {
					mp.errorf(vs, "bad quoted string %s", mp.s[vs:mp.i])
					return args
				}
				a.Value = v
			} else {
				for mp.i < len(mp.s) && !isSpace(mp.s[mp.i]) && mp.s[mp.i] != ',' && mp.s[mp.i] != '}' {
					mp.i++
				}
				a.Value = mp.s[vs:mp.i]
			}
		}
		if msg := checkValue(&a, spec); msg != "" {
			mp.diags = append(mp.diags, Diagnostic{Pos: a.ValuePos, Message: key + ": " + msg})
			mp.i = len(mp.s)
			return args
		}
		args = append(args, a)
	}
}
