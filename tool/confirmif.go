package tool

import "context"

// MayConfirm reports whether a run of t may ask a person to confirm it:
// t is marked Confirm, or its ConfirmIf decides per run.
func (t *Tool) MayConfirm() bool { return t.Confirm || t.ConfirmIf != nil }

// NeedsConfirming reports whether the run of t with in, checked inputs
// whose entities are loaded, must be confirmed by a person, and the
// reason to show in the question ("" when there is none). A tool marked
// Confirm always asks; otherwise [Tool.ConfirmIf] decides, and a tool
// with neither never asks. The error is ConfirmIf's, for the log: the
// run fails without showing it.
func (t *Tool) NeedsConfirming(ctx context.Context, in *Values) (reason string, ask bool, err error) {
	if t.ConfirmIf != nil {
		reason, err = t.ConfirmIf(ctx, in)
		if err != nil {
			return "", false, err
		}
	}
	return reason, t.Confirm || reason != "", nil
}

// WithReason returns question, the question a [Confirmer] asks about a
// run, followed by the reason the run needs confirming, when there is
// one: `Run Delete (album.delete) with {"album":"a1"}? Reason: it has 12
// tracks.`
func WithReason(question, reason string) string {
	if reason == "" {
		return question
	}
	return question + " Reason: " + reason
}
