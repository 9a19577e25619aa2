package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestInputRequiredTools calls the tools of the input-required-result
// scenarios through the SDK's client on protocol version 2026-07-28, which
// answers their questions from its handlers round by round, against the
// server without sessions; scripts/conformance.sh runs the suite itself.
func TestInputRequiredTools(t *testing.T) {
	srv, stopTasks, err := newServer(context.Background(), true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stopTasks)
	mux := http.NewServeMux()
	mux.Handle("/mcp", srv.Handler())
	ts := httptest.NewServer(mux)
	defer ts.Close()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada", "color": "green", "ok": true, "context": "holiday"}}, nil
		},
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Role: "assistant", Model: "m", Content: &mcp.TextContent{Text: "Paris"}}, nil
		},
	})
	c.AddRoots(&mcp.Root{URI: "file:///work"})
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", MaxRetries: -1, DisableStandaloneSSE: true},
		&mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for name, want := range map[string]string{
		"test_input_required_result_elicitation":     "Hello, Ada!",
		"test_input_required_result_sampling":        "Sampling response: Paris",
		"test_input_required_result_list_roots":      "Client exposed 1 root(s): file:///work",
		"test_input_required_result_request_state":   "state-ok: requestState received and confirmation accepted",
		"test_input_required_result_multiple_inputs": "Paris Ada — 1 root(s) visible",
		"test_input_required_result_multi_round":     "Multi-round complete: Ada likes green",
		"test_input_required_result_tampered_state":  "state-ok: requestState received and confirmation accepted",
		"test_input_required_result_capabilities":    "Capability-aware input requests fulfilled (2)",
	} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if res.IsError || res.NeedsInput() || len(res.Content) == 0 || res.Content[0].(*mcp.TextContent).Text != want {
			t.Errorf("%s: %+v, want %q", name, res.Content, want)
		}
	}
	p, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "test_input_required_result_prompt"})
	if err != nil || len(p.Messages) != 1 {
		t.Fatalf("test_input_required_result_prompt: %v, %v", p, err)
	}
	if got := p.Messages[0].Content.(*mcp.TextContent).Text; got != "Context: holiday" {
		t.Errorf("test_input_required_result_prompt: %q, want the context given", got)
	}
}
