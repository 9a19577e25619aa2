package toolcli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/toolapi/toolapi/task"
	"github.com/toolapi/toolapi/tool"
)

// approvalsUsage spells the approvals commands for the usage.
const approvalsUsage = `  %[1]s approvals list     [--json] [--user NAME]
  %[1]s approvals approve  TASK [--args '{json}'] [--note TEXT] [--user NAME]
  %[1]s approvals refuse   TASK [--reason TEXT] [--user NAME]
  %[1]s approvals grant    TOOL --account NAME [--for DURATION] [--args '{json}'] [--user NAME]
  %[1]s approvals standing [--json] [--user NAME]
  %[1]s approvals revoke   ID [--user NAME]
`

// approvals runs "approvals SUBCOMMAND": the calls of tools with an
// approver that wait for the account's approval, and standing approvals.
func (c *command) approvals(args []string) int {
	const want = "list, approve, refuse, grant, standing or revoke"
	if len(args) == 0 {
		fmt.Fprintf(c.stderr, "%s approvals: want a subcommand: %s\n", c.name(), want)
		return 1
	}
	switch args[0] {
	case "list":
		return c.approvalsList(args[1:])
	case "approve", "refuse":
		return c.approvalDecide(args[0], args[1:])
	case "grant":
		return c.approvalGrant(args[1:])
	case "standing":
		return c.approvalsStanding(args[1:])
	case "revoke":
		return c.approvalRevoke(args[1:])
	case "help", "-h", "-help", "--help":
		fmt.Fprintf(c.stdout, "Usage:\n"+approvalsUsage, c.name())
		return 0
	}
	fmt.Fprintf(c.stderr, "%s approvals: unknown subcommand %q: want %s\n", c.name(), args[0], want)
	return 1
}

// approvalError writes the failure of an approvals subcommand on id and
// returns 1.
func (c *command) approvalError(fs *flag.FlagSet, acct tool.Account, id string, err error) int {
	var re *task.RefusedError
	var msg string
	switch {
	case errors.As(err, &re):
		// Edited inputs or a grant's inputs that a run would refuse: say
		// what the run would have said.
		msg = "the inputs are refused: " + safeText(re.Result.Message)
	case errors.Is(err, task.ErrNotFound):
		msg = fmt.Sprintf("%q: nothing of that ID waits for the approval of account %q (see %s approvals list)", id, acct.AccountID(), c.name())
	case errors.Is(err, tool.ErrNotFound):
		msg = fmt.Sprintf("no tool %q", id)
	case errors.Is(err, task.ErrOwnCall), errors.Is(err, task.ErrMayNotApprove), errors.Is(err, task.ErrBadApproval),
		errors.Is(err, task.ErrNotAwaiting), errors.Is(err, task.ErrApprovalExpired):
		msg = err.Error()
	default:
		c.reg.Logger().Error("toolcli: approvals command", "command", fs.Name(), "id", id, "error", err.Error())
		msg = "the approvals cannot be reached now; try again"
	}
	fmt.Fprintf(c.stderr, "%s: %s\n", fs.Name(), msg)
	return 1
}

func (c *command) approvalsList(args []string) int {
	fs := c.newFlagSet("approvals list")
	asJSON := fs.Bool("json", false, "print the calls as JSON")
	acct, _, status, done := c.taskFlags(fs, args, 0)
	if done {
		return status
	}
	ps, err := c.opts.Tasks.Approvals(tool.WithAccount(c.ctx, acct))
	if err != nil {
		return c.approvalError(fs, acct, "", err)
	}
	if *asJSON {
		writeJSON(c.stdout, ps)
		return 0
	}
	if len(ps) == 0 {
		fmt.Fprintf(c.stdout, "No calls wait for the approval of account %q.\n", acct.AccountID())
		return 0
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TASK\tTOOL\tACCOUNT\tINPUTS\tREASON\tEXPIRES")
	for _, p := range ps {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", p.Task.ID, p.Task.Tool, p.Account, safeText(abbreviate(string(p.Approval.Args))),
			safeText(p.Approval.Reason), p.Approval.Expires.Format(time.RFC3339))
	}
	tw.Flush()
	return 0
}

// approvalDecide runs approve or refuse.
func (c *command) approvalDecide(sub string, args []string) int {
	fs := c.newFlagSet("approvals " + sub)
	var edited, note *string
	if sub == "approve" {
		edited = fs.String("args", "", "run the call with these inputs instead, as a JSON `object`: checked again as the caller's")
		note = fs.String("note", "", fmt.Sprintf("a note for the caller and the audit trail, at most %d characters", task.MaxNote))
	} else {
		note = fs.String("reason", "", fmt.Sprintf("why, for the caller, at most %d characters", task.MaxNote))
	}
	acct, words, status, done := c.taskFlags(fs, args, 1)
	if done {
		return status
	}
	id := words[0]
	ctx := tool.WithAccount(c.ctx, acct)
	var t *task.Task
	var err error
	if sub == "refuse" {
		t, err = c.opts.Tasks.Refuse(ctx, id, *note)
	} else {
		opts := &task.ApproveOptions{Note: *note}
		if *edited != "" {
			if _, err := decodeObject(*edited); err != nil {
				fmt.Fprintf(c.stderr, "%s: --args %s is no JSON object: %v\n", fs.Name(), abbreviate(*edited), err)
				return 1
			}
			opts.Args = json.RawMessage(*edited)
		}
		t, err = c.opts.Tasks.Approve(ctx, id, opts)
	}
	if err != nil {
		return c.approvalError(fs, acct, id, err)
	}
	if sub == "refuse" {
		fmt.Fprintf(c.stdout, "The call of %s in task %s is refused; it will not run.\n", t.Tool, t.ID)
		return 0
	}
	fmt.Fprintf(c.stdout, "The call of %s in task %s is approved; it runs now.\n", t.Tool, t.ID)
	return 0
}

func (c *command) approvalGrant(args []string) int {
	fs := c.newFlagSet("approvals grant")
	account := fs.String("account", "", "the `name` of the account whose calls it approves (required)")
	dur := fs.Duration("for", 0, fmt.Sprintf("how long it stands, at most %s (default %s)", task.MaxStanding, task.DefaultStanding))
	only := fs.String("args", "", "approve only calls with exactly these inputs, a JSON `object`")
	acct, words, status, done := c.taskFlags(fs, args, 1)
	if done {
		return status
	}
	if strings.TrimSpace(*account) == "" {
		fmt.Fprintf(c.stderr, "%s: --account: required: name the account whose calls it approves\n", fs.Name())
		return 1
	}
	g := &task.Grant{Tool: words[0], Account: *account, For: *dur}
	if *only != "" {
		if _, err := decodeObject(*only); err != nil {
			fmt.Fprintf(c.stderr, "%s: --args %s is no JSON object: %v\n", fs.Name(), abbreviate(*only), err)
			return 1
		}
		g.Args = json.RawMessage(*only)
	}
	s, err := c.opts.Tasks.Grant(tool.WithAccount(c.ctx, acct), g)
	if err != nil {
		return c.approvalError(fs, acct, words[0], err)
	}
	fmt.Fprintln(c.stdout, s.ID)
	fmt.Fprintf(c.stderr, "Calls of %s by %q need no other approval until %s. Revoke it with: %s approvals revoke %s\n",
		s.Tool, s.Account, s.Expires.Format(time.RFC3339), c.name(), s.ID)
	return 0
}

func (c *command) approvalsStanding(args []string) int {
	fs := c.newFlagSet("approvals standing")
	asJSON := fs.Bool("json", false, "print the standing approvals as JSON")
	acct, _, status, done := c.taskFlags(fs, args, 0)
	if done {
		return status
	}
	ss, err := c.opts.Tasks.StandingApprovals(tool.WithAccount(c.ctx, acct))
	if err != nil {
		return c.approvalError(fs, acct, "", err)
	}
	if *asJSON {
		writeJSON(c.stdout, ss)
		return 0
	}
	if len(ss) == 0 {
		fmt.Fprintf(c.stdout, "No standing approvals that account %q may see.\n", acct.AccountID())
		return 0
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTOOL\tACCOUNT\tINPUTS\tGRANTED BY\tEXPIRES")
	for _, s := range ss {
		in := "any"
		if s.Args != nil {
			in = safeText(abbreviate(string(s.Args)))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", s.ID, s.Tool, s.Account, in, s.GrantedBy, s.Expires.Format(time.RFC3339))
	}
	tw.Flush()
	return 0
}

func (c *command) approvalRevoke(args []string) int {
	fs := c.newFlagSet("approvals revoke")
	acct, words, status, done := c.taskFlags(fs, args, 1)
	if done {
		return status
	}
	s, err := c.opts.Tasks.Revoke(tool.WithAccount(c.ctx, acct), words[0])
	if err != nil {
		return c.approvalError(fs, acct, words[0], err)
	}
	fmt.Fprintf(c.stdout, "The standing approval %s of %s for %q is revoked.\n", s.ID, s.Tool, s.Account)
	return 0
}
