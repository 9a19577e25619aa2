package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolapi/toolapi/mcpserver"
	"github.com/toolapi/toolapi/tool"
)

// budgetRegistry returns a registry with t.numbers, a list of n numbers
// paged by 10, and t.big, whose report is over its budget of 1000 bytes
// when asked for more than that; runs counts the runs of both.
func budgetRegistry(t *testing.T, n int, runs *atomic.Int64) *tool.Registry {
	t.Helper()
	reg := tool.NewRegistry(&tool.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	err := reg.Add(&tool.Tool{ID: "t.numbers", Label: "Numbers", Description: "Lists numbers.", Operation: tool.OpRead,
		Permission: "access content", Budget: tool.Budget{Items: 10},
		Inputs: []*tool.Definition{{Name: "from", Type: "integer"}},
		// At least 5 items: the last page holds 2, and the schema
		// must still describe it.
		Outputs: []*tool.Definition{{Name: "result", Type: "list", Required: true, Constraints: tool.Constraints{Count: &tool.Bounds{Min: tool.Ptr(5)}},
			Items: &tool.Definition{Type: "map", Properties: []*tool.Definition{{Name: "n", Type: "integer", Required: true}}}}},
		Handler: func(_ context.Context, in *tool.Values) (*tool.Result, error) {
			runs.Add(1)
			var out []any
			for i := in.Int("from"); i < int64(n); i++ {
				out = append(out, map[string]any{"n": i})
			}
			return tool.Succeeded("", map[string]any{"result": out}), nil
		}},
		&tool.Tool{ID: "t.big", Label: "Big", Description: "Writes a report.", Operation: tool.OpRead,
			Permission: "access content", Budget: tool.Budget{Bytes: 1000},
			Inputs: []*tool.Definition{{Name: "size", Type: "integer", Required: true}},
			Outputs: []*tool.Definition{{Name: "report", Type: "string", Required: true},
				{Name: "lines", Type: "integer", Required: true}},
			Handler: func(_ context.Context, in *tool.Values) (*tool.Result, error) {
				runs.Add(1)
				if in.Int("size") < 0 {
					return tool.Failed("Big stopped partway.", map[string]any{"report": strings.Repeat("x", 2000), "lines": int64(1)}), nil
				}
				return tool.Succeeded("", map[string]any{"report": strings.Repeat("x", int(in.Int("size"))), "lines": int64(1)}), nil
			}})
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// listed returns the tool named name as cs lists it.
func listed(t *testing.T, cs *mcp.ClientSession, name string) *mcp.Tool {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, mt := range res.Tools {
		if mt.Name == name {
			return mt
		}
	}
	t.Fatalf("%s is not listed", name)
	return nil
}

// TestBudgetPaging pages through a list tool with a real client, on both
// protocol versions: its schemas declare cursor and next_cursor, each
// page's structured content validates against the output schema, every
// item is seen once, and a cursor of another account, of other inputs or
// changed is refused as an input failure of cursor without running.
func TestBudgetPaging(t *testing.T) {
	for _, version := range []string{legacy, latest} {
		t.Run(version, func(t *testing.T) {
			var runs atomic.Int64
			srv := mcpserver.New(budgetRegistry(t, 95, &runs), nil)
			cs := connectVersion(t, srv, editor, nil, version)
			mt := listed(t, cs, "t__numbers")
			in, out := string(mustJSON(t, mt.InputSchema)), string(mustJSON(t, mt.OutputSchema))
			if !strings.Contains(in, `"cursor"`) || !strings.Contains(out, `"next_cursor"`) {
				t.Fatalf("schemas lack the cursor:\n%s\n%s", in, out)
			}
			seen := map[int64]int{}
			cursor := ""
			pages := 0
			for {
				args := map[string]any{"from": 3}
				if cursor != "" {
					args["cursor"] = cursor
				}
				if err := validate(t, mt.InputSchema, args); err != nil {
					t.Fatalf("arguments fail the input schema: %v", err)
				}
				res := callTool(t, cs, "t__numbers", args)
				if res.IsError {
					t.Fatalf("page %d: %v", pages, texts(res))
				}
				if err := validate(t, mt.OutputSchema, res.StructuredContent); err != nil {
					t.Fatalf("page %d fails the output schema: %v", pages, err)
				}
				pages++
				var page struct {
					Result []struct{ N int64 }
					Next   string `json:"next_cursor"`
				}
				if err := json.Unmarshal(mustJSON(t, res.StructuredContent), &page); err != nil {
					t.Fatal(err)
				}
				if len(page.Result) > 10 {
					t.Errorf("page %d has %d items", pages, len(page.Result))
				}
				for _, it := range page.Result {
					seen[it.N]++
				}
				if page.Next == "" {
					break
				}
				cursor = page.Next
			}
			if pages != 10 || len(seen) != 92 {
				t.Errorf("%d pages, %d items; want 10 pages of the 92 items", pages, len(seen))
			}
			for n := int64(3); n < 95; n++ {
				if seen[n] != 1 {
					t.Errorf("item %d seen %d times", n, seen[n])
				}
			}

			first := callTool(t, cs, "t__numbers", map[string]any{})
			var page struct {
				Next string `json:"next_cursor"`
			}
			json.Unmarshal(mustJSON(t, first.StructuredContent), &page)
			other := connectVersion(t, srv, admin, nil, version)
			for name, c := range map[string]struct {
				cs   *mcp.ClientSession
				args map[string]any
			}{
				"another account": {other, map[string]any{"cursor": page.Next}},
				"other inputs":    {cs, map[string]any{"cursor": page.Next, "from": 1}},
				"changed":         {cs, map[string]any{"cursor": "A" + page.Next[1:]}},
			} {
				before := runs.Load()
				res := callTool(t, c.cs, "t__numbers", c.args)
				if !res.IsError || !strings.Contains(strings.Join(texts(res), "\n"), "cursor: is not a cursor this tool gave") {
					t.Errorf("%s: %v; want the cursor refused", name, texts(res))
				}
				if meta := string(mustJSON(t, res.Meta)); !strings.Contains(meta, `"cursor_invalid"`) {
					t.Errorf("%s: _meta %s lacks the rule cursor_invalid", name, meta)
				}
				if runs.Load() != before {
					t.Errorf("%s: the tool ran", name)
				}
			}
		})
	}
}

// TestBudgetOverflow checks that a result over its byte budget answers a
// resource_link and no structured content, that the account that ran it
// reads the outputs whole, and that another account reads nothing.
func TestBudgetOverflow(t *testing.T) {
	for _, version := range []string{legacy, latest} {
		t.Run(version, func(t *testing.T) {
			var runs atomic.Int64
			srv := mcpserver.New(budgetRegistry(t, 0, &runs), nil)
			cs := connectVersion(t, srv, editor, nil, version)
			mt := listed(t, cs, "t__big")
			small := callTool(t, cs, "t__big", map[string]any{"size": 10})
			if small.IsError || validate(t, mt.OutputSchema, small.StructuredContent) != nil {
				t.Fatalf("small result: %v", texts(small))
			}
			res := callTool(t, cs, "t__big", map[string]any{"size": 5000})
			if res.IsError || res.StructuredContent != nil {
				t.Fatalf("big result: isError %v, structured %v", res.IsError, res.StructuredContent)
			}
			var link *mcp.ResourceLink
			for _, c := range res.Content {
				if l, ok := c.(*mcp.ResourceLink); ok {
					link = l
				}
			}
			if link == nil || !strings.HasPrefix(link.URI, mcpserver.OverflowURIPrefix) || link.Size == nil || *link.Size < 5000 {
				t.Fatalf("no resource link to the outputs: %+v", res.Content)
			}
			if text := texts(res); len(text) != 1 || !strings.Contains(text[0], link.URI) || !strings.Contains(text[0], "over its budget of 1000 bytes") {
				t.Errorf("text %q does not say where the outputs are", text)
			}
			read, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: link.URI})
			if err != nil {
				t.Fatal(err)
			}
			var got map[string]any
			if err := json.Unmarshal([]byte(read.Contents[0].Text), &got); err != nil {
				t.Fatal(err)
			}
			if got["report"] != strings.Repeat("x", 5000) || got["lines"] != 1.0 {
				t.Errorf("read back %d bytes: not the outputs", len(read.Contents[0].Text))
			}
			if err := validate(t, mt.OutputSchema, got); err != nil {
				t.Errorf("the outputs read back fail the output schema: %v", err)
			}
			failed := callTool(t, cs, "t__big", map[string]any{"size": -1})
			var failedLink *mcp.ResourceLink
			for _, c := range failed.Content {
				if l, ok := c.(*mcp.ResourceLink); ok {
					failedLink = l
				}
			}
			if !failed.IsError || failed.StructuredContent != nil || failedLink == nil {
				t.Errorf("failure over the budget: isError %v, structured %v, link %v", failed.IsError, failed.StructuredContent, failedLink)
			} else if read, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: failedLink.URI}); err != nil ||
				!strings.Contains(read.Contents[0].Text, strings.Repeat("x", 2000)) {
				t.Errorf("reading a failure's outputs: %v", err)
			}
			other := connectVersion(t, srv, admin, nil, version)
			for _, uri := range []string{link.URI, mcpserver.OverflowURIPrefix + "nope"} {
				_, err = other.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
				var rpc *jsonrpc.Error
				if !errors.As(err, &rpc) || rpc.Code != mcp.CodeResourceNotFound {
					t.Errorf("another account reading %s: %v; want resource not found", uri, err)
				}
			}
		})
	}
}
