package directive

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// A Tag is a parsed tool struct tag: tool:"[name][,opt...]".
type Tag struct {
	// Name is the member or property name; "" means the default (the
	// field's name in snake_case; for an input, its json name if it has
	// one).
	Name string
	// Args are the options in the order written, as a directive's keys.
	Args []Arg
}

// tagKeys are the options a tool struct tag accepts, as the keys of a
// directive.
var tagKeys = map[string]Key{
	"omitnull":  {Kind: Flag},
	"type":      {Kind: DataType},
	"media":     {Kind: Text},
	"label":     {Kind: Text},
	"example":   {Kind: Text, List: true},
	"choice":    {Kind: Choice},
	"labels":    {Kind: Choice},
	"default":   {Kind: Text},
	"notblank":  {Kind: Flag},
	"notnull":   {Kind: Flag},
	"count":     {Kind: Count},
	"length":    {Kind: Count},
	"range":     {Kind: NumRange},
	"pattern":   {Kind: Text},
	"dateonly":  {Kind: Flag},
	"sensitive": {Kind: Flag},
}

// TagKeys returns the options a tool struct tag accepts, sorted.
func TagKeys() []string { return sortedKeys(tagKeys) }

// TagKind returns the kind of value the tag option key takes.
func TagKind(key string) Kind { return tagKeys[key].Kind }

// OutputOnly lists the tag options that only a published member takes:
// a field carrying one belongs to a value object, which is an output only.
var OutputOnly = []string{"omitnull"}

// InputOnly lists the tag options that only a property of a struct input
// takes.
var InputOnly = []string{"default", "notnull", "count", "length", "range", "pattern", "notblank", "dateonly", "sensitive"}

// ParseTag parses the value of a tool struct tag. Options are separated by
// commas; an option value starting with "[" or "{" is a JSON list or map
// that runs to its closing bracket or brace, commas and all, so a list
// default can be written whole: tool:"tags,default=[\"new\",\"hot\"]".
func ParseTag(s string) (Tag, error) {
	parts, err := splitTag(s)
	if err != nil {
		return Tag{}, err
	}
	t := Tag{Name: parts[0]}
	if t.Name == "-" {
		return t, fmt.Errorf(`tool tag: "-" does not leave a field out: a struct input leaves out a field tagged json:"-", and a value object publishes only the fields a tool tag marks, so remove the tool tag`)
	}
	if t.Name != "" && !isIdent(t.Name) {
		return t, fmt.Errorf("tool tag: %q is not a member name", t.Name)
	}
	for _, opt := range parts[1:] {
		key, value, hasValue := strings.Cut(opt, "=")
		spec, ok := tagKeys[key]
		if !ok {
			known := slices.Sorted(maps.Keys(tagKeys))
			return t, fmt.Errorf("tool tag: unknown option %q%s (known: %s)", opt, DidYouMean(key, known), strings.Join(known, ", "))
		}
		if !spec.List && t.Has(key) {
			return t, fmt.Errorf("tool tag: %s is given twice", key)
		}
		a := Arg{Key: key, Value: value, Bare: !hasValue}
		if spec.Kind == Flag {
			if hasValue {
				return t, fmt.Errorf("tool tag: %s takes no value", key)
			}
			a.Value = "true"
		}
		if hasValue && value == "" {
			return t, fmt.Errorf("tool tag: %s needs a value (%s=...)", key, key)
		}
		if msg := checkValue(&a, spec); msg != "" {
			return t, fmt.Errorf("tool tag: %s: %s", key, msg)
		}
		t.Args = append(t.Args, a)
	}
	return t, nil
}

// splitTag splits a tool tag at its commas, except inside an option's
// value that starts with "[" or "{" (a JSON list or map): that value runs
// to its closing bracket or brace.
func splitTag(s string) ([]string, error) {
	var parts []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ',' {
			parts = append(parts, s[start:i])
			start = i + 1
			continue
		}
		if s[i] != '=' || i+1 >= len(s) || (s[i+1] != '[' && s[i+1] != '{') || len(parts) == 0 {
			continue
		}
		end, err := jsonEnd(s, i+1)
		if err != nil {
			return nil, fmt.Errorf("tool tag: %s: %w", s[start:i], err)
		}
		i = end - 1
	}
	return parts, nil
}

// jsonEnd returns the end of the JSON list or map starting at s[from],
// counting brackets and braces outside double-quoted strings.
func jsonEnd(s string, from int) (int, error) {
	var open []byte // the closing brackets expected, innermost last
	quoted := false
	for i := from; i < len(s); i++ {
		c := s[i]
		switch {
		case quoted && c == '\\':
			i++
		case quoted && c == '"':
			quoted = false
		case quoted:
		case c == '"':
			quoted = true
		case c == '[':
			open = append(open, ']')
		case c == '{':
			open = append(open, '}')
		case c == ']' || c == '}':
			if len(open) == 0 || open[len(open)-1] != c {
				return 0, fmt.Errorf("the value %s has a %q that closes nothing", s[from:i+1], c)
			}
			open = open[:len(open)-1]
		}
		if !quoted && len(open) == 0 {
			return i + 1, nil
		}
	}
	if quoted {
		return 0, fmt.Errorf("the value %s has no closing quote", s[from:])
	}
	return 0, fmt.Errorf("the value %s has no closing %q", s[from:], open[len(open)-1])
}

// Has reports whether the tag gives an option.
func (t *Tag) Has(key string) bool {
	return slices.ContainsFunc(t.Args, func(a Arg) bool { return a.Key == key })
}

// First returns the first of keys the tag gives, "" when none.
func (t *Tag) First(keys []string) string {
	for _, a := range t.Args {
		if slices.Contains(keys, a.Key) {
			return a.Key
		}
	}
	return ""
}

// CheckStructTag checks that a field's whole struct tag has the syntax
// reflect.StructTag reads: key:"value" pairs separated by spaces. A tag
// that breaks it loses every key from the first mistake on, silently
// (tool: "x" with a space after the colon is no tool tag at all), so the
// error says what the mistake is and how to write it.
func CheckStructTag(tag string) error {
	for i := 0; ; {
		for i < len(tag) && tag[i] == ' ' {
			i++
		}
		if i >= len(tag) {
			return nil
		}
		start := i
		for i < len(tag) && tag[i] > ' ' && tag[i] != ':' && tag[i] != '"' && tag[i] != 0x7f {
			i++
		}
		key := tag[start:i]
		if key == "" {
			return tagSyntaxError(tag, "%q at byte %d does not start a key:\"value\" pair", tag[i:i+1], i)
		}
		if i >= len(tag) || tag[i] != ':' {
			if rest := strings.TrimLeft(tag[i:], " "); strings.HasPrefix(rest, ":") {
				return tagSyntaxError(tag, "a space comes before the colon of %s: write %s:\"...\" with no space", key, key)
			}
			return tagSyntaxError(tag, "%s is not followed by :\"value\" (write %s:\"...\")", key, key)
		}
		i++ // ':'
		if i >= len(tag) {
			return tagSyntaxError(tag, "%s: has no value (write %s:\"...\")", key, key)
		}
		switch tag[i] {
		case '"':
		case ' ':
			return tagSyntaxError(tag, "a space follows the colon of %s: write %s:%s with no space", key, key, strings.TrimLeft(tag[i:], " "))
		case '\'', '`':
			return tagSyntaxError(tag, "the value of %s is in %c quotes: write it in double quotes, %s:\"...\"", key, tag[i], key)
		default:
			return tagSyntaxError(tag, "the value of %s is not quoted: write %s:\"...\"", key, key)
		}
		vstart := i
		for i++; i < len(tag) && tag[i] != '"'; i++ {
			if tag[i] == '\\' {
				i++
			}
		}
		if i >= len(tag) {
			return tagSyntaxError(tag, "the value of %s has no closing quote: add one after the value", key)
		}
		i++ // '"'
		if _, err := strconv.Unquote(tag[vstart:i]); err != nil {
			return tagSyntaxError(tag, "the value of %s, %s, is not a valid Go string", key, tag[vstart:i])
		}
		if i < len(tag) && tag[i] != ' ' {
			return tagSyntaxError(tag, "no space follows the value of %s: separate key:\"value\" pairs with a space", key)
		}
	}
}

func tagSyntaxError(tag, format string, args ...any) error {
	return fmt.Errorf("malformed struct tag `%s`: %s", tag, fmt.Sprintf(format, args...))
}
