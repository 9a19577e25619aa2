package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestRoutingHeaderTool: test_x_mcp_header is listed with its region
// marked x-mcp-header "Region"; the SDK's client of 2026-07-28 mirrors
// the region in Mcp-Param-Region and the call runs, and a raw call whose
// header disagrees with the body is refused with 400 and -32020, with
// sessions and without.
func TestRoutingHeaderTool(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		srv, stopTasks, err := newServer(context.Background(), stateless)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(stopTasks)
		ts := httptest.NewServer(srv.Handler())
		t.Cleanup(ts.Close)

		ctx := context.Background()
		c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
		cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL, MaxRetries: -1},
			&mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		list, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		marked := ""
		for _, mt := range list.Tools {
			if mt.Name == "test_x_mcp_header" {
				b, _ := json.Marshal(mt.InputSchema)
				var sch struct {
					Properties map[string]map[string]any `json:"properties"`
				}
				json.Unmarshal(b, &sch)
				marked, _ = sch.Properties["region"]["x-mcp-header"].(string)
			}
		}
		if marked != "Region" {
			t.Fatalf("stateless=%v: region is marked %q, want Region", stateless, marked)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_x_mcp_header", Arguments: map[string]any{"region": "eu-west", "level": 3}})
		if err != nil || res.IsError || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "region=eu-west" {
			t.Fatalf("stateless=%v: call: %v %+v", stateless, err, res)
		}

		body := `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"test_x_mcp_header","arguments":{"region":"eu-west"},` +
			`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
		req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(body))
		for k, v := range map[string]string{
			"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
			"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "test_x_mcp_header",
			"Mcp-Param-Region": "us-east",
		} {
			req.Header.Set(k, v)
		}
		hres, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(hres.Body)
		hres.Body.Close()
		var msg struct {
			Error struct {
				Code int64 `json:"code"`
			} `json:"error"`
		}
		json.Unmarshal(b, &msg)
		if hres.StatusCode != http.StatusBadRequest || msg.Error.Code != mcp.CodeHeaderMismatch {
			t.Errorf("stateless=%v: a region header that disagrees was answered %d: %s", stateless, hres.StatusCode, b)
		}
	}
}
