package tool

import (
	"encoding/json"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// The JSON Schema (2020-12) of definitions, as advertised to MCP clients
// and language models. TestSchema shows the mapping, row by row.

// schemaFalse is the schema no value satisfies, shared by every object
// schema's additionalProperties: schemas are never modified once built.
var schemaFalse = &jsonschema.Schema{Not: &jsonschema.Schema{}}

func falseSchema() *jsonschema.Schema { return schemaFalse }

// objectSchema returns the schema of an object whose properties are nodes
// (a tool's inputs or outputs, or a map with properties). Locked inputs are
// left out.
func objectSchema(nodes []*node, output bool) *jsonschema.Schema {
	s := &jsonschema.Schema{
		Type:                 "object",
		Properties:           make(map[string]*jsonschema.Schema, len(nodes)),
		AdditionalProperties: falseSchema(),
	}
	for _, n := range nodes {
		if n.def.Locked && !output {
			continue
		}
		s.Properties[n.def.Name] = n.schema(output)
		s.PropertyOrder = append(s.PropertyOrder, n.def.Name)
		if n.def.Required {
			s.Required = append(s.Required, n.def.Name)
		}
	}
	return s
}

// schema returns n's schema; output selects the published form (entities
// as references, nullable types).
func (n *node) schema(output bool) *jsonschema.Schema {
	d := n.def
	s := &jsonschema.Schema{Title: d.Label, Description: d.Description}
	c := &d.Constraints
	typ := n.typeSchema(s, output)
	if n.custom != nil && n.custom.Format != "" {
		s.Format = n.custom.Format
	}
	if n.kind != kList {
		n.scalarSchema(s, output)
	}
	if c.Media != "" && typ == "string" {
		// A media type describes the content of a string; on any other
		// type JSON Schema gives it no meaning.
		s.ContentMediaType = c.Media
	}
	if d.Default != nil && !output {
		if b, err := json.Marshal(d.Default); err == nil {
			s.Default = b
		}
	}
	if typ != "" {
		if d.Nullable {
			s.Types = []string{typ, "null"}
		} else {
			s.Type = typ
		}
	}
	return s
}

// typeSchema fills in s what n's data type says (its format, items,
// properties) and returns the JSON type, "" for any.
func (n *node) typeSchema(s *jsonschema.Schema, output bool) string {
	d := n.def
	c := &d.Constraints
	typ := ""
	switch n.kind {
	case kString:
		typ = "string"
		if c.Email {
			s.Format = "email"
		}
	case kEmail:
		typ, s.Format = "string", "email"
	case kURI:
		typ, s.Format = "string", "uri"
	case kDateTime:
		typ, s.Format = "string", "date-time"
		if c.DateOnly {
			s.Format = "date"
		}
	case kTimestamp:
		typ, s.Format = "string", "date-time"
	case kDuration:
		typ, s.Format = "string", "duration"
	case kInteger:
		typ = "integer"
	case kFloat:
		typ = "number"
	case kBoolean:
		typ = "boolean"
	case kEntity:
		if !output {
			s.Description = joinSentences(d.Description, n.entityHint())
		}
		if output {
			typ = "object"
			s.Properties = map[string]*jsonschema.Schema{
				"entity_type": {Type: "string"},
				"id":          {Type: "string"},
				"label":       {Type: "string"},
			}
			s.PropertyOrder = []string{"entity_type", "id", "label"}
			s.Required = []string{"entity_type", "id", "label"}
			s.AdditionalProperties = falseSchema()
		} else {
			typ = "string"
			s.MinLength = Ptr(1)
			if n.entityType == "" {
				s.Pattern = "^[^:\\n]+:[\\s\\S]+$"
			}
		}
	case kList:
		typ = "array"
		s.Items = n.items.schema(output)
		if s.Items.OneOf != nil {
			// A multi-select list: each item any of the titled
			// choices, which say its type (MCP's titled multi-select
			// items carry anyOf alone).
			s.Items.AnyOf, s.Items.OneOf, s.Items.Type = s.Items.OneOf, nil, ""
		}
		if n.items.kind == kEntity && !output {
			// The list says what its items take.
			s.Items.Description = n.items.def.Description
			s.Description = joinSentences(d.Description, "Each item is "+lowerFirst(n.items.entityHint()))
		}
		if len(d.Examples) > 0 && len(s.Items.Examples) == 0 {
			// The list's examples are its items'; an item's own
			// examples stay.
			s.Items.Examples = d.Examples
		}
		s.MinItems, s.MaxItems = sizeBounds(c.NotBlank, n.minCount, n.maxCount)
	case kMap:
		typ = "object"
		if n.props != nil {
			o := objectSchema(n.props, output)
			s.Properties, s.PropertyOrder, s.Required, s.AdditionalProperties = o.Properties, o.PropertyOrder, o.Required, o.AdditionalProperties
		} else if n.values != nil {
			s.AdditionalProperties = n.values.schema(output)
		}
		s.MinProperties, s.MaxProperties = sizeBounds(c.NotBlank, n.minCount, n.maxCount)
	case kAny:
		if !d.Nullable {
			// Any value but null: null is a value only when nullable.
			s.Not = &jsonschema.Schema{Type: "null"}
		}
	}
	return typ
}

// scalarSchema fills in s the annotations and constraints of a value that
// is not a list (a list's move to its items).
func (n *node) scalarSchema(s *jsonschema.Schema, output bool) {
	d := n.def
	c := &d.Constraints
	if len(d.Examples) > 0 {
		s.Examples = d.Examples
	}
	plainString := n.kind == kString || n.kind == kEmail || n.kind == kURI
	if lo, hi := sizeBounds(c.NotBlank && plainString, n.minLen, n.maxLen); lo != nil || hi != nil {
		s.MinLength, s.MaxLength = lo, hi
	}
	if n.hasMin {
		s.Minimum = Ptr(n.min)
	}
	if n.hasMax {
		s.Maximum = Ptr(n.max)
	}
	if n.pattern != nil {
		s.Pattern = n.pattern.String()
	}
	if n.noNUL && !output && len(c.Choice) == 0 && n.pattern != base64Pattern {
		// Strings reject NUL: said with a pattern, or beside the
		// definition's own pattern, as the pattern no value may match.
		if s.Pattern == "" {
			s.Pattern = noNULPattern
		} else {
			s.Not = &jsonschema.Schema{Pattern: `\x00`}
		}
	}
	if c.Encoding != "" {
		s.ContentEncoding = c.Encoding
	}
	switch {
	case len(c.ChoiceLabels) == len(c.Choice) && len(c.Choice) > 0 && !output:
		// Titled choices: each a constant with its label as title. A
		// list's items take them as anyOf (see typeSchema).
		s.OneOf = make([]*jsonschema.Schema, len(c.Choice))
		for i, v := range c.Choice {
			s.OneOf[i] = &jsonschema.Schema{Const: &v, Title: c.ChoiceLabels[i]}
		}
	case len(c.Choice) > 0:
		s.Enum = append([]any(nil), c.Choice...)
		if d.Nullable {
			s.Enum = append(s.Enum, nil)
		}
	}
}

// sizeBounds returns the least and greatest size (items, properties or
// characters) a value may have: NotBlank's 1 together with the declared
// bounds lo and hi (-1 where open); nil where nothing bounds it.
func sizeBounds(notBlank bool, lo, hi int) (minSize, maxSize *int) {
	if notBlank {
		lo = max(lo, 1)
	}
	if lo >= 0 {
		minSize = Ptr(lo)
	}
	if hi >= 0 {
		maxSize = Ptr(hi)
	}
	return minSize, maxSize
}

// noNULPattern matches the strings without the NUL character (U+0000), in
// the syntax both RE2 and ECMA-262 read.
const noNULPattern = `^[^\x00]*$`

// entityHint says what an entity input takes: "The ID of an album." or,
// for an input of any entity type, "An entity reference TYPE:ID, such as
// customer:12." with the first of its EntityTypes (node when it names
// none).
func (n *node) entityHint() string {
	if n.entityType == "" {
		example := "node"
		if len(n.def.EntityTypes) > 0 && n.def.EntityTypes[0] != "" {
			example = n.def.EntityTypes[0]
		}
		return "An entity reference TYPE:ID, such as " + example + ":12."
	}
	return "The ID of " + withArticle(n.entityTypeName()) + "."
}

// joinSentences joins a description and a sentence that follows it.
func joinSentences(description, sentence string) string {
	description = strings.TrimSpace(description)
	if description == "" {
		return sentence
	}
	if !strings.HasSuffix(description, ".") && !strings.HasSuffix(description, "!") && !strings.HasSuffix(description, "?") {
		description += "."
	}
	return description + " " + sentence
}

// lowerFirst returns s with its first letter in lower case.
func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}
