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
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mattn/go-isatty"

	"github.com/toolapi/toolapi/task"
	"github.com/toolapi/toolapi/tool"
)

// errTaskNotFound is the error type of a task ID the account cannot see:
// one that never existed, has expired or belongs to another account.
const errTaskNotFound = "task_not_found"

// taskUsage spells the task commands for the usage.
const taskUsage = `  %[1]s task list   [--limit N] [--cursor C] [--json] [--user NAME]
  %[1]s task show   TASK [--json] [--user NAME]
  %[1]s task wait   TASK [--json] [--user NAME]
  %[1]s task answer TASK [--decline | --cancel] [--input k=v | --input '{json}']... [--user NAME]
  %[1]s task cancel TASK [--user NAME]
`

// task runs "task SUBCOMMAND".
func (c *command) task(args []string) int {
	if len(args) == 0 {
		fmt.Fprintf(c.stderr, "%s task: want a subcommand: list, show, wait, answer or cancel\n", c.name())
		return 1
	}
	switch args[0] {
	case "list":
		return c.taskList(args[1:])
	case "show":
		return c.taskOne("show", args[1:])
	case "wait":
		return c.taskOne("wait", args[1:])
	case "cancel":
		return c.taskOne("cancel", args[1:])
	case "answer":
		return c.taskAnswer(args[1:])
	case "help", "-h", "-help", "--help":
		fmt.Fprintf(c.stdout, "Usage:\n"+taskUsage, c.name())
		return 0
	}
	fmt.Fprintf(c.stderr, "%s task: unknown subcommand %q: want list, show, wait, answer or cancel\n", c.name(), args[0])
	return 1
}

// taskFlags parses the flags of a task subcommand and returns the
// account it acts for and the positional words, or the exit status when
// it is done.
func (c *command) taskFlags(fs *flag.FlagSet, args []string, words int) (tool.Account, []string, int, bool) {
	user := fs.String("user", "", "act for the account with this `name`")
	rest, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		flagUsage(c.stdout, fs)
		return nil, nil, 0, true
	}
	if err == nil && len(rest) != words {
		if words == 1 {
			err = optionErrorf("want one task ID, not %d words", len(rest))
		} else {
			err = optionErrorf("takes no words, not %q", rest)
		}
	}
	if err != nil {
		fmt.Fprintf(c.stderr, "%s: %v\n\n", fs.Name(), err)
		flagUsage(c.stderr, fs)
		return nil, nil, 1, true
	}
	if c.opts.Tasks == nil {
		fmt.Fprintf(c.stderr, "%s: tasks are not configured in this application (it has no database for them)\n", fs.Name())
		return nil, nil, 1, true
	}
	acct, ue := c.account(*user)
	if ue != nil {
		fmt.Fprintf(c.stderr, "%s: %s\n", fs.Name(), ue.msg)
		return nil, nil, 1, true
	}
	return acct, rest, 0, false
}

// taskError writes the failure of a task subcommand on task id and
// returns 1: a clear sentence for each error of the Manager a caller can
// cause, and a generic one (the cause logged) for the rest.
func (c *command) taskError(fs *flag.FlagSet, acct tool.Account, id string, t *task.Task, err error) int {
	var msg string
	switch {
	case errors.Is(err, task.ErrNotFound):
		msg = fmt.Sprintf("task %q not found for account %q (an account sees only its own tasks; --user NAME acts for another)", id, acct.AccountID())
	case errors.Is(err, task.ErrFinished):
		status := "ended"
		if t != nil {
			status = string(t.Status)
		}
		msg = fmt.Sprintf("task %q has already ended (%s): only a task that is working or waiting for an answer can be cancelled", id, status)
	case errors.Is(err, task.ErrNotWaiting):
		msg = fmt.Sprintf("task %q is not waiting for an answer (see %s task show %s)", id, c.name(), id)
	case errors.Is(err, task.ErrBadAnswer):
		msg = fmt.Sprintf("task %q: %v", id, err)
	case errors.Is(err, task.ErrBadCursor):
		msg = "--cursor: not a cursor that a list of tasks printed"
	case errors.Is(err, context.Canceled):
		msg = "interrupted"
	default:
		c.reg.Logger().Error("toolcli: task command", "command", fs.Name(), "task", id, "error", err.Error())
		msg = "the tasks cannot be reached now; try again"
	}
	fmt.Fprintf(c.stderr, "%s: %s\n", fs.Name(), msg)
	return 1
}

func (c *command) taskList(args []string) int {
	fs := c.newFlagSet("task list")
	limit := fs.Int("limit", 0, fmt.Sprintf("the most `N` tasks to list, at most %d (default %d)", task.MaxListLimit, task.DefaultListLimit))
	cursor := fs.String("cursor", "", "list the page after the one that printed this `cursor`")
	asJSON := fs.Bool("json", false, "print the page as JSON")
	acct, _, status, done := c.taskFlags(fs, args, 0)
	if done {
		return status
	}
	if *limit < 0 || *limit > task.MaxListLimit {
		fmt.Fprintf(c.stderr, "%s: --limit %d: must be between 1 and %d\n", fs.Name(), *limit, task.MaxListLimit)
		return 1
	}
	ctx := tool.WithAccount(c.ctx, acct)
	page, err := c.opts.Tasks.List(ctx, &task.ListOptions{Limit: *limit, Cursor: *cursor})
	if err != nil {
		return c.taskError(fs, acct, "", nil, err)
	}
	if *asJSON {
		if page.Tasks == nil {
			page.Tasks = []*task.Task{}
		}
		writeJSON(c.stdout, page)
		return 0
	}
	if len(page.Tasks) == 0 {
		fmt.Fprintf(c.stdout, "No tasks of account %q.\n", acct.AccountID())
		return 0
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTOOL\tSTATUS\tPROGRESS\tCREATED")
	for _, t := range page.Tasks {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", t.ID, t.Tool, t.Status, progressText(t.Progress), t.Created.UTC().Format(time.RFC3339))
	}
	tw.Flush()
	if page.Next != "" {
		fmt.Fprintf(c.stdout, "More: %s task list --cursor %s\n", c.name(), page.Next)
	}
	return 0
}

// taskOne runs show, wait or cancel of one task.
func (c *command) taskOne(sub string, args []string) int {
	fs := c.newFlagSet("task " + sub)
	asJSON := new(bool)
	if sub != "cancel" {
		asJSON = fs.Bool("json", false, "print the task as JSON")
	}
	acct, words, status, done := c.taskFlags(fs, args, 1)
	if done {
		return status
	}
	id := words[0]
	ctx := tool.WithAccount(c.ctx, acct)
	switch sub {
	case "show":
		t, err := c.opts.Tasks.Get(ctx, id)
		if err != nil {
			return c.taskError(fs, acct, id, nil, err)
		}
		if *asJSON {
			writeJSON(c.stdout, t)
		} else {
			c.writeTask(t)
		}
		return 0
	case "cancel":
		t, err := c.opts.Tasks.Cancel(ctx, id)
		if errors.Is(err, task.ErrFinished) {
			t, _ = c.opts.Tasks.Get(ctx, id)
		}
		if err != nil {
			return c.taskError(fs, acct, id, t, err)
		}
		fmt.Fprintf(c.stdout, "Task %s is cancelled.\n", t.ID)
		return 0
	}
	return c.wait(fs, ctx, acct, id, *asJSON)
}

// wait watches the task id until it ends, showing its progress on
// standard error (one line kept up to date on a terminal, a line per
// change elsewhere), asks its questions when a person can answer them,
// and reports its outcome as run reports a run's, with the same exit
// status.
func (c *command) wait(fs *flag.FlagSet, ctx context.Context, acct tool.Account, id string, asJSON bool) int {
	m := c.opts.Tasks
	term := isTerminal(c.stderr)
	var last string
	shown, noted := false, false
	for {
		t, err := m.Get(ctx, id)
		if err != nil {
			return c.taskError(fs, acct, id, nil, err)
		}
		if t.Approval != nil && t.Approval.Status == "pending" && !noted {
			noted = true
			fmt.Fprintf(c.stderr, "Task %s waits for the approval of an account with the permission %q.\n", t.ID, t.Approval.Permission)
		}
		if p := progressText(t.Progress); p != "" && p != last {
			last = p
			if term {
				fmt.Fprintf(c.stderr, "\r\033[K%s: %s", t.Tool, p)
				shown = true
			} else {
				fmt.Fprintf(c.stderr, "progress: %s\n", p)
			}
		}
		if t.Status.Finished() {
			if shown {
				fmt.Fprintln(c.stderr)
			}
			return c.taskOutcome(fs, t, asJSON)
		}
		if t.Status == task.InputRequired && t.Question != nil {
			if shown {
				fmt.Fprintln(c.stderr)
				shown = false
			}
			in := c.prompter()
			if in == nil {
				fmt.Fprintf(c.stderr, "%s: task %s waits for an answer: %s\nAnswer it with: %s task answer %s [--decline] [--input k=v]...\n",
					fs.Name(), t.ID, safeText(t.Question.Message), c.name(), t.ID)
				return 1
			}
			a := c.ask(in, t.Question)
			if err := m.AnswerKey(ctx, id, t.Question.Key, a); err != nil && !errors.Is(err, task.ErrNotWaiting) {
				if errors.Is(err, task.ErrBadAnswer) {
					fmt.Fprintf(c.stderr, "%v\n", err)
					continue // ask again
				}
				return c.taskError(fs, acct, id, t, err)
			}
			continue
		}
		// Wait for the end or a question, waking up to show progress.
		wctx, cancel := context.WithTimeout(ctx, max(t.PollInterval, 100*time.Millisecond))
		_, err = m.Wait(wctx, id)
		cancel()
		if ctx.Err() != nil {
			fmt.Fprintf(c.stderr, "\n%s: stopped waiting; task %s goes on (%s task wait %s)\n", fs.Name(), id, c.name(), id)
			return 1
		}
		if err != nil && !errors.Is(err, context.DeadlineExceeded) {
			return c.taskError(fs, acct, id, nil, err)
		}
	}
}

// taskOutcome reports the outcome of the finished task t as run reports
// a run's.
func (c *command) taskOutcome(fs *flag.FlagSet, t *task.Task, asJSON bool) int {
	label := t.Tool
	if tt, ok := c.reg.Tool(t.Tool); ok && tt.Label != "" {
		label = tt.Label
	}
	res := t.Result
	if res == nil {
		msg := fmt.Sprintf("Task %s %s.", t.ID, t.Status)
		if t.StatusMessage != "" {
			msg = fmt.Sprintf("Task %s %s: %s.", t.ID, t.Status, t.StatusMessage)
		}
		res = &tool.Result{Success: t.Status == task.Completed, Message: msg}
	}
	return c.report(fs, asJSON, fromResult(res, label))
}

// ask asks a person the question q on in and returns the answer.
func (c *command) ask(in io.Reader, q *task.Question) *tool.Elicitation {
	r := bufio.NewReader(in)
	out := c.stderr
	if q.Confirm || q.Schema == nil {
		fmt.Fprintf(out, "%s [y/N] ", safeText(q.Message))
		line, _ := r.ReadString('\n')
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes":
			return &tool.Elicitation{Action: "accept"}
		}
		return &tool.Elicitation{Action: "decline"}
	}
	fmt.Fprintf(out, "%s\n(an empty answer to every field declines)\n", safeText(q.Message))
	content := map[string]any{}
	names := make([]string, 0, len(q.Schema.Properties))
	for name := range q.Schema.Properties {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		p := q.Schema.Properties[name]
		label := name
		if p.Title != "" {
			label = p.Title
		}
		fmt.Fprintf(out, "  %s: ", safeText(label))
		line, err := r.ReadString('\n')
		line = strings.TrimRight(line, "\r\n")
		if line != "" {
			content[name] = typedAnswer(p.Type, line)
		}
		if err != nil {
			break
		}
	}
	if len(content) == 0 {
		return &tool.Elicitation{Action: "decline"}
	}
	return &tool.Elicitation{Action: "accept", Content: content}
}

// typedAnswer returns s, typed as a value of the JSON schema type typ: a
// number, integer or boolean when s reads as one, else the text as it is
// (the question's schema then says what is wrong with it).
func typedAnswer(typ, s string) any {
	switch typ {
	case "integer", "number":
		if n, err := strconv.ParseFloat(s, 64); err == nil {
			return n
		}
	case "boolean":
		if b, err := strconv.ParseBool(s); err == nil {
			return b
		}
	case "array", "object":
		var v any
		if json.Unmarshal([]byte(s), &v) == nil {
			return v
		}
	}
	return s
}

func (c *command) taskAnswer(args []string) int {
	fs := c.newFlagSet("task answer")
	var inputs inputFlags
	fs.Var(&inputs, "input", "a value asked for, as `key=value` or a JSON object; repeatable")
	decline := fs.Bool("decline", false, "decline to answer: the tool goes on without the values, or does not run when it asked to be confirmed")
	cancel := fs.Bool("cancel", false, "cancel the question: as --decline, the tool decides what follows")
	acct, words, status, done := c.taskFlags(fs, args, 1)
	if done {
		return status
	}
	id := words[0]
	if *decline && *cancel {
		fmt.Fprintf(c.stderr, "%s: --decline and --cancel: give one of them\n", fs.Name())
		return 1
	}
	if (*decline || *cancel) && len(inputs) > 0 {
		fmt.Fprintf(c.stderr, "%s: --input: a declined or cancelled question takes no values\n", fs.Name())
		return 1
	}
	ctx := tool.WithAccount(c.ctx, acct)
	t, err := c.opts.Tasks.Get(ctx, id)
	if err != nil {
		return c.taskError(fs, acct, id, nil, err)
	}
	if t.Status != task.InputRequired || t.Question == nil {
		return c.taskError(fs, acct, id, t, task.ErrNotWaiting)
	}
	a := &tool.Elicitation{Action: "accept"}
	switch {
	case *decline:
		a.Action = "decline"
	case *cancel:
		a.Action = "cancel"
	case len(inputs) > 0:
		a.Content = map[string]any{}
		for _, in := range inputs {
			if strings.HasPrefix(strings.TrimSpace(in), "{") {
				obj, err := decodeObject(in)
				if err != nil {
					fmt.Fprintf(c.stderr, "%s: --input %s is malformed JSON: %v\n", fs.Name(), abbreviate(in), err)
					return 1
				}
				merge(a.Content, obj)
				continue
			}
			key, value, ok := strings.Cut(in, "=")
			if !ok || key == "" {
				fmt.Fprintf(c.stderr, "%s: --input %q: want key=value or a JSON object\n", fs.Name(), in)
				return 1
			}
			typ := ""
			if q := t.Question.Schema; q != nil && q.Properties[key] != nil {
				typ = q.Properties[key].Type
			}
			a.Content[key] = typedAnswer(typ, value)
		}
	case t.Question.Schema != nil && !t.Question.Confirm:
		fmt.Fprintf(c.stderr, "%s: task %s asks for values: give them with --input, or --decline\n", fs.Name(), id)
		return 1
	}
	if err := c.opts.Tasks.AnswerKey(ctx, id, t.Question.Key, a); err != nil {
		return c.taskError(fs, acct, id, t, err)
	}
	fmt.Fprintf(c.stdout, "Task %s is answered (%s); %s task wait %s follows it.\n", id, a.Action, c.name(), id)
	return 0
}

// writeTask writes t for people.
func (c *command) writeTask(t *task.Task) {
	var b strings.Builder
	fmt.Fprintf(&b, "Task:     %s\nTool:     %s\nStatus:   %s", t.ID, t.Tool, t.Status)
	if t.StatusMessage != "" {
		fmt.Fprintf(&b, " (%s)", safeText(t.StatusMessage))
	}
	b.WriteString("\n")
	if p := progressText(t.Progress); p != "" {
		fmt.Fprintf(&b, "Progress: %s\n", p)
	}
	fmt.Fprintf(&b, "Created:  %s\nUpdated:  %s\nExpires:  %s\n",
		t.Created.UTC().Format(time.RFC3339), t.Updated.UTC().Format(time.RFC3339), t.Expires.UTC().Format(time.RFC3339))
	if a := t.Approval; a != nil {
		fmt.Fprintf(&b, "Approval: %s (by an account with the permission %q)", a.Status, a.Permission)
		if a.DecidedBy != "" {
			fmt.Fprintf(&b, ", decided by %s", a.DecidedBy)
		}
		if a.Standing != "" {
			fmt.Fprintf(&b, " through standing approval %s", a.Standing)
		}
		b.WriteString("\n")
		if a.Reason != "" {
			fmt.Fprintf(&b, "Reason:   %s\n", safeText(a.Reason))
		}
		fmt.Fprintf(&b, "Inputs:   %s\n", safeText(abbreviate(string(a.Args))))
		if a.Original != nil {
			fmt.Fprintf(&b, "Edited from: %s\n", safeText(abbreviate(string(a.Original))))
		}
		if a.Note != "" {
			fmt.Fprintf(&b, "Note:     %s\n", safeText(a.Note))
		}
	}
	if q := t.Question; q != nil {
		fmt.Fprintf(&b, "Question: %s\n", safeText(q.Message))
		if q.Schema != nil && !q.Confirm {
			for name, p := range q.Schema.Properties {
				fmt.Fprintf(&b, "  %s (%s) %s\n", name, p.Type, safeText(p.Description))
			}
		}
		fmt.Fprintf(&b, "Answer with: %s task answer %s [--decline] [--input k=v]...\n", c.name(), t.ID)
	}
	if r := t.Result; r != nil {
		fmt.Fprintf(&b, "Result:   %s\n", safeText(r.Message))
		if len(r.Outputs) > 0 {
			b.WriteString("Outputs:\n")
			io.WriteString(c.stdout, b.String())
			writeJSON(c.stdout, r.Outputs)
			return
		}
	}
	io.WriteString(c.stdout, b.String())
}

// progressText says how far p has come: "3/10 message"; "" for nil.
func progressText(p *task.Progress) string {
	if p == nil {
		return ""
	}
	s := strconv.FormatFloat(p.Done, 'g', -1, 64)
	if p.Total > 0 {
		s += "/" + strconv.FormatFloat(p.Total, 'g', -1, 64)
	}
	if p.Message != "" {
		s += " " + safeText(p.Message)
	}
	return s
}

// safeText returns s with control characters shown as "?", so that a
// tool's text cannot drive the terminal.
func safeText(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			r = '?'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// detach creates a task of t with args for the account in ctx, and
// returns it or the failure to report.
func (c *command) createTask(ctx context.Context, t *tool.Tool, args map[string]any) (*task.Task, *outcome) {
	if c.opts.Tasks == nil {
		return nil, failure(errExecutionFailed, fmt.Sprintf("%s runs as a task, and tasks are not configured in this application (it has no database for them)", t.ID))
	}
	canon, vs, err := c.reg.Validate(ctx, t.ID, args)
	if errors.Is(err, tool.ErrNotFound) {
		return nil, notFound(t.ID, tool.AccountFrom(ctx))
	}
	if err != nil {
		c.reg.Logger().Error("toolcli: checking a task's inputs", "tool", t.ID, "error", err.Error())
		return nil, failure(errExecutionFailed, "The task could not be created; try again.")
	}
	if len(vs) > 0 {
		res := &tool.Result{Success: false, Failure: tool.FailureInput, Violations: vs, Message: "Invalid input."}
		return nil, fromResult(res, t.Label)
	}
	tk, err := c.opts.Tasks.Create(ctx, t.ID, canon)
	var re *task.RefusedError
	switch {
	case errors.As(err, &re):
		return nil, fromResult(re.Result, t.Label)
	case errors.Is(err, tool.ErrNotFound):
		return nil, notFound(t.ID, tool.AccountFrom(ctx))
	case errors.Is(err, task.ErrNoKey):
		return nil, failure(errExecutionFailed, fmt.Sprintf("%s has sensitive inputs, and this application keeps no key to store them encrypted in a task", t.ID))
	case err != nil:
		c.reg.Logger().Error("toolcli: creating a task", "tool", t.ID, "error", err.Error())
		return nil, failure(errExecutionFailed, "The task could not be created; try again.")
	}
	return tk, nil
}
