package toolcli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/toolapi/toolapi/tool"
)

// inputFlags collects the values of a repeated --input flag.
type inputFlags []string

func (f *inputFlags) String() string { return strings.Join(*f, " ") }

func (f *inputFlags) Set(s string) error {
	*f = append(*f, s)
	return nil
}

// buildArgs turns the --input values into the arguments of a run, in
// order: key=value sets a [tool.Text] (repeating a key builds a list, a
// dotted key nested maps) and a JSON object merges typed values. inputs
// are the input definitions of the tool, nil when it is unknown; they
// only decide whether a single value of a list input is sent as a list.
func buildArgs(flags []string, inputs []*tool.Definition) (map[string]any, error) {
	args := make(map[string]any)
	for _, f := range flags {
		if strings.HasPrefix(strings.TrimSpace(f), "{") {
			obj, err := decodeObject(f)
			if err != nil {
				return nil, optionErrorf("--input %s is malformed JSON: %v", abbreviate(f), err)
			}
			merge(args, obj)
			continue
		}
		key, value, ok := strings.Cut(f, "=")
		if !ok {
			return nil, optionErrorf("--input %q: want key=value or a JSON object", f)
		}
		path := strings.Split(key, ".")
		for _, p := range path {
			if p == "" {
				return nil, optionErrorf("--input %q: the key %q has an empty part", f, key)
			}
		}
		if err := set(args, path, tool.Text(value), isList(inputs, path)); err != nil {
			return nil, optionErrorf("--input %q: %v", f, err)
		}
	}
	return args, nil
}

// set puts text at path in m, creating the maps on the way. A second value
// for the same path makes (or extends) a list; so does a first one when
// list is true.
func set(m map[string]any, path []string, text tool.Text, list bool) error {
	for i, p := range path[:len(path)-1] {
		switch next := m[p].(type) {
		case nil:
			sub := make(map[string]any)
			m[p] = sub
			m = sub
		case map[string]any:
			m = next
		default:
			return fmt.Errorf("%s already has a value that is not an object", strings.Join(path[:i+1], "."))
		}
	}
	key := path[len(path)-1]
	switch old := m[key].(type) {
	case nil:
		if list {
			m[key] = []any{text}
		} else {
			m[key] = text
		}
	case []any:
		m[key] = append(old, text)
	case map[string]any:
		return fmt.Errorf("%s is an object: set its keys (%s.KEY=value)", strings.Join(path, "."), strings.Join(path, "."))
	default:
		m[key] = []any{old, text}
	}
	return nil
}

// isList reports whether path names a list input (or a list property of a
// map input).
func isList(inputs []*tool.Definition, path []string) bool {
	defs := inputs
	var d *tool.Definition
	for _, name := range path {
		if d != nil {
			if d.Type != "map" {
				return false
			}
			if len(d.Properties) == 0 {
				if d.Values == nil {
					return false
				}
				d = d.Values
				continue
			}
			defs = d.Properties
		}
		d = nil
		for _, x := range defs {
			if x.Name == name {
				d = x
				break
			}
		}
		if d == nil {
			return false
		}
	}
	return d != nil && d.Type == "list"
}

// merge merges the keys of src into dst: objects merge key by key,
// anything else replaces what dst held.
func merge(dst, src map[string]any) {
	for k, v := range src {
		if sv, ok := v.(map[string]any); ok {
			if dv, ok := dst[k].(map[string]any); ok {
				merge(dv, sv)
				continue
			}
		}
		dst[k] = v
	}
}

// decodeObject decodes s as one JSON object. Integers that fit in an int64
// stay integers; other numbers are float64.
func decodeObject(s string) (map[string]any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		var syntax *json.SyntaxError
		switch {
		case errors.Is(err, io.ErrUnexpectedEOF):
			return nil, errors.New("the object is not closed")
		case errors.As(err, &syntax):
			return nil, fmt.Errorf("%v (at byte %d)", err, syntax.Offset)
		}
		return nil, err
	}
	end := dec.InputOffset()
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("text after the object: %s", abbreviate(s[end:]))
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, errors.New("not an object")
	}
	v, err := numbers(v)
	if err != nil {
		return nil, err
	}
	return v.(map[string]any), nil
}

// numbers replaces the json.Numbers inside v with int64 or float64.
func numbers(v any) (any, error) {
	var err error
	switch v := v.(type) {
	case json.Number:
		if n, err := v.Int64(); err == nil {
			return n, nil
		}
		f, err := v.Float64()
		if err != nil || math.IsInf(f, 0) {
			return nil, fmt.Errorf("number %s is out of range", v)
		}
		return f, nil
	case map[string]any:
		for k, x := range v {
			if v[k], err = numbers(x); err != nil {
				return nil, err
			}
		}
	case []any:
		for i, x := range v {
			if v[i], err = numbers(x); err != nil {
				return nil, err
			}
		}
	}
	return v, nil
}

// abbreviate shortens a long flag value for a message.
func abbreviate(s string) string {
	const max = 60
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > max {
		s = string(r[:max]) + "..."
	}
	return s
}
