package explorer

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/toolapi/toolapi/tool"
)

// TestDeprecatedTool checks that the list marks a deprecated tool and its
// page shows a notice with the note, and that other tools carry neither.
func TestDeprecatedTool(t *testing.T) {
	env := newTestEnv(t, nil)
	err := env.reg.Add(&tool.Tool{ID: "demo.old", Label: "Old", Description: "Does it the old way.",
		Operation: tool.OpRead, Permission: "use demo", Deprecated: "use demo.every",
		Handler: func(context.Context, *tool.Values) (*tool.Result, error) { return tool.Succeeded("", nil), nil }})
	if err != nil {
		t.Fatal(err)
	}
	b := env.browser(t)
	b.signIn("alice")
	for _, tt := range []struct {
		path      string
		want, not []string
	}{
		{"/", []string{`<a href="/tools/demo.old">Old</a> <span class="badge deprecated" title="Deprecated: use demo.every">deprecated</span>`},
			[]string{`<a href="/tools/demo.every">Every input</a> <span class="badge deprecated"`}},
		{"/tools/demo.old", []string{`<p class="notice deprecated" id="deprecated"><strong>Deprecated:</strong> use demo.every</p>`,
			`<span class="badge deprecated">deprecated</span></h1>`}, nil},
		{"/tools/demo.every", nil, []string{`deprecated`}},
	} {
		r := b.get(tt.path)
		if r.status != http.StatusOK {
			t.Fatalf("GET %s = %d", tt.path, r.status)
		}
		for _, w := range tt.want {
			if !strings.Contains(r.body, w) {
				t.Errorf("GET %s lacks %s", tt.path, w)
			}
		}
		for _, n := range tt.not {
			if strings.Contains(r.body, n) {
				t.Errorf("GET %s holds %s", tt.path, n)
			}
		}
	}
}
