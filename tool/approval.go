package tool

import "context"

// NeedsApproval reports whether the run of t with in, checked inputs whose
// entities are loaded, must wait for the approval of an account holding
// t's [Tool.Approver] permission, and the reason to show the approver (""
// when there is none). A tool with no approver never needs approval; one
// with Confirm or ConfirmIf needs it for the runs those ask to confirm
// (see [Tool.NeedsConfirming], whose error this returns); one with
// neither, for every run.
func (t *Tool) NeedsApproval(ctx context.Context, in *Values) (reason string, need bool, err error) {
	if t.Approver == "" {
		return "", false, nil
	}
	if !t.MayConfirm() {
		return "", true, nil
	}
	return t.NeedsConfirming(ctx, in)
}

// MayApprove reports whether acct holds t's approver permission. Whether
// acct may approve a given run also depends on whose run it is: nobody
// approves their own (see package task).
func (t *Tool) MayApprove(acct Account) bool {
	if t.Approver == "" {
		return false
	}
	p, err := ParsePermission(t.Approver)
	return err == nil && len(p.Names) > 0 && p.allows(acct)
}

type approvalKey struct{}

// WithApproval returns ctx saying that the run it is given to was approved
// by the account approver (see [Tool.Approver]). Only the code that keeps
// approvals (package task, when a task's call was approved) gives it: a
// tool with an approver whose run needs approval runs only with it.
func WithApproval(ctx context.Context, approver string) context.Context {
	return context.WithValue(ctx, approvalKey{}, approver)
}

// ApprovalFrom returns the approver [WithApproval] put in ctx, and whether
// there is one.
func ApprovalFrom(ctx context.Context) (approver string, ok bool) {
	approver, ok = ctx.Value(approvalKey{}).(string)
	return approver, ok
}
