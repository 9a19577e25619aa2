package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// taskParams and taskResult are the client's side of tasks/get and
// tasks/update.
type taskParams struct {
	mcp.ParamsBase
	TaskID         string         `json:"taskId"`
	InputResponses map[string]any `json:"inputResponses,omitempty"`
}

type taskResult struct {
	mcp.ResultBase
	ResultType    string              `json:"resultType"`
	TaskID        string              `json:"taskId"`
	Status        string              `json:"status"`
	InputRequests map[string]any      `json:"inputRequests"`
	Result        *mcp.CallToolResult `json:"result"`
}

// TestTaskTools starts confirm_delete as a task (a tools/call sent as JSON,
// since the SDK's client reads no CreateTaskResult), then polls it, answers
// its question and collects its result through the SDK client's custom
// methods, on protocol version 2026-07-28 without sessions.
func TestTaskTools(t *testing.T) {
	srv, stopTasks, err := newServer(context.Background(), true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stopTasks)
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	ctx := context.Background()

	caps := map[string]any{"elicitation": map[string]any{}, "extensions": map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{
		"name": "confirm_delete", "arguments": map[string]any{"filename": "old.txt"},
		"_meta": map[string]any{mcp.MetaKeyProtocolVersion: "2026-07-28", mcp.MetaKeyClientInfo: map[string]any{"name": "raw", "version": "1"}, mcp.MetaKeyClientCapabilities: caps},
	}})
	req, _ := http.NewRequest(http.MethodPost, ts.URL, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "confirm_delete")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	buf.ReadFrom(resp.Body)
	resp.Body.Close()
	raw := buf.String()
	if i := strings.Index(raw, "{"); i > 0 { // an event stream's data line
		raw = strings.TrimSpace(raw[i:])
	}
	var created struct {
		Result struct {
			ResultType string `json:"resultType"`
			TaskID     string `json:"taskId"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(raw), &created); err != nil || created.Result.ResultType != "task" || created.Result.TaskID == "" {
		t.Fatalf("tools/call of confirm_delete: %s (%v), want a CreateTaskResult", raw, err)
	}
	id := created.Result.TaskID

	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{}, Extensions: map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}},
	})
	for _, m := range []string{"tasks/get", "tasks/update"} {
		if err := mcp.AddSendingCustomMethod[*taskParams, *taskResult](c, m); err != nil {
			t.Fatal(err)
		}
	}
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL, MaxRetries: -1, DisableStandaloneSSE: true},
		&mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	poll := func(want string) *taskResult {
		deadline := time.Now().Add(20 * time.Second)
		for {
			r, err := mcp.CallCustomMethod[*taskParams, *taskResult](ctx, cs, "tasks/get", &taskParams{TaskID: id})
			if err != nil {
				t.Fatalf("tasks/get: %v", err)
			}
			if r.Status == want || r.Status == "completed" || r.Status == "failed" || r.Status == "cancelled" {
				return r
			}
			if time.Now().After(deadline) {
				t.Fatalf("task still %s, want %s", r.Status, want)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	if r := poll("input_required"); r.Status != "input_required" || r.InputRequests["q"] == nil {
		t.Fatalf("task: %+v, want input_required asking under q", r)
	}
	if _, err := mcp.CallCustomMethod[*taskParams, *taskResult](ctx, cs, "tasks/update", &taskParams{TaskID: id,
		InputResponses: map[string]any{"q": map[string]any{"action": "accept", "content": map[string]any{"confirm": true}}}}); err != nil {
		t.Fatalf("tasks/update: %v", err)
	}
	r := poll("completed")
	if r.Status != "completed" || r.Result == nil || len(r.Result.Content) == 0 {
		t.Fatalf("task: %+v, want completed with a result", r)
	}
	if text, _ := r.Result.Content[0].(*mcp.TextContent); text == nil || text.Text != "deleted old.txt" {
		t.Errorf("result %+v, want deleted old.txt", r.Result.Content[0])
	}
}
