package funcall_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolapi/toolapi/funcall"
	"github.com/toolapi/toolapi/secrets"
	"github.com/toolapi/toolapi/tool"
)

// TestSecretsOutOfBand: a model's call that leaves out the password gets
// an invalid_input response with the page's link; once the person entered
// it there, the same call runs with it. The declarations ask the model to
// leave it out, and a strict format's null means left out.
func TestSecretsOutOfBand(t *testing.T) {
	reg := tool.NewRegistry(nil)
	var got []string
	err := reg.Add(&tool.Tool{
		ID: "bank.link", Label: "Link bank", Description: "Links a bank account.", Operation: tool.OpWrite, Permission: "bank",
		Inputs: []*tool.Definition{
			{Name: "user", Type: "string", Required: true},
			{Name: "password", Label: "Bank password", Type: "string", Required: true, Sensitive: true},
		},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			got = append(got, in.String("password"))
			return tool.Succeeded("Linked.", nil), nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	desk := secrets.New("https://bank.example.com", nil)
	plain := funcall.New(reg, banker)
	set := plain.WithSecrets(desk)

	decl, err := set.Declarations(funcall.OpenAI)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(decl)
	if !strings.Contains(string(b), `"required":["user"]`) || !strings.Contains(string(b), tool.SecretNote) {
		t.Fatalf("declarations %s: want password left out of required, with the note", b)
	}
	if b, _ := json.Marshal(mustDecl(t, plain)); strings.Contains(string(b), tool.SecretNote) || strings.Contains(string(b), `"required":["user"]`) {
		t.Fatalf("a Toolset without WithSecrets declares the note: %s", b)
	}

	// Without the desk, the password is simply required.
	if r := plain.Dispatch(context.Background(), "bank__link", []byte(`{"user":"ann"}`)); r.Success || r.Secret != nil || r.ErrorType != funcall.InvalidInput {
		t.Fatalf("without secrets: %+v", r)
	}

	r := set.DispatchFormat(context.Background(), funcall.OpenAIStrict, "bank__link", []byte(`{"user":"ann","password":null}`))
	if r.Success || r.ErrorType != funcall.InvalidInput || r.Secret == nil || !strings.HasPrefix(r.Secret.URL, "https://bank.example.com/secrets/") ||
		!strings.Contains(r.Message, r.Secret.URL) || len(got) != 0 {
		t.Fatalf("first call: %+v, want invalid_input with the link", r)
	}
	id := r.Secret.URL[strings.LastIndex(r.Secret.URL, "/")+1:]
	if err := desk.Answer(banker, id, map[string]string{"password": "hunter2"}); err != nil {
		t.Fatal(err)
	}
	r = set.Dispatch(context.Background(), "bank__link", []byte(`{ "user" : "ann" }`))
	if !r.Success || len(got) != 1 || got[0] != "hunter2" {
		t.Fatalf("second call: %+v, ran with %q", r, got)
	}
	b, _ = json.Marshal(r)
	if strings.Contains(string(b), "hunter2") {
		t.Fatalf("the response repeats the password: %s", b)
	}
}

func mustDecl(t *testing.T, s *funcall.Toolset) any {
	t.Helper()
	d, err := s.Declarations(funcall.OpenAI)
	if err != nil {
		t.Fatal(err)
	}
	return d
}
