package mcpserver_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolapi/toolapi/internal/testenv"
	"github.com/toolapi/toolapi/mcpserver"
)

// TestLoad makes 20,000 tools/call requests from 64 concurrent clients,
// each with its own session, over loopback HTTP; none may fail. Under
// -short or -race it makes 2,000. It logs the latency percentiles and the
// throughput.
func TestLoad(t *testing.T) {
	testenv.NeedFull(t)
	const clients = 64
	calls := 20000
	if testing.Short() || raceEnabled {
		calls = 2000
	}
	f := newFixture(t)
	ts := serveHTTP(t, f, &mcpserver.Options{})

	sessions := make([]*mcp.ClientSession, clients)
	for i := range sessions {
		cs, err := connectHTTP(t, ts.URL, "editor-token", nil, legacy)
		if err != nil {
			t.Fatal(err)
		}
		sessions[i] = cs
	}
	latencies := make([][]time.Duration, clients)
	errs := make(chan error, clients)
	var wg sync.WaitGroup
	start := time.Now()
	for i, cs := range sessions {
		n := calls / clients
		if i < calls%clients {
			n++
		}
		wg.Go(func() {
			for j := range n {
				word := titles[(i+j)%len(titles)]
				t0 := time.Now()
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "album.search", Arguments: map[string]any{"word": word}})
				latencies[i] = append(latencies[i], time.Since(t0))
				if err != nil {
					errs <- fmt.Errorf("client %d call %d: %w", i, j, err)
					return
				}
				if res.IsError || !strings.Contains(texts(res)[0], word) {
					errs <- fmt.Errorf("client %d call %d: %v", i, j, texts(res))
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	all := slices.Concat(latencies...)
	if len(all) != calls {
		t.Fatalf("%d calls made, want %d", len(all), calls)
	}
	slices.Sort(all)
	t.Logf("%d tools/call from %d clients over loopback HTTP in %v: %.0f calls/s, p50 %v, p99 %v, max %v",
		calls, clients, elapsed.Round(time.Millisecond), float64(calls)/elapsed.Seconds(),
		all[len(all)/2], all[len(all)*99/100], all[len(all)-1])
}

// catalogue is the data of the benchmark's search: titles to filter by a
// word.
var catalogue = func() []string {
	words := []string{"autumn", "blue", "green", "giant", "steps", "naima", "so", "what", "kind", "of", "night", "train"}
	out := make([]string, 2000)
	for i := range out {
		out[i] = fmt.Sprintf("%s %s %d", words[i%len(words)], words[(i/len(words))%len(words)], i)
	}
	return out
}()

// search returns the first limit titles of the catalogue that contain word.
func search(word string, limit int) []string {
	var out []string
	for _, title := range catalogue {
		if strings.Contains(title, word) {
			out = append(out, title)
			if len(out) == limit {
				break
			}
		}
	}
	return out
}

// The plain SDK tool of the benchmark: typed input and output, schemas
// inferred by the SDK.
type searchIn struct {
	Word  string `json:"word" jsonschema:"a word"`
	Limit int    `json:"limit,omitempty" jsonschema:"how many titles at most"`
}

type searchOut struct {
	Result []string `json:"result"`
}

// BenchmarkToolsCall measures tools/call throughput over loopback HTTP of a
// search served through toolapi against the same search as a plain SDK
// typed tool, calls interleaved in one run. It reports both rates and
// their ratio (toolapi over SDK; above 1 is faster).
func BenchmarkToolsCall(b *testing.B) {
	ours := httptest.NewServer(mcpserver.New(searchRegistry(b), &mcpserver.Options{Authenticate: mcpserver.Bearer(lookupToken)}).Handler())
	b.Cleanup(ours.Close) // after the sessions close
	theirs := servePlainSearch(b)

	oursCS, err := connectHTTP(b, ours.URL, "editor-token", nil, legacy)
	if err != nil {
		b.Fatal(err)
	}
	theirsCS, err := connectHTTP(b, theirs.URL, "", nil, legacy)
	if err != nil {
		b.Fatal(err)
	}
	args := map[string]any{"word": "green", "limit": 20}
	call := func(cs *mcp.ClientSession) time.Duration {
		t0 := time.Now()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "album.search", Arguments: args})
		d := time.Since(t0)
		if err != nil || res.IsError {
			b.Fatalf("call: %v %v", err, res)
		}
		return d
	}
	call(oursCS)
	call(theirsCS)
	var oursTime, theirsTime time.Duration
	b.ResetTimer()
	for i := range b.N {
		if i%2 == 0 {
			oursTime += call(oursCS)
			theirsTime += call(theirsCS)
		} else {
			theirsTime += call(theirsCS)
			oursTime += call(oursCS)
		}
	}
	oursRate := float64(b.N) / oursTime.Seconds()
	theirsRate := float64(b.N) / theirsTime.Seconds()
	b.ReportMetric(oursRate, "toolapi-calls/s")
	b.ReportMetric(theirsRate, "sdk-calls/s")
	b.ReportMetric(oursRate/theirsRate, "ratio")
}
