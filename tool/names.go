package tool

import "strings"

// maxNameLength is the longest a tool's name ([NameOf]) may be: the most
// that OpenAI's function names allow (Anthropic and Gemini allow as many).
const maxNameLength = 64

// NameOf returns a tool's name in MCP and model APIs: its ID with each "."
// written "__" ("album.add" is "album__add"), which a valid ID makes match
// ^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$. A registry refuses two IDs of one name.
func NameOf(id string) string { return strings.ReplaceAll(id, ".", "__") }

// ToolByName returns the tool whose name ([NameOf]) or ID is name, whether
// or not an account may see it: callers answer a tool the account may not
// see ([Tool.Allowed]) as an unknown one.
func (r *Registry) ToolByName(name string) (*Tool, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if e := r.byName[name]; e != nil {
		return e.tool, true
	}
	if e := r.entries[name]; e != nil {
		return e.tool, true
	}
	return nil, false
}

// checkID adds the problems of a tool ID to errs: an ID starts with a
// letter or "_", holds only letters, digits, "_", "." and "-", and its name
// fits [maxNameLength].
func checkID(id string, errs *definitionErrors) {
	if id == "" {
		errs.add("", "id", "a tool needs an ID")
		return
	}
	for i, c := range id {
		letter := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_'
		if i == 0 && !letter && ('0' <= c && c <= '9' || c == '.' || c == '-') {
			errs.add("", "id", "ID %q must start with a letter or '_' (album.search), as model APIs require of a tool's name", id)
			return
		}
		if !letter && !('0' <= c && c <= '9') && c != '.' && c != '-' {
			errs.add("", "id", "ID %q holds %q: an ID holds only letters, digits, '_', '.' and '-' (album.search)", id, c)
			return
		}
	}
	if n := NameOf(id); len(n) > maxNameLength {
		errs.add("", "id", "ID %q is named %s, %d characters, more than the %d model APIs allow in a tool's name (each '.' counts as the two characters of \"__\"): shorten it",
			id, n, len(n), maxNameLength)
	}
}

// nameTaken is the problem of a tool whose name another tool of the
// registry has.
func nameTaken(id, other string, errs *definitionErrors) {
	if id == other {
		errs.add("", "id", "ID %q is already taken", id)
		return
	}
	errs.add("", "id", "ID %q has the name %s, as the tool %q has (a '.' is named \"__\"): rename one of them", id, NameOf(id), other)
}
