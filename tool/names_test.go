package tool_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolapi/toolapi/tool"
)

var modelName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

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

// names returns the name of each ID, checking that each is valid, unique
// and leads back to its tool.
func names(t *testing.T, reg *tool.Registry, ids ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	owner := map[string]string{}
	for _, id := range ids {
		n := reg.Name(id)
		if !modelName.MatchString(n) {
			t.Errorf("%q is named %q, which does not match %s", id, n, modelName)
		}
		if other, ok := owner[n]; ok {
			t.Errorf("%q and %q share the name %q", id, other, n)
		}
		owner[n] = id
		if got, ok := reg.ToolByName(n); !ok || got.ID != id {
			t.Errorf("ToolByName(%q) = %v, %v; want the tool %q", n, got, ok, id)
		}
		out[id] = n
	}
	return out
}

const longToolID = "translation.export_every_document_of_the_site_as_xliff_for_the_translation_agency_now"

func TestNameSpelling(t *testing.T) {
	tests := []struct{ id, want string }{
		{"album.add_track", "album__add_track"},
		{"list_albums", "list_albums"},
		{"Site-Info.v2", "Site-Info__v2"},
		{strings.Repeat("x", 64), strings.Repeat("x", 64)},
	}
	reg := quietRegistry(t)
	for _, tt := range tests {
		addTools(t, reg, tt.id)
	}
	for _, tt := range tests {
		if got := reg.Name(tt.id); got != tt.want {
			t.Errorf("Name(%q) = %q, want %q", tt.id, got, tt.want)
		}
	}
	if got := reg.Name("no.such"); got != "" {
		t.Errorf("Name of an unknown ID = %q, want \"\"", got)
	}
}

func TestNameLong(t *testing.T) {
	reg := quietRegistry(t)
	long65 := strings.Repeat("y", 65)
	longer := longToolID + "_and_then_some_more"
	addTools(t, reg, longToolID, longer, long65)
	got := names(t, reg, longToolID, longer, long65)
	for id, n := range got {
		if len(n) != 64 {
			t.Errorf("%q is named %q (%d characters), want a cut name of %d", id, n, len(n), 64)
		}
		if !strings.HasPrefix(n, "translation__export_every") && !strings.HasPrefix(n, "yyyy") {
			t.Errorf("%q is named %q, which does not start like its ID", id, n)
		}
	}
	// The same IDs in another registry get the same names.
	other := quietRegistry(t)
	addTools(t, other, long65, longer, longToolID)
	if diff := cmp.Diff(got, names(t, other, longToolID, longer, long65)); diff != "" {
		t.Errorf("names differ between registries (-first +second):\n%s", diff)
	}
}

// Adding a tool whose name another tool already has renames neither, in
// either order.
func TestNameClash(t *testing.T) {
	tests := []struct {
		name  string
		first string
		then  []string
	}{
		{"raw ID after the dotted one", "kitchen.clash", []string{"kitchen__clash"}},
		{"dotted ID after the raw one", "kitchen__clash", []string{"kitchen.clash"}},
		{"a name taken twice", "a.b", []string{"a__b", "a__b_" + hash8("a__b")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := quietRegistry(t)
			addTools(t, reg, tt.first)
			before := reg.Name(tt.first)
			ids := []string{tt.first}
			for _, id := range tt.then {
				addTools(t, reg, id)
				ids = append(ids, id)
				names(t, reg, ids...)
				if got := reg.Name(tt.first); got != before {
					t.Fatalf("adding %q renamed %q from %q to %q", id, tt.first, before, got)
				}
			}
		})
	}
	// Added together, an ID that is already a name keeps it.
	reg := quietRegistry(t)
	if err := reg.Add(namedTool("kitchen.clash", ""), namedTool("kitchen__clash", "")); err != nil {
		t.Fatal(err)
	}
	got := names(t, reg, "kitchen.clash", "kitchen__clash")
	if got["kitchen__clash"] != "kitchen__clash" || got["kitchen.clash"] != "kitchen__clash_"+hash8("kitchen.clash") {
		t.Errorf("names of tools added together: %v", got)
	}
}

// hash8 is what a name's suffix holds: the first eight hexadecimal digits
// of the SHA-256 of the ID.
func hash8(id string) string {
	sum := sha256.Sum256([]byte(id))
	return hex.EncodeToString(sum[:4])
}

// Every account sees a tool under the same name, whatever it may call.
func TestNameSameForEveryAccount(t *testing.T) {
	reg := quietRegistry(t)
	if err := reg.Add(namedTool("kitchen.clash", "admin"), namedTool("kitchen__clash", ""), namedTool("album.list", "")); err != nil {
		t.Fatal(err)
	}
	admin := &tool.User{ID: "admin", Permissions: []string{"admin"}}
	seen := map[string]string{}
	for _, acct := range []tool.Account{tool.Anonymous, admin} {
		for _, tl := range reg.List(&tool.Filter{Account: acct}) {
			n := reg.Name(tl.ID)
			if prev, ok := seen[tl.ID]; ok && prev != n {
				t.Errorf("%q is %q for one account and %q for another", tl.ID, prev, n)
			}
			seen[tl.ID] = n
		}
	}
	if seen["kitchen__clash"] != "kitchen__clash" {
		t.Errorf("kitchen__clash is named %q", seen["kitchen__clash"])
	}
}

// Removing a tool renames nothing, and the tool gets its name back.
func TestNameRemoved(t *testing.T) {
	reg := quietRegistry(t)
	addTools(t, reg, "kitchen.clash")
	n := reg.Name("kitchen.clash")
	reg.Remove("kitchen.clash")
	if got := reg.Name("kitchen.clash"); got != "" {
		t.Errorf("a removed tool is named %q", got)
	}
	if _, ok := reg.ToolByName(n); ok {
		t.Errorf("ToolByName finds a removed tool")
	}
	addTools(t, reg, "kitchen__clash", "kitchen.clash")
	if got := reg.Name("kitchen.clash"); got != n {
		t.Errorf("added again, kitchen.clash is named %q, want %q", got, n)
	}
	if got := reg.Name("kitchen__clash"); got == n {
		t.Errorf("kitchen__clash took the name of a removed tool")
	}
}

func TestToolByName(t *testing.T) {
	reg := quietRegistry(t)
	addTools(t, reg, "album.add_track")
	addTools(t, reg, "Site-Info.v2")
	tests := []struct {
		name string
		want string // "" for none
	}{
		{"album__add_track", "album.add_track"},
		{"album.add_track", "album.add_track"},
		{"Site-Info__v2", "Site-Info.v2"},
		{"Site-Info.v2", "Site-Info.v2"},
		{"album__add", ""},
		{"", ""},
	}
	for _, tt := range tests {
		got, ok := reg.ToolByName(tt.name)
		if ok != (tt.want != "") || (ok && got.ID != tt.want) {
			t.Errorf("ToolByName(%q) = %v, %v; want %q", tt.name, got, ok, tt.want)
		}
	}
	// A tool added after the names were given is found by its name before
	// anyone asked for it.
	addTools(t, reg, "late.comer")
	if got, ok := reg.ToolByName("late__comer"); !ok || got.ID != "late.comer" {
		t.Errorf("ToolByName(late__comer) = %v, %v", got, ok)
	}
}

// Names given while tools are added from several goroutines are unique
// and stable.
func TestNameConcurrent(t *testing.T) {
	reg := quietRegistry(t)
	var wg sync.WaitGroup
	const n = 8
	for g := range n {
		wg.Go(func() {
			for i := range 20 {
				id := fmt.Sprintf("g%d.t%d", g, i)
				reg.Add(namedTool(id, ""), namedTool(strings.ReplaceAll(id, ".", "__"), ""))
				reg.Name(id)
				reg.ToolByName("g0__t0")
			}
		})
	}
	wg.Wait()
	var ids []string
	for _, tl := range reg.List(nil) {
		ids = append(ids, tl.ID)
	}
	first := names(t, reg, ids...)
	if diff := cmp.Diff(first, names(t, reg, ids...)); diff != "" {
		t.Errorf("names changed (-first +second):\n%s", diff)
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
	reg.Name("bench.tool_000")
	b.Run("Tool(ID) baseline", func(b *testing.B) {
		for b.Loop() {
			reg.Tool("bench.tool_123")
		}
	})
	b.Run("Name(ID)", func(b *testing.B) {
		for b.Loop() {
			reg.Name("bench.tool_123")
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
