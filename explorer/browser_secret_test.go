package explorer

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/toolapi/toolapi/internal/testenv"
	"github.com/toolapi/toolapi/secrets"
	"github.com/toolapi/toolapi/tool"
)

// TestBrowserSecret walks the page where a person enters the secret input
// their assistant's call left out, in chromium at a desktop and at a
// phone's size: the link sends them to sign in and back, a blank value is
// named, and the value entered reaches the desk, never the page. Every
// state is checked with axe-core and for sideways scrolling.
func TestBrowserSecret(t *testing.T) {
	testenv.NeedFull(t)
	axe := axeScript(t)
	link := &tool.Tool{ID: "bank.link", Label: "Link bank", Inputs: []*tool.Definition{
		{Name: "password", Label: "Bank password", Description: "The password of your online bank.", Type: "string", Required: true, Sensitive: true},
	}}
	for _, vp := range viewports {
		t.Run(vp.name, func(t *testing.T) {
			desk := secrets.New("http://unused", nil)
			env := newTestEnv(t, &Options{Secrets: desk})
			req, err := desk.Open(tool.WithAccount(context.Background(), testUsers["alice"]), link, link.Inputs, "k")
			if err != nil {
				t.Fatal(err)
			}
			p := newPeople(t, vp, axe)
			page := env.srv.URL + "/secrets/" + req.ID
			p.do("following the link before signing in",
				chromedp.Navigate(page),
				chromedp.WaitVisible(css("#name")),
			)
			p.do("signing in",
				chromedp.SendKeys(css("#name"), "alice"),
				chromedp.SendKeys(css("#password"), testPassword),
				chromedp.Click(css("form.signin button[type=submit]")),
				chromedp.WaitVisible(css("#secret-password")),
			)
			if got := p.labelOf("#secret-password"); got != "Bank password" {
				t.Errorf("the field is labelled %q", got)
			}
			p.check("secret-form")
			p.do("sending a blank value",
				chromedp.SendKeys(css("#secret-password"), "   "),
				chromedp.Click(css("form.secret button[type=submit]")),
				chromedp.WaitVisible(css("#secret-problem")),
			)
			if got := p.text("#secret-problem"); !strings.Contains(got, "Bank password: is required.") {
				t.Errorf("the problem says %q", got)
			}
			p.check("secret-problem")
			p.do("sending the password",
				chromedp.SendKeys(css("#secret-password"), "correct battery"),
				chromedp.Click(css("form.secret button[type=submit]")),
				chromedp.WaitVisible(css("#secret-done")),
			)
			p.check("secret-done")
			if values, ok := desk.Take(req); !ok || values["password"] != "correct battery" {
				t.Fatalf("the desk holds %v, %v", values, ok)
			}
		})
	}
}
