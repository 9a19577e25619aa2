package tool

import (
	"strconv"

	"github.com/google/jsonschema-go/jsonschema"
)

// ElicitationSchema returns the schema that asks a person, with [Elicit],
// for a value of each of defs, named by their Name: a flat object, as
// clients show one form field each. A definition is a string (plain,
// email, uri, a date or a date and time), an integer, a float, a boolean,
// or a list of string choices, which clients show as a multi-select.
// Choices with ChoiceLabels are titled: a single choice is a oneOf of
// titled constants, a list's items an anyOf of them. Anything else (maps,
// entities, values of any type, choices that are not strings) is a
// *DefinitionError, as is a definition that a tool could not take.
func ElicitationSchema(defs ...*Definition) (*jsonschema.Schema, error) {
	var errs definitionErrors
	nodes := make([]*node, 0, len(defs))
	seen := map[string]bool{}
	for i, d := range defs {
		if d == nil || d.Name == "" {
			errs.add("fields["+strconv.Itoa(i)+"]", "name", "field %d has no name", i)
			continue
		}
		path := "fields." + d.Name
		if seen[d.Name] {
			errs.add(path, "name", "field %q is defined twice", d.Name)
			continue
		}
		seen[d.Name] = true
		n := compileNode(d, nil, path, true, &errs)
		if n == nil {
			continue
		}
		if !elicitable(n) {
			errs.add(path, "type", "a form asks for a string, a number, a boolean or a list of string choices, not %s", d.Type)
			continue
		}
		nodes = append(nodes, n)
	}
	if len(errs) > 0 {
		return nil, errs.err()
	}
	s := objectSchema(nodes, false)
	// A form has only its fields: no need to refuse others.
	s.AdditionalProperties = nil
	for _, n := range nodes {
		p := s.Properties[n.def.Name]
		plainForm(p)
		if p.Items != nil {
			plainForm(p.Items)
		}
	}
	return s, nil
}

// elicitable reports whether a form can ask for a value of n.
func elicitable(n *node) bool {
	switch n.kind {
	case kString, kEmail, kURI, kDateTime, kTimestamp:
		return stringChoices(n)
	case kInteger, kFloat, kBoolean:
		return len(n.def.Constraints.Choice) == 0
	case kList:
		return n.items != nil && n.items.kind == kString && len(n.items.def.Constraints.Choice) > 0 && stringChoices(n.items)
	}
	return false
}

// stringChoices reports whether n's choices, if any, are all strings.
func stringChoices(n *node) bool {
	for _, c := range n.def.Constraints.Choice {
		if _, ok := c.(string); !ok {
			return false
		}
	}
	return true
}

// plainForm drops from s what a form field does not take: the rule against
// NUL (a person's typing holds none) beside or as a pattern.
func plainForm(s *jsonschema.Schema) {
	if s.Pattern == noNULPattern {
		s.Pattern = ""
	}
	if s.Not != nil && s.Not.Pattern == `\x00` {
		s.Not = nil
	}
}
