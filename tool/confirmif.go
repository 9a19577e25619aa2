package tool

import (
	"context"
	"fmt"
)

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

type reasonKey struct{}

// ConfirmReason returns the reason the run a [Confirmer] is asked about
// needs confirming, as [Tool.ConfirmIf] gave it, from the context the
// Confirmer is asked with; "" when there is none. The question a
// Confirmer is given already ends with it; a Confirmer that words its own
// question shows it from here.
func ConfirmReason(ctx context.Context) string {
	r, _ := ctx.Value(reasonKey{}).(string)
	return r
}

// WithConfirmReason returns ctx carrying reason for [ConfirmReason]: the
// context a Confirmer is asked with about a run that needs confirming.
func WithConfirmReason(ctx context.Context, reason string) context.Context {
	if reason == "" {
		return ctx
	}
	return context.WithValue(ctx, reasonKey{}, reason)
}

// NeedsConfirmingJSON reports whether a run of the tool id with args, a
// JSON object, under ctx's account, would ask a person to confirm it, and
// the reason it would show, deciding as the run does (see
// [Tool.NeedsConfirming]). A caller that must ask before it runs the tool
// (an agent framework that pauses for a person) asks here first. Arguments
// the run would refuse before asking (bad inputs, an entity the account
// may not use, an access method's no, an account that is blocked) ask nothing: the run refuses
// them. The error is [ErrNotFound] when the account cannot reach the
// tool, or ConfirmIf's, for the log.
func (r *Registry) NeedsConfirmingJSON(ctx context.Context, id string, args []byte) (reason string, ask bool, err error) {
	return r.needsConfirming(ctx, id, arguments{doc: args, isDoc: true})
}

// NeedsConfirming is [Registry.NeedsConfirmingJSON] with arguments by
// input name, as [Registry.Run] takes them (JSON values or [Text]).
func (r *Registry) NeedsConfirming(ctx context.Context, id string, args map[string]any) (reason string, ask bool, err error) {
	return r.needsConfirming(ctx, id, arguments{tree: args})
}

func (r *Registry) needsConfirming(ctx context.Context, id string, args arguments) (reason string, ask bool, err error) {
	e, err := r.entryFor(ctx, id)
	if err != nil {
		return "", false, err
	}
	t := e.tool
	if t.ConfirmIf == nil {
		return "", t.Confirm, nil
	}
	defer func() {
		if v := recover(); v != nil {
			reason, ask, err = "", false, fmt.Errorf("%s: confirmation check panicked: %v", t.ID, v)
		}
	}()
	acct := AccountFrom(ctx)
	if acct.Blocked() {
		return "", false, nil
	}
	in, vs := r.decode(ctx, e, args)
	if len(vs) > 0 || in == nil {
		return "", false, nil
	}
	var loadVs violations
	if res := r.loadEntities(ctx, e, acct, in, false, &loadVs); res != nil || !loadVs.empty() {
		return "", false, nil
	}
	if t.Access != nil {
		if ok, err := t.Access(ctx, in); err != nil || !ok {
			return "", false, nil
		}
	}
	return t.NeedsConfirming(ctx, in)
}
