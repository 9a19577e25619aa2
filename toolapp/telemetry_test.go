package toolapp

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// otelVars are the variables that can turn telemetry on.
var otelVars = []string{
	"OTEL_SDK_DISABLED", "OTEL_TRACES_EXPORTER", "OTEL_METRICS_EXPORTER",
	"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
}

// An otlpReceiver is a loopback OTLP/HTTP endpoint that keeps what it
// receives.
type otlpReceiver struct {
	*httptest.Server
	mu       sync.Mutex
	requests []string // "PATH BODY"
}

func newOTLPReceiver(t *testing.T) *otlpReceiver {
	rec := new(otlpReceiver)
	rec.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rec.mu.Lock()
		rec.requests = append(rec.requests, r.URL.Path+" "+string(body))
		rec.mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	t.Cleanup(rec.Close)
	return rec
}

func (rec *otlpReceiver) received() []string {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]string(nil), rec.requests...)
}

// lockedBuffer is a bytes.Buffer safe for concurrent use.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// serveOnce runs `notes serve` on a free loopback port, calls notes.count
// over MCP as ada, and stops the command, returning its exit status.
func serveOnce(t *testing.T) int {
	t.Helper()
	a := newTestApp(t)
	token, err := a.accounts.IssueToken(context.Background(), "ada")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, a.open, []string{"serve", "--addr", "127.0.0.1:0"},
			&Options{Name: "notes", Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr})
	}()
	serving := regexp.MustCompile(`on (http://\S+) \(`)
	var base string
	for deadline := time.Now().Add(10 * time.Second); base == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if m := serving.FindStringSubmatch(stdout.String()); m != nil {
			base = m[1]
		}
	}
	if base == "" {
		cancel()
		t.Fatalf("serve did not start: exit %d\n%s", <-done, stderr.String())
	}
	cs, err := connect(t, base, token, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "notes.count"})
	if err != nil || res.IsError {
		t.Fatalf("notes.count: %v %v", res, err)
	}
	cs.Close()
	cancel()
	code := <-done
	if code != 0 {
		t.Errorf("serve: exit %d\n%s", code, stderr.String())
	}
	return code
}

// TestServeTelemetry checks that serve turns telemetry on only when the
// OTEL_* variables ask for an exporter, and that its spans (the MCP
// request's and the run's) reach the endpoint by the time serve ends.
func TestServeTelemetry(t *testing.T) {
	for _, v := range otelVars {
		t.Setenv(v, "")
	}
	t.Run("unset", func(t *testing.T) {
		a := newTestApp(t)
		app, _ := a.open(context.Background())
		r := &runner{ctx: context.Background(), opts: Options{Name: "notes"}}
		tel, stop, err := r.startTelemetry(app)
		stop()
		if err != nil || tel != nil {
			t.Errorf("startTelemetry without OTEL variables = %v, %v; want nothing installed", tel, err)
		}
	})
	t.Run("none", func(t *testing.T) {
		rec := newOTLPReceiver(t)
		t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", rec.URL)
		t.Setenv("OTEL_TRACES_EXPORTER", "none")
		t.Setenv("OTEL_METRICS_EXPORTER", "none")
		serveOnce(t)
		if got := rec.received(); len(got) != 0 {
			t.Errorf("with the exporters none, the endpoint received %d requests", len(got))
		}
	})
	t.Run("endpoint", func(t *testing.T) {
		rec := newOTLPReceiver(t)
		t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", rec.URL)
		serveOnce(t)
		var traces, metrics string
		for _, r := range rec.received() {
			switch path, body, _ := strings.Cut(r, " "); path {
			case "/v1/traces":
				traces += body
			case "/v1/metrics":
				metrics += body
			}
		}
		for _, want := range []string{"execute_tool notes.count", "tools/call notes.count", "gen_ai.tool.name", "service.name", "notes"} {
			if !strings.Contains(traces, want) {
				t.Errorf("the spans serve exported lack %q", want)
			}
		}
		for _, want := range []string{"toolapi.tool.run.duration", "mcp.server.operation.duration"} {
			if !strings.Contains(metrics, want) {
				t.Errorf("the metrics serve exported lack %q", want)
			}
		}
	})
}
