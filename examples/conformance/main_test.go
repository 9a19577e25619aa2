package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestTools calls each tool the way the conformance suite does, over
// in-memory transports; scripts/conformance.sh runs the suite itself.
func TestTools(t *testing.T) {
	srv, stopTasks, err := newServer(context.Background(), false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stopTasks)
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, tester)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Wait()
	logs, progress := make(chan string, 10), make(chan float64, 10)
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Role: "assistant", Model: "m", Content: &mcp.TextContent{Text: "hello"}}, nil
		},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"username": "ada", "email": "ada@example.com"}}, nil
		},
		LoggingMessageHandler:       func(_ context.Context, r *mcp.LoggingMessageRequest) { logs <- r.Params.Data.(string) },
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) { progress <- r.Params.Progress },
	})
	cs, err := c.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
		t.Fatal(err)
	}

	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, mt := range list.Tools {
		names = append(names, mt.Name)
		if mt.Name == "json_schema_2020_12_tool" {
			in, _ := json.Marshal(mt.InputSchema)
			for _, want := range []string{`"$schema":"https://json-schema.org/draft/2020-12/schema"`, `"$defs":{"address":{`, `"$ref":"#/$defs/address"`, `"additionalProperties":false`} {
				if !strings.Contains(string(in), want) {
					t.Errorf("json_schema_2020_12_tool input schema lacks %s: %s", want, in)
				}
			}
		}
	}
	want := "confirm_delete failing_job greet json_schema_2020_12_tool multi_input protocol_error_job slow_compute test_audio_content test_elicitation test_elicitation_sep1034_defaults test_elicitation_sep1330_enums test_embedded_resource test_error_handling test_image_content test_input_required_result_capabilities test_input_required_result_elicitation test_input_required_result_list_roots test_input_required_result_multi_round test_input_required_result_multiple_inputs test_input_required_result_request_state test_input_required_result_sampling test_input_required_result_tampered_state test_logging_tool test_missing_capability test_multiple_content_types test_reconnection test_sampling test_simple_text test_streaming_elicitation test_tool_with_logging test_tool_with_progress test_tool_with_task test_trigger_prompt_change test_trigger_tool_change test_x_mcp_header"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("tools/list:\n got %s\nwant %s", got, want)
	}

	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(prompts.Prompts) != 5 {
		t.Errorf("prompts/list: %d prompts, want 5", len(prompts.Prompts))
	}
	for uri, want := range map[string]string{
		"test://static-text":     "This is the content of the static text resource.",
		"test://template/7/data": `{"id": "7", "templateTest": true, "data": "Data for ID: 7"}`,
	} {
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			t.Errorf("resources/read %s: %v", uri, err)
			continue
		}
		if got := res.Contents[0].Text; got != want {
			t.Errorf("resources/read %s: %q, want %q", uri, got, want)
		}
	}

	tests := []struct {
		tool    string
		args    map[string]any
		isError bool
		content string // the types of the content blocks
		text    string // in the first text block
	}{
		{"test_simple_text", nil, false, "text", "This is a simple text response for testing."},
		{"test_image_content", nil, false, "text image", "Image content completed."},
		{"test_audio_content", nil, false, "text audio", "Audio content completed."},
		{"test_embedded_resource", nil, false, "text resource", "Embedded resource completed."},
		{"test_multiple_content_types", nil, false, "text image resource", `{"text":"Multiple content types test:"}`},
		{"test_tool_with_logging", nil, false, "text", "Tool with logging executed successfully"},
		{"test_tool_with_progress", nil, false, "text", "Tool with progress executed successfully"},
		{"test_error_handling", nil, true, "text", "Error handling failed."},
		{"test_sampling", map[string]any{"prompt": "Hi"}, false, "text", "LLM response: hello"},
		{"test_elicitation", map[string]any{"message": "Who?"}, false, "text", "User response: action=accept"},
		{"json_schema_2020_12_tool", map[string]any{"name": "Ada", "address": map[string]any{"city": "London"}, "contact_method": "email", "email": "ada@example.com"}, false, "text",
			"JSON Schema 2020-12 tool called with: name=Ada address=, London contact_method=email email=ada@example.com"},
	}
	for _, tc := range tests {
		params := &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args}
		params.SetProgressToken("p")
		res, err := cs.CallTool(ctx, params)
		if err != nil {
			t.Errorf("%s: %v", tc.tool, err)
			continue
		}
		var types []string
		for _, c := range res.Content {
			b, _ := json.Marshal(c)
			var typed struct{ Type string }
			json.Unmarshal(b, &typed)
			types = append(types, typed.Type)
		}
		text := res.Content[0].(*mcp.TextContent).Text
		if res.IsError != tc.isError || strings.Join(types, " ") != tc.content || !strings.Contains(text, tc.text) {
			b, _ := json.Marshal(res)
			t.Errorf("%s: %s\nwant isError %v, content %q, text with %q", tc.tool, b, tc.isError, tc.content, tc.text)
		}
	}
	// The bytes the methods return arrive as they were, and the resource
	// as the method built it.
	for _, tc := range []struct {
		tool string
		want []byte
	}{{"test_image_content", png}, {"test_audio_content", wav}, {"test_multiple_content_types", png}} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.tool})
		if err != nil {
			t.Fatalf("%s: %v", tc.tool, err)
		}
		var data []byte
		switch c := res.Content[1].(type) {
		case *mcp.ImageContent:
			data = c.Data
		case *mcp.AudioContent:
			data = c.Data
		}
		if !bytes.Equal(data, tc.want) {
			t.Errorf("%s: content bytes %x, want %x", tc.tool, data, tc.want)
		}
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_embedded_resource"})
	if err != nil {
		t.Fatal(err)
	}
	if er, ok := res.Content[1].(*mcp.EmbeddedResource); !ok || er.Resource.URI != "test://embedded-resource" || er.Resource.MIMEType != "text/plain" || er.Resource.Text != "This is an embedded resource content." {
		b, _ := json.Marshal(res)
		t.Errorf("test_embedded_resource: %s", b)
	}

	var gotLogs []string
	var gotProgress []float64
	for range 3 {
		gotLogs = append(gotLogs, wait(t, logs))
		gotProgress = append(gotProgress, wait(t, progress))
	}
	if strings.Join(gotLogs, ", ") != "Tool execution started, Tool processing data, Tool execution completed" {
		t.Errorf("logs %q", gotLogs)
	}
	if gotProgress[0] != 0 || gotProgress[1] != 50 || gotProgress[2] != 100 {
		t.Errorf("progress %v, want 0, 50, 100", gotProgress)
	}
}

func wait[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(30 * time.Second):
		t.Fatal("a notification did not arrive")
		panic("unreachable")
	}
}
