package mcpserver_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolapi/toolapi/mcpserver"
	"github.com/toolapi/toolapi/tool"
)

// cachingHints are the caching hints of a list result.
type cachingHints struct {
	TTLMs      *int                    `json:"ttlMs"`
	CacheScope string                  `json:"cacheScope"`
	Tools      []struct{ Name string } `json:"tools"`
}

// listAt2026 sends method at protocol version 2026-07-28, without a
// session, as editor, and returns its result.
func listAt2026(t *testing.T, url, method string) cachingHints {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	req.Header.Set("Authorization", "Bearer editor-token")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	var msg struct {
		Result *cachingHints `json:"result"`
	}
	if err := json.Unmarshal([]byte(lastEventData(string(b))), &msg); err != nil || msg.Result == nil {
		t.Fatalf("%s: %d %s", method, res.StatusCode, b)
	}
	return *msg.Result
}

// countTool is a tool the tests add to a registry and remove.
func countTool(id string) *tool.Tool {
	return &tool.Tool{
		ID: id, Label: "Count", Description: "Counts things.", Operation: tool.OpRead,
		Permission: "access content",
		Handler: func(context.Context, *tool.Values) (*tool.Result, error) {
			return tool.Succeeded("3", nil), nil
		},
	}
}

// TestListTTL checks the caching hints of the four lists: ttlMs is
// Options.ListTTL in milliseconds (a minute when zero, 0 when negative),
// the tool list is the account's own (private) and the lists of prompts,
// resources and resource templates, the same for every account, are
// public; an application's own SetCacheable has the last word, except on
// the scope of the tool list.
func TestListTTL(t *testing.T) {
	for _, c := range []struct {
		name string
		ttl  time.Duration
		want int
	}{
		{"default", 0, 60000},
		{"90s", 90 * time.Second, 90000},
		{"none", -1, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			reg := tool.NewRegistry(nil)
			if err := reg.Add(countTool("stock.count")); err != nil {
				t.Fatal(err)
			}
			srv := mcpserver.New(reg, &mcpserver.Options{Authenticate: mcpserver.Bearer(lookupToken), ListTTL: c.ttl})
			srv.MCPServer().AddPrompt(&mcp.Prompt{Name: "p"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				return &mcp.GetPromptResult{}, nil
			})
			ts := httptest.NewServer(srv.Handler())
			defer ts.Close()
			for method, scope := range map[string]string{
				"tools/list": "private", "prompts/list": "public",
				"resources/list": "public", "resources/templates/list": "public",
			} {
				got := listAt2026(t, ts.URL, method)
				if got.TTLMs == nil || *got.TTLMs != c.want || got.CacheScope != scope {
					t.Errorf("%s: ttlMs %v, cacheScope %q; want %d, %q", method, got.TTLMs, got.CacheScope, c.want, scope)
				}
			}
		})
	}

	t.Run("application", func(t *testing.T) {
		srv := mcpserver.New(tool.NewRegistry(nil), &mcpserver.Options{
			Authenticate: mcpserver.Bearer(lookupToken),
			SDK: &mcp.ServerOptions{SetCacheable: func(_ context.Context, _ mcp.Request, c *mcp.Cacheable) {
				c.TTLMs, c.CacheScope = 5000, "public"
			}},
		})
		ts := httptest.NewServer(srv.Handler())
		defer ts.Close()
		if got := listAt2026(t, ts.URL, "prompts/list"); got.TTLMs == nil || *got.TTLMs != 5000 || got.CacheScope != "public" {
			t.Errorf("prompts/list: ttlMs %v, cacheScope %q; want 5000, public", got.TTLMs, got.CacheScope)
		}
		if got := listAt2026(t, ts.URL, "tools/list"); got.TTLMs == nil || *got.TTLMs != 5000 || got.CacheScope != "private" {
			t.Errorf("tools/list: ttlMs %v, cacheScope %q; want 5000, private", got.TTLMs, got.CacheScope)
		}
	})
}

// TestListChangeWithinTTL checks that a tool added to or removed from the
// registry shows up long before the TTL of the lists served before it
// (an hour here) is past, with and without sessions: the server keeps no
// copy, so the next tools/list has the change, and an SDK client of
// 2026-07-28, which keeps the list it was given for its ttlMs, is told of
// the change on its subscriptions/listen stream, drops its copy and lists
// the change.
func TestListChangeWithinTTL(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		name := "sessions"
		if stateless {
			name = "stateless"
		}
		t.Run(name, func(t *testing.T) {
			reg := tool.NewRegistry(nil)
			if err := reg.Add(countTool("stock.count")); err != nil {
				t.Fatal(err)
			}
			srv := mcpserver.New(reg, &mcpserver.Options{Authenticate: mcpserver.Bearer(lookupToken), ListTTL: time.Hour, Stateless: stateless})
			ts := httptest.NewServer(srv.Handler())
			t.Cleanup(ts.Close) // after the client's Close, which ends its listen stream

			changed := make(chan struct{}, 10)
			cs, err := connectHTTP(t, ts.URL, "editor-token", &mcp.ClientOptions{
				ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
			}, latest)
			if err != nil {
				t.Fatal(err)
			}
			list := func() []string {
				t.Helper()
				res, err := cs.ListTools(context.Background(), nil)
				if err != nil {
					t.Fatal(err)
				}
				if res.TTLMs != int(time.Hour.Milliseconds()) {
					t.Errorf("tools/list ttlMs %d, want %d", res.TTLMs, time.Hour.Milliseconds())
				}
				var names []string
				for _, mt := range res.Tools {
					names = append(names, mt.Name)
				}
				return names
			}
			if got := list(); !slices.Equal(got, []string{"stock__count"}) {
				t.Fatalf("tools/list: %v", got)
			}

			if err := reg.Add(countTool("stock.total")); err != nil {
				t.Fatal(err)
			}
			if got := listAt2026(t, ts.URL, "tools/list"); len(got.Tools) != 2 {
				t.Errorf("tools/list right after Add: %v, want both tools", got.Tools)
			}
			waitFor(t, changed, "tools/list_changed after Add")
			if got := list(); !slices.Equal(got, []string{"stock__count", "stock__total"}) {
				t.Errorf("tools/list after Add: %v", got)
			}

			reg.Remove("stock.count")
			if got := listAt2026(t, ts.URL, "tools/list"); len(got.Tools) != 1 || got.Tools[0].Name != "stock__total" {
				t.Errorf("tools/list right after Remove: %v, want stock__total alone", got.Tools)
			}
			waitFor(t, changed, "tools/list_changed after Remove")
			if got := list(); !slices.Equal(got, []string{"stock__total"}) {
				t.Errorf("tools/list after Remove: %v", got)
			}
		})
	}
}

// lastEventData returns the data of the last event of an event stream
// body, or body itself when it is plain JSON.
func lastEventData(body string) string {
	data := body
	for _, line := range strings.Split(body, "\n") {
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			data = d
		}
	}
	return data
}
