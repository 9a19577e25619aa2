package funcall_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolapi/toolapi/funcall"
	"github.com/toolapi/toolapi/tool"
)

// banker may use the bank.
var banker = &tool.User{ID: "banker", Permissions: []string{"bank"}}

// confirmRegistry holds a tool marked Confirm with sensitive inputs at
// several depths, and one that is not marked.
func confirmRegistry(t *testing.T) *tool.Registry {
	t.Helper()
	reg := tool.NewRegistry(nil)
	err := reg.Add(
		&tool.Tool{
			ID: "bank.transfer", Label: "Transfer", Description: "Transfers money.",
			Operation: tool.OpTrigger, Permission: "bank", Confirm: true,
			Inputs: []*tool.Definition{
				{Name: "to", Type: "string", Required: true},
				{Name: "pin", Type: "string", Sensitive: true},
				{Name: "card", Type: "map", Properties: []*tool.Definition{
					{Name: "holder", Type: "string"},
					{Name: "number", Type: "string", Sensitive: true},
				}},
				{Name: "codes", Type: "list", Items: &tool.Definition{Type: "string", Sensitive: true}},
				{Name: "notes", Type: "map", Values: &tool.Definition{Type: "string", Sensitive: true}},
			},
			Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
				return tool.Succeeded("Sent to "+in.String("to")+".", nil), nil
			},
		},
		&tool.Tool{
			ID: "bank.balance", Label: "Balance", Description: "Reads the balance.", Operation: tool.OpRead, Permission: "bank",
			Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) { return tool.Succeeded("", nil), nil },
		},
	)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

func TestConfirmation(t *testing.T) {
	set := funcall.New(confirmRegistry(t), banker)
	for _, tt := range []struct {
		name, args string
		want       *funcall.Confirmation
	}{
		{"bank__transfer", `{"to":"Ann","pin":"4711","card":{"holder":"Bo","number":"4111-1111"},"codes":["c-one","c-two"],"notes":{"a":"n-one"},"extra":1}`,
			&funcall.Confirmation{Tool: "bank__transfer", Label: "Transfer",
				Arguments: []byte(`{"card":{"holder":"Bo","number":"(hidden)"},"codes":["(hidden)","(hidden)"],"extra":1,"notes":{"a":"(hidden)"},"pin":"(hidden)","to":"Ann"}`),
				Message:   `Run Transfer (bank.transfer) with {"card":{"holder":"Bo","number":"(hidden)"},"codes":["(hidden)","(hidden)"],"extra":1,"notes":{"a":"(hidden)"},"pin":"(hidden)","to":"Ann"}?`}},
		// A sensitive input of the wrong type is hidden all the same.
		{"bank.transfer", `{"to":"Ann","pin":4711}`, &funcall.Confirmation{Tool: "bank.transfer", Label: "Transfer",
			Arguments: []byte(`{"pin":"(hidden)","to":"Ann"}`), Message: `Run Transfer (bank.transfer) with {"pin":"(hidden)","to":"Ann"}?`}},
		{"bank__transfer", `{}`, &funcall.Confirmation{Tool: "bank__transfer", Label: "Transfer",
			Arguments: []byte(`{}`), Message: "Run Transfer (bank.transfer)?"}},
		// Arguments that are not an object are not shown: the run refuses them.
		{"bank__transfer", `["4711"]`, &funcall.Confirmation{Tool: "bank__transfer", Label: "Transfer", Message: "Run Transfer (bank.transfer)?"}},
		{"bank__transfer", ``, &funcall.Confirmation{Tool: "bank__transfer", Label: "Transfer", Message: "Run Transfer (bank.transfer)?"}},
		{"bank__balance", `{}`, nil},
		{"bank__nothing", `{}`, nil},
	} {
		got := set.Confirmation(tt.name, []byte(tt.args))
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Confirmation(%s, %s) (-want +got):\n%s", tt.name, tt.args, diff)
		}
		if got != nil {
			for _, secret := range []string{"4711", "4111", "c-one", "n-one"} {
				if strings.Contains(got.Message, secret) || strings.Contains(string(got.Arguments), secret) {
					t.Errorf("Confirmation(%s, %s) shows %s: %+v", tt.name, tt.args, secret, got)
				}
			}
		}
	}
}

// denying is a Confirmer that refuses every run.
type denying struct{}

func (denying) Confirm(context.Context, *tool.Tool, string) (bool, error) { return false, nil }

func TestWithConfirmer(t *testing.T) {
	set := funcall.New(confirmRegistry(t), banker)
	ctx := context.Background()
	args := []byte(`{"to":"Ann"}`)
	for _, tt := range []struct {
		what string
		set  *funcall.Toolset
		ctx  context.Context
		want *funcall.Response
	}{
		{"no confirmer", set, ctx, &funcall.Response{ErrorType: funcall.AccessDenied,
			Message: "Transfer runs only when a person confirms it, and this caller cannot ask for confirmation."}},
		{"yes", set.WithConfirmer(funcall.Answer(true)), ctx, &funcall.Response{Success: true, Message: "Sent to Ann.", Outputs: map[string]any{}}},
		{"no", set.WithConfirmer(funcall.Answer(false)), ctx, &funcall.Response{ErrorType: funcall.AccessDenied,
			Message: "Transfer was not confirmed, so it did not run."}},
		{"the context's", set, tool.WithConfirmer(ctx, tool.Confirmed), &funcall.Response{Success: true, Message: "Sent to Ann.", Outputs: map[string]any{}}},
		{"the toolset's over the context's", set.WithConfirmer(denying{}), tool.WithConfirmer(ctx, tool.Confirmed), &funcall.Response{ErrorType: funcall.AccessDenied,
			Message: "Transfer was not confirmed, so it did not run."}},
		{"nil leaves the context's", set.WithConfirmer(nil), tool.WithConfirmer(ctx, tool.Confirmed), &funcall.Response{Success: true, Message: "Sent to Ann.", Outputs: map[string]any{}}},
	} {
		if diff := cmp.Diff(tt.want, tt.set.Dispatch(tt.ctx, "bank__transfer", args)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.what, diff)
		}
	}
	if set.Confirmer() != nil {
		t.Errorf("WithConfirmer changed the Toolset it was called on")
	}
	if c := set.WithConfirmer(tool.Confirmed).Confirmer(); c != tool.Confirmed {
		t.Errorf("Confirmer() = %v, want tool.Confirmed", c)
	}
}
