package explorer

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/toolapi/toolapi/tool"
)

// login takes a secret and repeats it in an output.
func login() *tool.Tool {
	return &tool.Tool{
		ID: "demo.login", Label: "Log in", Description: "Checks a token.", Operation: tool.OpRead, Permission: "use demo",
		Inputs: []*tool.Definition{
			{Name: "user", Type: "string", Required: true},
			{Name: "token", Type: "string", Required: true, Sensitive: true},
		},
		Outputs: []*tool.Definition{{Name: "echo", Type: "string", Required: true}},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			return tool.Succeeded("", map[string]any{"echo": in.String("user") + " holds " + in.String("token")}), nil
		},
	}
}

// TestSensitive: a sensitive input is a password field that never shows
// its value back, and is kept in no preset and no run; an output
// repeating it is masked.
func TestSensitive(t *testing.T) {
	env := newTestEnv(t, nil)
	if err := env.reg.Add(login()); err != nil {
		t.Fatal(err)
	}
	b := env.browser(t)
	b.signIn("alice")
	page := b.get("/tools/demo.login").body
	if !strings.Contains(page, `<input type="password" id="f-token" name="in:token" value="" autocomplete="off"`) {
		t.Errorf("the secret's field:\n%s", between(page, `id="f-token"`, ">"))
	}
	r := b.post("/tools/demo.login", url.Values{"action": {"run"}, "in:user": {"ann"}, "in:token": {"s3cret-value"}})
	if strings.Contains(r.body, "s3cret-value") {
		t.Error("the page after the run shows the secret")
	}
	if !strings.Contains(r.body, masked) {
		t.Error("the output repeating the secret is not shown masked")
	}
	runs, _ := env.exp.runs.Runs(context.Background(), "alice", "demo.login", 10)
	if len(runs) != 1 {
		t.Fatalf("%d runs kept, want 1", len(runs))
	}
	var inputs map[string]any
	json.Unmarshal(runs[0].Inputs, &inputs)
	if _, ok := inputs["token"]; ok || inputs["user"] != "ann" || strings.Contains(string(runs[0].Outcome), "s3cret") {
		t.Errorf("the run kept %s and %s", runs[0].Inputs, runs[0].Outcome)
	}
	b.post("/tools/demo.login", url.Values{"action": {"save"}, "preset_name": {"p"}, "in:user": {"ann"}, "in:token": {"s3cret-value"}})
	p, err := env.presets.Preset(context.Background(), "alice", "demo.login", "p")
	if err != nil || string(p.Values) != `{"user":"ann"}` {
		t.Errorf("the preset holds %s (%v), want the user only", p.Values, err)
	}
}

// A sensitive input with choices shows back neither the choice made nor
// a rejected value, after a run that failed on the value or on another
// input, in the page and in the JSON shown beside it.
func TestSensitiveChoiceNotShownBack(t *testing.T) {
	env := newTestEnv(t, nil)
	err := env.reg.Add(&tool.Tool{
		ID: "demo.unlock", Label: "Unlock", Description: "Unlocks a vault.", Operation: tool.OpRead, Permission: "use demo",
		Inputs: []*tool.Definition{
			{Name: "vault", Type: "integer", Required: true},
			{Name: "pin", Type: "string", Required: true, Sensitive: true, Constraints: tool.Constraints{Choice: []any{"pin-alpha", "pin-bravo"}}},
		},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			return tool.Succeeded("Unlocked.", nil), nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	b := env.browser(t)
	b.signIn("alice")
	for _, pin := range []string{"hunter2-secret", "pin-bravo"} {
		// vault is no number, so the run fails and the form is shown
		// again with what was typed.
		r := b.post("/tools/demo.unlock", url.Values{"action": {"run"}, "in:vault": {"v"}, "in:pin": {pin}})
		shown := strings.Contains(r.body, `value="`+pin+`" selected`)
		if pin == "hunter2-secret" {
			shown = strings.Contains(r.body, pin) // no choice: any mention
		}
		if shown {
			t.Errorf("the page after a failed run shows the secret %q back:\n%s", pin, between(r.body, `id="f-pin"`, "</select>"))
		}
		if !strings.Contains(r.body, "pin-alpha") {
			t.Errorf("the page after a failed run lost the choices of pin")
		}
	}
}
