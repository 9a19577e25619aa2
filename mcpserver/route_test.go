package mcpserver

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/toolapi/toolapi/tool"
)

// TestOneEndpointBothGenerations: a Server with sessions (the default)
// answers a client of protocol version 2026-07-28 without a session on the
// same handler: server/discover lists 2026-07-28 beside the older
// versions, and a tools/list at 2026-07-28 is served (the SDK's handler
// with sessions alone refused it with 400 and -32022), while initialize
// still opens a session.
func TestOneEndpointBothGenerations(t *testing.T) {
	srv := New(tool.NewRegistry(nil), &Options{AllowAnonymous: true})
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	post := func(version, body string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if version != "" {
			req.Header.Set("Mcp-Protocol-Version", version)
			req.Header.Set("Mcp-Method", "server/discover")
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		return res, string(b)
	}
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

	res, body := post("2026-07-28", `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+meta+`}}`)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("server/discover: %d %s", res.StatusCode, body)
	}
	var discover struct {
		Result struct {
			SupportedVersions []string `json:"supportedVersions"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(sseData(body)), &discover); err != nil {
		t.Fatalf("server/discover: %v in %s", err, body)
	}
	for _, v := range []string{"2026-07-28", "2025-11-25"} {
		if !slices.Contains(discover.Result.SupportedVersions, v) {
			t.Errorf("server/discover lists %v, not %s", discover.Result.SupportedVersions, v)
		}
	}

	req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{`+meta+`}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/list")
	lres, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(lres.Body)
	lres.Body.Close()
	if lres.StatusCode != http.StatusOK || !strings.Contains(string(b), `"tools"`) {
		t.Fatalf("tools/list at 2026-07-28: %d %s", lres.StatusCode, b)
	}
	if id := lres.Header.Get("Mcp-Session-Id"); id != "" {
		t.Errorf("tools/list at 2026-07-28 opened session %q", id)
	}

	res, body = post("", `{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if res.StatusCode != http.StatusOK || res.Header.Get("Mcp-Session-Id") == "" {
		t.Fatalf("initialize at 2025-11-25: %d, session %q, %s", res.StatusCode, res.Header.Get("Mcp-Session-Id"), body)
	}
}

// sseData returns the data of the last event of an event stream body, or
// body itself when it is plain JSON.
func sseData(body string) string {
	data := body
	for _, line := range strings.Split(body, "\n") {
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			data = d
		}
	}
	return data
}
