package tool

import (
	"crypto/sha256"
	"encoding/hex"
	"runtime"
	"slices"
	"strings"
	"sync"
	"weak"
)

// MaxNameLength is the longest name [Registry.Name] gives: the most that
// OpenAI's function names allow (Anthropic allows as many).
const MaxNameLength = 64

// Name returns the name of the tool with the given ID in MCP and in the
// function-calling APIs of language models: letters, digits, "_" and "-",
// 1 to [MaxNameLength] characters, the pattern ^[a-zA-Z0-9_-]{1,64}$ that
// OpenAI, Anthropic and Gemini all accept. It returns "" when r holds no
// tool with that ID.
//
// An ID that is already such a name is its own name ("list_albums"). Any
// other ID is spelled with "." as "__" and every other character outside
// the pattern as "_" ("album.add_track" is "album__add_track"). A name
// that would be longer than 64 characters, or that another tool already
// has, is cut and given a suffix of eight or more hexadecimal digits of the
// SHA-256 of the ID ("album__add_track_1f0c2a9e"), the same in every
// process.
//
// Names derive from the whole registry, not from what an account sees, so
// every account and caller knows a tool by the same name. A tool is named
// the first time a name is asked of the registry after it was added (tools
// added together are named in ID order, the IDs that are already names
// first, so they keep them), and its name never changes: adding or removing
// other tools renames nothing, and a tool removed and added again gets its
// name back.
func (r *Registry) Name(id string) string {
	if _, ok := r.Tool(id); !ok {
		return ""
	}
	nt := r.nameTable()
	if n, ok := nt.name(id); ok {
		return n
	}
	nt.assign(r)
	n, _ := nt.name(id)
	return n
}

// ToolByName returns the tool known by name, as [Registry.Name] gives it,
// or by its raw ID. A name wins over an ID: where one tool's name is
// another tool's ID (a tool "a.b" named "a__b", and a tool with ID "a__b"
// added later, named "a__b_" and a hash), "a__b" finds the tool "a.b".
func (r *Registry) ToolByName(name string) (*Tool, bool) {
	nt := r.nameTable()
	for range 2 {
		if id, ok := nt.id(name); ok {
			if t, ok := r.Tool(id); ok {
				return t, true
			}
		}
		if t, ok := r.Tool(name); ok {
			return t, true
		}
		// The tool may have been added since the last naming.
		if !nt.assign(r) {
			break
		}
	}
	return nil, false
}

// A nameTable holds the names a registry gave its tools. A name, once
// given, is kept for its ID as long as the registry lives, the tool
// removed or not.
type nameTable struct {
	mu     sync.Mutex
	byID   map[string]string
	byName map[string]string
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

// assign names the tools of r that have no name yet, and reports whether
// there were any: the IDs that are already names first, then the others,
// each group in ID order.
func (nt *nameTable) assign(r *Registry) bool {
	all := r.snapshot()
	nt.mu.Lock()
	defer nt.mu.Unlock()
	var own, other []string
	for _, t := range all {
		if _, ok := nt.byID[t.tool.ID]; ok {
			continue
		}
		if plainName(t.tool.ID) == t.tool.ID && len(t.tool.ID) <= MaxNameLength {
			own = append(own, t.tool.ID)
		} else {
			other = append(other, t.tool.ID)
		}
	}
	for _, id := range slices.Concat(own, other) {
		n := nt.free(id)
		nt.byID[id] = n
		nt.byName[n] = id
	}
	return len(own)+len(other) > 0
}

// free returns the name id gets given the names already taken.
func (nt *nameTable) free(id string) string {
	plain := plainName(id)
	if _, taken := nt.byName[plain]; !taken && plain != "" && len(plain) <= MaxNameLength {
		return plain
	}
	sum := sha256.Sum256([]byte(id))
	digest := hex.EncodeToString(sum[:])
	for size := 8; ; size += 4 {
		suffix := "_" + digest[:min(size, len(digest))]
		base := plain[:min(len(plain), MaxNameLength-len(suffix))]
		n := base + suffix
		if _, taken := nt.byName[n]; !taken || size >= len(digest) {
			return n
		}
	}
}

// plainName is id with "." as "__" and any other character outside
// [a-zA-Z0-9_-] as "_".
func plainName(id string) string {
	var b strings.Builder
	b.Grow(len(id))
	for _, c := range id {
		switch {
		case c == '.':
			b.WriteString("__")
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '-':
			b.WriteRune(c)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// nameTables holds the name table of each registry that was asked for a
// name, for as long as the registry lives.
var nameTables struct {
	mu sync.Mutex
	m  map[weak.Pointer[Registry]]*nameTable
}

// nameTable returns r's name table, making it on first use. A new table
// names the registry's tools after every change from then on, so a tool
// is named when it is added.
func (r *Registry) nameTable() *nameTable {
	key := weak.Make(r)
	nameTables.mu.Lock()
	nt := nameTables.m[key]
	made := nt == nil
	if made {
		nt = &nameTable{byID: make(map[string]string), byName: make(map[string]string)}
		if nameTables.m == nil {
			nameTables.m = make(map[weak.Pointer[Registry]]*nameTable)
		}
		nameTables.m[key] = nt
		runtime.AddCleanup(r, func(key weak.Pointer[Registry]) {
			nameTables.mu.Lock()
			delete(nameTables.m, key)
			nameTables.mu.Unlock()
		}, key)
	}
	nameTables.mu.Unlock()
	if made {
		r.OnChange(func() { nt.assign(r) })
	}
	return nt
}
