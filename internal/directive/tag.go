package directive

import (
	"fmt"
	"maps"
	"slices"
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

// OutputOnly lists the tag options that only a published member takes:
// a field carrying one belongs to a value object, which is an output only.
var OutputOnly = []string{"omitnull"}

// InputOnly lists the tag options that only a property of a struct input
// takes.
var InputOnly = []string{"default", "notnull", "count", "length", "range", "pattern", "notblank", "dateonly", "sensitive"}

// ParseTag parses the value of a tool struct tag. Options are separated by
// commas, so their values cannot hold one.
func ParseTag(s string) (Tag, error) {
	parts := strings.Split(s, ",")
	t := Tag{Name: parts[0]}
	if t.Name != "" && !isIdent(t.Name) {
		return t, fmt.Errorf("tool tag: %q is not a member name", t.Name)
	}
	for _, opt := range parts[1:] {
		key, value, hasValue := strings.Cut(opt, "=")
		spec, ok := tagKeys[key]
		if !ok {
			return t, fmt.Errorf("tool tag: unknown option %q (known: %s)", opt, strings.Join(slices.Sorted(maps.Keys(tagKeys)), ", "))
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
		if msg := checkValue(&a, spec.Kind); msg != "" {
			return t, fmt.Errorf("tool tag: %s: %s", key, msg)
		}
		t.Args = append(t.Args, a)
	}
	return t, nil
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
