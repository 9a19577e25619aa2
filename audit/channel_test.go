package audit_test

import (
	"context"
	"testing"

	"github.com/toolapi/toolapi/funcall"
	"github.com/toolapi/toolapi/tool"
)

// TestFuncallChannel checks that a run dispatched by function calling is
// recorded with the channel funcall and the call ID its caller set.
func TestFuncallChannel(t *testing.T) {
	store := newSQLite(t)
	f := newFixture(t, store)
	ts := funcall.New(f.reg, admin)
	ctx := tool.WithCaller(context.Background(), tool.Caller{CallID: "call_abc", Agent: "planner"})
	if r := ts.Dispatch(ctx, ts.Name("site.publish"), []byte(`{"note":"x"}`)); r == nil {
		t.Fatal("no response")
	}
	recs, err := store.List(context.Background(), nil)
	if err != nil || len(recs) != 1 {
		t.Fatalf("records: %v, %v", recs, err)
	}
	if r := recs[0]; r.Channel != "funcall" || r.CallID != "call_abc" || r.Agent != "planner" || r.Account != "admin" {
		t.Errorf("record: %+v", r)
	}
	if b, err := store.Verify(context.Background()); b != nil || err != nil {
		t.Errorf("Verify = %v, %v", b, err)
	}
}
