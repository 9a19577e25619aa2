package tool

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"sync"
)

// maxNameLength is the longest name [Registry.Name] gives: the most that
// OpenAI's function names allow (Anthropic allows as many).
const maxNameLength = 64

// Name returns the name of the tool with the given ID in MCP and in the
// function-calling APIs of language models: letters, digits, "_" and "-",
// 1 to 64 characters, the pattern ^[a-zA-Z0-9_-]{1,64}$ that
// OpenAI, Anthropic and Gemini all accept. It returns "" when r holds no
// tool with that ID.
//
// An ID that is already such a name is its own name ("list_albums"). Any
// other ID is spelled with "." as "__" ("album.add_track" is
// "album__add_track"). A name
// that would be longer than 64 characters, or that another tool already
// has, is cut and given a suffix of eight or more hexadecimal digits of the
// SHA-256 of the ID ("album__add_track_1f0c2a9e"), the same in every
// process.
//
// Names derive from the whole registry, not from what an account sees, so
// every account and caller knows a tool by the same name. Tools are named
// when a name is first asked of the registry after they were added, all
// those not yet named at once, in ID order, the IDs that are already names
// first (so an application that adds its tools before serving them gives
// every such ID its own name, whatever the order of the adds). A name never
// changes for the life of the registry: adding or removing other tools
// renames nothing, and a tool removed and added again gets its name back.
//
// Names are not kept across processes. A later version of an application
// that adds a tool whose ID is another tool's name ("a__b" beside "a.b",
// named "a__b") can name that other tool differently after a restart,
// since the IDs that are already names are named first: "a__b" then takes
// its own name and "a.b" gets a hashed one, and agents that kept the old
// name call the wrong tool. To keep names across versions, give a new tool
// no ID whose name an existing tool has (compare it with Name of each
// existing tool before adding it).
func (r *Registry) Name(id string) string {
	if _, ok := r.Tool(id); !ok {
		return ""
	}
	if n, ok := r.names.name(id); ok {
		return n
	}
	r.nameAll()
	n, _ := r.names.name(id)
	return n
}

// nameAll names the registry's tools that have no name yet.
func (r *Registry) nameAll() {
	all := r.snapshot()
	if r.names.named(all) {
		return
	}
	ids := make([]string, len(all))
	for i, e := range all {
		ids[i] = e.tool.ID
	}
	r.names.assign(ids)
	r.names.mark(all)
}

// ToolByName returns the tool known by name, as [Registry.Name] gives it,
// or by its raw ID. A name wins over an ID: where one tool's name is
// another tool's ID (a tool "a.b" named "a__b", and a tool with ID "a__b"
// added later, named "a__b_" and a hash), "a__b" finds the tool "a.b".
func (r *Registry) ToolByName(name string) (*Tool, bool) {
	r.nameAll()
	if id, ok := r.names.id(name); ok {
		if t, ok := r.Tool(id); ok {
			return t, true
		}
	}
	return r.Tool(name)
}

// A nameTable holds the names a registry gave its tools. A name, once
// given, is kept for its ID as long as the registry lives, the tool
// removed or not. The zero value is an empty table.
type nameTable struct {
	mu     sync.Mutex
	byID   map[string]string
	byName map[string]string
	last   []*entry // the registry's snapshot last named in full
}

// named reports whether the snapshot all was named in full already (a
// registry's snapshot is rebuilt after each change and never written).
func (nt *nameTable) named(all []*entry) bool {
	nt.mu.Lock()
	defer nt.mu.Unlock()
	return len(all) == len(nt.last) && (len(all) == 0 && nt.byID != nil || len(all) > 0 && &all[0] == &nt.last[0])
}

func (nt *nameTable) mark(all []*entry) {
	nt.mu.Lock()
	nt.last = all
	nt.mu.Unlock()
}

func (nt *nameTable) name(id string) (string, bool) {
	nt.mu.Lock()
	defer nt.mu.Unlock()
	n, ok := nt.byID[id]
	return n, ok
}

func (nt *nameTable) id(name string) (string, bool) {
	nt.mu.Lock()
	defer nt.mu.Unlock()
	id, ok := nt.byName[name]
	return id, ok
}

// assign names the IDs that have no name yet: the IDs that are already
// names first, then the others, each group in ID order.
func (nt *nameTable) assign(ids []string) {
	nt.mu.Lock()
	defer nt.mu.Unlock()
	if nt.byID == nil {
		nt.byID, nt.byName = make(map[string]string), make(map[string]string)
	}
	var own, other []string
	for _, id := range ids {
		if _, ok := nt.byID[id]; ok {
			continue
		}
		if plainName(id) == id && len(id) <= maxNameLength {
			own = append(own, id)
		} else {
			other = append(other, id)
		}
	}
	slices.Sort(own)
	slices.Sort(other)
	for _, id := range slices.Concat(own, other) {
		n := nt.free(id)
		nt.byID[id] = n
		nt.byName[n] = id
	}
}

// free returns the name id gets given the names already taken.
func (nt *nameTable) free(id string) string {
	plain := plainName(id)
	if _, taken := nt.byName[plain]; !taken && plain != "" && len(plain) <= maxNameLength {
		return plain
	}
	sum := sha256.Sum256([]byte(id))
	digest := hex.EncodeToString(sum[:])
	for size := 8; ; size += 4 {
		suffix := "_" + digest[:min(size, len(digest))]
		base := plain[:min(len(plain), maxNameLength-len(suffix))]
		n := base + suffix
		if _, taken := nt.byName[n]; !taken || size >= len(digest) {
			return n
		}
	}
}

// plainName is id with "." as "__": a tool ID holds no other character
// outside [a-zA-Z0-9_-].
func plainName(id string) string { return strings.ReplaceAll(id, ".", "__") }
