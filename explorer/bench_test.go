package explorer

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/toolapi/toolapi/tool"
)

// pageBudget is how long a page may take with 1,000 tools registered.
const pageBudget = 50 * time.Millisecond

// benchTools returns n tools of a few inputs each, of the operations in
// turn, every fifth needing a permission the benchmark's account lacks.
func benchTools(n int) []*tool.Tool {
	ops := []tool.Operation{tool.OpRead, tool.OpWrite, tool.OpTransform, tool.OpExplain, tool.OpTrigger}
	tools := make([]*tool.Tool, n)
	for i := range n {
		perm := "use demo"
		if i%5 == 4 {
			perm = "root"
		}
		tools[i] = &tool.Tool{
			ID:          fmt.Sprintf("bench.tool_%04d", i),
			Label:       fmt.Sprintf("Tool %d", i),
			Description: fmt.Sprintf("Counts the %s of a thing, number %d.\nMore words follow here.", []string{"apples", "pears", "plums"}[i%3], i),
			Operation:   ops[i%len(ops)],
			Permission:  perm,
			Inputs: []*tool.Definition{
				{Name: "word", Type: "string", Description: "A word.", Required: true, Constraints: tool.Constraints{NotBlank: true}},
				{Name: "limit", Type: "integer", Description: "How many.", Default: 10, Constraints: tool.Constraints{Range: &tool.Range{Min: ptr(1.0), Max: ptr(100.0)}}},
				{Name: "exact", Type: "boolean", Description: "Match exactly."},
				{Name: "tags", Type: "list", Description: "Tags.", Items: &tool.Definition{Type: "string"}},
				{Name: "options", Type: "map", Description: "Options.", Properties: []*tool.Definition{
					{Name: "depth", Type: "integer"},
					{Name: "mode", Type: "string", Constraints: tool.Constraints{Choice: []any{"fast", "slow"}}},
				}},
			},
			Outputs: []*tool.Definition{
				{Name: "items", Type: "list", Required: true, Items: &tool.Definition{Type: "map", Properties: []*tool.Definition{
					{Name: "name", Type: "string", Required: true},
					{Name: "count", Type: "integer", Required: true},
				}}},
			},
			Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
				items := make([]any, 20)
				for j := range items {
					items[j] = map[string]any{"name": in.String("word"), "count": j}
				}
				return tool.Succeeded("", map[string]any{"items": items}), nil
			},
		}
	}
	return tools
}

// BenchmarkPages serves each page with 1,000 tools registered, as a
// signed-in account that may see 800 of them. Each sub-benchmark reports
// its share of the 50 ms budget ("budget-%"); the registry-* ones are the
// registry calls the pages make, measured alone, for comparison.
func BenchmarkPages(b *testing.B) {
	reg := tool.NewRegistry(nil)
	if err := reg.Add(benchTools(1000)...); err != nil {
		b.Fatal(err)
	}
	alice := testUsers["alice"]
	exp := New(reg, &Options{
		Authenticate: func(context.Context, string, string) (tool.Account, error) { return alice, nil },
		Presets:      newMemPresets(),
	}).(*server)
	sess, _ := exp.sessions.start(context.Background(), alice, "alice", false)
	cookie := &http.Cookie{Name: "toolapi_session", Value: sess.id}
	const id = "bench.tool_0500"
	submit := url.Values{
		"csrf": {sess.csrf}, "action": {"run"}, "in:word": {"pear"}, "in:limit": {"20"}, "in:exact": {"false", "true"},
		"rows:tags": {"2"}, "in:tags[0]": {"a"}, "in:tags[1]": {"b"}, "in:options.depth": {"3"}, "in:options.mode": {"fast"},
	}.Encode()

	serve := func(b *testing.B, method, target, body string, want int) {
		for b.Loop() {
			var r *http.Request
			if body == "" {
				r = httptest.NewRequest(method, target, nil)
			} else {
				r = httptest.NewRequest(method, target, strings.NewReader(body))
				r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			}
			r.AddCookie(cookie)
			w := httptest.NewRecorder()
			exp.ServeHTTP(w, r)
			if w.Code != want {
				b.Fatalf("%s %s = %d, want %d\n%s", method, target, w.Code, want, w.Body.String())
			}
		}
		b.ReportMetric(float64(b.Elapsed())/float64(b.N)/float64(pageBudget)*100, "budget-%")
	}
	b.Run("list", func(b *testing.B) { serve(b, "GET", "/", "", 200) })
	b.Run("search", func(b *testing.B) { serve(b, "GET", "/?q=pears+number&match=all&op=read", "", 200) })
	b.Run("tool", func(b *testing.B) { serve(b, "GET", "/tools/"+id, "", 200) })
	// A run posts, runs and redirects to the page of the run, which is
	// served on its own.
	b.Run("submit", func(b *testing.B) { serve(b, "POST", "/tools/"+id, submit, http.StatusSeeOther) })
	r := httptest.NewRequest("POST", "/tools/"+id, strings.NewReader(submit))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.AddCookie(cookie)
	w := httptest.NewRecorder()
	exp.ServeHTTP(w, r)
	b.Run("result", func(b *testing.B) { serve(b, "GET", w.Header().Get("Location"), "", 200) })

	ctx := tool.WithAccount(context.Background(), alice)
	b.Run("registry-list", func(b *testing.B) {
		for b.Loop() {
			reg.List(&tool.Filter{Account: alice})
		}
	})
	b.Run("registry-run", func(b *testing.B) {
		args := map[string]any{"word": tool.Text("pear"), "limit": tool.Text("20"), "exact": tool.Text("true"),
			"tags": []any{tool.Text("a"), tool.Text("b")}, "options": map[string]any{"depth": tool.Text("3"), "mode": tool.Text("fast")}}
		for b.Loop() {
			if res, err := reg.Run(ctx, id, args); err != nil || !res.Success {
				b.Fatal(err, res)
			}
		}
	})
}
