package funcall_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolapi/toolapi/funcall"
	"github.com/toolapi/toolapi/tool"
)

// The reply to a call of a tool that fails with tool.Failed carries the
// outputs the tool returned, so the model learns what was done.
func TestDispatchFailureOutputs(t *testing.T) {
	reg := tool.NewRegistry(&tool.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	err := reg.Add(&tool.Tool{
		ID: "mail.send", Label: "Send", Description: "Sends a mail to each address; stops at the first it cannot reach.",
		Operation: tool.OpTransform,
		Access:    func(context.Context, *tool.Values) (bool, error) { return true, nil },
		Inputs:    []*tool.Definition{{Name: "to", Type: "list", Required: true, Items: &tool.Definition{Type: "string"}}},
		Outputs: []*tool.Definition{
			{Name: "sent", Type: "list", Required: true, Items: &tool.Definition{Type: "string"}},
			{Name: "unreachable", Type: "string"},
		},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			sent := []any{}
			for _, to := range tool.ListOf[string](in.Get("to")) {
				if to == "nobody@invalid" {
					return tool.Failed("Mail to "+to+" could not be delivered.", map[string]any{"sent": sent, "unreachable": to}), nil
				}
				sent = append(sent, to)
			}
			return tool.Succeeded("", map[string]any{"sent": sent}), nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	set := funcall.New(reg, tool.Anonymous)
	tests := []struct {
		name string
		args string
		want string
	}{
		{
			name: "failure with outputs",
			args: `{"to":["ada@example.com","nobody@invalid","grace@example.com"]}`,
			want: `{"success":false,"message":"Mail to nobody@invalid could not be delivered.",` +
				`"outputs":{"sent":["ada@example.com"],"unreachable":"nobody@invalid"},"error_type":"execution_failed"}`,
		},
		{
			name: "success",
			args: `{"to":["ada@example.com"]}`,
			want: `{"success":true,"message":"Send completed.","outputs":{"sent":["ada@example.com"]}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := set.Dispatch(context.Background(), "mail__send", []byte(tt.args))
			got, err := json.Marshal(resp)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("reply (-want +got):\n%s", diff)
			}
		})
	}
}
