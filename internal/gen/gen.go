package gen

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/toolapi/toolapi/tool"
)

// A Result is what one discovery run found.
type Result struct {
	// Packages holds the packages with tools.
	Packages []*Package
	// Diagnostics holds every problem, sorted by position.
	Diagnostics []Diagnostic
	// Files holds the generated file of each package, by path.
	Files map[string][]byte
	// Remove lists generated files no package needs any more.
	Remove []string
	// Scanned is the number of Go files the scan read.
	Scanned int

	generated []string // directories holding a generated file
}

// Generate scans the packages of patterns relative to dir, type-checks
// those with directives and builds their generated files in memory.
func Generate(dir string, patterns []string) (*Result, error) {
	res, err := Discover(dir, patterns)
	if err != nil {
		return nil, err
	}
	return res, res.render()
}

// Discover is [Generate] without rendering: the definitions and
// diagnostics only, for -describe.
func Discover(dir string, patterns []string) (*Result, error) {
	if len(patterns) == 0 {
		patterns = []string{"./..."}
	}
	scan, err := Scan(dir, patterns)
	if err != nil {
		return nil, err
	}
	pkgs, directives, err := load(dir, scan.Dirs, scan.Sources)
	if err != nil {
		return nil, err
	}
	model, diags := infer(pkgs, directives)
	return &Result{Packages: model, Diagnostics: diags, Scanned: scan.Files, generated: scan.Generated}, nil
}

// render fills Files and Remove.
func (r *Result) render() error {
	r.Files = map[string][]byte{}
	for _, p := range r.Packages {
		src, err := Render(p)
		if err != nil {
			return err
		}
		r.Files[filepath.Join(p.Dir, GeneratedFile)] = src
	}
	for _, d := range r.generated {
		path := filepath.Join(d, GeneratedFile)
		if _, ok := r.Files[path]; !ok {
			r.Remove = append(r.Remove, path)
		}
	}
	return nil
}

// Stale returns the generated files that differ from what is on disk (or
// are missing), and those that should be removed, sorted.
func (r *Result) Stale() []string {
	var out []string
	for path, src := range r.Files {
		old, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(old, src) {
			out = append(out, path)
		}
	}
	out = append(out, r.Remove...)
	slices.Sort(out)
	return out
}

// Write writes the generated files that changed and removes the stale ones.
func (r *Result) Write() error {
	for _, path := range r.Stale() {
		src, ok := r.Files[path]
		if !ok {
			if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
			continue
		}
		if err := os.WriteFile(path, src, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// A Description is the JSON -describe prints.
type Description struct {
	Tools       []*ToolDescription `json:"tools"`
	Diagnostics []DiagnosticJSON   `json:"diagnostics"`
}

// A ToolDescription is one tool as -describe prints it: the
// [tool.Info] every caller prints, and the inputs and outputs
// toolgen cannot describe.
type ToolDescription struct {
	tool.Info
	// Undescribed names the inputs and outputs ("input NAME", "output
	// NAME") whose schemas toolgen cannot know, as it does not run
	// application code: those given by definition= show as any, those
	// typed by an application data type as the built-in type of their Go
	// value.
	Undescribed []string `json:"undescribed,omitempty"`
}

// DiagnosticJSON is a diagnostic as -describe prints it.
type DiagnosticJSON struct {
	Pos     string `json:"pos"`
	Tool    string `json:"tool"`
	Method  string `json:"method"`
	Message string `json:"message"`
}

// Describe returns the description of the tools found, with file names
// relative to dir.
func (r *Result) Describe(dir string) *Description {
	d := &Description{Tools: []*ToolDescription{}, Diagnostics: []DiagnosticJSON{}}
	for _, p := range r.Packages {
		for _, s := range p.Services {
			for _, t := range s.Tools {
				d.Tools = append(d.Tools, describeTool(t))
			}
		}
	}
	slices.SortFunc(d.Tools, func(a, b *ToolDescription) int { return strings.Compare(a.ID, b.ID) })
	for _, dg := range r.Diagnostics {
		pos := dg.Pos
		if rel, err := filepath.Rel(dir, pos.Filename); err == nil && filepath.IsLocal(rel) {
			pos.Filename = filepath.ToSlash(rel)
		}
		p := ""
		if pos.IsValid() {
			p = pos.String()
		}
		d.Diagnostics = append(d.Diagnostics, DiagnosticJSON{Pos: p, Tool: dg.Tool, Method: dg.Method, Message: dg.Message})
	}
	return d
}

func describeTool(t *Tool) *ToolDescription {
	return &ToolDescription{Info: *t.info(), Undescribed: t.describeOnly}
}

// Options configure [Run].
type Options struct {
	// Dir is the directory packages are relative to; "" means the current
	// directory.
	Dir string
	// Patterns select the packages: "./...", "dir", "dir/...". Empty
	// means "./...".
	Patterns []string
	// Lenient keeps the exit status 0 when there are diagnostics; by
	// default any diagnostic fails the run (the good tools are still
	// written).
	Lenient bool
	// Check writes nothing and fails the run if a generated file is stale.
	Check bool
	// Describe prints the JSON description and writes nothing.
	Describe bool
	// Lock writes the lock file ([LockFile]) of every package with tools,
	// accepting every change since the last one, and removes that of a
	// package left without tools. Without it, a package's existing lock
	// file is kept current while its tools change compatibly; a breaking
	// change leaves it as it is and fails the run. Check compares the
	// tools with the lock files and fails on a breaking change.
	Lock bool
	// Stdout and Stderr receive the output; nil means os.Stdout, os.Stderr.
	Stdout, Stderr io.Writer
}

// FixCommand is the command toolgen prints to bring generated files up to
// date: one fixed line, whichever way toolgen was started, that works in
// any module requiring toolapi (the way gopls's generator says what to run).
const FixCommand = "go run github.com/toolapi/toolapi/cmd/toolgen"

// Run runs toolgen and returns its exit status.
func Run(opts *Options) int {
	stdout, stderr := opts.Stdout, opts.Stderr
	if stdout == nil {
		stdout = os.Stdout
	}
	if stderr == nil {
		stderr = os.Stderr
	}
	dir := opts.Dir
	if dir == "" {
		dir = "."
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		fmt.Fprintln(stderr, "toolgen:", err)
		return 2
	}
	discover := Generate
	if opts.Describe {
		discover = Discover
	}
	res, err := discover(dir, opts.Patterns)
	if err != nil {
		fmt.Fprintln(stderr, "toolgen:", err)
		return 2
	}
	if opts.Check && opts.Lock {
		fmt.Fprintln(stderr, "toolgen: -check writes nothing and -lock writes the lock files: give one of them")
		return 2
	}
	var locks []*lockState
	if !opts.Describe {
		if locks, err = res.locks(); err != nil {
			fmt.Fprintln(stderr, "toolgen:", err)
			return 2
		}
	}
	status := 0
	if opts.Describe {
		data, err := res.Describe(dir).MarshalIndented()
		if err == nil {
			_, err = stdout.Write(data)
		}
		if err != nil {
			fmt.Fprintln(stderr, "toolgen:", err)
			return 2
		}
	} else {
		for _, d := range res.Diagnostics {
			fmt.Fprintln(stderr, d.Relative(dir))
		}
	}
	if !opts.Lenient && len(res.Diagnostics) > 0 {
		status = 1
	}
	switch {
	case opts.Describe:
	case opts.Check:
		stale := res.Stale()
		for _, path := range stale {
			rel, _ := filepath.Rel(dir, path)
			if _, ok := res.Files[path]; ok {
				fmt.Fprintf(stderr, "%s is stale\n", rel)
			} else {
				fmt.Fprintf(stderr, "%s is no longer needed\n", rel)
			}
		}
		if len(stale) > 0 {
			fmt.Fprintf(stderr, "to fix, run: %s\n", opts.rerun(""))
			status = 1
		}
		if reportLocks(stderr, dir, locks, false) {
			fmt.Fprintf(stderr, "to accept the breaking changes, run: %s\n", opts.rerun("-lock"))
			status = 1
		}
	default:
		if err := res.Write(); err != nil {
			fmt.Fprintln(stderr, "toolgen:", err)
			return 2
		}
		breaking, err := writeLocks(locks, opts.Lock)
		if err != nil {
			fmt.Fprintln(stderr, "toolgen:", err)
			return 2
		}
		if reportLocks(stderr, dir, breaking, true) {
			fmt.Fprintf(stderr, "%s kept as it was; to accept the breaking changes, run: %s\n", LockFile, opts.rerun("-lock"))
			status = 1
		}
	}
	return status
}

// rerun returns the command that runs toolgen again on the same packages,
// with flag ("" for none).
func (opts *Options) rerun(flag string) string {
	args := strings.Join(opts.Patterns, " ")
	if args == "" {
		args = "./..."
	}
	if flag != "" {
		args = flag + " " + args
	}
	return FixCommand + " " + args
}

// reportLocks prints the changes of locks, only the breaking ones when
// breakingOnly, and reports whether any is breaking.
func reportLocks(w io.Writer, dir string, locks []*lockState, breakingOnly bool) bool {
	breaking := false
	for _, s := range locks {
		for _, c := range s.changes {
			if c.Breaking || !breakingOnly {
				fmt.Fprintln(w, c.Relative(dir))
			}
			breaking = breaking || c.Breaking
		}
	}
	return breaking
}

// writeLocks writes the lock files a run without -check changes: every
// package's with accept (-lock), removing those left without tools;
// otherwise the existing lock files whose changes are all compatible. It
// returns the locks left as they were for breaking changes.
func writeLocks(locks []*lockState, accept bool) ([]*lockState, error) {
	var kept []*lockState
	for _, s := range locks {
		switch {
		case accept && s.tools == 0:
			if err := os.Remove(s.path); err != nil && !errors.Is(err, os.ErrNotExist) {
				return nil, err
			}
			continue
		case accept:
		case s.old == nil:
			continue
		case s.breaking():
			kept = append(kept, s)
			continue
		}
		if !bytes.Equal(s.old, s.current) {
			if err := os.WriteFile(s.path, s.current, 0o644); err != nil {
				return nil, err
			}
		}
	}
	return kept, nil
}
