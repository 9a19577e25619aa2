package tool

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// refundTool returns a tool whose ConfirmIf asks for refunds over 100 and
// for an album someone else owns, counting its runs in ran.
func refundTool(ran *int, always bool) *Tool {
	return &Tool{ID: "t.refund", Label: "Refund", Description: "Refunds an order.", Permission: "p", Confirm: always,
		Inputs: []*Definition{
			{Name: "amount", Type: "integer", Required: true},
			{Name: "album", Type: "entity:album", EntityOp: "view"},
		},
		ConfirmIf: func(_ context.Context, in *Values) (string, error) {
			if a, ok := in.Get("album").(*album); ok && a.owner != "editor" {
				return "the album " + a.title + " belongs to " + a.owner + ".", nil
			}
			switch n := in.Int("amount"); {
			case n < 0:
				return "", errors.New("ledger: connection refused")
			case n > 100:
				return fmt.Sprintf("%d is over 100.", n), nil
			}
			return "", nil
		},
		Handler: func(context.Context, *Values) (*Result, error) { *ran++; return nil, nil }}
}

// TestConfirmIf checks that ConfirmIf asks only for the runs it picks,
// with its reason in the question, sees the loaded entities, and that its
// error fails the run without its text reaching the caller.
func TestConfirmIf(t *testing.T) {
	var ran int
	var log bytes.Buffer
	r := NewRegistry(&Options{Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if err := r.AddEntityType(albumType(nil)); err != nil {
		t.Fatal(err)
	}
	if err := r.Add(refundTool(&ran, false)); err != nil {
		t.Fatal(err)
	}
	ctx := WithAccount(context.Background(), editor)

	// Under the bound, with no Confirmer at all: the run goes ahead.
	if res, _ := r.RunJSON(ctx, "t.refund", []byte(`{"amount":50}`)); !res.Success || ran != 1 {
		t.Fatalf("a run ConfirmIf does not pick: %+v, ran %d", res, ran)
	}
	// Over it without a Confirmer: refused, not run.
	if res, _ := r.RunJSON(ctx, "t.refund", []byte(`{"amount":150}`)); res.Failure != FailureAccess || !strings.Contains(res.Message, "confirm") || ran != 1 {
		t.Fatalf("a picked run without a Confirmer: %+v, ran %d", res, ran)
	}
	// Declined: not run.
	if res, _ := r.RunJSON(WithConfirmer(ctx, confirmFunc(false)), "t.refund", []byte(`{"amount":150}`)); res.Failure != FailureAccess || ran != 1 {
		t.Fatalf("a declined run: %+v, ran %d", res, ran)
	}
	a := &asking{}
	actx := WithConfirmer(ctx, a)
	for _, args := range []string{`{"amount":50}`, `{"amount":150}`, `{"amount":5,"album":"2"}`, `{"amount":5,"album":"1"}`} {
		if res, _ := r.RunJSON(actx, "t.refund", []byte(args)); !res.Success {
			t.Fatalf("%s: %+v", args, res)
		}
	}
	want := []string{
		`Run Refund (t.refund) with {"amount":150}? Reason: 150 is over 100.`,
		`Run Refund (t.refund) with {"album":"2","amount":5}? Reason: the album Theirs belongs to other.`,
	}
	if diff := cmp.Diff(want, a.questions); diff != "" {
		t.Errorf("questions (-want +got):\n%s", diff)
	}
	if ran != 5 {
		t.Errorf("ran %d times, want 5", ran)
	}

	// An error: a runtime failure whose text stays in the log.
	res, _ := r.RunJSON(actx, "t.refund", []byte(`{"amount":-1}`))
	if res.Failure != FailureRuntime || res.Message != "Refund failed." || ran != 5 {
		t.Errorf("ConfirmIf's error: %+v, ran %d", res, ran)
	}
	if !strings.Contains(log.String(), "ledger: connection refused") {
		t.Errorf("the log does not hold ConfirmIf's error:\n%s", log.String())
	}
}

// TestConfirmAndConfirmIf checks that Confirm asks for every run when
// ConfirmIf is set too, with ConfirmIf's reason when it gives one.
func TestConfirmAndConfirmIf(t *testing.T) {
	var ran int
	r := newQuietRegistry()
	if err := r.AddEntityType(albumType(nil)); err != nil {
		t.Fatal(err)
	}
	tl := refundTool(&ran, true)
	if err := r.Add(tl); err != nil {
		t.Fatal(err)
	}
	if !tl.MayConfirm() || (&Tool{}).MayConfirm() || !(&Tool{ConfirmIf: tl.ConfirmIf}).MayConfirm() {
		t.Errorf("MayConfirm is wrong")
	}
	a := &asking{}
	ctx := WithConfirmer(WithAccount(context.Background(), editor), a)
	for _, args := range []string{`{"amount":50}`, `{"amount":150}`} {
		if res, _ := r.RunJSON(ctx, "t.refund", []byte(args)); !res.Success {
			t.Fatalf("%s: %+v", args, res)
		}
	}
	want := []string{
		`Run Refund (t.refund) with {"amount":50}?`,
		`Run Refund (t.refund) with {"amount":150}? Reason: 150 is over 100.`,
	}
	if diff := cmp.Diff(want, a.questions); diff != "" {
		t.Errorf("questions (-want +got):\n%s", diff)
	}
}
