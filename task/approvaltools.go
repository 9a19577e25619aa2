package task

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/toolapi/toolapi/tool"
)

// ApprovalTools returns two tools through which accounts holding
// permission (a permission expression) see and decide the calls waiting
// for their approval, from any caller: "approvals.list" lists them, as
// [Manager.Approvals] does, and "approvals.decide" approves or refuses one
// ([Manager.Approve], [Manager.Refuse]). Register them beside the
// application's tools. Each account still decides only the calls of the
// tools it may approve, and never its own: give permission to the
// approvers, and mind that an agent acting for an approver may then
// approve for them (a narrowed connection without these tools keeps an
// agent out). Edited inputs are for the Tool Explorer and the command
// line; the tool approves a call as it was made.
func (m *Manager) ApprovalTools(permission string) []*tool.Tool {
	list := &tool.Tool{
		ID: "approvals.list", Label: "Calls to approve", Operation: tool.OpRead, Permission: permission,
		Description: "Lists the calls of tools that wait for your approval, oldest first: each call's task ID, tool, account, inputs and reason. " +
			"Your own calls are not listed: another account approves them.",
		Outputs: []*tool.Definition{{Name: "calls", Type: "list", Required: true, Description: "The calls waiting for your approval.",
			Items: &tool.Definition{Type: "map", Properties: []*tool.Definition{
				{Name: "task_id", Type: "string", Required: true, Description: "The task of the call: decide it with approvals.decide."},
				{Name: "tool", Type: "string", Required: true, Description: "The ID of the tool called."},
				{Name: "account", Type: "string", Required: true, Description: "The account whose call it is."},
				{Name: "inputs", Type: "string", Required: true, Description: "The call's inputs, as JSON (secret inputs left out)."},
				{Name: "reason", Type: "string", Description: "Why the call needs approval, when the tool says."},
				{Name: "expires", Type: "string", Required: true, Description: "When the call stops waiting (RFC 3339)."},
			}}}},
		Handler: func(ctx context.Context, _ *tool.Values) (*tool.Result, error) {
			ps, err := m.Approvals(ctx)
			if err != nil {
				return nil, err
			}
			calls := make([]any, 0, len(ps))
			for _, p := range ps {
				calls = append(calls, map[string]any{"task_id": p.Task.ID, "tool": p.Task.Tool, "account": p.Account,
					"inputs": string(p.Approval.Args), "reason": p.Approval.Reason, "expires": p.Approval.Expires.Format(time.RFC3339)})
			}
			msg := fmt.Sprintf("%d calls wait for your approval.", len(calls))
			if len(calls) == 1 {
				msg = "1 call waits for your approval."
			}
			return tool.Succeeded(msg, map[string]any{"calls": calls}), nil
		},
	}
	decide := &tool.Tool{
		ID: "approvals.decide", Label: "Decide a call", Operation: tool.OpWrite, Permission: permission,
		Description: "Approves or refuses a call that waits for your approval: an approved call runs once, as it was made; a refused one never runs.",
		Inputs: []*tool.Definition{
			{Name: "task_id", Type: "string", Required: true, Description: "The task of the call, as approvals.list gives it.",
				Constraints: tool.Constraints{NotBlank: true, Length: &tool.Bounds{Max: tool.Ptr(64)}}},
			{Name: "decision", Type: "string", Required: true, Description: "approve or refuse.",
				Constraints: tool.Constraints{Choice: []any{"approve", "refuse"}}},
			{Name: "note", Type: "string", Description: "Why, for the caller and the audit trail.",
				Constraints: tool.Constraints{Length: &tool.Bounds{Max: tool.Ptr(MaxNote)}}},
		},
		Outputs: []*tool.Definition{{Name: "status", Type: "string", Required: true, Description: "The task's status after the decision."}},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			id, note := in.String("task_id"), in.String("note")
			var tk *Task
			var err error
			if in.String("decision") == "refuse" {
				tk, err = m.Refuse(ctx, id, note)
			} else {
				tk, err = m.Approve(ctx, id, &ApproveOptions{Note: note})
			}
			var bad *BadApprovalError
			switch {
			case err == nil:
			case errors.Is(err, ErrNotFound):
				return nil, tool.InputErrorf("task_id", "no call of that ID waits for your approval")
			case errors.Is(err, ErrOwnCall):
				return nil, tool.InputErrorf("task_id", "the call is yours: another account approves it")
			case errors.Is(err, ErrNotAwaiting):
				return nil, tool.InputErrorf("task_id", "the call was decided or cancelled already")
			case errors.Is(err, ErrApprovalExpired):
				return nil, tool.InputErrorf("task_id", "the call waited too long: it has expired and will not run")
			case errors.As(err, &bad):
				return nil, tool.InputErrorf(bad.Field, "%s", bad.Reason)
			default:
				return nil, err
			}
			verb := "approved: it runs now"
			if tk.Status == Failed {
				verb = "refused: it will not run"
			}
			return tool.Succeeded(fmt.Sprintf("The call of %s by %s (task %s) is %s.", tk.Tool, tk.Account, tk.ID, verb),
				map[string]any{"status": string(tk.Status)}), nil
		},
	}
	return []*tool.Tool{list, decide}
}
