// Package tooltest helps test the tools of a [tool.Registry], as
// net/http/httptest helps test HTTP handlers: run a tool as an account with
// Go or JSON arguments and read what came back, or open an MCP client
// session on the registry in memory.
//
//	func TestAddNote(t *testing.T) {
//		reg := newRegistry(t) // the application's tools
//		ada := tooltest.As(t, reg, &tool.User{ID: "ada", Permissions: []string{"edit notes"}})
//		res := ada.Run("notes.add", map[string]any{"title": "Groceries"}).Succeeded()
//		if got := res.Output("id"); got == nil {
//			t.Errorf("notes.add gave no id")
//		}
//		ada.RunJSON("notes.add", `{"title": ""}`).Violates("title")
//	}
//
// Every run goes through [tool.Registry.Run] or [tool.Registry.RunJSON],
// the one run path every caller shares, so a test sees exactly what the
// command line, MCP and the explorer see: the same validation, access
// checks and published outputs.
package tooltest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/toolapi/toolapi/tool"
)

// TB is the part of [testing.TB] the helpers use: *testing.T and
// *testing.B satisfy it.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
	// Context returns a context canceled as the test ends.
	Context() context.Context
	Cleanup(f func())
}

// A Caller runs the tools of a registry as one account in a test. Create
// one with [As]. A Caller is safe for concurrent use.
type Caller struct {
	t    TB
	reg  *tool.Registry
	acct tool.Account

	// Confirm answers a tool that asks a person to confirm (see
	// [tool.Tool.Confirm]): true says yes, false says no. It is false
	// unless set.
	Confirm bool
	// Context is the context runs start from. Nil means the test's own
	// context (see [TB]).
	Context context.Context
}

// As returns a Caller that runs the tools of reg as acct (nil means
// [tool.Anonymous]).
func As(t TB, reg *tool.Registry, acct tool.Account) *Caller {
	if acct == nil {
		acct = tool.Anonymous
	}
	return &Caller{t: t, reg: reg, acct: acct}
}

// Run runs the tool id with args by input name, as Go values: what a JSON
// decoder gives (string, float64 or any integer, bool, nil, []any,
// map[string]any) or [tool.Text] as a person types it. An unknown tool
// fails the test at once.
func (c *Caller) Run(id string, args map[string]any) *Result {
	c.t.Helper()
	ctx, rec := c.context()
	res, err := c.reg.Run(ctx, id, args)
	if err != nil {
		c.t.Fatalf("running %s: %v", id, err)
	}
	return &Result{Result: res, t: c.t, id: id, rec: rec}
}

// RunJSON runs the tool id with args as a JSON object, as MCP and function
// calling send them. An unknown tool fails the test at once.
func (c *Caller) RunJSON(id string, args string) *Result {
	c.t.Helper()
	ctx, rec := c.context()
	res, err := c.reg.RunJSON(ctx, id, []byte(args))
	if err != nil {
		c.t.Fatalf("running %s: %v", id, err)
	}
	return &Result{Result: res, t: c.t, id: id, rec: rec}
}

// RunWith runs the tool id with args, a Go value (a struct, say) that
// encoding/json turns into the arguments' JSON object. A value that does
// not encode fails the test at once.
func (c *Caller) RunWith(id string, args any) *Result {
	c.t.Helper()
	data, err := json.Marshal(args)
	if err != nil {
		c.t.Fatalf("encoding the arguments of %s: %v", id, err)
	}
	return c.RunJSON(id, string(data))
}

func (c *Caller) context() (context.Context, *recorder) {
	ctx := c.Context
	if ctx == nil {
		ctx = c.t.Context()
	}
	rec := &recorder{}
	ctx = tool.WithAccount(ctx, c.acct)
	ctx = tool.WithReporter(ctx, rec)
	ctx = tool.WithConfirmer(ctx, answer(c.Confirm))
	return ctx, rec
}

// answer is a [tool.Confirmer] that always gives the same answer.
type answer bool

func (a answer) Confirm(context.Context, *tool.Tool, string) (bool, error) {
	return bool(a), nil
}

// recorder keeps what a run reports.
type recorder struct {
	mu       sync.Mutex
	progress []string
	logs     []string
}

func (r *recorder) Progress(_ context.Context, done, total float64, message string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.progress = append(r.progress, fmt.Sprintf("%g/%g %s", done, total, message))
}

func (r *recorder) Log(_ context.Context, level, message string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.logs = append(r.logs, level+": "+message)
}

// A Result is the result of a run in a test: the [tool.Result] the run
// path returned, with methods that check it and fail the test, saying
// why, when it is not what they expect.
type Result struct {
	*tool.Result
	t   TB
	id  string
	rec *recorder
}

// String describes the result in one line or a few: the outcome, then
// each violation with its rule ("title: must not be blank (rule:
// minLength)"), or the message when there are no violations.
func (r *Result) String() string {
	var b strings.Builder
	if r.Success {
		b.WriteString("success")
	} else {
		fmt.Fprintf(&b, "%s failure", r.Failure)
	}
	if len(r.Violations) == 0 {
		if r.Message != "" {
			b.WriteString(": " + r.Message)
		}
		return b.String()
	}
	b.WriteString(":")
	for _, v := range r.Violations {
		b.WriteString("\n  " + v.String())
		if v.Rule != "" {
			b.WriteString(" (rule: " + v.Rule + ")")
		}
	}
	return b.String()
}

// Succeeded fails the test at once unless the run succeeded, and returns r.
func (r *Result) Succeeded() *Result {
	r.t.Helper()
	if !r.Success {
		r.t.Fatalf("%s: want success, got %s", r.id, r)
	}
	return r
}

// Failed fails the test at once unless the run failed in the category
// want, and returns r.
func (r *Result) Failed(want tool.Failure) *Result {
	r.t.Helper()
	if r.Success || r.Failure != want {
		r.t.Fatalf("%s: want a failure of category %s, got %s", r.id, want, r)
	}
	return r
}

// Violates fails the test at once unless the run failed on its inputs
// with a violation at each of paths ("title", "tags[2]", "settings.limit"),
// and returns r. Other violations may come with them.
func (r *Result) Violates(paths ...string) *Result {
	r.t.Helper()
	r.Failed(tool.FailureInput)
	have := r.ViolationPaths()
	for _, p := range paths {
		if !slices.Contains(have, p) {
			r.t.Fatalf("%s: want a violation at %q, got %s", r.id, p, r)
		}
	}
	return r
}

// ViolatesRule fails the test at once unless the run failed on its inputs
// with a violation at path of the rule key rule ([tool.RuleRequired],
// [tool.RuleMaximum], ...), and returns r. It checks the rule, not the
// words, which may change.
func (r *Result) ViolatesRule(path, rule string) *Result {
	r.t.Helper()
	r.Failed(tool.FailureInput)
	for _, v := range r.Violations {
		if v.Path == path && v.Rule == rule {
			return r
		}
	}
	r.t.Fatalf("%s: want a violation of rule %s at %q, got %s", r.id, rule, path, r)
	return r
}

// ViolationPaths returns the path of each violation, in order.
func (r *Result) ViolationPaths() []string {
	paths := make([]string, len(r.Violations))
	for i, v := range r.Violations {
		paths[i] = v.Path
	}
	return paths
}

// Output returns the output name in its wire form (as JSON would decode
// it), or nil when the run published none.
func (r *Result) Output(name string) any { return r.Outputs[name] }

// DecodeOutputs decodes the outputs into v, as encoding/json decodes their
// JSON object (a struct with json tags, say), failing the test at once
// when it cannot.
func (r *Result) DecodeOutputs(v any) {
	r.t.Helper()
	data, err := json.Marshal(r.Outputs)
	if err == nil {
		err = json.Unmarshal(data, v)
	}
	if err != nil {
		r.t.Fatalf("%s: decoding the outputs into %T: %v", r.id, v, err)
	}
}

// Progress returns the progress the tool reported while it ran, one
// "done/total message" line per report.
func (r *Result) Progress() []string {
	r.rec.mu.Lock()
	defer r.rec.mu.Unlock()
	return slices.Clone(r.rec.progress)
}

// Logs returns the log messages the tool sent its caller while it ran, one
// "level: message" line each.
func (r *Result) Logs() []string {
	r.rec.mu.Lock()
	defer r.rec.mu.Unlock()
	return slices.Clone(r.rec.logs)
}
