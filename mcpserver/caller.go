package mcpserver

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/trace"

	"github.com/toolapi/toolapi/tool"
)

// maxClientName is the most bytes of a client's name and version that a
// run's [tool.Caller] keeps: the client chooses them.
const maxClientName = 200

// withCaller returns ctx carrying the [tool.Caller] of a tools/call: the
// MCP channel, the client's name and version from its clientInfo (in the
// request, or in the session's initialize request) and the trace the
// request belongs to.
func withCaller(ctx context.Context, req *mcp.CallToolRequest) context.Context {
	c := tool.Caller{Channel: tool.ChannelMCP}
	if info := req.ClientInfo(); info != nil && info.Name != "" {
		c.Client = info.Name
		if info.Version != "" {
			c.Client += "/" + info.Version
		}
		c.Client = clip(c.Client, maxClientName)
	}
	if sc := trace.SpanContextFromContext(ctx); sc.HasTraceID() {
		c.TraceID = sc.TraceID().String()
	}
	return tool.WithCaller(ctx, c)
}
