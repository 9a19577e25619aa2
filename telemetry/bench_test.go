package telemetry_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/toolapi/toolapi/mcpserver"
	"github.com/toolapi/toolapi/telemetry"
	"github.com/toolapi/toolapi/tool"
)

// discard is a span exporter that drops what it gets, so that the
// benchmark measures recording and batching, not an exporter's transport.
type discard struct{}

func (discard) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error { return nil }
func (discard) Shutdown(context.Context) error                             { return nil }

// benchTelemetry returns telemetry that samples every span and batches it
// to an exporter that drops it, with metrics to a reader.
func benchTelemetry(b *testing.B) *telemetry.Telemetry {
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(discard{}), sdktrace.WithSampler(sdktrace.AlwaysSample()))
	b.Cleanup(func() { tp.Shutdown(context.Background()) })
	tel, err := telemetry.New(&telemetry.Options{
		TracerProvider: tp,
		MeterProvider:  sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader())),
	})
	if err != nil {
		b.Fatal(err)
	}
	return tel
}

// alternate runs on and off b.N times each, taking turns (each first
// every other time), and returns the total time of each.
func alternate(b *testing.B, on, off func() time.Duration) (onTime, offTime time.Duration) {
	b.ResetTimer()
	for i := range b.N {
		if i%2 == 0 {
			onTime += on()
			offTime += off()
		} else {
			offTime += off()
			onTime += on()
		}
	}
	return onTime, offTime
}

// searchServer serves a registry with one read tool over loopback HTTP,
// with telemetry when tel is not nil, and returns a client session on it.
func searchServer(b *testing.B, tel *telemetry.Telemetry) *mcp.ClientSession {
	return searchSessions(b, tel, 1)[0]
}

// searchSessions serves the registry of [searchServer] and returns n
// client sessions on it.
func searchSessions(b *testing.B, tel *telemetry.Telemetry, n int) []*mcp.ClientSession {
	reg := tool.NewRegistry(&tool.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	err := reg.Add(&tool.Tool{
		ID: "album.search", Label: "Search", Description: "Finds titles containing a word.", Operation: tool.OpRead, Permission: "echo",
		Inputs:  []*tool.Definition{{Name: "word", Type: "string", Required: true}},
		Outputs: []*tool.Definition{{Name: "result", Type: "list", Required: true, Items: &tool.Definition{Type: "string"}}},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			return tool.Succeeded("", map[string]any{"result": []any{in.String("word") + " one", in.String("word") + " two"}}), nil
		},
	})
	if err != nil {
		b.Fatal(err)
	}
	srv := mcpserver.New(reg, &mcpserver.Options{Authenticate: func(*http.Request) (tool.Account, error) { return echoer, nil }})
	if tel != nil {
		reg.Use(tel.Middleware())
		srv.MCPServer().AddReceivingMiddleware(tel.MCPMiddleware())
	}
	ts := httptest.NewServer(srv.Handler())
	b.Cleanup(ts.Close)
	c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	var sessions []*mcp.ClientSession
	for range n {
		cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL, MaxRetries: -1}, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { cs.Close() })
		sessions = append(sessions, cs)
	}
	return sessions
}

// BenchmarkToolsCallTracing measures tools/call throughput over loopback
// HTTP with telemetry on (every span sampled and batched to an exporter
// that drops it, metrics to a reader) against the same server with it
// off, calls interleaved in one run, one at a time: the latency one client
// sees. It reports both rates and their ratio (on over off; 1 means no
// cost).
func BenchmarkToolsCallTracing(b *testing.B) {
	tel := benchTelemetry(b)
	on, off := searchServer(b, tel), searchServer(b, nil)
	args := map[string]any{"word": "green"}
	call := func(cs *mcp.ClientSession) time.Duration {
		t0 := time.Now()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "album.search", Arguments: args})
		d := time.Since(t0)
		if err != nil || res.IsError {
			b.Fatalf("call: %v %v", err, res)
		}
		return d
	}
	for range 100 {
		call(on)
		call(off)
	}
	onTime, offTime := alternate(b, func() time.Duration { return call(on) }, func() time.Duration { return call(off) })
	onRate, offRate := float64(b.N)/onTime.Seconds(), float64(b.N)/offTime.Seconds()
	b.ReportMetric(onRate, "traced-calls/s")
	b.ReportMetric(offRate, "plain-calls/s")
	b.ReportMetric(onRate/offRate, "ratio")
}

// BenchmarkToolsCallTracingThroughput measures tools/call throughput
// under load, as a server sees it: 16 clients call at once, in rounds that
// alternate between the server with telemetry on (every span sampled and
// batched to an exporter that drops it, metrics to a reader) and the same
// server with it off. It reports both rates and their ratio (on over off;
// 1 means no cost). [BenchmarkToolsCallTracing] measures the latency one
// client sees instead.
func BenchmarkToolsCallTracingThroughput(b *testing.B) {
	tel := benchTelemetry(b)
	const clients, perRound = 16, 50
	on, off := searchSessions(b, tel, clients), searchSessions(b, nil, clients)
	args := map[string]any{"word": "green"}
	round := func(sessions []*mcp.ClientSession) time.Duration {
		var wg sync.WaitGroup
		errs := make(chan error, len(sessions))
		t0 := time.Now()
		for _, cs := range sessions {
			wg.Go(func() {
				for range perRound {
					res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "album.search", Arguments: args})
					if err == nil && res.IsError {
						err = errors.New("the call failed")
					}
					if err != nil {
						errs <- err
						return
					}
				}
			})
		}
		wg.Wait()
		d := time.Since(t0)
		close(errs)
		if err := <-errs; err != nil {
			b.Fatal(err)
		}
		return d
	}
	round(on)
	round(off)
	onTime, offTime := alternate(b, func() time.Duration { return round(on) }, func() time.Duration { return round(off) })
	calls := float64(b.N * clients * perRound)
	onRate, offRate := calls/onTime.Seconds(), calls/offTime.Seconds()
	b.ReportMetric(onRate, "traced-calls/s")
	b.ReportMetric(offRate, "plain-calls/s")
	b.ReportMetric(onRate/offRate, "ratio")
}

// BenchmarkRunTracing measures the cost telemetry adds to one run through
// the registry, without MCP or HTTP around it: the same tool with
// telemetry on and off, runs interleaved. It reports the time of a run of
// each and their difference.
func BenchmarkRunTracing(b *testing.B) {
	tel := benchTelemetry(b)
	registry := func(tel *telemetry.Telemetry) *tool.Registry {
		reg := tool.NewRegistry(&tool.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if err := reg.Add(&tool.Tool{
			ID: "album.search", Label: "Search", Description: "Finds titles.", Operation: tool.OpRead, Permission: "echo",
			Inputs:  []*tool.Definition{{Name: "word", Type: "string", Required: true}},
			Outputs: []*tool.Definition{{Name: "word", Type: "string"}},
			Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
				return tool.Succeeded("", map[string]any{"word": in.String("word")}), nil
			},
		}); err != nil {
			b.Fatal(err)
		}
		if tel != nil {
			reg.Use(tel.Middleware())
		}
		return reg
	}
	on, off := registry(tel), registry(nil)
	ctx := tool.WithAccount(context.Background(), echoer)
	args := []byte(`{"word":"green"}`)
	run := func(reg *tool.Registry) time.Duration {
		t0 := time.Now()
		r, err := reg.RunJSON(ctx, "album.search", args)
		d := time.Since(t0)
		if err != nil || !r.Success {
			b.Fatalf("run: %v %v", err, r)
		}
		return d
	}
	onTime, offTime := alternate(b, func() time.Duration { return run(on) }, func() time.Duration { return run(off) })
	b.ReportMetric(float64(onTime.Nanoseconds())/float64(b.N), "traced-ns/run")
	b.ReportMetric(float64(offTime.Nanoseconds())/float64(b.N), "plain-ns/run")
	b.ReportMetric(float64((onTime-offTime).Nanoseconds())/float64(b.N), "added-ns/run")
}
