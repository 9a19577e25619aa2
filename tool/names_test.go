package tool_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/toolapi/toolapi/tool"
)

// modelName is the pattern OpenAI, Anthropic and Gemini all accept as a
// function name (Gemini's own is the strictest: a letter or '_' first).
var modelName = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$`)

func quietRegistry(t *testing.T) *tool.Registry {
	t.Helper()
	return tool.NewRegistry(&tool.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
}

func namedTool(id string, perm string) *tool.Tool {
	var access func(context.Context, *tool.Values) (bool, error)
	if perm == "" {
		access = func(context.Context, *tool.Values) (bool, error) { return true, nil }
	}
	return &tool.Tool{Access: access,
		ID: id, Label: "Tool", Description: "Does nothing.", Operation: tool.OpRead, Permission: perm,
		Handler: func(context.Context, *tool.Values) (*tool.Result, error) { return nil, nil },
	}
}

func addTools(t *testing.T, reg *tool.Registry, ids ...string) {
	t.Helper()
	for _, id := range ids {
		if err := reg.Add(namedTool(id, "")); err != nil {
			t.Fatal(err)
		}
	}
}

func TestNameOf(t *testing.T) {
	tests := []struct{ id, want string }{
		{"album.add_track", "album__add_track"},
		{"list_albums", "list_albums"},
		{"Site-Info.v2", "Site-Info__v2"},
		{"_private.a.b", "_private__a__b"},
		{strings.Repeat("x", 64), strings.Repeat("x", 64)},
		{strings.Repeat("x", 31) + "." + strings.Repeat("y", 31), strings.Repeat("x", 31) + "__" + strings.Repeat("y", 31)},
	}
	for _, tt := range tests {
		if got := tool.NameOf(tt.id); got != tt.want {
			t.Errorf("NameOf(%q) = %q, want %q", tt.id, got, tt.want)
		}
		if err := namedTool(tt.id, "").Check(); err != nil {
			t.Errorf("ID %q: %v", tt.id, err)
			continue
		}
		if !modelName.MatchString(tool.NameOf(tt.id)) {
			t.Errorf("the name %q of the valid ID %q does not match %s", tool.NameOf(tt.id), tt.id, modelName)
		}
	}
}

// A name depends on the ID alone: two registries holding different tools,
// or one registry before and after other tools come and go, give a tool
// the same name, and find it by it.
func TestNameIsTheIDs(t *testing.T) {
	one, two := quietRegistry(t), quietRegistry(t)
	addTools(t, one, "album.search", "album__list", "site.info")
	addTools(t, two, "site.info", "zz.first")
	for _, reg := range []*tool.Registry{one, two} {
		if got, ok := reg.ToolByName("site__info"); !ok || got.ID != "site.info" {
			t.Errorf("ToolByName(site__info) = %v, %v", got, ok)
		}
	}
	one.Remove("album.search")
	addTools(t, one, "album.search")
	if got, ok := one.ToolByName("album__search"); !ok || got.ID != "album.search" {
		t.Errorf("added again, ToolByName(album__search) = %v, %v", got, ok)
	}
}

// definitionErrors returns the DefinitionErrors err joins.
func definitionErrors(err error) []tool.DefinitionError {
	var out []tool.DefinitionError
	var walk func(error)
	walk = func(err error) {
		switch x := err.(type) {
		case nil:
		case *tool.DefinitionError:
			out = append(out, *x)
		case interface{ Unwrap() []error }:
			for _, e := range x.Unwrap() {
				walk(e)
			}
		case interface{ Unwrap() error }:
			walk(x.Unwrap())
		}
	}
	walk(err)
	return out
}

// IDs that model APIs could not take as names are refused, each with the
// rule "id" and a message naming the ID.
func TestIDRules(t *testing.T) {
	long := strings.Repeat("a", 33) + "." + strings.Repeat("b", 30) // 64 characters, 65 as a name
	tests := []struct {
		id   string
		want string // in the message; "" for a valid ID
	}{
		{"9lives.check", `ID "9lives.check" must start with a letter or '_'`},
		{".hidden", `ID ".hidden" must start with a letter or '_'`},
		{"-dash", `ID "-dash" must start with a letter or '_'`},
		{"a bad id", `ID "a bad id" holds ' '`},
		{"album/search", `ID "album/search" holds '/'`},
		{"café.menu", `ID "café.menu" holds 'é'`},
		{strings.Repeat("x", 65), "65 characters, more than the 64"},
		{long, "named " + tool.NameOf(long) + ", 65 characters"},
		{"", "a tool needs an ID"},
		{"lives9.check", ""},
		{"_9lives", ""},
		{strings.Repeat("a", 32) + "." + strings.Repeat("b", 30), ""},
	}
	for _, tt := range tests {
		err := namedTool(tt.id, "").Check()
		des := definitionErrors(err)
		if tt.want == "" {
			if err != nil {
				t.Errorf("ID %q: %v, want it valid", tt.id, err)
			}
			continue
		}
		if len(des) != 1 || des[0].Rule != "id" || des[0].Path != "" || !strings.Contains(des[0].Message, tt.want) {
			t.Errorf("ID %q: %#v, want one problem of rule id containing %q", tt.id, des, tt.want)
		}
		// The registry refuses it the same way.
		if err := quietRegistry(t).Add(namedTool(tt.id, "")); len(definitionErrors(err)) != 1 || definitionErrors(err)[0].Rule != "id" {
			t.Errorf("Add of ID %q: %v, want a DefinitionError of rule id", tt.id, err)
		}
	}
}

// Two tools with one name cannot be in one registry, in either order and
// added together or not; the error names both IDs, and the tool added
// first keeps its name.
func TestNameCollision(t *testing.T) {
	for _, ids := range [][2]string{{"kitchen.clash", "kitchen__clash"}, {"kitchen__clash", "kitchen.clash"}, {"a.b__c", "a__b.c"}} {
		for _, together := range []bool{false, true} {
			reg := quietRegistry(t)
			var err error
			if together {
				err = reg.Add(namedTool(ids[0], ""), namedTool(ids[1], ""))
			} else {
				addTools(t, reg, ids[0])
				err = reg.Add(namedTool(ids[1], ""))
			}
			des := definitionErrors(err)
			if len(des) != 1 || des[0].Rule != "id" || !strings.Contains(des[0].Message, `"`+ids[0]+`"`) || !strings.Contains(des[0].Message, `"`+ids[1]+`"`) {
				t.Errorf("adding %q beside %q (together %v): %v, want one DefinitionError of rule id naming both", ids[1], ids[0], together, err)
			}
			if got, ok := reg.ToolByName(tool.NameOf(ids[0])); !ok || got.ID != ids[0] {
				t.Errorf("ToolByName(%q) = %v, %v; want %q", tool.NameOf(ids[0]), got, ok, ids[0])
			}
			if _, ok := reg.Tool(ids[1]); ok {
				t.Errorf("%q was added", ids[1])
			}
		}
	}
	// The same ID twice is still "already taken".
	reg := quietRegistry(t)
	addTools(t, reg, "a.b")
	if des := definitionErrors(reg.Add(namedTool("a.b", ""))); len(des) != 1 || des[0].Message != `ID "a.b" is already taken` {
		t.Errorf("the same ID twice: %#v", des)
	}
	// Once the first is removed, the name is free.
	reg.Remove("a.b")
	addTools(t, reg, "a__b")
	if got, ok := reg.ToolByName("a__b"); !ok || got.ID != "a__b" {
		t.Errorf("ToolByName(a__b) = %v, %v", got, ok)
	}
}

func TestToolByName(t *testing.T) {
	reg := quietRegistry(t)
	addTools(t, reg, "album.add_track", "Site-Info.v2", "list_albums")
	tests := []struct {
		name string
		want string // "" for none
	}{
		{"album__add_track", "album.add_track"},
		{"album.add_track", "album.add_track"},
		{"Site-Info__v2", "Site-Info.v2"},
		{"Site-Info.v2", "Site-Info.v2"},
		{"list_albums", "list_albums"},
		{"list.albums", ""}, // neither its ID nor its name
		{"album__add", ""},
		{"album.add.track", ""},
		{"", ""},
	}
	for _, tt := range tests {
		got, ok := reg.ToolByName(tt.name)
		if ok != (tt.want != "") || (ok && got.ID != tt.want) {
			t.Errorf("ToolByName(%q) = %v, %v; want %q", tt.name, got, ok, tt.want)
		}
	}
	reg.Remove("album.add_track")
	for _, name := range []string{"album__add_track", "album.add_track"} {
		if got, ok := reg.ToolByName(name); ok {
			t.Errorf("after Remove, ToolByName(%q) = %v", name, got)
		}
	}
}

// Tools added and removed from several goroutines, some of them sharing a
// name, leave every tool findable by its name, and no two with one.
func TestNamesConcurrent(t *testing.T) {
	reg := quietRegistry(t)
	var wg sync.WaitGroup
	const n = 8
	for g := range n {
		wg.Go(func() {
			for i := range 20 {
				id := fmt.Sprintf("g%d.t%d", i%4, i) // goroutines race for each ID
				reg.Add(namedTool(id, ""))
				reg.Add(namedTool(tool.NameOf(id), ""))
				reg.ToolByName("g0__t0")
				if g%2 == 0 && i%3 == 0 {
					reg.Remove(id)
				}
			}
		})
	}
	wg.Wait()
	seen := map[string]string{}
	for _, tl := range reg.List(nil) {
		n := tool.NameOf(tl.ID)
		if other, ok := seen[n]; ok {
			t.Errorf("%q and %q share the name %q", tl.ID, other, n)
		}
		seen[n] = tl.ID
		if got, ok := reg.ToolByName(n); !ok || got != tl {
			t.Errorf("ToolByName(%q) = %v, %v; want %q", n, got, ok, tl.ID)
		}
	}
}

// BenchmarkNames measures the name lookups against Registry.Tool, the ID
// lookup every run makes, in a registry of 200 tools:
//
//	go test -run XXX -bench Names ./tool
func BenchmarkNames(b *testing.B) {
	reg := tool.NewRegistry(&tool.Options{Logger: slog.New(slog.DiscardHandler)})
	for i := range 200 {
		reg.Add(namedTool(fmt.Sprintf("bench.tool_%03d", i), ""))
	}
	b.Run("Tool(ID) baseline", func(b *testing.B) {
		for b.Loop() {
			reg.Tool("bench.tool_123")
		}
	})
	b.Run("NameOf(ID)", func(b *testing.B) {
		for b.Loop() {
			tool.NameOf("bench.tool_123")
		}
	})
	b.Run("ToolByName(name)", func(b *testing.B) {
		for b.Loop() {
			reg.ToolByName("bench__tool_123")
		}
	})
	b.Run("ToolByName(ID)", func(b *testing.B) {
		for b.Loop() {
			reg.ToolByName("bench.tool_123")
		}
	})
}
