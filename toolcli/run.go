package toolcli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mattn/go-isatty"

	"github.com/toolapi/toolapi/task"
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
	Outputs    json.RawMessage  // the outputs encoded; nil when none
	ErrorType  string           // on failure
	Violations []tool.Violation // on failure
	// Tool names the tool of an input failure, for its heading.
	Tool string
}

// run runs "run ID".
func (c *command) run(args []string) int {
	fs := c.newFlagSet("run")
	var inputs inputFlags
	fs.Var(&inputs, "input", "an input as `key=value` (repeat a key for a list, dot keys for maps) or a JSON object; repeatable")
	preset := fs.String("preset", "", "start from the inputs of the account's preset with this `name`; --input values replace its own")
	asJSON := fs.Bool("json", false, "print the result as one JSON object")
	user := fs.String("user", "", "run for the account with this `name`")
	yes := fs.Bool("yes", false, "confirm a tool that asks for confirmation")
	detach := fs.Bool("detach", false, "start the tool as a background task and print the task's ID (for a tool that may run as a task)")
	key := idempotencyFlag(fs)
	cursor := cursorFlag(fs)
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
	acct, ue := c.account(*user)
	if ue != nil {
		return c.report(fs, *asJSON, failure(ue.errorType, ue.msg))
	}
	// A tool the account may not run is not found, as one that does not
	// exist: nothing about it is read before.
	t, ok := c.lookUp(words[0], acct)
	if !ok {
		return c.report(fs, *asJSON, notFound(words[0], acct))
	}
	id := t.ID
	runArgs, err := buildArgs(inputs, t.Inputs)
	if err != nil {
		return c.report(fs, *asJSON, failure(errInvalidOption, err.Error()))
	}
	if *preset != "" {
		base, o := c.presetArgs(acct, t, *preset)
		if o != nil {
			return c.report(fs, *asJSON, o)
		}
		merge(base, runArgs)
		runArgs = base
	}
	if err := withIdempotencyKey(runArgs, t, *key); err != nil {
		return c.report(fs, *asJSON, failure(errInvalidOption, err.Error()))
	}
	if err := withCursor(runArgs, t, *cursor); err != nil {
		return c.report(fs, *asJSON, failure(errInvalidOption, err.Error()))
	}

	ctx := tool.WithCaller(tool.WithAccount(c.ctx, acct), tool.Caller{Channel: tool.ChannelCLI})
	// The command line writes to a terminal or a file, not into a model's
	// context: it prints outputs over the byte budget whole.
	ctx = tool.WithFullOutputs(ctx)
	ctx = tool.WithReporter(ctx, &reporter{w: c.stderr})
	confirmed := *yes
	if !confirmed && t.IsDestructive() {
		// A destructive run needs a person's yes. Inputs that are wrong
		// are left to the run path to refuse (before anything runs),
		// without asking.
		if _, vs, _ := c.reg.Validate(ctx, id, runArgs); len(vs) == 0 {
			if o := c.confirmDestructive(ctx, t, runArgs); o != nil {
				return c.report(fs, *asJSON, o)
			}
			confirmed = true
		}
	}
	if confirmed {
		ctx = tool.WithConfirmer(ctx, tool.Confirmed)
	} else if in := c.prompter(); in != nil {
		ctx = tool.WithConfirmer(ctx, &prompt{c: c, in: in, args: runArgs})
	}
	if *detach && t.Task == tool.TaskNever {
		return c.report(fs, *asJSON, failure(errInvalidOption, fmt.Sprintf("--detach: %s does not run as a task; run it without --detach", t.ID)))
	}
	if *detach || t.Task == tool.TaskRequired {
		return c.runTask(fs, ctx, t, runArgs, *detach, *asJSON)
	}
	res, err := c.reg.Run(ctx, id, runArgs)
	if errors.Is(err, tool.ErrNotFound) {
		return c.report(fs, *asJSON, notFound(words[0], acct)) // removed since
	}
	if err != nil {
		return c.report(fs, *asJSON, failure(errExecutionFailed, err.Error()))
	}
	name := id
	if t != nil && t.Label != "" {
		name = t.Label
	}
	return c.report(fs, *asJSON, fromResult(res, name))
}

// stopTasksTimeout bounds how long run, as it ends, waits for the tasks
// its workers run.
const stopTasksTimeout = 5 * time.Second

// runTask runs t with args as a task: with detach it prints the task's
// ID (with --json, the task as JSON), else it waits for the task as task
// wait does, running it in this process too when [Options.RunTasks] says
// so.
func (c *command) runTask(fs *flag.FlagSet, ctx context.Context, t *tool.Tool, args map[string]any, detach, asJSON bool) int {
	tk, o := c.createTask(ctx, t, args)
	if o != nil {
		return c.report(fs, asJSON, o)
	}
	if tk.StatusMessage == task.AwaitingApproval {
		// It may wait hours: give the caller its handle and let go.
		if asJSON {
			writeJSON(c.stdout, tk)
		} else {
			fmt.Fprintln(c.stdout, tk.ID)
		}
		fmt.Fprintf(c.stderr, "%s waits for the approval of an account with the permission %q; it runs once approved. Follow it with: %s task wait %s\n",
			t.ID, t.Approver, c.name(), tk.ID)
		return 0
	}
	if detach {
		if asJSON {
			writeJSON(c.stdout, tk)
			return 0
		}
		fmt.Fprintln(c.stdout, tk.ID)
		fmt.Fprintf(c.stderr, "Task %s started. Follow it with: %s task wait %s\n", tk.ID, c.name(), tk.ID)
		return 0
	}
	if c.opts.RunTasks {
		if err := c.opts.Tasks.Start(c.ctx); err != nil {
			c.reg.Logger().Error("toolcli: starting the task workers", "error", err.Error())
			fmt.Fprintf(c.stderr, "%s: the task workers could not start here; task %s runs when a server of this application runs it\n", fs.Name(), tk.ID)
		} else {
			defer func() {
				// A task still running now (the wait was interrupted) is
				// given a moment to end, then fails as interrupted.
				sctx, cancel := context.WithTimeout(context.Background(), stopTasksTimeout)
				defer cancel()
				c.opts.Tasks.Stop(sctx)
			}()
		}
	}
	fmt.Fprintf(c.stderr, "Task %s started (%s runs as a task); waiting for it.\n", tk.ID, t.ID)
	return c.wait(fs, ctx, tool.AccountFrom(ctx), tk.ID, asJSON)
}

// notFound is the failure of a run of a tool word names that acct may not
// see: the same whether there is none or acct may not run it.
func notFound(word string, acct tool.Account) *outcome {
	return failure(errToolNotFound, notFoundMessage(word, acct))
}

// presetArgs returns the arguments that acct's preset name of t holds, as
// typed JSON values, or the failure to report. They are not checked here:
// the run path checks them with the rest, as it checks typed ones.
func (c *command) presetArgs(acct tool.Account, t *tool.Tool, name string) (map[string]any, *outcome) {
	if c.opts.Presets == nil {
		return nil, failure(errInvalidOption, fmt.Sprintf("--preset %q: presets are not configured in this application", name))
	}
	owner := acct.AccountID()
	values, err := c.opts.Presets.PresetValues(c.ctx, owner, t.ID, name)
	if errors.Is(err, ErrNoPreset) {
		return nil, failure(errInvalidOption, c.noPreset(owner, t, name))
	}
	if err != nil {
		c.reg.Logger().Error("toolcli: loading a preset", "tool", t.ID, "preset", name, "error", err.Error())
		return nil, failure(errExecutionFailed, fmt.Sprintf("The preset %q of %s could not be loaded; try again.", name, t.ID))
	}
	args, err := decodeObject(string(values))
	if err != nil {
		c.reg.Logger().Error("toolcli: decoding a preset", "tool", t.ID, "preset", name, "error", err.Error())
		return nil, failure(errExecutionFailed, fmt.Sprintf("The preset %q of %s is damaged: its values are not a JSON object.", name, t.ID))
	}
	return args, nil
}

// noPreset says that owner has no preset name of t, and which presets of
// t it has.
func (c *command) noPreset(owner string, t *tool.Tool, name string) string {
	msg := fmt.Sprintf("--preset %q: account %q has no preset of %s named %q", name, owner, t.ID, name)
	names, err := c.opts.Presets.PresetNames(c.ctx, owner, t.ID)
	switch {
	case err != nil:
		c.reg.Logger().Error("toolcli: listing presets", "tool", t.ID, "error", err.Error())
		return msg + " (its presets could not be listed)"
	case len(names) == 0:
		return msg + "; it has none"
	}
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = strconv.Quote(n)
	}
	return msg + "; its presets: " + strings.Join(quoted, ", ")
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

// fromResult turns the result of a run of the tool called name into an
// outcome, with the outputs it carries, a failure's too.
func fromResult(res *tool.Result, name string) *outcome {
	o := &outcome{Success: res.Success, Message: res.Message, Tool: name}
	if len(res.Outputs) > 0 {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(res.Outputs); err != nil {
			return failure(errExecutionFailed, "The outputs cannot be written as JSON: "+err.Error())
		}
		o.Outputs = bytes.TrimSpace(buf.Bytes())
	}
	if res.Success {
		return o
	}
	switch res.Failure {
	case tool.FailureInput:
		o.ErrorType = errInvalidInput
	case tool.FailureAccess:
		o.ErrorType = errAccessDenied
	default:
		o.ErrorType = errExecutionFailed
	}
	o.Violations = res.Violations
	return o
}

// report writes o and returns the exit status. Without --json a success
// writes its message and outputs on stdout; a failure writes its message
// and violations on stderr, and the outputs it carries on stdout.
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
	if o.ErrorType == errInvalidOption {
		fmt.Fprintf(c.stderr, "%s: %s\n\n", fs.Name(), o.Message)
		flagUsage(c.stderr, fs)
		return status
	}
	var msg, outputs strings.Builder
	if o.Message != "" {
		msg.WriteString(o.Message + "\n")
	}
	if o.Outputs != nil {
		if err := writeJSON(&outputs, o.Outputs); err != nil {
			fmt.Fprintf(c.stderr, "%s: %v\n", fs.Name(), err)
			return 1
		}
	}
	if o.Success {
		io.WriteString(c.stdout, msg.String()+outputs.String())
		return status
	}
	if len(o.Violations) > 0 {
		// The violations in people's words, one a line, under a heading
		// that replaces the message (which lists them for models).
		msg.Reset()
		if o.ErrorType == errInvalidInput {
			msg.WriteString("Invalid input for " + o.Tool + ":\n")
		} else {
			msg.WriteString(o.Message + "\n")
		}
		for _, v := range o.Violations {
			if v.Path != "" {
				msg.WriteString(v.Path + ": ")
			}
			msg.WriteString(v.ForPeople() + "\n")
		}
	}
	io.WriteString(c.stderr, msg.String())
	io.WriteString(c.stdout, outputs.String())
	return status
}

// writeOutcome writes o as the CLI's JSON answer (docs/guide.md, "The CLI"):
// outputs on success (an object, {} when there are none), error_type and
// violations (an array) on failure, and outputs on a failure that carries
// some, as function calling answers.
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
			vs = []tool.Violation{}
		}
		v = struct {
			Success    bool             `json:"success"`
			Message    string           `json:"message"`
			Outputs    json.RawMessage  `json:"outputs,omitempty"`
			ErrorType  string           `json:"error_type"`
			Violations []tool.Violation `json:"violations"`
		}{false, o.Message, o.Outputs, o.ErrorType, vs}
	}
	return writeJSON(w, v)
}

// confirmDestructive asks a person to confirm a run of the destructive
// tool t with args, and returns nil when they say yes, or the failure to
// report: no one to ask (standard input is not a terminal), or no.
func (c *command) confirmDestructive(ctx context.Context, t *tool.Tool, args map[string]any) *outcome {
	in := c.prompter()
	if in == nil {
		return failure(errAccessDenied, fmt.Sprintf(
			"%s is destructive and nobody can confirm it here (standard input is not a terminal): run it again with --yes to confirm.", t.Label))
	}
	if t.MayConfirm() {
		// The one question this run gets: say why, when the tool says
		// why (its confirm method decides on the checked inputs).
		if reason, ask, err := c.reg.NeedsConfirming(ctx, t.ID, args); err == nil && ask {
			ctx = tool.WithConfirmReason(ctx, reason)
		}
	}
	ok, _ := (&prompt{c: c, in: in, args: args}).Confirm(ctx, t, "")
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
