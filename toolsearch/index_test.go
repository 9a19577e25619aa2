package toolsearch_test

import (
	"context"
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolapi/toolapi/tool"
	"github.com/toolapi/toolapi/toolsearch"
)

func newCatalog(t testing.TB, secret ...string) (*tool.Registry, *toolsearch.Index) {
	t.Helper()
	reg := tool.NewRegistry(nil)
	if err := reg.Add(catalog(secret...)...); err != nil {
		t.Fatal(err)
	}
	return reg, toolsearch.New(reg, nil)
}

var reader = &tool.User{ID: "reader", Permissions: []string{"access content"}}

func ids(hits []toolsearch.Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Tool.ID)
	}
	return out
}

// TestRecall reports recall@1 and recall@5 over the labelled queries and
// fails if recall@5 falls under 0.8.
func TestRecall(t *testing.T) {
	_, idx := newCatalog(t)
	at1, at5 := 0, 0
	for _, q := range queries {
		got := ids(idx.Search(reader, q.query, 5))
		if len(got) > 0 && got[0] == q.want {
			at1++
		}
		if slices.Contains(got, q.want) {
			at5++
		} else {
			t.Logf("miss: %q wants %s, got %v", q.query, q.want, got)
		}
	}
	r1, r5 := float64(at1)/float64(len(queries)), float64(at5)/float64(len(queries))
	t.Logf("%d queries over %d tools: recall@1 %.2f, recall@5 %.2f", len(queries), len(catalog()), r1, r5)
	if r5 < 0.8 {
		t.Errorf("recall@5 = %.2f, want at least 0.80", r5)
	}
}

func TestSearchFiltersByAccount(t *testing.T) {
	_, idx := newCatalog(t, "music")
	if got := ids(idx.Search(reader, "publish an album", 10)); slices.ContainsFunc(got, func(id string) bool { return id[:6] == "music." }) {
		t.Errorf("reader without the secret permission found %v", got)
	}
	admin := &tool.User{ID: "admin", Permissions: []string{"access content", "secret"}}
	if got := ids(idx.Search(admin, "publish an album", 1)); !cmp.Equal(got, []string{"music.publish_album"}) {
		t.Errorf("admin found %v, want [music.publish_album]", got)
	}
	blocked := &tool.User{ID: "mallory", Permissions: []string{"access content"}, IsBlocked: true}
	if got := idx.Search(blocked, "publish an album", 10); len(got) != 0 {
		t.Errorf("a blocked account found %v", ids(got))
	}
}

func TestSearchLimits(t *testing.T) {
	_, idx := newCatalog(t)
	for _, tc := range []struct {
		limit, want int
	}{{0, toolsearch.DefaultLimit}, {3, 3}, {1000, toolsearch.MaxLimit}} {
		if got := len(idx.Search(reader, "list create update invoices", tc.limit)); got != tc.want {
			t.Errorf("limit %d: %d hits, want %d", tc.limit, got, tc.want)
		}
	}
	for _, q := range []string{"", "   ", "the of and", "zzzzqqq"} {
		if got := idx.Search(reader, q, 5); len(got) != 0 {
			t.Errorf("%q found %v", q, ids(got))
		}
	}
}

func TestIndexFollowsRegistry(t *testing.T) {
	reg, idx := newCatalog(t)
	if got := idx.Search(reader, "telescope", 5); len(got) != 0 {
		t.Fatalf("found %v before the tool was added", ids(got))
	}
	err := reg.Add(&tool.Tool{
		ID: "astro.point_telescope", Label: "Point telescope", Description: "Points the telescope at a star.",
		Operation: tool.OpTrigger, Permission: "access content",
		Handler: func(context.Context, *tool.Values) (*tool.Result, error) { return tool.Succeeded("", nil), nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(idx.Search(reader, "telescope", 5)); !cmp.Equal(got, []string{"astro.point_telescope"}) {
		t.Errorf("after Add: %v", got)
	}
	reg.Remove("astro.point_telescope")
	if got := idx.Search(reader, "telescope", 5); len(got) != 0 {
		t.Errorf("after Remove: %v", ids(got))
	}
}

func TestSearchTool(t *testing.T) {
	reg, idx := newCatalog(t, "hr")
	if err := reg.Add(idx.Tool()); err != nil {
		t.Fatal(err)
	}
	ctx := tool.WithAccount(context.Background(), reader)
	res, err := reg.RunJSON(ctx, "tools.search", []byte(`{"query":"approve a leave request or an invoice","limit":3}`))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Success {
		t.Fatalf("failed: %s %v", res.Message, res.Violations)
	}
	items := res.Outputs["result"].([]any)
	if len(items) != 3 {
		t.Fatalf("%d items, want 3", len(items))
	}
	first := items[0].(map[string]any)
	if first["id"] != "billing.approve_invoice" || first["name"] != "billing__approve_invoice" {
		t.Errorf("first hit %v (%v), want billing.approve_invoice named billing__approve_invoice (hr.* needs a permission the reader lacks)", first["id"], first["name"])
	}
	schema, _ := json.Marshal(first["input_schema"])
	if want := `"required":["id"]`; !json.Valid(schema) || !strings.Contains(string(schema), want) {
		t.Errorf("input_schema %s lacks %s", schema, want)
	}
	for _, it := range items {
		if id := it.(map[string]any)["id"].(string); id == "tools.search" || id[:3] == "hr." {
			t.Errorf("returned %s", id)
		}
	}
	res, err = reg.RunJSON(ctx, "tools.search", []byte(`{"query":""}`))
	if err != nil {
		t.Fatal(err)
	}
	if res.Success || res.Failure != tool.FailureInput {
		t.Errorf("blank query: success=%v failure=%v, want an input failure", res.Success, res.Failure)
	}
}

// BenchmarkSearch runs every labelled query over the 5,000-tool catalog
// and reports the median and 99th percentile of one search.
func BenchmarkSearch(b *testing.B) {
	_, idx := newCatalog(b)
	idx.Search(reader, "warm up", 5) // build the index outside the timing
	var took []time.Duration
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		q := queries[i%len(queries)].query
		start := time.Now()
		idx.Search(reader, q, 5)
		took = append(took, time.Since(start))
	}
	sort.Slice(took, func(i, j int) bool { return took[i] < took[j] })
	b.ReportMetric(float64(took[len(took)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(took[len(took)*99/100].Microseconds()), "p99-µs")
}

// BenchmarkBuild measures indexing the 5,000-tool catalog.
func BenchmarkBuild(b *testing.B) {
	reg, _ := newCatalog(b)
	for b.Loop() {
		toolsearch.New(reg, nil).Search(reader, "invoice", 1)
	}
}
