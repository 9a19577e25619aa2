package mcpserver_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolapi/toolapi/mcpserver"
	"github.com/toolapi/toolapi/tool"
)

// The plain SDK tool of BenchmarkStatelessCall: the same addition as
// calc.add, typed, its schemas inferred by the SDK.
type addIn struct {
	A int `json:"a" jsonschema:"the first number"`
	B int `json:"b" jsonschema:"the second number"`
}

type addOut struct {
	Sum int `json:"sum"`
}

// BenchmarkStatelessCall measures a trivial tools/call (adding two numbers)
// over loopback HTTP, made by go-sdk clients, three ways in one run:
//
//   - stateless: at protocol version 2026-07-28, without a session, to a
//     toolapi server as `serve` runs it by default (sessions for the
//     clients that open one, anonymous access allowed);
//   - session: at 2025-11-25, in a session, to the same server;
//   - plain: at 2026-07-28, without a session, to a plain go-sdk server
//     (mcp.NewStreamableHTTPHandler with Stateless) whose tool does the
//     same addition, written with mcp.AddTool.
//
// With clients=N, each way has N clients, and a round makes one call from
// each of them at once. Each iteration makes a round of each way, the
// order turning from one iteration to the next. It reports the three
// rates and two ratios: stateless over session (above 1: a call without a
// session is faster than one in a session) and stateless over plain
// (above 1: toolapi is faster than the plain SDK server).
//
//	go test ./mcpserver -run '^$' -bench BenchmarkStatelessCall -benchtime 3s -count 3
func BenchmarkStatelessCall(b *testing.B) {
	reg := tool.NewRegistry(&tool.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	err := reg.Add(&tool.Tool{
		ID: "calc.add", Label: "Add", Description: "Adds two numbers.", Operation: tool.OpRead,
		// Anyone may add, as anyone may call the plain server's tool.
		Access: func(context.Context, *tool.Values) (bool, error) { return true, nil },
		Inputs: []*tool.Definition{
			{Name: "a", Type: "integer", Description: "the first number", Required: true},
			{Name: "b", Type: "integer", Description: "the second number", Required: true},
		},
		Outputs: []*tool.Definition{{Name: "sum", Type: "integer", Required: true}},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			return tool.Succeeded("", map[string]any{"sum": in.Int("a") + in.Int("b")}), nil
		},
	})
	if err != nil {
		b.Fatal(err)
	}
	// No cap on the anonymous sessions of one address: the session way's
	// clients all come from this one.
	ours := httptest.NewServer(mcpserver.New(reg, &mcpserver.Options{AllowAnonymous: true, MaxSessionsPerAddress: -1}).Handler())
	b.Cleanup(ours.Close)
	plain := mcp.NewServer(&mcp.Implementation{Name: "plain", Version: "1"}, nil)
	mcp.AddTool(plain, &mcp.Tool{Name: tool.NameOf("calc.add"), Description: "Adds two numbers."},
		func(ctx context.Context, req *mcp.CallToolRequest, in addIn) (*mcp.CallToolResult, addOut, error) {
			return nil, addOut{Sum: in.A + in.B}, nil
		})
	theirs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return plain },
		&mcp.StreamableHTTPOptions{Stateless: true}))
	b.Cleanup(theirs.Close)

	for _, clients := range []int{1, 16, 64} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) {
			benchmarkStatelessCall(b, clients, ours.URL, theirs.URL)
		})
	}
}

func benchmarkStatelessCall(b *testing.B, clients int, ours, theirs string) {
	connect := func(endpoint, version string) []*mcp.ClientSession {
		// The clients of a way share an HTTP transport that keeps a
		// connection for each of them, so that no round opens new ones.
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = clients
		hc := &http.Client{Transport: tr}
		b.Cleanup(tr.CloseIdleConnections)
		out := make([]*mcp.ClientSession, clients)
		for i := range out {
			c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
			cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{
				Endpoint: endpoint, HTTPClient: hc, MaxRetries: -1, DisableStandaloneSSE: true,
			}, &mcp.ClientSessionOptions{ProtocolVersion: version})
			if err != nil {
				b.Fatalf("connecting to %s at %s: %v", endpoint, version, err)
			}
			b.Cleanup(func() { cs.Close() })
			if got := cs.InitializeResult().ProtocolVersion; got != version {
				b.Fatalf("%s: connected at %s, want %s", endpoint, got, version)
			}
			out[i] = cs
		}
		return out
	}
	ways := []struct {
		name     string
		sessions []*mcp.ClientSession
		time     time.Duration
	}{
		{name: "stateless", sessions: connect(ours, "2026-07-28")},
		{name: "session", sessions: connect(ours, "2025-11-25")},
		{name: "plain", sessions: connect(theirs, "2026-07-28")},
	}
	// Only the session way has a session ID.
	for _, w := range ways {
		if id := w.sessions[0].ID(); (id != "") != (w.name == "session") {
			b.Fatalf("%s: session ID %q", w.name, id)
		}
	}
	// Each call gets params of its own: a go-sdk client of 2026-07-28
	// writes its protocol version into the _meta of the params it is
	// given, which would send a call of the session way at that version.
	params := func() *mcp.CallToolParams {
		return &mcp.CallToolParams{Name: tool.NameOf("calc.add"), Arguments: map[string]any{"a": 2, "b": 40}}
	}
	// Every way answers the same.
	for _, w := range ways {
		res, err := w.sessions[0].CallTool(context.Background(), params())
		if err != nil || res.IsError {
			b.Fatalf("%s: %v %+v", w.name, err, res)
		}
		if got := string(mustJSON(b, res.StructuredContent)); got != `{"sum":42}` {
			b.Fatalf("%s: structured content %s, want {\"sum\":42}", w.name, got)
		}
	}

	// round makes one call from each session at once and returns how long
	// they took together.
	round := func(sessions []*mcp.ClientSession) time.Duration {
		t0 := time.Now()
		var wg sync.WaitGroup
		for _, cs := range sessions {
			wg.Go(func() {
				res, err := cs.CallTool(context.Background(), params())
				if err != nil || res.IsError {
					b.Errorf("call: %v %+v", err, res)
				}
			})
		}
		wg.Wait()
		return time.Since(t0)
	}
	n := 0
	for b.Loop() {
		for k := range ways {
			w := &ways[(n+k)%len(ways)]
			w.time += round(w.sessions)
		}
		n++
	}
	calls := float64(n * clients)
	rate := map[string]float64{}
	for _, w := range ways {
		rate[w.name] = calls / w.time.Seconds()
		b.ReportMetric(rate[w.name], w.name+"-calls/s")
	}
	b.ReportMetric(rate["stateless"]/rate["session"], "stateless/session")
	b.ReportMetric(rate["stateless"]/rate["plain"], "stateless/plain")
}
