package gen

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// lockedSrc is the package whose contract TestLock locks; each case edits
// it.
const lockedSrc = `package a

import "context"

// S is a service.
type S struct{}

// Find finds songs.
//
//tool:method id=a.find op=read permission=p
//tool:input limit default=10 range=1..100
//tool:input mood choice=calm|lively|sad
func (s *S) Find(ctx context.Context, query string, limit int, mood *string) ([]string, error) {
	return nil, nil
}

// Ping answers.
//
//tool:method id=a.ping op=read permission=p
func (s *S) Ping(ctx context.Context) error { return nil }
`

// TestLock writes a lock with -lock, changes the source and checks what
// -check and a plain run say of each change: breaking changes fail with
// their positions and leave the lock as it was until -lock accepts them;
// compatible ones are notes, and a plain run records them in the lock.
// The cases run in two groups, breaking and compatible, each case a
// package of its own and each step one toolgen run over the group's
// packages, so that the packages are loaded once a step rather than once
// a case.
func TestLock(t *testing.T) {
	type lockCase struct {
		name     string
		old, new string // the replacement made in lockedSrc
		want     []string
	}
	breaking := []lockCase{
		{name: "input_removed",
			old: "query string, limit int", new: "limit int",
			want: []string{"a.go:10:1: tool a.find: breaking: inputs.query: the input was removed"}},
		{name: "new_required_input",
			old: "mood *string)", new: "mood *string, genre string)",
			want: []string{"a.go:13:78: tool a.find: breaking: inputs.genre: a new required input"}},
		{name: "choice_narrowed",
			old: "choice=calm|lively|sad", new: "choice=calm|lively",
			want: []string{`a.go:12:19: tool a.find: breaking: inputs.mood: the choice "sad" was removed`}},
		{name: "range_narrowed",
			old: "range=1..100", new: "range=1..50",
			want: []string{"a.go:11:31: tool a.find: breaking: inputs.limit: the maximum fell from 100 to 50"}},
		{name: "task_required",
			old: "id=a.ping op=read", new: "id=a.ping op=read task=required",
			want: []string{"a.go:19:33: tool a.ping: breaking: every call now runs as a background task (task required, was never)"}},
		{name: "tool_removed",
			old: "//tool:method id=a.ping op=read permission=p\n", new: "",
			want: []string{"tools.lock.json:49:7: tool a.ping: breaking: the tool was removed"}},
	}
	compatible := []lockCase{
		{name: "no_change"},
		{name: "new_optional_input",
			old: "mood *string)", new: "mood *string, genre *string)",
			want: []string{"a.go:13:78: tool a.find: compatible: inputs.genre: a new optional input"}},
		{name: "choice_added",
			old: "choice=calm|lively|sad", new: "choice=calm|lively|sad|happy",
			want: []string{`a.go:12:19: tool a.find: compatible: inputs.mood: the choice "happy" was added`}},
		{name: "task_optional",
			old: "id=a.ping op=read", new: "id=a.ping op=read task=optional",
			want: []string{"a.go:19:33: tool a.ping: compatible: a call may now run as a background task (task optional, was never)"}},
		{name: "tool_deprecated",
			old: "id=a.ping op=read", new: `id=a.ping deprecated="use a.find" op=read`,
			want: []string{"a.go:19:36: tool a.ping: compatible: the tool is deprecated: use a.find"}},
	}
	// Tool IDs are unique across a run: the package of the i-th case of
	// a group names its tools with the i-th letter instead of "a" (the
	// same length, so that positions do not move), and its lines are
	// read back with "a".
	source := func(i int, src string) string {
		return strings.ReplaceAll(src, "id=a.", "id="+string(rune('a'+i))+".")
	}
	group := func(t *testing.T, isBreaking bool, cases []lockCase) {
		root := writeCase(t, nil)
		for i, c := range cases {
			if err := os.Mkdir(filepath.Join(root, c.name), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(root, c.name, "a.go"), []byte(source(i, lockedSrc)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		// lines returns the lines of a run's stderr about the tools of
		// case c, without the case's directory, tool IDs read back.
		lines := func(errOut string, c lockCase) []string {
			i := slices.IndexFunc(cases, func(o lockCase) bool { return o.name == c.name })
			id := ": tool " + string(rune('a'+i)) + "."
			var got []string
			for line := range strings.Lines(errOut) {
				if rest, ok := strings.CutPrefix(line, c.name+"/"); ok && strings.Contains(line, id) {
					got = append(got, strings.Replace(strings.TrimSuffix(rest, "\n"), id, ": tool a.", 1))
				}
			}
			return got
		}
		if code, _, errOut := runGen(t, Options{Dir: root, Lock: true}); code != 0 {
			t.Fatalf("-lock: exit %d: %s", code, errOut)
		}
		locked := map[string][]byte{}
		for i, c := range cases {
			data, err := os.ReadFile(filepath.Join(root, c.name, LockFile))
			if err != nil {
				t.Fatalf("%s: -lock wrote no lock file: %v", c.name, err)
			}
			locked[c.name] = data
			src := strings.Replace(lockedSrc, c.old, c.new, 1)
			if c.old != "" && src == lockedSrc {
				t.Fatalf("%s: %q is not in the source", c.name, c.old)
			}
			os.WriteFile(filepath.Join(root, c.name, "a.go"), []byte(source(i, src)), 0o644)
		}

		_, _, errOut := runGen(t, Options{Dir: root, Check: true})
		for _, c := range cases {
			if diff := cmp.Diff(c.want, lines(errOut, c)); diff != "" {
				t.Errorf("%s: -check printed (-want +got):\n%s\nall of stderr:\n%s", c.name, diff, errOut)
			}
		}
		accept := "to accept the breaking changes, run: " + FixCommand + " -lock ./...\n"
		if isBreaking != strings.Contains(errOut, accept) {
			t.Errorf("-check printed the line %q: %v, want %v:\n%s", accept, !isBreaking, isBreaking, errOut)
		}

		// A plain run writes the generated file; it records compatible
		// changes in the lock and keeps it for breaking ones.
		code, _, errOut := runGen(t, Options{Dir: root})
		if (code != 0) != isBreaking {
			t.Errorf("a plain run: exit %d, want breaking=%v: %s", code, isBreaking, errOut)
		}
		for _, c := range cases {
			now, _ := os.ReadFile(filepath.Join(root, c.name, LockFile))
			if isBreaking != bytes.Equal(now, locked[c.name]) && c.want != nil {
				t.Errorf("%s: a plain run changed the lock: %v, want %v", c.name, !bytes.Equal(now, locked[c.name]), !isBreaking)
			}
		}
		code, _, errOut = runGen(t, Options{Dir: root, Check: true})
		if (code != 0) != isBreaking {
			t.Errorf("-check after a plain run: exit %d, want breaking=%v: %s", code, isBreaking, errOut)
		}
		for _, c := range cases {
			if got := lines(errOut, c); isBreaking && !slices.Equal(got, c.want) || !isBreaking && len(got) > 0 {
				t.Errorf("%s: -check after a plain run printed %q", c.name, got)
			}
		}

		// -lock accepts the change.
		if code, _, errOut := runGen(t, Options{Dir: root, Lock: true}); code != 0 {
			t.Fatalf("-lock after the change: exit %d: %s", code, errOut)
		}
		if code, _, errOut := runGen(t, Options{Dir: root, Check: true}); code != 0 || strings.Contains(errOut, ": tool ") {
			t.Errorf("-check after -lock: exit %d: %s", code, errOut)
		}
	}
	t.Run("breaking", func(t *testing.T) { group(t, true, breaking) })
	t.Run("compatible", func(t *testing.T) { group(t, false, compatible) })
}

// TestLockWithoutTools checks that -lock removes the lock of a package
// left without tools, and that -check and -lock do not go together.
func TestLockWithoutTools(t *testing.T) {
	dir := writeCase(t, map[string]string{"a.go": lockedSrc})
	runGen(t, Options{Dir: dir, Lock: true})
	os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n\n// S is a service.\ntype S struct{}\n"), 0o644)
	code, _, errOut := runGen(t, Options{Dir: dir, Check: true})
	if code != 1 || !strings.Contains(errOut, "tool a.find: breaking: the tool was removed") || !strings.Contains(errOut, "tool a.ping: breaking: the tool was removed") {
		t.Errorf("-check with every tool removed: exit %d:\n%s", code, errOut)
	}
	if code, _, errOut := runGen(t, Options{Dir: dir, Lock: true}); code != 0 {
		t.Fatalf("-lock: exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, LockFile)); err == nil {
		t.Error("-lock left the lock of a package without tools")
	}
	code, _, errOut = runGen(t, Options{Dir: dir, Check: true, Lock: true})
	if code != 2 || !strings.Contains(errOut, "give one of them") {
		t.Errorf("-check -lock: exit %d: %s", code, errOut)
	}
}
