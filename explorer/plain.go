package explorer

import (
	"strings"

	"github.com/toolapi/toolapi/tool"
)

// plainMessage rewords a violation of a form field for the person filling
// it in: what to type, with an example, rather than a regular expression
// or the name of a standard. Messages it does not know stay as they are.
func plainMessage(def *tool.Definition, msg string) string {
	example := ""
	if len(def.Examples) > 0 {
		if s, ok := def.Examples[0].(string); ok {
			example = s
		}
	}
	switch {
	case strings.HasPrefix(msg, "must match the pattern "):
		if example != "" {
			return "is not in the expected form: type something like “" + example + "”"
		}
		return "is not in the expected form" + describeHint(def)
	case strings.Contains(msg, "RFC 3339"):
		return "must be a date and time such as 2024-05-01 12:00 (UTC)"
	case strings.HasPrefix(msg, "must be an ISO 8601 duration"):
		return "must be a duration such as 1h30m, 90s or PT1H30M"
	case msg == "must be an integer":
		return "must be a whole number such as 7"
	case msg == "must be a number":
		return "must be a number such as 2.5"
	case msg == "must be an email address":
		return "must be an email address such as ann@example.com"
	case msg == "must be an absolute URI":
		return "must be a full web address such as https://example.com/page"
	case msg == "must be true or false":
		return "must be yes or no (tick the box or leave it)"
	case strings.HasPrefix(msg, "must be the ID of a "):
		typ := strings.TrimSuffix(strings.TrimPrefix(msg, "must be the ID of a "), " as a string")
		return "must name a " + typ + ": type its label or its ID"
	case strings.HasPrefix(msg, "must be base64"):
		return "must be data encoded as base64"
	}
	return msg
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
// ("no album has the ID "Blue"", as the registry says it) in the words of
// the person, who may have typed a label: "no album is called “Blue”".
// When the entity type can search by label, it suggests the entities whose
// labels hold the text, or else one of its words, and returns them to
// offer as picks. It reports false for any other message.
func (f *Field) notFound(msg string) (string, []tool.EntityRef, bool) {
	name := f.EntityTypeLabel()
	typed, ok := strings.CutPrefix(msg, "no "+name+" has the ID \"")
	if !ok || entityTypeOf(f.Def) == "" || !strings.HasSuffix(typed, "\"") {
		return "", nil, false
	}
	typed = strings.TrimSuffix(typed, "\"")
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
