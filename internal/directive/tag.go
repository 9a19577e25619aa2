package directive

import (
	"fmt"
	"strings"
)

// A Tag is a parsed tool struct tag: tool:"[name][,opt...]".
type Tag struct {
	// Name is the member name; "" means the field's name in snake_case.
	Name     string
	OmitNull bool
	Type     string
	Media    string
	Label    string
}

// ParseTag parses the value of a tool struct tag.
func ParseTag(s string) (Tag, error) {
	parts := strings.Split(s, ",")
	t := Tag{Name: parts[0]}
	if t.Name != "" && !isIdent(t.Name) {
		return t, fmt.Errorf("tool tag: %q is not a member name", t.Name)
	}
	for _, opt := range parts[1:] {
		key, value, hasValue := strings.Cut(opt, "=")
		switch key {
		case "omitnull":
			if hasValue {
				return t, fmt.Errorf("tool tag: omitnull takes no value")
			}
			t.OmitNull = true
		case "type", "media", "label":
			if !hasValue || value == "" {
				return t, fmt.Errorf("tool tag: %s needs a value (%s=...)", key, key)
			}
			switch key {
			case "type":
				a := Arg{Key: key, Value: value}
				if msg := checkValue(&a, DataType); msg != "" {
					return t, fmt.Errorf("tool tag: type: %s", msg)
				}
				t.Type = value
			case "media":
				t.Media = value
			case "label":
				t.Label = value
			}
		default:
			return t, fmt.Errorf("tool tag: unknown option %q (known: omitnull, type=, media=, label=)", opt)
		}
	}
	return t, nil
}
