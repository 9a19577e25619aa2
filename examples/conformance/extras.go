package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MCP offers prompts and resources beside tools. A toolapi registry holds
// tools only; an application adds its prompts and resources to the SDK
// server underneath its mcpserver.Server (Server.MCPServer), and passes the
// handlers the SDK takes at creation (completions, subscriptions) in
// Options.SDK. These are the ones the conformance suite reads.

// sdkOptions are the SDK options of the conformance server: completions
// and resource subscriptions, both accepted.
var sdkOptions = &mcp.ServerOptions{
	CompletionHandler: func(context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
		return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}, nil
	},
	SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { return nil },
	UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
}

// addExtras adds the suite's resources, resource template and prompts to
// s, and test_reconnection.
func addExtras(s *mcp.Server) {
	addReconnection(s)
	text := func(uri, mime, body string) *mcp.ReadResourceResult {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: mime, Text: body}}}
	}
	s.AddResource(&mcp.Resource{
		Name: "static-text", Description: "A static text resource for testing",
		MIMEType: "text/plain", URI: "test://static-text",
	}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return text(req.Params.URI, "text/plain", "This is the content of the static text resource."), nil
	})
	s.AddResource(&mcp.Resource{
		Name: "static-binary", Description: "A static binary resource (image) for testing",
		MIMEType: "image/png", URI: "test://static-binary",
	}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "image/png", Blob: png}}}, nil
	})
	s.AddResourceTemplate(&mcp.ResourceTemplate{
		Name: "template", Description: "A resource template with parameter substitution",
		MIMEType: "application/json", URITemplate: "test://template/{id}/data",
	}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		id := strings.TrimSuffix(strings.TrimPrefix(req.Params.URI, "test://template/"), "/data")
		return text(req.Params.URI, "application/json",
			fmt.Sprintf(`{"id": %q, "templateTest": true, "data": "Data for ID: %s"}`, id, id)), nil
	})
	s.AddResource(&mcp.Resource{
		Name: "watched-resource", Description: "A resource clients may subscribe to",
		MIMEType: "text/plain", URI: "test://watched-resource",
	}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return text(req.Params.URI, "text/plain", "Watched resource content"), nil
	})

	user := func(c mcp.Content) *mcp.PromptMessage { return &mcp.PromptMessage{Role: "user", Content: c} }
	s.AddPrompt(&mcp.Prompt{
		Name: "test_simple_prompt", Title: "Simple Test Prompt", Description: "A simple prompt without arguments",
	}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Description: "A simple test prompt", Messages: []*mcp.PromptMessage{
			user(&mcp.TextContent{Text: "This is a simple prompt for testing."}),
		}}, nil
	})
	s.AddPrompt(&mcp.Prompt{
		Name: "test_prompt_with_arguments", Title: "Prompt With Arguments", Description: "A prompt with required arguments",
		Arguments: []*mcp.PromptArgument{
			{Name: "arg1", Description: "First test argument", Required: true},
			{Name: "arg2", Description: "Second test argument", Required: true},
		},
	}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		a := req.Params.Arguments
		return &mcp.GetPromptResult{Description: "A prompt with arguments", Messages: []*mcp.PromptMessage{
			user(&mcp.TextContent{Text: fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", a["arg1"], a["arg2"])}),
		}}, nil
	})
	s.AddPrompt(&mcp.Prompt{
		Name: "test_prompt_with_embedded_resource", Title: "Prompt With Embedded Resource",
		Description: "A prompt that includes an embedded resource",
		Arguments:   []*mcp.PromptArgument{{Name: "resourceUri", Description: "URI of the resource to embed", Required: true}},
	}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Description: "A prompt with an embedded resource", Messages: []*mcp.PromptMessage{
			user(&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{
				URI: req.Params.Arguments["resourceUri"], MIMEType: "text/plain", Text: "Embedded resource content for testing.",
			}}),
			user(&mcp.TextContent{Text: "Please process the embedded resource above."}),
		}}, nil
	})
	s.AddPrompt(&mcp.Prompt{
		Name: "test_prompt_with_image", Title: "Prompt With Image", Description: "A prompt that includes image content",
	}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Description: "A prompt with an image", Messages: []*mcp.PromptMessage{
			user(&mcp.ImageContent{Data: png, MIMEType: "image/png"}),
			user(&mcp.TextContent{Text: "Please analyze the image above."}),
		}}, nil
	})
}

// addReconnection adds test_reconnection, which closes the SSE stream of its
// own call before it answers, so that the client must reconnect with
// Last-Event-ID to read the answer (SEP-1699). Closing a stream belongs to
// the HTTP transport, not to a tool's inputs and outputs, so this one tool
// is the SDK's own; the server's event store keeps the answer until the
// client is back.
func addReconnection(s *mcp.Server) {
	s.AddTool(&mcp.Tool{
		Name:        "test_reconnection",
		Description: "Closes the SSE stream of its call mid-call, then answers on the resumed stream",
		InputSchema: map[string]any{"type": "object"},
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		// A client of an older protocol version has no event ID to resume
		// from (the SDK opens the stream with one from 2025-11-25 on), so
		// its stream stays open and carries the answer. The header names
		// the version the session negotiated: mcpserver raises an older
		// one (the suite's raw requests say 2025-03-26) to it.
		// A server without sessions keeps no stream to resume (resuming
		// is a GET naming the session), so its stream stays open too.
		if req.Extra != nil && req.Extra.CloseSSEStream != nil && req.Session.ID() != "" &&
			req.Extra.Header.Get("Mcp-Protocol-Version") >= "2025-11-25" {
			req.Extra.CloseSSEStream(mcp.CloseSSEStreamArgs{RetryAfter: 100 * time.Millisecond})
		}
		select {
		case <-time.After(200 * time.Millisecond): // the client reconnects meanwhile
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Reconnection test completed"}}}, nil
	})
}
