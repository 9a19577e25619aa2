package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestStatelessTools calls the tools of the server-stateless scenario as
// a client of 2026-07-28 does, without a session: test_missing_capability
// is refused with -32021 and HTTP 400 to a client that does not offer
// sampling, test_logging_tool sends no log to a client that asked for
// none, test_streaming_elicitation answers with an input-required result
// (never a request of the server), and each trigger call changes its list,
// back and forth.
func TestStatelessTools(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		srv, stopTasks, err := newServer(context.Background(), stateless)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(stopTasks)
		ts := httptest.NewServer(srv.Handler())
		t.Cleanup(ts.Close)
		call := func(method, params, caps string) (int, string) {
			t.Helper()
			body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{` + params +
				`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps + `}}}`
			req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
			req.Header.Set("Mcp-Method", method)
			if method == "tools/call" {
				name, _, _ := strings.Cut(strings.TrimPrefix(params, `"name":"`), `"`)
				req.Header.Set("Mcp-Name", name)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			return res.StatusCode, string(b)
		}

		status, body := call("tools/call", `"name":"test_missing_capability","arguments":{},`, `{}`)
		if status != http.StatusBadRequest || !strings.Contains(body, `"code":-32021`) || !strings.Contains(body, `"sampling":{}`) {
			t.Errorf("test_missing_capability without sampling: %d %s", status, body)
		}
		status, body = call("tools/call", `"name":"test_logging_tool","arguments":{},`, `{}`)
		if status != http.StatusOK || strings.Contains(body, "notifications/message") || !strings.Contains(body, "logged at level info") {
			t.Errorf("test_logging_tool without a log level: %d %s", status, body)
		}
		status, body = call("tools/call", `"name":"test_streaming_elicitation","arguments":{},`, `{"elicitation":{}}`)
		if status != http.StatusOK || !strings.Contains(body, `"resultType":"input_required"`) || strings.Contains(body, `"method":"elicitation/create","id"`) {
			t.Errorf("test_streaming_elicitation: %d %s", status, body)
		}
		for i, want := range []string{"added", "removed", "added"} {
			for _, c := range []struct{ trigger, list, spare string }{
				{"test_trigger_tool_change", "tools/list", spareToolID},
				{"test_trigger_prompt_change", "prompts/list", sparePrompt},
			} {
				if _, body := call("tools/call", `"name":"`+c.trigger+`","arguments":{},`, `{}`); !strings.Contains(body, want+" "+c.spare) {
					t.Errorf("call %d of %s: %s, want %s", i+1, c.trigger, body, want)
				}
				_, body := call(c.list, "", `{}`)
				if listed := strings.Contains(body, `"name":"`+c.spare+`"`); listed != (want == "added") {
					t.Errorf("after call %d of %s, %s lists %s: %v", i+1, c.trigger, c.list, c.spare, listed)
				}
			}
		}
	}
}
