package mcpserver_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/toolapi/toolapi/mcpserver"
	"github.com/toolapi/toolapi/tool"
)

// BenchmarkStepUpLargeArguments measures what step-up authorization costs
// a tools/call over HTTP whose arguments are large (1 MiB of text): the
// same calls, interleaved in one run, to a server with Options.StepUp set
// and to one without. It reports the time of each and their ratio (with
// StepUp over without; 1 means step-up costs nothing), for a call that
// names its tool before its arguments (as the SDK's clients send it) and
// for one that names it after:
//
//	go test -run XXX -bench StepUpLargeArguments ./mcpserver
func BenchmarkStepUpLargeArguments(b *testing.B) {
	reg := tool.NewRegistry(&tool.Options{Logger: slog.New(slog.DiscardHandler)})
	err := reg.Add(&tool.Tool{
		ID: "bulk.count", Label: "Count", Description: "Counts the bytes of a text.", Operation: tool.OpRead,
		Permission: "access content",
		Inputs:     []*tool.Definition{{Name: "text", Type: "string", Required: true}},
		Outputs:    []*tool.Definition{{Name: "bytes", Type: "integer", Required: true}},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			return tool.Succeeded("", map[string]any{"bytes": len(in.String("text"))}), nil
		},
	})
	if err != nil {
		b.Fatal(err)
	}
	serve := func(stepUp func(tool.Account, *tool.Tool) string) string {
		ts := httptest.NewServer(mcpserver.New(reg, &mcpserver.Options{
			Authenticate: mcpserver.Bearer(lookupToken), Stateless: true, JSONResponse: true, StepUp: stepUp,
		}).Handler())
		b.Cleanup(ts.Close)
		return ts.URL
	}
	withStepUp := serve(func(tool.Account, *tool.Tool) string { return "more" })
	without := serve(nil)
	text := strings.Repeat("abcdefgh", 1<<17) // 1 MiB
	bodies := map[string]string{
		"name first": `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"bulk__count","arguments":{"text":"` + text + `"}}}`,
		"name last":  `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{"text":"` + text + `"},"name":"bulk__count"}}`,
	}
	client := &http.Client{}
	call := func(url, body string) time.Duration {
		req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer editor-token")
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		t0 := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		out, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		d := time.Since(t0)
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(out), `"bytes":1048576`) {
			b.Fatalf("%d %s", resp.StatusCode, out)
		}
		return d
	}
	for _, name := range []string{"name first", "name last"} {
		body := bodies[name]
		b.Run(name, func(b *testing.B) {
			call(withStepUp, body)
			call(without, body)
			var stepTime, plainTime time.Duration
			b.ResetTimer()
			for i := range b.N {
				if i%2 == 0 {
					stepTime += call(withStepUp, body)
					plainTime += call(without, body)
				} else {
					plainTime += call(without, body)
					stepTime += call(withStepUp, body)
				}
			}
			b.ReportMetric(float64(stepTime.Microseconds())/float64(b.N), "stepup-µs/call")
			b.ReportMetric(float64(plainTime.Microseconds())/float64(b.N), "plain-µs/call")
			b.ReportMetric(stepTime.Seconds()/plainTime.Seconds(), "ratio")
		})
	}
}
