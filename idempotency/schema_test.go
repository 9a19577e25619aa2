package idempotency_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolapi/toolapi/funcall"
	"github.com/toolapi/toolapi/idempotency"
)

// TestKeyInFunctionCalling checks that the key is in the function-calling
// declarations of a write tool, and that a call dispatched twice with one
// key runs the tool once.
func TestKeyInFunctionCalling(t *testing.T) {
	f := newFixture(t, databases()["sqlite"](t), nil)
	ts := funcall.New(f.reg, alice)
	for _, format := range []funcall.Format{funcall.OpenAI, funcall.OpenAIStrict, funcall.Anthropic} {
		decl, err := ts.Declarations(format)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(decl)
		if !strings.Contains(string(b), `"`+idempotency.Input+`"`) {
			t.Errorf("%s declarations lack %s:\n%s", format, idempotency.Input, b)
		}
	}
	args := []byte(`{"item":"tea","idempotency_key":"fc-1"}`)
	first := ts.Dispatch(context.Background(), ts.Name("shop.order"), args)
	again := ts.Dispatch(context.Background(), ts.Name("shop.order"), args)
	a, _ := json.Marshal(first)
	b, _ := json.Marshal(again)
	if string(a) != string(b) || f.orders(t) != 1 {
		t.Errorf("two dispatches with one key: orders %d\n%s\n%s", f.orders(t), a, b)
	}
}
