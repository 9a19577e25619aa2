// Package schemajson encodes the JSON schemas the tool package builds, for
// the tool package (which caches each tool's encoded input schema) and for
// toolgen (which prints them with -describe).
package schemajson

import (
	"encoding/json"
	"math"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/jsonschema-go/jsonschema"
)

// Append appends the JSON of s, a schema the tool package built, to b,
// without the reflection jsonschema-go's MarshalJSON does on every call.
// It writes the same document: {} as true and {"not":{}} as false,
// properties in PropertyOrder.
func Append(b []byte, s *jsonschema.Schema) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	if isTrueSchema(s) {
		return append(b, "true"...)
	}
	if s.Not != nil && isTrueSchema(s.Not) && isOnlyNot(s) {
		return append(b, "false"...)
	}
	b = append(b, '{')
	first := true
	key := func(k string) {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, '"')
		b = append(b, k...)
		b = append(b, '"', ':')
	}
	str := func(k, v string) {
		if v != "" {
			key(k)
			b = appendString(b, v)
		}
	}
	intp := func(k string, v *int) {
		if v != nil {
			key(k)
			b = strconv.AppendInt(b, int64(*v), 10)
		}
	}
	floatp := func(k string, v *float64) {
		if v != nil {
			key(k)
			b = appendFloat(b, *v)
		}
	}
	value := func(k string, v any) {
		key(k)
		enc, err := json.Marshal(v)
		if err != nil {
			enc = []byte("null")
		}
		b = append(b, enc...)
	}
	switch {
	case s.Type != "":
		str("type", s.Type)
	case len(s.Types) > 0:
		key("type")
		b = append(b, '[')
		for i, t := range s.Types {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, t)
		}
		b = append(b, ']')
	}
	if s.Properties != nil {
		key("properties")
		b = append(b, '{')
		for i, name := range s.PropertyOrder {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, name)
			b = append(b, ':')
			b = Append(b, s.Properties[name])
		}
		b = append(b, '}')
	}
	if s.Items != nil {
		key("items")
		b = Append(b, s.Items)
	}
	str("title", s.Title)
	str("description", s.Description)
	if len(s.Default) > 0 {
		key("default")
		b = append(b, s.Default...)
	}
	if len(s.Examples) > 0 {
		value("examples", s.Examples)
	}
	if len(s.Enum) > 0 {
		value("enum", s.Enum)
	}
	if s.Const != nil {
		value("const", *s.Const)
	}
	floatp("minimum", s.Minimum)
	floatp("maximum", s.Maximum)
	intp("minLength", s.MinLength)
	intp("maxLength", s.MaxLength)
	str("pattern", s.Pattern)
	intp("minItems", s.MinItems)
	intp("maxItems", s.MaxItems)
	intp("minProperties", s.MinProperties)
	intp("maxProperties", s.MaxProperties)
	if len(s.Required) > 0 {
		key("required")
		b = append(b, '[')
		for i, name := range s.Required {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, name)
		}
		b = append(b, ']')
	}
	if s.AdditionalProperties != nil {
		key("additionalProperties")
		b = Append(b, s.AdditionalProperties)
	}
	for _, list := range []struct {
		k  string
		ss []*jsonschema.Schema
	}{{"anyOf", s.AnyOf}, {"oneOf", s.OneOf}} {
		if len(list.ss) == 0 {
			continue
		}
		key(list.k)
		b = append(b, '[')
		for i, sub := range list.ss {
			if i > 0 {
				b = append(b, ',')
			}
			b = Append(b, sub)
		}
		b = append(b, ']')
	}
	if s.Not != nil {
		key("not")
		b = Append(b, s.Not)
	}
	str("contentEncoding", s.ContentEncoding)
	str("contentMediaType", s.ContentMediaType)
	str("format", s.Format)
	return append(b, '}')
}

func isTrueSchema(s *jsonschema.Schema) bool {
	return s.Type == "" && len(s.Types) == 0 && len(s.Properties) == 0 && s.Items == nil && s.Title == "" &&
		s.Description == "" && len(s.Default) == 0 && len(s.Examples) == 0 && len(s.Enum) == 0 &&
		s.Minimum == nil && s.Maximum == nil && s.MinLength == nil && s.MaxLength == nil && s.Pattern == "" &&
		s.MinItems == nil && s.MaxItems == nil && s.MinProperties == nil && s.MaxProperties == nil &&
		len(s.Required) == 0 && s.AdditionalProperties == nil && s.Not == nil && s.ContentMediaType == "" &&
		s.ContentEncoding == "" && s.Format == "" && s.Const == nil && len(s.AnyOf) == 0 && len(s.OneOf) == 0
}

func isOnlyNot(s *jsonschema.Schema) bool {
	c := *s
	c.Not = nil
	return isTrueSchema(&c)
}

func appendString(b []byte, s string) []byte {
	out, err := jsontext.AppendQuote(b, s)
	if err != nil {
		// Invalid UTF-8: quote it as encoding/json does, with U+FFFD.
		enc, _ := json.Marshal(s)
		return append(b, enc...)
	}
	return out
}

// appendFloat appends f as encoding/json writes a float64: exponent
// notation below 1e-6 and from 1e21 ("1e+21", "1e-7").
func appendFloat(b []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// Clean up e-09 to e-9, as encoding/json does.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}
