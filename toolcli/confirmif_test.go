package toolcli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/toolapi/toolapi/tool"
	"github.com/toolapi/toolapi/toolcli"
)

// A tool whose ConfirmIf picks a run asks at the prompt with the reason
// above it; a run it does not pick asks nothing; a picked run with no one
// to ask is refused.
func TestConfirmIf(t *testing.T) {
	reg := newRegistry(t)
	refund := &tool.Tool{
		ID: "demo.refund", Label: "Refund", Description: "Refunds an order.",
		Operation: tool.OpWrite, Destructive: tool.Ptr(false), Permission: "see secrets",
		Inputs: []*tool.Definition{{Name: "amount", Type: "integer", Required: true}},
		ConfirmIf: func(_ context.Context, in *tool.Values) (string, error) {
			if n := in.Int("amount"); n > 100 {
				return fmt.Sprintf("%d is over 100.\x1b[2J", n), nil
			}
			return "", nil
		},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			return tool.Succeeded("Refunded.", nil), nil
		},
	}
	if err := reg.Add(refund); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		amount    int
		stdin     io.Reader
		errorType string // "" means success
		prompt    bool
	}{
		{name: "small: no question", amount: 50, stdin: strings.NewReader("n\n")},
		{name: "small, no one to ask", amount: 50},
		{name: "large, yes", amount: 150, stdin: strings.NewReader("y\n"), prompt: true},
		{name: "large, no", amount: 150, stdin: strings.NewReader("n\n"), prompt: true, errorType: "access_denied"},
		{name: "large, no one to ask", amount: 150, errorType: "access_denied"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := &toolcli.Options{Name: "app tool", Accounts: lookUp, Stdin: tt.stdin}
			code, out, errOut := call(t, reg, opts, "run", "demo.refund", "--json", "--user", "admin", "--input", fmt.Sprintf("amount=%d", tt.amount))
			var r result
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatalf("stdout %q: %v", out, err)
			}
			if r.Success != (tt.errorType == "") || (code == 0) != r.Success || r.ErrorType != tt.errorType {
				t.Errorf("success %v, exit status %d, error_type %q; want error_type %q (message %q)", r.Success, code, r.ErrorType, tt.errorType, r.Message)
			}
			// The reason is printed above the prompt, control characters
			// shown as "?".
			want := "Reason: 150 is over 100.?[2J\nRun Refund? [y/N] "
			if got := strings.Contains(errOut, want); got != tt.prompt {
				t.Errorf("prompted with the reason %v, want %v; stderr:\n%s", got, tt.prompt, errOut)
			}
			if !tt.prompt && strings.Contains(errOut, "[y/N]") {
				t.Errorf("prompted; stderr:\n%s", errOut)
			}
		})
	}
}

// A destructive tool with a confirm method asks once, before it runs, and
// that question carries the method's reason.
func TestConfirmIfDestructive(t *testing.T) {
	reg := newRegistry(t)
	if err := reg.Add(&tool.Tool{
		ID: "demo.wipe", Label: "Wipe", Description: "Wipes an order.",
		Operation: tool.OpWrite, Permission: "see secrets",
		Inputs: []*tool.Definition{{Name: "amount", Type: "integer", Required: true}},
		ConfirmIf: func(_ context.Context, in *tool.Values) (string, error) {
			if n := in.Int("amount"); n > 100 {
				return fmt.Sprintf("%d is over 100.", n), nil
			}
			return "", nil
		},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			return tool.Succeeded("Wiped.", nil), nil
		},
	}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		amount int
		reason bool
	}{{150, true}, {50, false}} {
		opts := &toolcli.Options{Name: "app tool", Accounts: lookUp, Stdin: strings.NewReader("y\n")}
		code, _, errOut := call(t, reg, opts, "run", "demo.wipe", "--user", "admin", "--input", fmt.Sprintf("amount=%d", c.amount))
		if code != 0 || strings.Count(errOut, "[y/N]") != 1 {
			t.Errorf("amount %d: exit %d, want one question; stderr:\n%s", c.amount, code, errOut)
		}
		if got := strings.Contains(errOut, "Reason: 150 is over 100.\nRun Wipe? [y/N] "); got != c.reason {
			t.Errorf("amount %d: the question carries the reason: %v, want %v; stderr:\n%s", c.amount, got, c.reason, errOut)
		}
	}
}
