package tool

import "strings"

// MaxNameLength is the longest a tool's name ([NameOf]) may be: the most
// that OpenAI's function names allow (Anthropic and Gemini allow as many).
const MaxNameLength = 64

// NameOf returns the name of the tool with the given ID in MCP and in the
// function-calling APIs of language models: the ID with each "." written
// "__" ("album.add_track" is "album__add_track"; "list_albums" is its own
// name). The name of a valid ID (see [Tool.ID]) matches
// ^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$, which OpenAI, Anthropic and Gemini all
// accept.
//
// A name depends on the ID alone: every registry, process and version of an
// application gives a tool the same name, whatever other tools it holds.
// Two tools whose IDs have one name ("a.b" and "a__b") cannot be added to
// one registry (see [Registry.Add]).
func NameOf(id string) string { return strings.ReplaceAll(id, ".", "__") }

// ToolByName returns the tool known by name: its name ([NameOf]) or its
// ID. It is the one way every caller (MCP, function calling, the CLI, the
// explorer) finds a tool by what a client sent. A string is the name or the
// ID of at most one tool of a registry, since no two of its tools share a
// name. It does not ask whether an account may see the tool: callers that
// serve accounts answer a tool the account may not see (see [Tool.Allowed])
// as one that does not exist.
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
// fits [MaxNameLength].
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
	if n := NameOf(id); len(n) > MaxNameLength {
		errs.add("", "id", "ID %q is named %s, %d characters, more than the %d model APIs allow in a tool's name (each '.' counts as the two characters of \"__\"): shorten it",
			id, n, len(n), MaxNameLength)
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
