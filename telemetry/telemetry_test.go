package telemetry_test

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/toolapi/toolapi/mcpserver"
	"github.com/toolapi/toolapi/telemetry"
	"github.com/toolapi/toolapi/tool"
)

// fixture is a registry with telemetry on, recording to memory.
type fixture struct {
	reg    *tool.Registry
	tel    *telemetry.Telemetry
	spans  *tracetest.SpanRecorder
	tp     *sdktrace.TracerProvider
	reader *sdkmetric.ManualReader
}

func newFixture(t *testing.T) *fixture {
	f := &fixture{
		reg:    tool.NewRegistry(&tool.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}),
		spans:  tracetest.NewSpanRecorder(),
		reader: sdkmetric.NewManualReader(),
	}
	f.tp = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(f.spans))
	var err error
	f.tel, err = telemetry.New(&telemetry.Options{
		TracerProvider: f.tp,
		MeterProvider:  sdkmetric.NewMeterProvider(sdkmetric.WithReader(f.reader)),
	})
	if err != nil {
		t.Fatal(err)
	}
	echo := &tool.Tool{
		ID: "test.echo", Label: "Echo", Description: "Echoes a word.", Operation: tool.OpRead, Permission: "echo",
		Inputs:  []*tool.Definition{{Name: "word", Type: "string", Required: true}},
		Outputs: []*tool.Definition{{Name: "word", Type: "string"}},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			if in.String("word") == "boom" {
				panic("boom")
			}
			return tool.Succeeded("", map[string]any{"word": in.String("word")}), nil
		},
	}
	if err := f.reg.Add(echo); err != nil {
		t.Fatal(err)
	}
	f.reg.Use(f.tel.Middleware())
	return f
}

var (
	echoer = &tool.User{ID: "echoer", Permissions: []string{"echo"}}
	nobody = &tool.User{ID: "nobody"}
)

// TestRunSpansAndMetrics checks the span and metrics of runs with every
// outcome.
func TestRunSpansAndMetrics(t *testing.T) {
	f := newFixture(t)
	parentCtx, parent := f.tp.Tracer("test").Start(context.Background(), "request")
	runs := []struct {
		acct    tool.Account
		args    string
		errType string
	}{
		{echoer, `{"word":"hi"}`, ""},
		{echoer, `{"word":"hi"}`, ""},
		{echoer, `{}`, "input"},
		{nobody, `{"word":"hi"}`, "access"},
		{echoer, `{"word":"boom"}`, "runtime"},
	}
	for _, r := range runs {
		if _, err := f.reg.RunJSON(tool.WithAccount(parentCtx, r.acct), "test.echo", []byte(r.args)); err != nil {
			t.Fatal(err)
		}
	}
	// Checks of inputs run nothing: no span, no metric.
	for _, args := range []string{`{"word":"hi"}`, `{}`} {
		if _, _, err := f.reg.ValidateJSON(tool.WithAccount(parentCtx, echoer), "test.echo", []byte(args)); err != nil {
			t.Fatal(err)
		}
	}
	parent.End()

	ended := f.spans.Ended()
	var got []string
	for _, s := range ended {
		if s.Name() == "request" {
			continue
		}
		if s.Parent().SpanID() != parent.SpanContext().SpanID() {
			t.Errorf("span %s is not a child of the request's span", s.Name())
		}
		attrs := map[attribute.Key]string{}
		for _, kv := range s.Attributes() {
			attrs[kv.Key] = kv.Value.Emit()
		}
		if attrs["gen_ai.operation.name"] != "execute_tool" || attrs["gen_ai.tool.name"] != "test.echo" || attrs["gen_ai.tool.type"] != "function" {
			t.Errorf("span %s attributes %v", s.Name(), attrs)
		}
		status := "ok"
		if s.Status().Code == codes.Error {
			status = "error " + attrs["error.type"]
		}
		got = append(got, s.Name()+": "+status)
	}
	want := []string{
		"execute_tool test.echo: ok", "execute_tool test.echo: ok", "execute_tool test.echo: error input",
		"execute_tool test.echo: error access", "execute_tool test.echo: error runtime",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("spans (-want +got):\n%s", diff)
	}

	var rm metricdata.ResourceMetrics
	if err := f.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	counts := map[string]int64{}
	var histogramCount uint64
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch data := m.Data.(type) {
			case metricdata.Sum[int64]:
				if m.Name != "toolapi.tool.runs" {
					continue
				}
				for _, dp := range data.DataPoints {
					outcome, _ := dp.Attributes.Value("toolapi.outcome")
					errType, _ := dp.Attributes.Value("error.type")
					counts[outcome.AsString()+"/"+errType.AsString()] += dp.Value
				}
			case metricdata.Histogram[float64]:
				if m.Name != "toolapi.tool.run.duration" || m.Unit != "s" {
					continue
				}
				for _, dp := range data.DataPoints {
					histogramCount += dp.Count
				}
			}
		}
	}
	wantCounts := map[string]int64{"success/": 2, "failure/input": 1, "failure/access": 1, "failure/runtime": 1}
	if diff := cmp.Diff(wantCounts, counts); diff != "" {
		t.Errorf("toolapi.tool.runs by outcome/error.type (-want +got):\n%s", diff)
	}
	if histogramCount != 5 {
		t.Errorf("toolapi.tool.run.duration counts %d runs, want 5", histogramCount)
	}
}

// TestMCPSpans checks that a tools/call gets an MCP server span, child of
// the trace context the client sent in _meta, and that the run's span is
// its child.
func TestMCPSpans(t *testing.T) {
	f := newFixture(t)
	srv := mcpserver.New(f.reg, nil)
	srv.MCPServer().AddReceivingMiddleware(f.tel.MCPMiddleware())
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(ctx, st, echoer); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	const traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{
		Meta: mcp.Meta{"traceparent": traceparent},
		Name: "test.echo", Arguments: map[string]any{"word": "hi"},
	})
	if err != nil || res.IsError {
		t.Fatalf("tools/call: %v %v", res, err)
	}
	var call, run sdktrace.ReadOnlySpan
	for _, s := range f.spans.Ended() {
		switch s.Name() {
		case "tools/call test.echo":
			call = s
		case "execute_tool test.echo":
			run = s
		}
	}
	if call == nil || run == nil {
		t.Fatalf("spans %v, want tools/call test.echo and execute_tool test.echo", f.spans.Ended())
	}
	if got := call.SpanContext().TraceID().String(); got != "0af7651916cd43dd8448eb211c80319c" {
		t.Errorf("tools/call span in trace %s, want the client's", got)
	}
	if call.Parent().SpanID().String() != "b7ad6b7169203331" {
		t.Errorf("tools/call span's parent %s, want the client's span", call.Parent().SpanID())
	}
	if run.Parent().SpanID() != call.SpanContext().SpanID() {
		t.Errorf("the run's span is not a child of the tools/call span")
	}
	attrs := map[attribute.Key]string{}
	for _, kv := range call.Attributes() {
		attrs[kv.Key] = kv.Value.Emit()
	}
	if attrs["mcp.method.name"] != "tools/call" || attrs["gen_ai.tool.name"] != "test.echo" || attrs["gen_ai.operation.name"] != "execute_tool" {
		t.Errorf("tools/call span attributes %v", attrs)
	}
}

// TestFromEnvOff checks that without OTEL_* variables nothing is exported,
// and that unsupported exporters are refused.
func TestFromEnvOff(t *testing.T) {
	for _, v := range []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "OTEL_TRACES_EXPORTER", "OTEL_METRICS_EXPORTER", "OTEL_SDK_DISABLED"} {
		t.Setenv(v, "")
	}
	tel, shutdown, err := telemetry.FromEnv(context.Background(), "test")
	if err != nil || tel == nil {
		t.Fatalf("FromEnv with no variables: %v", err)
	}
	if err := shutdown(context.Background()); err != nil {
		t.Error(err)
	}
	t.Setenv("OTEL_TRACES_EXPORTER", "zipkin")
	if _, _, err := telemetry.FromEnv(context.Background(), "test"); err == nil {
		t.Error("OTEL_TRACES_EXPORTER=zipkin was accepted")
	}
	t.Setenv("OTEL_TRACES_EXPORTER", "otlp")
	tel, shutdown, err = telemetry.FromEnv(context.Background(), "test")
	if err != nil || tel == nil {
		t.Fatalf("FromEnv with OTEL_TRACES_EXPORTER=otlp: %v", err)
	}
	shutdown(context.Background())
}

// TestMCPSpanBounds checks that a tools/call naming an unknown tool of 3
// MiB gets a span whose name and attributes are each at most
// telemetry.MaxText bytes.
func TestMCPSpanBounds(t *testing.T) {
	f := newFixture(t)
	srv := mcpserver.New(f.reg, nil)
	srv.MCPServer().AddReceivingMiddleware(f.tel.MCPMiddleware())
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(ctx, st, echoer); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	huge := strings.Repeat("é", 3<<20/2) // 3 MiB, two bytes a character
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: huge}); err == nil {
		t.Fatal("a call of an unknown tool succeeded")
	}
	var call sdktrace.ReadOnlySpan
	for _, s := range f.spans.Ended() {
		if strings.HasPrefix(s.Name(), "tools/call") {
			call = s
		}
	}
	if call == nil {
		t.Fatalf("spans %v, want one of tools/call", f.spans.Ended())
	}
	if len(call.Name()) > telemetry.MaxText {
		t.Errorf("span name of %d bytes, want at most %d", len(call.Name()), telemetry.MaxText)
	}
	for _, kv := range call.Attributes() {
		v := kv.Value.Emit()
		if len(v) > telemetry.MaxText || !utf8.ValidString(v) {
			t.Errorf("attribute %s: %d bytes (valid UTF-8: %v), want at most %d", kv.Key, len(v), utf8.ValidString(v), telemetry.MaxText)
		}
		if kv.Key == "gen_ai.tool.name" && !strings.HasPrefix(huge, strings.TrimSuffix(v, "...")) {
			t.Errorf("gen_ai.tool.name %q is not the start of the name sent", v)
		}
	}
}
