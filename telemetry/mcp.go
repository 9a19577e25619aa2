package telemetry

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// MCPMiddleware returns receiving middleware for an MCP server
// ([mcp.Server.AddReceivingMiddleware]) that records each request and
// notification it receives: its span and its duration. Add it after any
// middleware that should run inside the span. Without providers it passes
// requests through untouched.
func (tel *Telemetry) MCPMiddleware() mcp.Middleware {
	if tel.off {
		return func(next mcp.MethodHandler) mcp.MethodHandler { return next }
	}
	prop := propagation.TraceContext{}
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			start := time.Now()
			// What the client sends is bounded before it names a span or
			// fills an attribute: a tool name of megabytes would otherwise
			// be exported whole with every span.
			method = bounded(method)
			attrs := []attribute.KeyValue{keyMethod.String(method)}
			name := method
			toolName := ""
			if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok && p != nil {
				toolName = bounded(p.Name)
				name = method + " " + toolName
				attrs = append(attrs, keyToolName.String(toolName), keyOperation.String(executeTool))
			}
			// The trace context the client sent: in params._meta, else in
			// the headers of the HTTP request that carried the message.
			if meta := metaOf(req); meta != nil && meta["traceparent"] != nil {
				ctx = prop.Extract(ctx, metaCarrier(meta))
			} else if extra := req.GetExtra(); extra != nil && extra.Header != nil {
				ctx = prop.Extract(ctx, propagation.HeaderCarrier(extra.Header))
			}
			if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss != nil {
				if id := ss.ID(); id != "" {
					attrs = append(attrs, keySessionID.String(bounded(id)))
				}
				if ip := ss.InitializeParams(); ip != nil && ip.ProtocolVersion != "" {
					attrs = append(attrs, keyProtocolVer.String(bounded(ip.ProtocolVersion)))
				}
			}
			ctx, span := tel.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attrs...))
			res, err := next(ctx, method, req)
			errType := ""
			switch {
			case err != nil:
				errType = "_OTHER"
				var je *jsonrpc.Error
				if errors.As(err, &je) {
					errType = fmt.Sprint(je.Code)
				}
			case isToolError(res):
				errType = "tool_error"
			}
			// The tool's name comes from the client: it names the span and
			// the metrics only when the server knew the tool (no protocol
			// error), so that made-up names multiply neither.
			metricTool := ""
			if toolName != "" && err == nil {
				metricTool = toolName
			} else if toolName != "" {
				span.SetName(method)
			}
			if errType != "" {
				span.SetAttributes(keyErrorType.String(errType))
				span.SetStatus(codes.Error, errType)
			}
			span.End()
			tel.mcpDur.Record(ctx, time.Since(start).Seconds(), metric.WithAttributeSet(tel.mcpAttrs(method, metricTool, errType)))
			return res, err
		}
	}
}

// mcpKey identifies the attribute set of a request's metrics.
type mcpKey struct{ method, tool, errType string }

// mcpAttrs returns the attribute set of the metrics of a request, made
// once per method, tool and error type. The table is bounded: past
// maxSets, sets are made afresh each time (tool names reach it only for
// tools the server knows).
func (tel *Telemetry) mcpAttrs(method, toolName, errType string) attribute.Set {
	k := mcpKey{method, toolName, errType}
	if s, ok := tel.mcpSets.Load(k); ok {
		return s.(attribute.Set)
	}
	attrs := []attribute.KeyValue{keyMethod.String(method)}
	if toolName != "" {
		attrs = append(attrs, keyToolName.String(toolName), keyOperation.String(executeTool))
	}
	if errType != "" {
		attrs = append(attrs, keyErrorType.String(errType))
	}
	set := attribute.NewSet(attrs...)
	if tel.mcpSetCount.Load() < maxSets {
		tel.mcpSetCount.Add(1)
		tel.mcpSets.Store(k, set)
	}
	return set
}

// isToolError reports whether res is a tools/call result with isError.
func isToolError(res mcp.Result) bool {
	r, ok := res.(*mcp.CallToolResult)
	return ok && r != nil && r.IsError
}

// metaOf returns the _meta of a request's params, or nil (also for params
// that are a nil pointer, whose GetMeta panics).
func metaOf(req mcp.Request) (meta map[string]any) {
	defer func() {
		if recover() != nil {
			meta = nil
		}
	}()
	params := req.GetParams()
	if params == nil {
		return nil
	}
	return params.GetMeta()
}

// metaCarrier reads trace context from the _meta of MCP params.
type metaCarrier map[string]any

func (m metaCarrier) Get(key string) string {
	s, _ := m[key].(string)
	return s
}

func (m metaCarrier) Set(key, value string) { m[key] = value }

func (m metaCarrier) Keys() []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}
