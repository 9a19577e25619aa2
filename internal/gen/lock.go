package gen

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/toolapi/toolapi/internal/contract"
)

// LockFile is the name of the lock file toolgen keeps beside tools_gen.go
// in a package whose tools' contract is locked: each tool's ID,
// deprecation note and input and output JSON Schemas, as -describe prints
// them. toolgen -lock writes it; toolgen keeps it current while the
// changes are compatible; toolgen -check compares the tools against it.
const LockFile = "tools.lock.json"

// A LockChange is one difference between a package's lock file and its
// tools, positioned where to look: the directive or parameter it is
// about, or, for a tool no longer there, its entry in the lock file.
type LockChange struct {
	Pos token.Position
	contract.Change
}

// Relative formats c as "file:line:col: tool ID: breaking: PATH: what",
// with its file name relative to dir ("compatible" for a compatible
// change).
func (c LockChange) Relative(dir string) string {
	pos := c.Pos
	if rel, err := filepath.Rel(dir, pos.Filename); err == nil && filepath.IsLocal(rel) {
		pos.Filename = rel
	}
	kind := "compatible"
	if c.Breaking {
		kind = "breaking"
	}
	what := c.Message
	if c.Path != "" {
		what = c.Path + ": " + what
	}
	return fmt.Sprintf("%s: tool %s: %s: %s", pos, c.Tool, kind, what)
}

// A lockState is one package directory's lock: what is on disk and what
// the tools found give.
type lockState struct {
	dir     string
	path    string
	old     []byte // nil when the package has no lock file
	current []byte
	tools   int // the number of tools in current
	changes []LockChange
}

// lockDirs returns the directories whose lock toolgen looks at: those of
// the packages with tools and those holding a generated file, sorted.
func (r *Result) lockDirs() []string {
	dirs := slices.Clone(r.generated)
	for _, p := range r.Packages {
		dirs = append(dirs, p.Dir)
	}
	slices.Sort(dirs)
	return slices.Compact(dirs)
}

// locks reads the lock file of every directory of [Result.lockDirs] and
// compares it with the tools found there.
func (r *Result) locks() ([]*lockState, error) {
	var out []*lockState
	for _, dir := range r.lockDirs() {
		s := &lockState{dir: dir, path: filepath.Join(dir, LockFile)}
		var tools []*Tool
		if i := slices.IndexFunc(r.Packages, func(p *Package) bool { return p.Dir == dir }); i >= 0 {
			for _, sv := range r.Packages[i].Services {
				tools = append(tools, sv.Tools...)
			}
		}
		lock := &contract.Lock{Tools: make([]contract.Tool, 0, len(tools))}
		for _, t := range tools {
			info := t.info()
			lock.Tools = append(lock.Tools, contract.Tool{ID: info.ID, Deprecated: info.Deprecated, Task: string(info.Task), InputSchema: info.InputSchema, OutputSchema: info.OutputSchema})
		}
		s.tools = len(tools)
		var err error
		if s.current, err = lock.Marshal(); err != nil {
			return nil, fmt.Errorf("%s: %w", s.path, err)
		}
		s.old, err = os.ReadFile(s.path)
		switch {
		case errors.Is(err, os.ErrNotExist):
			s.old = nil
		case err != nil:
			return nil, err
		default:
			var old contract.Lock
			if err := json.Unmarshal(s.old, &old); err != nil {
				return nil, fmt.Errorf("%s: not a lock file: %w (write a new one with -lock)", s.path, err)
			}
			for _, c := range contract.Compare(old.Tools, lock.Tools) {
				s.changes = append(s.changes, LockChange{Pos: changePos(c, tools, s.path, s.old), Change: c})
			}
		}
		out = append(out, s)
	}
	return out, nil
}

// changePos returns where a change is to be seen: the directive or
// parameter of the tool's source it is about, or the tool's entry in the
// lock file when the tool is no longer there.
func changePos(c contract.Change, tools []*Tool, lockPath string, lock []byte) token.Position {
	if i := slices.IndexFunc(tools, func(t *Tool) bool { return t.Tool.ID == c.Tool }); i >= 0 {
		t := tools[i]
		path := strings.NewReplacer("[]", ".items", "{}", ".values").Replace(c.Path)
		return t.position(path, changeRule(c))
	}
	pos := token.Position{Filename: lockPath, Line: 1, Column: 1}
	idLine, _ := json.Marshal(c.Tool)
	if at := bytes.Index(lock, append([]byte(`"id": `), idLine...)); at >= 0 {
		before := lock[:at]
		pos.Line = bytes.Count(before, []byte("\n")) + 1
		pos.Column = at - (bytes.LastIndexByte(before, '\n') + 1) + 1
	}
	return pos
}

// changeRule returns the directive key a change is about, for its
// position: "task" for the tool's task mode, "deprecated" for the rest of
// the tool itself, "choice" for a choice added
// or removed, "range" for a number's bound, and so on.
func changeRule(c contract.Change) string {
	if c.Path == "" {
		if c.Keyword == "task" {
			return "task"
		}
		return "deprecated"
	}
	if rule, ok := keywordRules[c.Keyword]; ok {
		return rule
	}
	return "-" // no key: the directive, or the parameter
}

// keywordRules maps the JSON Schema keywords a change can be about to the
// directive keys that set them.
var keywordRules = map[string]string{
	"enum":    "choice",
	"minimum": "range", "maximum": "range",
	"minLength": "length", "maxLength": "length",
	"minItems": "count", "maxItems": "count",
	"minProperties": "count", "maxProperties": "count",
	"pattern": "pattern",
	"type":    "type",
}

// breaking reports whether any change of s is breaking.
func (s *lockState) breaking() bool {
	return slices.ContainsFunc(s.changes, func(c LockChange) bool { return c.Breaking })
}
