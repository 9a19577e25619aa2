package gen

import (
	"bytes"
	"os"
	"path/filepath"
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
func TestLock(t *testing.T) {
	tests := []struct {
		name     string
		old, new string // the replacement made in lockedSrc
		want     []string
		breaking bool
	}{
		{name: "no change"},
		{name: "input removed",
			old: "query string, limit int", new: "limit int",
			want:     []string{"a.go:10:1: tool a.find: breaking: inputs.query: the input was removed"},
			breaking: true},
		{name: "new required input",
			old: "mood *string)", new: "mood *string, genre string)",
			want:     []string{"a.go:13:78: tool a.find: breaking: inputs.genre: a new required input"},
			breaking: true},
		{name: "choice narrowed",
			old: "choice=calm|lively|sad", new: "choice=calm|lively",
			want:     []string{`a.go:12:19: tool a.find: breaking: inputs.mood: the choice "sad" was removed`},
			breaking: true},
		{name: "range narrowed",
			old: "range=1..100", new: "range=1..50",
			want:     []string{"a.go:11:31: tool a.find: breaking: inputs.limit: the maximum fell from 100 to 50"},
			breaking: true},
		{name: "tool removed",
			old: "//tool:method id=a.ping op=read permission=p\n", new: "",
			want:     []string{"tools.lock.json:49:7: tool a.ping: breaking: the tool was removed"},
			breaking: true},
		{name: "new optional input",
			old: "mood *string)", new: "mood *string, genre *string)",
			want: []string{"a.go:13:78: tool a.find: compatible: inputs.genre: a new optional input"}},
		{name: "choice added",
			old: "choice=calm|lively|sad", new: "choice=calm|lively|sad|happy",
			want: []string{`a.go:12:19: tool a.find: compatible: inputs.mood: the choice "happy" was added`}},
		{name: "tool deprecated",
			old: "id=a.ping op=read", new: `id=a.ping deprecated="use a.find" op=read`,
			want: []string{"a.go:19:36: tool a.ping: compatible: the tool is deprecated: use a.find"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeCase(t, map[string]string{"a.go": lockedSrc})
			lockPath := filepath.Join(dir, LockFile)
			if code, _, errOut := runGen(t, Options{Dir: dir, Lock: true}); code != 0 {
				t.Fatalf("-lock: exit %d: %s", code, errOut)
			}
			locked, err := os.ReadFile(lockPath)
			if err != nil {
				t.Fatalf("-lock wrote no lock file: %v", err)
			}
			src := strings.Replace(lockedSrc, tt.old, tt.new, 1)
			if tt.old != "" && src == lockedSrc {
				t.Fatalf("%q is not in the source", tt.old)
			}
			os.WriteFile(filepath.Join(dir, "a.go"), []byte(src), 0o644)

			code, _, errOut := runGen(t, Options{Dir: dir, Check: true})
			var got []string
			for line := range strings.Lines(errOut) {
				if strings.Contains(line, ": tool a.") {
					got = append(got, strings.TrimSuffix(line, "\n"))
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("-check printed (-want +got):\n%s\nall of stderr:\n%s", diff, errOut)
			}
			accept := "to accept the breaking changes, run: " + FixCommand + " -lock ./...\n"
			if tt.breaking != strings.Contains(errOut, accept) {
				t.Errorf("-check printed the line %q: %v, want %v:\n%s", accept, !tt.breaking, tt.breaking, errOut)
			}

			// A plain run writes the generated file; it records compatible
			// changes in the lock and keeps it for breaking ones.
			code, _, errOut = runGen(t, Options{Dir: dir})
			if (code != 0) != tt.breaking {
				t.Errorf("a plain run: exit %d, want breaking=%v: %s", code, tt.breaking, errOut)
			}
			now, _ := os.ReadFile(lockPath)
			if tt.breaking != bytes.Equal(now, locked) && tt.want != nil {
				t.Errorf("a plain run changed the lock: %v, want %v", !bytes.Equal(now, locked), !tt.breaking)
			}
			code, _, errOut = runGen(t, Options{Dir: dir, Check: true})
			if (code != 0) != tt.breaking {
				t.Errorf("-check after a plain run: exit %d, want breaking=%v: %s", code, tt.breaking, errOut)
			}

			// -lock accepts the change.
			if code, _, errOut := runGen(t, Options{Dir: dir, Lock: true}); code != 0 {
				t.Fatalf("-lock after the change: exit %d: %s", code, errOut)
			}
			if code, _, errOut := runGen(t, Options{Dir: dir, Check: true}); code != 0 || strings.Contains(errOut, ": tool a.") {
				t.Errorf("-check after -lock: exit %d: %s", code, errOut)
			}
		})
	}
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
