package tool

import (
	"iter"
	"time"
)

// Values holds the resolved inputs of one run, in order, each of the Go
// type of its data type: string (string, email, uri), int64, float64, bool,
// time.Time in UTC (datetime_iso8601, timestamp), time.Duration, the loaded
// entity, []any (list), map[string]any (map) or the JSON value (any). An
// absent optional input without a default is nil.
type Values struct {
	e      *entry
	values []any
	set    []bool
	refs   *[]any // the references entity inputs were given by, once loaded; nil when none

	// Room for the inputs of most tools, so that one allocation holds
	// them.
	small    [8]any
	smallSet [8]bool
}

func newValues(e *entry) *Values {
	n := len(e.inputs)
	v := &Values{e: e}
	if n <= len(v.small) {
		v.values, v.set = v.small[:n], v.smallSet[:n]
	} else {
		v.values, v.set = make([]any, n), make([]bool, n)
	}
	return v
}

// At returns the value of the i-th input.
func (v *Values) At(i int) any { return v.values[i] }

// Get returns the value of the named input, or nil.
func (v *Values) Get(name string) any {
	if i, ok := v.e.inputIndex[name]; ok {
		return v.values[i]
	}
	return nil
}

// IsSet reports whether the caller sent the named input (not null).
func (v *Values) IsSet(name string) bool {
	for i, n := range v.e.inputs {
		if n.def.Name == name {
			return v.set[i]
		}
	}
	return false
}

// All returns the inputs' names and values, in order.
func (v *Values) All() iter.Seq2[string, any] {
	return func(yield func(string, any) bool) {
		for i, n := range v.e.inputs {
			if !yield(n.def.Name, v.values[i]) {
				return
			}
		}
	}
}

// byName returns the values by input name.
func (v *Values) byName() map[string]any {
	m := make(map[string]any, len(v.values))
	for name, x := range v.All() {
		m[name] = x
	}
	return m
}

// String returns the named string input, or "".
func (v *Values) String(name string) string { s, _ := v.Get(name).(string); return s }

// Int returns the named integer input, or 0.
func (v *Values) Int(name string) int64 { n, _ := v.Get(name).(int64); return n }

// Bool returns the named boolean input, or false.
func (v *Values) Bool(name string) bool { b, _ := v.Get(name).(bool); return b }

// Time returns the named time input, or the zero time.
func (v *Values) Time(name string) time.Time { t, _ := v.Get(name).(time.Time); return t }

// Duration returns the named duration input, or 0.
func (v *Values) Duration(name string) time.Duration { d, _ := v.Get(name).(time.Duration); return d }

// List returns the named list input, or nil.
func (v *Values) List(name string) []any { l, _ := v.Get(name).([]any); return l }

// Map returns the named map input, or nil.
func (v *Values) Map(name string) map[string]any { m, _ := v.Get(name).(map[string]any); return m }

// ListOf converts a list value to a slice of T; other items become zeros.
func ListOf[T any](v any) []T {
	l, _ := v.([]any)
	if l == nil {
		return nil
	}
	out := make([]T, len(l))
	for i, item := range l {
		out[i], _ = item.(T)
	}
	return out
}

// An Object is a map built for one run, appearing once in its outputs,
// which publishing may rewrite in place (shared maps stay map[string]any).
type Object map[string]any

// keepRef records ref, the reference the i-th input was given by, before
// the input is replaced by what it refers to.
func (v *Values) keepRef(i int, ref any) {
	if v.refs == nil {
		refs := make([]any, len(v.values))
		v.refs = &refs
	}
	(*v.refs)[i] = ref
}

// canonical returns the inputs the caller set (not those that took their
// default, nor locked ones) in their JSON form, by name; without
// sensitive inputs when noSensitive is set.
func (v *Values) canonical(noSensitive bool) map[string]any {
	m := make(map[string]any, len(v.values))
	for i, n := range v.e.inputs {
		if !v.set[i] || n.def.Locked || (noSensitive && n.def.Sensitive) {
			continue
		}
		x := v.values[i]
		if v.refs != nil && (*v.refs)[i] != nil {
			x = (*v.refs)[i]
		}
		m[n.def.Name] = n.canonical(x, noSensitive)
	}
	return m
}
