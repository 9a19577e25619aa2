package mcpserver_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolapi/toolapi/mcpserver"
	"github.com/toolapi/toolapi/tool"
)

// TestConfirmIf checks that a tool whose ConfirmIf picks a call asks the
// client's person with the reason in the question, on a client before
// 2026-07-28 (an elicitation request) and on one from it (an input
// request the client answers by calling again), and that a call it does
// not pick runs without asking.
func TestConfirmIf(t *testing.T) {
	reg := tool.NewRegistry(&tool.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	var ran atomic.Int32
	err := reg.Add(&tool.Tool{
		ID: "shop.refund", Label: "Refund", Description: "Refunds an order.",
		Operation: tool.OpWrite, Permission: "administer",
		Inputs: []*tool.Definition{{Name: "amount", Type: "integer", Required: true}},
		ConfirmIf: func(_ context.Context, in *tool.Values) (string, error) {
			if n := in.Int("amount"); n > 100 {
				return fmt.Sprintf("%d is over 100.", n), nil
			}
			return "", nil
		},
		Handler: func(context.Context, *tool.Values) (*tool.Result, error) {
			ran.Add(1)
			return tool.Succeeded("Refunded.", nil), nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := mcpserver.New(reg, nil)
	for _, version := range []string{legacy, latest} {
		t.Run(version, func(t *testing.T) {
			ran.Store(0)
			var asked []string
			cs := connectVersion(t, srv, admin, &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				asked = append(asked, r.Params.Message)
				return &mcp.ElicitResult{Action: "accept"}, nil
			}}, version)
			for _, amount := range []int{50, 150} {
				if res := callTool(t, cs, "shop.refund", map[string]any{"amount": amount}); res.IsError || texts(res)[0] != "Refunded." {
					t.Errorf("amount %d: %s", amount, mustJSON(t, res))
				}
			}
			want := `Run Refund (shop.refund) with {"amount":150}? Reason: 150 is over 100.`
			if len(asked) != 1 || asked[0] != want {
				t.Errorf("asked %q, want only %q", asked, want)
			}
			if ran.Load() != 2 {
				t.Errorf("ran %d times, want 2", ran.Load())
			}

			// A client that cannot ask runs what ConfirmIf does not pick
			// and is refused the rest.
			ran.Store(0)
			plain := connectVersion(t, srv, admin, nil, version)
			if res := callTool(t, plain, "shop.refund", map[string]any{"amount": 50}); res.IsError {
				t.Errorf("amount 50 without elicitation: %s", mustJSON(t, res))
			}
			res := callTool(t, plain, "shop.refund", map[string]any{"amount": 150})
			if want := "Refund runs only when a person confirms it, and this caller cannot ask for confirmation."; !res.IsError || texts(res)[0] != want {
				t.Errorf("amount 150 without elicitation: %s, want the error %q", mustJSON(t, res), want)
			}
			if ran.Load() != 1 {
				t.Errorf("ran %d times, want 1", ran.Load())
			}
		})
	}
}
