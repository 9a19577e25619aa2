package funcall_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolapi/toolapi/funcall"
	"github.com/toolapi/toolapi/tool"
)

// recording is a Confirmer that says yes and keeps the questions.
type recording struct{ questions []string }

func (r *recording) Confirm(_ context.Context, _ *tool.Tool, q string) (bool, error) {
	r.questions = append(r.questions, q)
	return true, nil
}

// A tool whose ConfirmIf picks only some calls: Confirmation describes
// those, with the reason, and nil for the others, for the Toolset's
// account; a run asks the Confirmer the same question, reason included.
func TestConfirmIf(t *testing.T) {
	reg := tool.NewRegistry(nil)
	var ran int
	err := reg.Add(&tool.Tool{
		ID: "bank.pay", Label: "Pay", Description: "Pays someone.", Operation: tool.OpTrigger, Permission: "bank",
		Inputs: []*tool.Definition{{Name: "amount", Type: "integer", Required: true}, {Name: "pin", Type: "string", Sensitive: true}},
		ConfirmIf: func(ctx context.Context, in *tool.Values) (string, error) {
			if n := in.Int("amount"); n > 100 && tool.AccountFrom(ctx).AccountID() == "banker" {
				return fmt.Sprintf("%d is over 100.", n), nil
			}
			return "", nil
		},
		Handler: func(context.Context, *tool.Values) (*tool.Result, error) {
			ran++
			return tool.Succeeded("Paid.", nil), nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	set := funcall.New(reg, banker)
	for _, tt := range []struct {
		args string
		want *funcall.Confirmation
	}{
		{`{"amount":50}`, nil},
		{`{"amount":"lots"}`, nil}, // the run refuses it before asking
		{`{"amount":150,"pin":"1234"}`, &funcall.Confirmation{Tool: "bank__pay", Label: "Pay",
			Arguments: []byte(`{"amount":150,"pin":"(hidden)"}`), Reason: "150 is over 100.",
			Message: `Run Pay (bank.pay) with {"amount":150,"pin":"(hidden)"}? Reason: 150 is over 100.`}},
	} {
		got := set.Confirmation("bank__pay", []byte(tt.args))
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Confirmation(%s) (-want +got):\n%s", tt.args, diff)
		}
	}
	// Another account's calls are not picked (ConfirmIf sees the Toolset's
	// account).
	if c := funcall.New(reg, &tool.User{ID: "clerk", Permissions: []string{"bank"}}).Confirmation("bank__pay", []byte(`{"amount":150}`)); c != nil {
		t.Errorf("the clerk's call: %+v, want nil", c)
	}

	r := &recording{}
	ctx := context.Background()
	for _, args := range []string{`{"amount":50}`, `{"amount":150,"pin":"1234"}`} {
		if resp := set.WithConfirmer(r).Dispatch(ctx, "bank__pay", []byte(args)); !resp.Success {
			t.Errorf("%s: %+v", args, resp)
		}
	}
	want := []string{`Run Pay (bank.pay) with {"amount":150}? Reason: 150 is over 100.`}
	if diff := cmp.Diff(want, r.questions); diff != "" {
		t.Errorf("questions (-want +got):\n%s", diff)
	}
	if resp := set.Dispatch(ctx, "bank__pay", []byte(`{"amount":150}`)); resp.Success || resp.ErrorType != funcall.AccessDenied {
		t.Errorf("a picked call without a Confirmer: %+v", resp)
	}
	if ran != 2 {
		t.Errorf("ran %d times, want 2", ran)
	}
}
