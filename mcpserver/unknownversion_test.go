package mcpserver_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolapi/toolapi/mcpserver"
)

// TestUnknownVersion: a client of a protocol version the server does not
// know, later than any it serves, is answered 400 with the JSON-RPC error
// -32022 (unsupported protocol version), whose data lists the versions
// served and the one asked for, both for server/discover and for a
// tools/call, which does not run; with sessions and without.
func TestUnknownVersion(t *testing.T) {
	const future = "2099-01-01"
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"` + future + `","io.modelcontextprotocol/clientCapabilities":{}}`
	for _, stateless := range []bool{false, true} {
		reg, runs := routed(t, false)
		ts := httptest.NewServer(mcpserver.New(reg, &mcpserver.Options{Authenticate: mcpserver.Bearer(lookupToken), Stateless: stateless}).Handler())
		t.Cleanup(ts.Close)
		for _, req := range []struct{ method, body string }{
			{"server/discover", `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + meta + `}}`},
			{"tools/call", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"geo__query","arguments":{"query":"q"},` + meta + `}}`},
		} {
			header := map[string]string{"Authorization": "Bearer editor-token", "Mcp-Protocol-Version": future, "Mcp-Method": req.method}
			if req.method == "tools/call" {
				header["Mcp-Name"] = "geo__query"
			}
			res, body := postBody(t, ts.URL, req.body, header)
			var msg struct {
				Error *struct {
					Code int64 `json:"code"`
					Data struct {
						Supported []string `json:"supported"`
						Requested string   `json:"requested"`
					} `json:"data"`
				} `json:"error"`
			}
			if err := json.Unmarshal([]byte(body), &msg); err != nil {
				t.Fatalf("stateless %v, %s: %v in %s", stateless, req.method, err, body)
			}
			if res.StatusCode != http.StatusBadRequest || msg.Error == nil || msg.Error.Code != mcp.CodeUnsupportedProtocolVersion {
				t.Errorf("stateless %v, %s at %s: answered %d %s; want 400 and -32022", stateless, req.method, future, res.StatusCode, body)
				continue
			}
			if msg.Error.Data.Requested != future || !slices.Contains(msg.Error.Data.Supported, "2026-07-28") || !slices.Contains(msg.Error.Data.Supported, "2025-11-25") {
				t.Errorf("stateless %v, %s: the error's data is %+v", stateless, req.method, msg.Error.Data)
			}
		}
		if n := runs.Load(); n != 0 {
			t.Errorf("stateless %v: the tool ran %d times", stateless, n)
		}
	}
}
