package main

import (
	"context"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// A person is someone using the tool explorer of several serve processes
// through one browser: one cookie jar, which sends the cookies of
// 127.0.0.1 to every port.
type person struct {
	t    *testing.T
	c    *http.Client
	csrf string // the token of the last form seen
	once string // the once field of the last run form seen
}

var (
	csrfInput = regexp.MustCompile(`name="csrf" value="([^"]+)"`)
	onceInput = regexp.MustCompile(`name="once" value="([^"]+)"`)
)

func newPerson(t *testing.T) *person {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &person{t: t, c: &http.Client{Jar: jar}}
}

// do sends req, following redirects, and returns the final status and
// body; it keeps the page's last CSRF token and once value.
func (p *person) do(req *http.Request) (int, string) {
	p.t.Helper()
	resp, err := p.c.Do(req)
	if err != nil {
		p.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		p.t.Fatal(err)
	}
	body := string(b)
	if ms := csrfInput.FindAllStringSubmatch(body, -1); ms != nil {
		// On the sign-in page, the sign-in form's rather than the
		// sign-out form's.
		p.csrf = html.UnescapeString(ms[len(ms)-1][1])
	}
	if m := onceInput.FindStringSubmatch(body); m != nil {
		p.once = m[1]
	}
	return resp.StatusCode, body
}

func (p *person) get(u string) (int, string) {
	p.t.Helper()
	req, err := http.NewRequest("GET", u, nil)
	if err != nil {
		p.t.Fatal(err)
	}
	return p.do(req)
}

// post posts form with the last CSRF token seen.
func (p *person) post(u string, form url.Values) (int, string) {
	p.t.Helper()
	form.Set("csrf", p.csrf)
	req, err := http.NewRequest("POST", u, strings.NewReader(form.Encode()))
	if err != nil {
		p.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return p.do(req)
}

// signIn signs in through the sign-in form of base, whose token is bound
// to the nonce cookie the form's page sets.
func (p *person) signIn(base, name, token string) {
	p.t.Helper()
	p.get(base + "/signin")
	status, body := p.post(base+"/signin", url.Values{"name": {name}, "password": {token}})
	if status != http.StatusOK || !strings.Contains(body, "Signed in as <strong>"+name+"</strong>") {
		p.t.Fatalf("signing in as %s on %s: %d\n%s", name, base, status, body)
	}
}

var runLink = regexp.MustCompile(`href="/tools/album\.add_track\?run=([^"]+)"`)

// TestExplorerScaleOut runs two `album serve` processes on one database
// (an SQLite file, and PostgreSQL when TOOLAPI_TEST_POSTGRES is set). A
// person signs in on the first; with the same cookie the second knows
// them, runs a tool, and shows the run and the history; the first shows
// that run too, and a preset saved on either fills the form on the other.
func TestExplorerScaleOut(t *testing.T) {
	eachDSN(t, func(t *testing.T, dsn string) {
		one, two := startServe(t, dsn), startServe(t, dsn)
		token, err := mustOpen(t, dsn).IssueToken(context.Background(), "editor")
		if err != nil {
			t.Fatal(err)
		}
		p := newPerson(t)
		if _, body := p.get(two + "/"); !strings.Contains(body, "Browsing as") {
			t.Fatalf("before signing in, the second server does not say who is browsing:\n%s", body)
		}
		p.signIn(one, "editor", token)

		form := two + "/tools/album.add_track"
		status, body := p.get(form)
		if status != http.StatusOK || !strings.Contains(body, "Signed in as <strong>editor</strong>") {
			t.Fatalf("the second server does not know the session started on the first: %d\n%s", status, body)
		}
		status, body = p.post(form, url.Values{"action": {"run"}, "once": {p.once},
			"in:album": {"Blue Hours"}, "in:title": {"Run on the second"}, "in:length": {"3m"}})
		if status != http.StatusOK || !strings.Contains(body, "✓") || !strings.Contains(body, "Run on the second") {
			t.Fatalf("running album.add_track on the second server: %d\n%s", status, body)
		}
		m := runLink.FindStringSubmatch(body)
		if m == nil || !strings.Contains(body, "Your recent runs") {
			t.Fatalf("the second server's page of the run lists no run in the history:\n%s", body)
		}
		run := m[1]
		// The first server shows the run, and lists it.
		if _, body := p.get(one + "/tools/album.add_track?run=" + url.QueryEscape(run)); !strings.Contains(body, "✓") || !strings.Contains(body, "Run on the second") {
			t.Errorf("the first server does not show the run made on the second:\n%s", body)
		}
		if _, body := p.get(one + "/tools/album.add_track"); !strings.Contains(body, "?run="+run) {
			t.Errorf("the first server's history lacks the run %s made on the second", run)
		}

		// A preset saved on one fills the form on the other, both ways.
		for _, c := range []struct{ save, fill, name string }{{two, one, "Saved on two"}, {one, two, "Saved on one"}} {
			p.get(c.save + "/tools/album.add_track")
			if status, body := p.post(c.save+"/tools/album.add_track", url.Values{"action": {"save"}, "preset_name": {c.name},
				"in:album": {"Blue Hours"}, "in:title": {c.name + " title"}}); status != http.StatusOK || !strings.Contains(body, c.name) {
				t.Fatalf("saving the preset %q on %s: %d\n%s", c.name, c.save, status, body)
			}
			if _, body := p.get(c.fill + "/tools/album.add_track?preset=" + url.QueryEscape(c.name)); !strings.Contains(body, `value="`+c.name+` title"`) {
				t.Errorf("the preset %q saved on %s does not fill the form on %s:\n%s", c.name, c.save, c.fill, body)
			}
		}

		// Signing out on the second ends the session on the first.
		p.get(two + "/")
		p.post(two+"/signout", url.Values{})
		if _, body := p.get(one + "/"); strings.Contains(body, "Signed in as") {
			t.Error("the session outlived signing out on the other server")
		}
	})
}
