package toolcli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"github.com/toolapi/toolapi/task"
	"github.com/toolapi/toolapi/tool"
)

// Options configure [Run].
type Options struct {
	// Name is how usage messages spell the command that leads to the
	// subcommands ("album tool"). Empty means the program's base name
	// followed by " tool".
	Name string
	// Accounts returns the account that --user names. It returns an error
	// wrapping [ErrUnknownUser] when no account has that name. Nil means
	// no name is known, so every --user fails as user_not_found.
	Accounts func(ctx context.Context, name string) (tool.Account, error)
	// DefaultAccount is the account used without --user. Nil means
	// [tool.Anonymous].
	DefaultAccount tool.Account
	// Stdin is where run reads a person's answer to a confirmation prompt.
	// An *os.File is asked only when it is a terminal; any other reader is
	// always asked. Nil means never ask: a tool that needs confirmation
	// then runs only with --yes.
	Stdin io.Reader
	// Presets holds the presets that run --preset takes, the input values
	// an account saved under a name (those of the tool explorer; package
	// toolapp wires them). Nil means there are none: --preset then fails,
	// saying that presets are not configured.
	Presets Presets
	// Tasks keeps the tasks of tools whose Task mode is optional or
	// required: run --detach creates one and prints its ID, a tool whose
	// every call is a task runs as one and is waited for, and the task
	// commands list, show, wait for, answer and cancel them. Nil means no
	// tasks: those commands fail, saying so, and a tool whose calls must
	// run as tasks cannot run.
	Tasks *task.Manager
	// RunTasks starts the workers of Tasks in this process while run waits
	// for a task it created (without --detach), so that the task runs even
	// when no server shares the database; they stop when the command ends.
	// False leaves every task to the processes that run them (serve).
	RunTasks bool
}

// ErrUnknownUser is wrapped by the error [Options.Accounts] returns for a
// name no account has.
var ErrUnknownUser = errors.New("unknown user")

// Presets holds named input values of tools, per account: what run
// --preset runs. Implementations must be safe for concurrent use.
type Presets interface {
	// PresetValues returns the values of the owner's preset of the tool
	// toolID with the given name, a JSON object holding inputs by name,
	// or an error wrapping [ErrNoPreset] when the owner has no such
	// preset. The owner is an account's [tool.Account.AccountID].
	PresetValues(ctx context.Context, owner, toolID, name string) (json.RawMessage, error)
	// PresetNames returns the names of the owner's presets of the tool
	// toolID, in the order to show them.
	PresetNames(ctx context.Context, owner, toolID string) ([]string, error)
}

// ErrNoPreset is wrapped by the error [Presets.PresetValues] returns for a
// name the owner has no preset of.
var ErrNoPreset = errors.New("no such preset")

// Run runs the tool command whose words (after "tool") are args, for the
// tools of reg, writing results to stdout and problems to stderr. It
// returns the exit status: 0 on success, 1 on any failure. opts may be nil.
func Run(ctx context.Context, reg *tool.Registry, args []string, stdout, stderr io.Writer, opts *Options) int {
	if opts == nil {
		opts = &Options{}
	}
	c := &command{ctx: ctx, reg: reg, stdout: stdout, stderr: stderr, opts: opts}
	if len(args) == 0 {
		c.usage(stderr)
		return 1
	}
	if slices.Contains(commands, args[0]) {
		rest, err := c.narrowFlags(args[1:])
		if err != nil {
			fmt.Fprintf(stderr, "%s %s: %v\n", c.name(), args[0], err)
			return 1
		}
		args = append([]string{args[0]}, rest...)
	}
	switch args[0] {
	case "list":
		return c.list(args[1:], false)
	case "search":
		return c.list(args[1:], true)
	case "info":
		return c.info(args[1:])
	case "run":
		return c.run(args[1:])
	case "export":
		return c.export(args[1:])
	case "task":
		return c.task(args[1:])
	case "approvals":
		return c.approvals(args[1:])
	case "help", "-h", "-help", "--help":
		c.usage(stdout)
		return 0
	}
	if strings.HasPrefix(args[0], "-") && len(args[0]) > 1 {
		fmt.Fprintf(stderr, "%s: %s comes before the command word: %s\n", c.name(), args[0], c.flagFirstHint(args))
		return 1
	}
	fmt.Fprintf(stderr, "%s: unknown command %q\n", c.name(), args[0])
	c.usage(stderr)
	return 1
}

// commands are the command words of Run.
var commands = []string{"list", "search", "info", "run", "export", "task", "approvals"}

// flagFirstHint says how to write a command line that starts with a flag
// (args[0]): the command's flags follow its word, and the application's
// own flags (--db, say) go before "tool".
func (c *command) flagFirstHint(args []string) string {
	name := strings.TrimLeft(args[0], "-")
	name, _, _ = strings.Cut(name, "=")
	word := ""
	for _, a := range args[1:] {
		if slices.Contains(commands, a) {
			word = a
			break
		}
	}
	if word == "" {
		word = "COMMAND"
	}
	return fmt.Sprintf("give the command's flags after its word (%s %s ... --%s ...); if --%s is a flag of the application, give it %s",
		c.name(), word, name, name, c.beforeTool(name))
}

// beforeTool says where an application flag goes: before the word
// "tool" of the command line.
func (c *command) beforeTool(flagName string) string {
	if app, ok := strings.CutSuffix(c.name(), " tool"); ok && app != "" {
		return fmt.Sprintf("before \"tool\": %s --%s ... tool ...", app, flagName)
	}
	return "before the tool command"
}

// command holds what every subcommand needs.
type command struct {
	ctx            context.Context
	reg            *tool.Registry
	stdout, stderr io.Writer
	opts           *Options
}

func (c *command) name() string {
	if c.opts.Name != "" {
		return c.opts.Name
	}
	return filepath.Base(os.Args[0]) + " tool"
}

func (c *command) usage(w io.Writer) {
	n := c.name()
	fmt.Fprintf(w, `Usage:
  %[1]s list   [--format table|json|markdown] [--operation OP] [--user NAME]
  %[1]s search WORDS... [--match or|and] [--format table|json|markdown] [--operation OP] [--user NAME]
  %[1]s info   ID [--format text|json] [--user NAME]
  %[1]s run    ID [--preset NAME] [--input k=v | --input '{json}']... [--json] [--user NAME] [--yes] [--detach]
  %[1]s export [--format FORMAT] [--user NAME]
`+taskUsage+approvalsUsage+`
ID is a tool's ID or its name in MCP and function calling (the NAME
column of list). Flags may come before or after the other words.
run --detach starts a tool that may run as a task in the background and
prints the task's ID; a tool whose every call is a task is waited for,
as task wait does. task wait exits as run would with the task's outcome.
A call of a tool with an approver waits for another account's approval:
run prints its task's ID, and approvals list, approve and refuse are the
approver's side.

Every command also takes --groups NAME[,NAME...] and --read-only: it then
reaches only the tools of those toolsets, or only those that read.
`, n)
}

// lookUp returns the tool whose ID or name ([tool.NameOf]) is word, as
// [tool.Registry.ToolByName] finds it, when acct may see it: a tool acct
// may not run is not found, as one that does not exist.
func (c *command) lookUp(word string, acct tool.Account) (*tool.Tool, bool) {
	t, ok := c.reg.ToolByName(word)
	if !ok || !t.Allowed(acct) || c.outOfReach(t) != "" {
		return nil, false
	}
	return t, true
}

// notFoundMessage says that no tool word names is found for acct: the
// same whether there is none or acct may not see it.
func notFoundMessage(word string, acct tool.Account) string {
	return fmt.Sprintf("tool %q not found for account %q (an account sees only the tools it may run; --user NAME acts for another)", word, acct.AccountID())
}

// An optionError is a bad flag or argument: an invalid_option failure.
type optionError struct{ msg string }

func (e *optionError) Error() string { return e.msg }

func optionErrorf(format string, args ...any) error {
	return &optionError{msg: fmt.Sprintf(format, args...)}
}

// newFlagSet returns a quiet flag set for subcommand sub: parse errors
// are reported by the caller, with [flagUsage].
func (c *command) newFlagSet(sub string) *flag.FlagSet {
	fs := flag.NewFlagSet(c.name()+" "+sub, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// parseFlags parses args with fs, letting flags and positional words come
// in any order ("--" ends the flags), and returns the positional words.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var flags, words []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			words = append(words, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			words = append(words, a)
			continue
		}
		flags = append(flags, a)
		name := strings.TrimPrefix(a[1:], "-")
		if strings.Contains(name, "=") {
			continue
		}
		if f := fs.Lookup(name); f != nil && !isBoolFlag(f) && i+1 < len(args) {
			i++
			flags = append(flags, args[i])
		}
	}
	if err := fs.Parse(flags); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		return nil, &optionError{msg: err.Error() + undefinedFlagHint(fs, flags)}
	}
	return append(fs.Args(), words...), nil
}

// undefinedFlagHint returns, when args hold a flag fs does not define,
// the flags it does take and where a flag of the application goes (before
// "tool"); "" when fs defines every flag in args.
func undefinedFlagHint(fs *flag.FlagSet, args []string) string {
	name := undefinedFlag(fs, args)
	if name == "" {
		return ""
	}
	var known []string
	fs.VisitAll(func(f *flag.Flag) { known = append(known, "--"+f.Name) })
	where := "before the tool command"
	if app, _, ok := strings.Cut(fs.Name(), " tool "); ok && app != "" {
		where = fmt.Sprintf("before \"tool\": %s --%s ... tool ...", app, name)
	}
	return fmt.Sprintf(" (%s takes %s; if --%s is a flag of the application, give it %s)",
		fs.Name(), strings.Join(known, ", "), name, where)
}

// undefinedFlag returns the name of the first flag in args that fs does
// not define (help aside), or "".
func undefinedFlag(fs *flag.FlagSet, args []string) string {
	for _, a := range args {
		if a == "--" {
			return ""
		}
		if len(a) < 2 || a[0] != '-' {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if name == "" || name == "h" || name == "help" {
			continue
		}
		if fs.Lookup(name) == nil {
			return name
		}
	}
	return ""
}

func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// flagUsage writes the flags of fs to w.
func flagUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintf(w, "Usage of %s:\n", fs.Name())
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}

// A userError is why the account --user names cannot be used.
type userError struct {
	errorType string // user_not_found, user_blocked or execution_failed
	msg       string
}

func (e *userError) Error() string { return e.msg }

// account returns the account the command acts for: the one user names,
// else the default one. A blocked account is an error.
func (c *command) account(user string) (tool.Account, *userError) {
	var acct tool.Account
	switch {
	case user != "":
		if c.opts.Accounts == nil {
			return nil, &userError{"user_not_found", fmt.Sprintf("user %q not found", user)}
		}
		a, err := c.opts.Accounts(c.ctx, user)
		if errors.Is(err, ErrUnknownUser) || (err == nil && a == nil) {
			return nil, &userError{"user_not_found", fmt.Sprintf("user %q not found", user)}
		}
		if err != nil {
			return nil, &userError{"execution_failed", fmt.Sprintf("looking up user %q: %v", user, err)}
		}
		acct = a
	case c.opts.DefaultAccount != nil:
		acct = c.opts.DefaultAccount
	default:
		acct = tool.Anonymous
	}
	if acct.Blocked() {
		return nil, &userError{"user_blocked", fmt.Sprintf("user %q is blocked", acct.AccountID())}
	}
	return acct, nil
}

// prompt is a [tool.Confirmer] that asks a person on the command line,
// saying what the run will act on.
type prompt struct {
	c    *command
	in   io.Reader
	args map[string]any // the inputs as the caller gave them
}

func (p *prompt) Confirm(ctx context.Context, t *tool.Tool, _ string) (bool, error) {
	out := p.c.stderr
	if lines := p.c.runLines(ctx, t, p.args); len(lines) > 0 {
		fmt.Fprintf(out, "%s will run with:\n", t.Label)
		for _, l := range lines {
			fmt.Fprintf(out, "  %s\n", l)
		}
	}
	if reason := tool.ConfirmReason(ctx); reason != "" {
		fmt.Fprintf(out, "Reason: %s\n", shownValue(reason))
	}
	fmt.Fprintf(out, "Run %s? [y/N] ", t.Label)
	line, err := bufio.NewReader(p.in).ReadString('\n')
	if err != nil && line == "" {
		fmt.Fprintln(out)
		return false, nil
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true, nil
	}
	return false, nil
}

// maxPromptValue is the most characters of a value a confirmation prompt
// shows; a longer one is cut with "...".
const maxPromptValue = 200

// runLines says what a run of t with args acts on, one "name: value" line
// per input the caller set, in the order of t's inputs: an entity by its
// label and reference ("Blue Train (album 12)") when the account may
// perform the input's op on it, else by the reference alone; any other
// value as JSON. Sensitive inputs are never shown, and control characters
// are shown as "?" so that no value can drive the terminal.
func (c *command) runLines(ctx context.Context, t *tool.Tool, args map[string]any) []string {
	var lines []string
	for _, d := range t.Inputs {
		v, ok := args[d.Name]
		if !ok || d.Sensitive || d.Locked {
			continue
		}
		var shown string
		switch {
		case isEntityType(d.Type):
			shown = c.entityText(ctx, d, d.Type, v)
		case d.Type == "list" && d.Items != nil && isEntityType(d.Items.Type):
			items, _ := v.([]any)
			var parts []string
			for _, item := range items {
				parts = append(parts, c.entityText(ctx, d, d.Items.Type, item))
			}
			shown = strings.Join(parts, ", ")
		default:
			data, err := json.Marshal(v)
			if err != nil {
				continue
			}
			shown = string(data)
		}
		lines = append(lines, d.Name+": "+shownValue(shown))
	}
	return lines
}

// shownValue returns s as a prompt shows it: cut at maxPromptValue
// characters, control characters as "?".
func shownValue(s string) string {
	if r := []rune(s); len(r) > maxPromptValue {
		s = string(r[:maxPromptValue]) + "..."
	}
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return '?'
		}
		return r
	}, s)
}

func isEntityType(typ string) bool { return typ == "entity" || strings.HasPrefix(typ, "entity:") }

// entityText returns how a prompt shows the entity v (an ID for data type
// "entity:TYPE", "TYPE:ID" for "entity") that input d takes: its label
// and reference when the account in ctx may perform d's op on it, else
// the reference alone, so that a prompt shows nothing the account could
// not see.
func (c *command) entityText(ctx context.Context, d *tool.Definition, typ string, v any) string {
	id := fmt.Sprint(v)
	typeID, ok := strings.CutPrefix(typ, "entity:")
	if !ok {
		typeID, id, ok = strings.Cut(id, ":")
		if !ok {
			return fmt.Sprint(v)
		}
	}
	ref := typeID + " " + id
	et, ok := c.reg.EntityType(typeID)
	if !ok {
		return ref
	}
	entity, err := et.Load(ctx, id)
	if err != nil {
		return ref
	}
	op := d.EntityOp
	if op == "" && d.Items != nil {
		op = d.Items.EntityOp
	}
	if allowed, err := et.Access(ctx, tool.AccountFrom(ctx), entity, op); err != nil || !allowed {
		return ref
	}
	if _, label, ok := et.Describe(entity); ok && label != "" {
		return label + " (" + ref + ")"
	}
	return ref
}
