package explorer

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/toolapi/toolapi/secrets"
	"github.com/toolapi/toolapi/tool"
)

// TestSecretPage: the page of a request for secret inputs asks its
// account, once signed in, for them as password fields, refuses a blank
// value naming the input, takes good values once, and is no page for
// anyone else or after use.
func TestSecretPage(t *testing.T) {
	desk := secrets.New("http://unused", nil)
	env := newTestEnv(t, &Options{Secrets: desk})
	link := &tool.Tool{ID: "bank.link", Label: "Link bank", Inputs: []*tool.Definition{
		{Name: "password", Label: "Bank password", Description: "The bank's password.", Type: "string", Required: true, Sensitive: true},
	}}
	req, err := desk.Open(tool.WithAccount(context.Background(), testUsers["alice"]), link, link.Inputs, "k")
	if err != nil {
		t.Fatal(err)
	}
	path := "/secrets/" + req.ID

	// Not signed in: sent to sign in, and back here after.
	anon := env.browser(t)
	if r := anon.get(path); !strings.Contains(r.body, `name="next" value="`+path+`"`) {
		t.Fatalf("GET %s before signing in = %d, want the sign-in page coming back here:\n%s", path, r.status, r.body)
	}
	// Another account: no such page.
	bob := env.browser(t)
	bob.signIn("bob")
	if r := bob.get(path); r.status != http.StatusNotFound || strings.Contains(r.body, "Bank password") {
		t.Fatalf("bob's GET = %d:\n%s", r.status, r.body)
	}
	if r := bob.post(path, url.Values{"secret-password": {"bob's"}}); r.status != http.StatusNotFound {
		t.Fatalf("bob's POST = %d", r.status)
	}

	alice := env.browser(t)
	alice.signIn("alice")
	r := alice.get(path)
	if r.status != http.StatusOK || !strings.Contains(r.body, `<input type="password" id="secret-password" name="secret-password" required`) ||
		!strings.Contains(r.body, "Bank password") || !strings.Contains(r.body, "The bank&#39;s password.") {
		t.Fatalf("alice's GET = %d:\n%s", r.status, r.body)
	}
	if r := alice.postRaw(path, url.Values{"secret-password": {"x"}}); r.status != http.StatusForbidden {
		t.Fatalf("a POST without the session's token = %d", r.status)
	}
	if r := alice.post(path, url.Values{"secret-password": {"   "}}); r.status != http.StatusUnprocessableEntity || !strings.Contains(r.body, "Bank password: is required.") {
		t.Fatalf("a blank password = %d:\n%s", r.status, r.body)
	}
	if r := alice.post(path, url.Values{"secret-password": {"hunter2"}}); r.status != http.StatusOK || !strings.Contains(r.body, `id="secret-done"`) || strings.Contains(r.body, "hunter2") {
		t.Fatalf("the password = %d:\n%s", r.status, r.body)
	}
	values, ok := desk.Take(req)
	if !ok || values["password"] != "hunter2" {
		t.Fatalf("the desk holds %v, %v", values, ok)
	}
	if r := alice.get(path); r.status != http.StatusNotFound {
		t.Fatalf("GET after use = %d", r.status)
	}
}

// TestSecretPageOff: without a desk there is no such page.
func TestSecretPageOff(t *testing.T) {
	env := newTestEnv(t, nil)
	b := env.browser(t)
	b.signIn("alice")
	if r := b.get("/secrets/abc"); r.status != http.StatusNotFound {
		t.Fatalf("GET = %d", r.status)
	}
}
