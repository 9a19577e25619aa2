package gen

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// words splits a Go identifier into its words: "targetLangcode" is
// [target Langcode], "ImageURL" is [Image URL], "URLPath" is [URL Path].
func words(s string) []string {
	var out []string
	runes := []rune(s)
	start := 0
	for i := 1; i <= len(runes); i++ {
		if i == len(runes) {
			out = append(out, string(runes[start:i]))
			break
		}
		prev, cur := runes[i-1], runes[i]
		split := false
		switch {
		case cur == '_':
			if i > start {
				out = append(out, string(runes[start:i]))
			}
			start = i + 1
			continue
		case unicode.IsUpper(cur) && (unicode.IsLower(prev) || unicode.IsDigit(prev)):
			split = true
		case unicode.IsUpper(prev) && unicode.IsUpper(cur) && i+1 < len(runes) && unicode.IsLower(runes[i+1]):
			split = true // "URLPath": split before "Path"
		}
		if split && i > start {
			out = append(out, string(runes[start:i]))
			start = i
		}
	}
	var kept []string
	for _, w := range out {
		if w != "" {
			kept = append(kept, w)
		}
	}
	return kept
}

// snake returns a Go name in snake_case: "targetLangcode" is
// "target_langcode", "URL" is "url".
func snake(s string) string {
	ws := words(s)
	for i, w := range ws {
		ws[i] = strings.ToLower(w)
	}
	return strings.Join(ws, "_")
}

// sentence returns a Go name in sentence case: "AddTrack" is "Add track",
// "GetURL" is "Get URL".
func sentence(s string) string {
	ws := words(s)
	for i, w := range ws {
		if i == 0 {
			r, n := utf8.DecodeRuneInString(w)
			ws[i] = string(unicode.ToUpper(r)) + w[n:]
			continue
		}
		if !isAcronym(w) {
			ws[i] = strings.ToLower(w)
		}
	}
	return strings.Join(ws, " ")
}

func isAcronym(w string) bool {
	if utf8.RuneCountInString(w) < 2 {
		return false
	}
	for _, r := range w {
		if unicode.IsLower(r) {
			return false
		}
	}
	return true
}

// memberName returns the member name of a getter: ReleaseYear and
// GetReleaseYear are "release_year", IsExplicit is "explicit", HasCover is
// "has_cover".
func memberName(method string) string {
	for _, prefix := range []string{"Get", "Is"} {
		if rest, ok := strings.CutPrefix(method, prefix); ok && rest != "" {
			if r, _ := utf8.DecodeRuneInString(rest); unicode.IsUpper(r) {
				return snake(rest)
			}
		}
	}
	return snake(method)
}

// lowerFirst returns s with its first word lower-cased, for Go names
// built from exported ones ("Manager" -> "manager", "URLSet" -> "urlSet").
func lowerFirst(s string) string {
	ws := words(s)
	if len(ws) == 0 {
		return s
	}
	rest := strings.TrimPrefix(s, ws[0])
	return strings.ToLower(ws[0]) + rest
}

// upperFirst upper-cases the first letter of s.
func upperFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// camel turns a snake or dotted name into an exported Go name part:
// "album.add_track" -> "AlbumAddTrack".
func camel(s string) string {
	var b strings.Builder
	up := true
	for _, r := range s {
		if r == '.' || r == '_' || r == '-' || r == ':' || r == ' ' {
			up = true
			continue
		}
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			continue
		}
		if up {
			b.WriteRune(unicode.ToUpper(r))
			up = false
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}
