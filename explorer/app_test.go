package explorer

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/toolapi/toolapi/tool"
)

func newApps(t testing.TB) (*Apps, *tool.Registry) {
	t.Helper()
	env := newTestEnv(t, nil)
	return NewApps(env.reg, nil), env.reg
}

func appPage(t testing.TB, a *Apps, reg *tool.Registry, acct tool.Account, id string) string {
	t.Helper()
	tl, ok := reg.Tool(id)
	if !ok {
		t.Fatalf("no tool %s", id)
	}
	b, err := a.Page(context.Background(), acct, tl, tool.NameOf(id), "ui://demo/"+id, nil)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// maxAppBytes bounds the page of a tool's app, uncompressed.
const maxAppBytes = 60 << 10

// TestAppPageForm checks that an app's page holds the explorer's fields
// of every input, with their constraints and help, the tool's name for
// tools/call, and the kinds the script reads values by.
func TestAppPageForm(t *testing.T) {
	a, reg := newApps(t)
	page := appPage(t, a, reg, testUsers["alice"], "demo.every")
	for _, want := range []string{
		`data-tool="demo__every"`,
		`name="in:title"`, `A short title.`, `<abbr class="req" title="required">*</abbr>`,
		`name="in:count"`, `min="1"`, `max="10"`,
		`type="checkbox" id="f-flag" name="in:flag" value="true" checked`,
		`<select id="f-color" name="in:color"`, `<option value="green"`,
		`name="in:tags[0]"`, `value="add:tags"`,
		`name="in:settings.limit"`,
		`type="date" id="f-day"`,
		`list="entities-album"`,
		`id="f-mode"`, // locked, shown read-only
		`&#34;tags[]&#34;:&#34;text&#34;`,
		`&#34;count&#34;:&#34;integer&#34;`,
		`&#34;settings&#34;:&#34;map&#34;`,
		`&#34;at&#34;:&#34;datetime&#34;`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	// Nothing of the explorer's own pages: no search by label on a
	// server, no address of its.
	for _, bad := range []string{`Find by label`, `data-entities=`, `csrf`, `action="/`} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %s", bad)
		}
	}
	if len(page) > maxAppBytes {
		t.Errorf("the page is %d bytes, more than %d", len(page), maxAppBytes)
	}
}

// TestAppPageSafe checks what makes a page safe in a host's sandbox:
// nothing loaded from elsewhere, no inline event handler, every value of
// the server escaped.
func TestAppPageSafe(t *testing.T) {
	env := newTestEnv(t, nil)
	evil := &tool.Tool{
		ID: "demo.evil", Label: `Evil <script>alert(1)</script>`, Description: `"><img src=x onerror=alert(2)>`,
		Operation: tool.OpRead, Permission: "use demo",
		Inputs: []*tool.Definition{{Name: "q", Type: "string", Description: `</textarea><script>alert(3)</script>`,
			Constraints: tool.Constraints{Choice: []any{`"><b>x</b>`}}}},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) { return tool.Succeeded("", nil), nil },
	}
	if err := env.reg.Add(evil); err != nil {
		t.Fatal(err)
	}
	a := NewApps(env.reg, nil)
	for _, id := range []string{"demo.evil", "demo.every", "demo.showcase", "demo.wipe", "demo.travel"} {
		page := appPage(t, a, env.reg, testUsers["bob"], id)
		if n := strings.Count(page, "<script"); n != 1 {
			t.Errorf("%s: %d script elements, want the one inline script", id, n)
		}
		for _, re := range []*regexp.Regexp{
			regexp.MustCompile(`(?i)<script[^>]*\ssrc=`),
			regexp.MustCompile(`(?i)<link\b`),
			regexp.MustCompile(`(?i)<[a-z][^>]*\son[a-z]+=`),
			regexp.MustCompile(`(?i)(src|href)="(https?:)?//`),
			regexp.MustCompile(`(?i)@import`),
			regexp.MustCompile(`<img src=x`),
			regexp.MustCompile(`<b>x</b>`),
			regexp.MustCompile(`alert\(\d\)</script>`),
		} {
			if m := re.FindString(page); m != "" {
				t.Errorf("%s: the page holds %q", id, m)
			}
		}
	}
	page := appPage(t, a, env.reg, testUsers["bob"], "demo.evil")
	if !strings.Contains(page, `Evil &lt;script&gt;alert(1)&lt;/script&gt;`) {
		t.Error("the label is not escaped as text")
	}
}

// TestAppPageSuggestionsPerAccount checks that an entity picker offers
// the entities the reading account may view, and only those, while the
// rest of the page is built once.
func TestAppPageSuggestionsPerAccount(t *testing.T) {
	a, reg := newApps(t)
	alice := appPage(t, a, reg, testUsers["alice"], "demo.summarize")
	bob := appPage(t, a, reg, testUsers["bob"], "demo.summarize")
	if !strings.Contains(alice, `<option value="1">Blue Hours</option>`) || strings.Contains(alice, "Night Studies") {
		t.Errorf("alice's suggestions are wrong:\n%s", datalistOf(alice))
	}
	if !strings.Contains(bob, `<option value="2">Night Studies</option>`) {
		t.Errorf("bob's suggestions lack his draft:\n%s", datalistOf(bob))
	}
	a.mu.Lock()
	n := len(a.built)
	a.mu.Unlock()
	if n != 1 {
		t.Errorf("%d pages built and kept, want 1", n)
	}
}

func datalistOf(page string) string {
	return regexp.MustCompile(`<datalist[\s\S]*?</datalist>`).FindString(page)
}

// TestAppPageRefined checks that a tool with a refiner shows the refined
// fields, and the confirmation box of a tool that changes data.
func TestAppPageRefinedAndConfirm(t *testing.T) {
	a, reg := newApps(t)
	page := appPage(t, a, reg, testUsers["alice"], "demo.travel")
	if !strings.Contains(page, `data-refined`) {
		t.Error("the refined field is not marked")
	}
	wipe := appPage(t, a, reg, testUsers["alice"], "demo.wipe")
	for _, want := range []string{`id="confirm"`, `I confirm this run`, `data-confirm`, `Run: changes data`} {
		if !strings.Contains(wipe, want) {
			t.Errorf("the destructive tool's page lacks %s", want)
		}
	}
	if strings.Contains(page, `id="confirm"`) {
		t.Error("a read tool asks for confirmation")
	}
}

// TestAppPageSize checks the bound on a page's size at the largest form
// of these tests, with fifty inputs more.
func TestAppPageSize(t *testing.T) {
	env := newTestEnv(t, nil)
	big := everyInput()
	big.ID = "demo.big"
	for i := range 50 {
		big.Inputs = append(big.Inputs, &tool.Definition{Name: fmt.Sprintf("extra_%d", i), Type: "string",
			Description: "One more input, described in a sentence of ordinary length.", Constraints: tool.Constraints{Length: &tool.Bounds{Max: ptr(80)}}})
	}
	if err := env.reg.Add(big); err != nil {
		t.Fatal(err)
	}
	page := appPage(t, NewApps(env.reg, nil), env.reg, testUsers["bob"], "demo.big")
	t.Logf("page of 68 inputs: %d bytes", len(page))
	if len(page) > maxAppBytes {
		t.Errorf("the page is %d bytes, more than %d", len(page), maxAppBytes)
	}
}

// BenchmarkAppPage reads the app of one of 1,000 tools: "cached" as it
// is served (the account-independent part kept), "built" building the
// whole page on each read, the baseline.
func BenchmarkAppPage(b *testing.B) {
	reg := tool.NewRegistry(nil)
	var tools []*tool.Tool
	for i := range 1000 {
		tl := everyInput()
		tl.ID = fmt.Sprintf("demo.every_%d", i)
		tl.Inputs = tl.Inputs[:len(tl.Inputs)-2] // no entity: no search per read
		tools = append(tools, tl)
	}
	if err := reg.Add(tools...); err != nil {
		b.Fatal(err)
	}
	acct := testUsers["alice"]
	ctx := context.Background()
	b.Run("cached", func(b *testing.B) {
		a := NewApps(reg, nil)
		for _, tl := range tools {
			a.Page(ctx, acct, tl, tool.NameOf(tl.ID), "ui://demo/"+tl.ID, nil)
		}
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			tl := tools[i%len(tools)]
			i++
			if _, err := a.Page(ctx, acct, tl, tool.NameOf(tl.ID), "ui://demo/"+tl.ID, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("built", func(b *testing.B) {
		a := NewApps(reg, nil)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			tl := tools[i%len(tools)]
			i++
			a.Forget(tl.ID)
			if _, err := a.Page(ctx, acct, tl, tool.NameOf(tl.ID), "ui://demo/"+tl.ID, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}
