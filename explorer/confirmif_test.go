package explorer

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/toolapi/toolapi/tool"
)

// TestConditionalConfirmation: a tool whose ConfirmIf decides runs from
// the form without the box when its check picks nothing; a run the check
// picks is held back with the check's reason, and runs once the box is
// ticked. A run the check picks after all when the box was not ticked is
// refused, not confirmed on the person's behalf.
func TestConditionalConfirmation(t *testing.T) {
	env := newTestEnv(t, nil)
	var runs, checks atomic.Int32
	var late atomic.Bool // the check picks from its second call on: it changed its mind between the form's check and the run
	undoable := false
	err := env.reg.Add(&tool.Tool{
		ID: "demo.refund", Label: "Refund", Description: "Refunds an amount.", Operation: tool.OpWrite, Permission: "use demo",
		Destructive: &undoable,
		Inputs:      []*tool.Definition{{Name: "amount", Type: "integer", Required: true}},
		ConfirmIf: func(_ context.Context, in *tool.Values) (string, error) {
			n := in.Int("amount")
			if n > 100 || (late.Load() && checks.Add(1) > 1) {
				return fmt.Sprintf("%d is over 100.", n), nil
			}
			return "", nil
		},
		Handler: func(context.Context, *tool.Values) (*tool.Result, error) {
			runs.Add(1)
			return tool.Succeeded("Refunded.", nil), nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	b := env.browser(t)
	b.signIn("alice")
	if page := b.get("/tools/demo.refund").body; !strings.Contains(page, `name="confirm"`) {
		t.Fatalf("the form has no confirmation box:\n%s", between(page, "<form", "</form>"))
	}

	r := b.post("/tools/demo.refund", url.Values{"action": {"run"}, "in:amount": {"50"}})
	if r.status != http.StatusOK || runs.Load() != 1 || !strings.Contains(r.body, "Refunded.") {
		t.Fatalf("a refund of 50 without the box: status %d, %d runs:\n%s", r.status, runs.Load(), between(r.body, "<main", "</form>"))
	}
	r = b.post("/tools/demo.refund", url.Values{"action": {"run"}, "in:amount": {"150"}})
	if r.status != http.StatusUnprocessableEntity || runs.Load() != 1 || !strings.Contains(r.body, "This run needs your confirmation: 150 is over 100. Tick the box") {
		t.Fatalf("a refund of 150 without the box: status %d, %d runs:\n%s", r.status, runs.Load(), between(r.body, "<main", "</form>"))
	}
	r = b.post("/tools/demo.refund", url.Values{"action": {"run"}, "in:amount": {"150"}, "confirm": {"yes"}})
	if r.status != http.StatusOK || runs.Load() != 2 {
		t.Fatalf("a refund of 150 with the box: status %d, %d runs", r.status, runs.Load())
	}

	// The form's check lets the run go without the box, the run's own
	// check picks it: the run is refused, not confirmed for the person.
	late.Store(true)
	r = b.post("/tools/demo.refund", url.Values{"action": {"run"}, "in:amount": {"20"}})
	if runs.Load() != 2 || checks.Load() < 2 || strings.Contains(r.body, "Refunded.") {
		t.Errorf("a refund the run's check picks, without the box: status %d, %d runs, %d checks; want it refused", r.status, runs.Load(), checks.Load())
	}
}
