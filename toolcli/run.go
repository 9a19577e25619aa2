package toolcli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/mattn/go-isatty"

	"github.com/toolapi/toolapi/tool"
)

// The error types of a failed run, as --json reports them.
const (
	errToolNotFound    = "tool_not_found"
	errInvalidOption   = "invalid_option"
	errUserNotFound    = "user_not_found"
	errUserBlocked     = "user_blocked"
	errInvalidInput    = "invalid_input"
	errAccessDenied    = "access_denied"
	errExecutionFailed = "execution_failed"
)

// outcome is what run reports, with --json as one JSON object.
type outcome struct {
	Success    bool
	Message    string
	Outputs    json.RawMessage // the outputs encoded, on success; nil when none
	ErrorType  string          // on failure
	Violations []violation     // on failure
}

type violation struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

func (v violation) String() string {
	if v.Path == "" {
		return v.Message
	}
	return v.Path + ": " + v.Message
}

// run runs "run ID".
func (c *command) run(args []string) int {
	fs := c.newFlagSet("run")
	var inputs inputFlags
	fs.Var(&inputs, "input", "an input as `key=value` (repeat a key for a list, dot keys for maps) or a JSON object; repeatable")
	asJSON := fs.Bool("json", false, "print the result as one JSON object")
	user := fs.String("user", "", "run for the account with this `name`")
	yes := fs.Bool("yes", false, "confirm a tool that asks for confirmation")
	words, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		flagUsage(c.stdout, fs)
		return 0
	}
	if err != nil {
		// Parsing stopped early; honour a --json given anywhere.
		*asJSON = hasFlag(args, "json")
	}
	if err == nil && len(words) != 1 {
		err = optionErrorf("run takes one tool ID, not %d words", len(words))
	}
	if err != nil {
		return c.report(fs, *asJSON, failure(errInvalidOption, err.Error()))
	}
	id := words[0]
	t, _ := c.reg.Tool(id)
	var defs []*tool.Definition
	if t != nil {
		defs = t.Inputs
	}
	runArgs, err := buildArgs(inputs, defs)
	if err != nil {
		return c.report(fs, *asJSON, failure(errInvalidOption, err.Error()))
	}
	acct, ue := c.account(*user)
	if ue != nil {
		return c.report(fs, *asJSON, failure(ue.errorType, ue.msg))
	}

	ctx := tool.WithAccount(c.ctx, acct)
	ctx = tool.WithReporter(ctx, &reporter{w: c.stderr})
	confirmed := *yes
	if !confirmed && t != nil && t.IsDestructive() && t.Allowed(acct) {
		// A destructive run needs a person's yes. What the account may not
		// run at all, and inputs that are wrong, are left to the run path
		// to refuse (before anything runs), without asking.
		if _, vs, _ := c.reg.Validate(ctx, id, runArgs); len(vs) == 0 {
			if o := c.confirmDestructive(t); o != nil {
				return c.report(fs, *asJSON, o)
			}
			confirmed = true
		}
	}
	if confirmed {
		ctx = tool.WithConfirmer(ctx, tool.Confirmed)
	} else if in := c.prompter(); in != nil {
		ctx = tool.WithConfirmer(ctx, &prompt{in: in, out: c.stderr})
	}
	res, err := c.reg.Run(ctx, id, runArgs)
	if errors.Is(err, tool.ErrNotFound) {
		return c.report(fs, *asJSON, failure(errToolNotFound, fmt.Sprintf("tool %q not found", id)))
	}
	if err != nil {
		return c.report(fs, *asJSON, failure(errExecutionFailed, err.Error()))
	}
	return c.report(fs, *asJSON, fromResult(res))
}

// hasFlag reports whether args hold the boolean flag name (before "--").
func hasFlag(args []string, name string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-" + name, "--" + name, "-" + name + "=true", "--" + name + "=true":
			return true
		}
	}
	return false
}

func failure(errorType, message string) *outcome {
	return &outcome{Message: message, ErrorType: errorType}
}

// fromResult turns the result of a run into an outcome.
func fromResult(res *tool.Result) *outcome {
	if res.Success {
		o := &outcome{Success: true, Message: res.Message}
		if len(res.Outputs) > 0 {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(res.Outputs); err != nil {
				return failure(errExecutionFailed, "The outputs cannot be written as JSON: "+err.Error())
			}
			o.Outputs = bytes.TrimSpace(buf.Bytes())
		}
		return o
	}
	o := &outcome{Message: res.Message}
	switch res.Failure {
	case tool.FailureInput:
		o.ErrorType = errInvalidInput
	case tool.FailureAccess:
		o.ErrorType = errAccessDenied
	default:
		o.ErrorType = errExecutionFailed
	}
	for _, v := range res.Violations {
		o.Violations = append(o.Violations, violation(v))
	}
	return o
}

// report writes o and returns the exit status.
func (c *command) report(fs *flag.FlagSet, asJSON bool, o *outcome) int {
	status := 0
	if !o.Success {
		status = 1
	}
	if asJSON {
		if err := writeOutcome(c.stdout, o); err != nil {
			fmt.Fprintf(c.stderr, "%s: %v\n", fs.Name(), err)
			return 1
		}
		return status
	}
	var b strings.Builder
	if o.Success {
		if o.Message != "" {
			b.WriteString(o.Message + "\n")
		}
		if o.Outputs != nil {
			if err := writeJSON(&b, o.Outputs); err != nil {
				fmt.Fprintf(c.stderr, "%s: %v\n", fs.Name(), err)
				return 1
			}
		}
		io.WriteString(c.stdout, b.String())
		return status
	}
	if o.ErrorType == errInvalidOption {
		fmt.Fprintf(c.stderr, "%s: %s\n\n", fs.Name(), o.Message)
		flagUsage(c.stderr, fs)
		return status
	}
	b.WriteString(o.Message + "\n")
	if len(o.Violations) == 1 && strings.Contains(o.Message, o.Violations[0].String()) {
		// The message says it all already.
		io.WriteString(c.stderr, b.String())
		return status
	}
	for _, v := range o.Violations {
		b.WriteString(v.String() + "\n")
	}
	io.WriteString(c.stderr, b.String())
	return status
}

// writeOutcome writes o as the CLI's JSON answer (docs/guide.md, "The CLI"):
// outputs on success (an object, {} when there are none), error_type and
// violations (an array) on failure.
func writeOutcome(w io.Writer, o *outcome) error {
	var v any
	if o.Success {
		outputs := o.Outputs
		if outputs == nil {
			outputs = json.RawMessage("{}")
		}
		v = struct {
			Success bool            `json:"success"`
			Message string          `json:"message"`
			Outputs json.RawMessage `json:"outputs"`
		}{true, o.Message, outputs}
	} else {
		vs := o.Violations
		if vs == nil {
			vs = []violation{}
		}
		v = struct {
			Success    bool        `json:"success"`
			Message    string      `json:"message"`
			ErrorType  string      `json:"error_type"`
			Violations []violation `json:"violations"`
		}{false, o.Message, o.ErrorType, vs}
	}
	return writeJSON(w, v)
}

// confirmDestructive asks a person to confirm a run of the destructive
// tool t, and returns nil when they say yes, or the failure to report: no
// one to ask (standard input is not a terminal), or no.
func (c *command) confirmDestructive(t *tool.Tool) *outcome {
	in := c.prompter()
	if in == nil {
		return failure(errAccessDenied, fmt.Sprintf(
			"%s is destructive and nobody can confirm it here (standard input is not a terminal): run it again with --yes to confirm.", t.Label))
	}
	ok, _ := (&prompt{in: in, out: c.stderr}).Confirm(c.ctx, t, nil)
	if !ok {
		return failure(errAccessDenied, fmt.Sprintf("%s was not run: it is destructive and was not confirmed (--yes confirms it).", t.Label))
	}
	return nil
}

// prompter returns the reader to ask for confirmation, or nil when no
// person can answer: a file that is not a terminal (a pipe, /dev/null).
func (c *command) prompter() io.Reader {
	in := c.opts.Stdin
	if f, ok := in.(*os.File); ok && !isatty.IsTerminal(f.Fd()) && !isatty.IsCygwinTerminal(f.Fd()) {
		return nil
	}
	return in
}

// prompt is a [tool.Confirmer] that asks a person on the command line.
type prompt struct {
	in  io.Reader
	out io.Writer
}

func (p *prompt) Confirm(ctx context.Context, t *tool.Tool, _ *tool.Values) (bool, error) {
	fmt.Fprintf(p.out, "Run %s? [y/N] ", t.Label)
	line, err := bufio.NewReader(p.in).ReadString('\n')
	if err != nil && line == "" {
		fmt.Fprintln(p.out)
		return false, nil
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true, nil
	}
	return false, nil
}

// reporter prints the progress and log messages of a running tool.
type reporter struct {
	mu sync.Mutex
	w  io.Writer
}

func (r *reporter) Progress(_ context.Context, done, total float64, message string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if total > 0 {
		fmt.Fprintf(r.w, "progress: %g/%g", done, total)
	} else {
		fmt.Fprintf(r.w, "progress: %g", done)
	}
	if message != "" {
		fmt.Fprintf(r.w, " %s", message)
	}
	fmt.Fprintln(r.w)
}

func (r *reporter) Log(_ context.Context, level, message string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fmt.Fprintf(r.w, "%s: %s\n", level, message)
}
