// Package telemetry records the runs of tools with OpenTelemetry: a span
// and metrics per run, for every caller, as middleware of a
// [tool.Registry]; and a span and a duration per MCP request, as
// middleware of an MCP server.
//
//	tel, shutdown, err := telemetry.FromEnv(ctx, "notes") // OTEL_* variables; off unless they name an exporter
//	defer shutdown(context.Background())
//	reg.Use(tel.Middleware())
//	srv.MCPServer().AddReceivingMiddleware(tel.MCPMiddleware())
//
// Names follow OpenTelemetry's semantic conventions for generative AI
// tools and for MCP (both in development):
//
//   - A run is an INTERNAL span "execute_tool {tool ID}" with
//     gen_ai.operation.name "execute_tool", gen_ai.tool.name (the tool's
//     ID), gen_ai.tool.type "function", gen_ai.tool.description,
//     gen_ai.tool.call.id when the caller put one in the context (see
//     [WithCallID]), and on failure the span status Error and error.type,
//     the failure category ("input", "access", "runtime"). Its parent is
//     the span of the context the run gets: the MCP request's, the HTTP
//     request's.
//   - Runs are measured by the histogram toolapi.tool.run.duration
//     (seconds) and the counter toolapi.tool.runs, with the attributes
//     gen_ai.operation.name, gen_ai.tool.name, toolapi.outcome ("success"
//     or "failure") and error.type.
//   - An MCP request is a SERVER span "{mcp.method.name} {target}" (the
//     target is the tool's name for tools/call) with mcp.method.name,
//     mcp.session.id, mcp.protocol.version and, for
//     tools/call, gen_ai.tool.name and gen_ai.operation.name; its parent
//     is the trace context the client sent in params._meta (traceparent,
//     tracestate), else in the headers of the HTTP request that carried
//     it, else the context's span. It is measured by the
//     histogram mcp.server.operation.duration (seconds). It carries no
//     jsonrpc.request.id: the MCP SDK does not hand its middleware the
//     request's ID.
//
// Inputs and outputs are never recorded, and no name or value a span
// takes is longer than [MaxText] bytes: a client's made-up tool name of
// megabytes is cut, not exported whole.
package telemetry

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/toolapi/toolapi/tool"
)

// instrumentation is the name of the instrumentation scope.
const instrumentation = "github.com/toolapi/toolapi/telemetry"

// Attribute keys of the semantic conventions, and toolapi's own.
const (
	keyOperation   = attribute.Key("gen_ai.operation.name")
	keyToolName    = attribute.Key("gen_ai.tool.name")
	keyToolType    = attribute.Key("gen_ai.tool.type")
	keyToolDesc    = attribute.Key("gen_ai.tool.description")
	keyToolCallID  = attribute.Key("gen_ai.tool.call.id")
	keyErrorType   = attribute.Key("error.type")
	keyOutcome     = attribute.Key("toolapi.outcome")
	keyMethod      = attribute.Key("mcp.method.name")
	keySessionID   = attribute.Key("mcp.session.id")
	keyProtocolVer = attribute.Key("mcp.protocol.version")
)

// executeTool is the gen_ai.operation.name of a run.
const executeTool = "execute_tool"

// MaxText is the most bytes of text a span takes from one name or value:
// the tool's name in a span's name, each attribute's value. Longer text
// is cut at a character boundary and ends with "...".
const MaxText = 256

// bounded returns s cut to at most [MaxText] bytes.
func bounded(s string) string {
	if len(s) <= MaxText {
		return s
	}
	const more = "..."
	cut := MaxText - len(more)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + more
}

// Options configure [New]; nil fields mean no-ops.
type Options struct {
	// TracerProvider makes the tracer of the spans. Nil records no span.
	TracerProvider trace.TracerProvider
	// MeterProvider makes the meter of the metrics. Nil records no
	// metric.
	MeterProvider metric.MeterProvider
}

// Telemetry records runs and MCP requests to a tracer and a meter. Create
// one with [New] or [FromEnv]; it is safe for concurrent use.
type Telemetry struct {
	off  bool     // neither provider given: the middleware is a pass-through
	sets sync.Map // attribute sets of runs' metrics, by runKey

	mcpSets     sync.Map     // attribute sets of MCP requests' metrics, by mcpKey
	mcpSetCount atomic.Int64 // sets in mcpSets
	tracer      trace.Tracer
	duration    metric.Float64Histogram
	runs        metric.Int64Counter
	mcpDur      metric.Float64Histogram
}

// Enabled reports whether tel records anything: whether it was given a
// provider, or [FromEnv] found an exporter asked for.
func (tel *Telemetry) Enabled() bool { return !tel.off }

type callIDKey struct{}

// WithCallID returns ctx carrying id, the ID under which a caller knows
// a tool call (a model's function-call ID, say): the span of a run in ctx
// records it as gen_ai.tool.call.id. An empty id leaves ctx as it is.
func WithCallID(ctx context.Context, id string) context.Context {
	if id == "" {
		return ctx
	}
	return context.WithValue(ctx, callIDKey{}, id)
}

// New returns a Telemetry with the providers of opts; opts may be nil.
func New(opts *Options) (*Telemetry, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	off := o.TracerProvider == nil && o.MeterProvider == nil
	if o.TracerProvider == nil {
		o.TracerProvider = tracenoop.NewTracerProvider()
	}
	if o.MeterProvider == nil {
		o.MeterProvider = metricnoop.NewMeterProvider()
	}
	t := &Telemetry{off: off, tracer: o.TracerProvider.Tracer(instrumentation)}
	meter := o.MeterProvider.Meter(instrumentation)
	var err error
	if t.duration, err = meter.Float64Histogram("toolapi.tool.run.duration",
		metric.WithDescription("Duration of tool runs."), metric.WithUnit("s"),
		metric.WithExplicitBucketBoundaries(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60)); err != nil {
		return nil, err
	}
	if t.runs, err = meter.Int64Counter("toolapi.tool.runs",
		metric.WithDescription("Tool runs, by outcome and failure category."), metric.WithUnit("{run}")); err != nil {
		return nil, err
	}
	if t.mcpDur, err = meter.Float64Histogram("mcp.server.operation.duration",
		metric.WithDescription("MCP request or notification duration as observed on the receiver from the time it was received until the result or ack is sent."),
		metric.WithUnit("s"),
		metric.WithExplicitBucketBoundaries(0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300)); err != nil {
		return nil, err
	}
	return t, nil
}

// Middleware returns the [tool.Middleware] that records each run: its span
// and its metrics. Without providers it passes runs through untouched. A
// check of inputs ([tool.Call.Check]) runs nothing and is not recorded.
func (tel *Telemetry) Middleware() tool.Middleware {
	if tel.off {
		return func(next tool.RunFunc) tool.RunFunc { return next }
	}
	return func(next tool.RunFunc) tool.RunFunc {
		return func(ctx context.Context, c *tool.Call) *tool.Result {
			if c.Check {
				return next(ctx, c) // a check of inputs is no run
			}
			start := time.Now()
			id := bounded(c.Tool.ID)
			ctx, span := tel.tracer.Start(ctx, executeTool+" "+id,
				trace.WithSpanKind(trace.SpanKindInternal),
				trace.WithAttributes(
					keyOperation.String(executeTool),
					keyToolName.String(id),
					keyToolType.String("function"),
					keyToolDesc.String(bounded(c.Tool.Description)),
				))
			if id, ok := ctx.Value(callIDKey{}).(string); ok {
				span.SetAttributes(keyToolCallID.String(bounded(id)))
			}
			r := next(ctx, c)
			outcome, errType := "success", ""
			if r == nil || !r.Success {
				outcome, errType = "failure", string(tool.FailureRuntime)
				if r != nil && r.Failure != "" {
					errType = string(r.Failure)
				}
				span.SetAttributes(keyErrorType.String(errType))
				span.SetStatus(codes.Error, errType)
			}
			span.End()
			set := metric.WithAttributeSet(tel.runAttrs(c.Tool.ID, outcome, errType))
			tel.duration.Record(ctx, time.Since(start).Seconds(), set)
			tel.runs.Add(ctx, 1, set)
			return r
		}
	}
}

// maxSets bounds the attribute sets kept for MCP requests' metrics.
const maxSets = 10_000

// runKey identifies the attribute set of a run's metrics.
type runKey struct{ tool, outcome, errType string }

// runAttrs returns the attribute set of the metrics of a run, made once
// per tool and outcome.
func (tel *Telemetry) runAttrs(toolID, outcome, errType string) attribute.Set {
	k := runKey{toolID, outcome, errType}
	if s, ok := tel.sets.Load(k); ok {
		return s.(attribute.Set)
	}
	attrs := []attribute.KeyValue{keyOperation.String(executeTool), keyToolName.String(toolID), keyOutcome.String(outcome)}
	if errType != "" {
		attrs = append(attrs, keyErrorType.String(errType))
	}
	s, _ := tel.sets.LoadOrStore(k, attribute.NewSet(attrs...))
	return s.(attribute.Set)
}
