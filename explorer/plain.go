package explorer

import (
	"strings"

	"github.com/toolapi/toolapi/tool"
)

// plainMessage says a violation of a form field for the person filling
// it in, by its rule: what to type, with the field's example where a
// pattern would say it with a regular expression, and how the checkbox of
// a boolean takes yes or no. The rest is the violation's words for people
// ([tool.Violation.ForPeople]).
func plainMessage(def *tool.Definition, v tool.Violation) string {
	switch {
	case v.Rule == tool.RulePattern:
		if len(def.Examples) > 0 {
			if s, ok := def.Examples[0].(string); ok && s != "" {
				return "is not in the expected form: type something like “" + s + "”"
			}
		}
		return "is not in the expected form" + describeHint(def)
	case v.Rule == tool.RuleType && v.Detail == "boolean":
		return v.ForPeople() + " (tick the box or leave it)"
	}
	return v.ForPeople()
}

// describeHint returns ": " and the definition's description, to say
// what a value should be when no example says it.
func describeHint(def *tool.Definition) string {
	if def.Description == "" {
		return ""
	}
	return ": " + strings.TrimSuffix(def.Description, ".")
}

// maxDidYouMean bounds the entities a not-found message suggests, and
// maxSuggestWords the words of the typed text searched one by one when
// the whole text matches nothing.
const (
	maxDidYouMean   = 3
	maxSuggestWords = 4
)

// notFound rewords the violation of an entity field naming no entity
// (rule [tool.RuleEntityNotFound], the ID it names as its value) in the
// words of the person, who may have typed a label: "no album is called
// “Blue”". When the entity type can search by label, it suggests the
// entities whose labels hold the text, or else one of its words, and
// returns them to offer as picks. It reports false for any other
// violation.
func (f *field) notFound(v tool.Violation) (string, []tool.EntityRef, bool) {
	if v.Rule != tool.RuleEntityNotFound || v.Value == "" || entityTypeOf(f.Def) == "" {
		return "", nil, false
	}
	name, typed := f.EntityTypeLabel(), v.Value
	et, _ := f.form.e.reg.EntityType(entityTypeOf(f.Def))
	if et == nil || et.Search == nil {
		return "no " + name + " has the ID “" + typed + "”", nil, true
	}
	refs := f.form.similar(et, typed)
	if len(refs) == 0 {
		return "no " + name + " has the label or ID “" + typed + "”: type part of its label and choose Find by label", nil, true
	}
	quoted := make([]string, len(refs))
	for i, ref := range refs {
		quoted[i] = "“" + ref.Label + "”"
	}
	list := quoted[0]
	if n := len(quoted); n > 1 {
		list = strings.Join(quoted[:n-1], ", ") + " or " + quoted[n-1]
	}
	return "no " + name + " is called “" + typed + "”; did you mean " + list + "?", refs, true
}

// similar returns up to maxDidYouMean entities of et the person may see
// whose labels hold text, or when none does, one of its words of three
// letters or more.
func (fm *form) similar(et *tool.EntityType, text string) []tool.EntityRef {
	queries := []string{strings.TrimSpace(text)}
	words := strings.Fields(text)
	if len(words) > 1 {
		for _, w := range words[:min(len(words), maxSuggestWords)] {
			if len([]rune(w)) >= 3 {
				queries = append(queries, w)
			}
		}
	}
	var out []tool.EntityRef
	seen := map[string]bool{}
	for _, q := range queries {
		if len(out) > 0 {
			break
		}
		refs, err := et.Search(fm.ctx, fm.v.acct, q, maxDidYouMean)
		if err != nil {
			fm.e.logger.Error("explorer: searching entities", "type", et.ID, "error", err.Error())
			return nil
		}
		for _, ref := range refs {
			if !seen[ref.ID] && len(out) < maxDidYouMean {
				seen[ref.ID] = true
				out = append(out, ref)
			}
		}
	}
	return out
}
