package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// startServe starts `album serve` with args as a process of its own (the
// test binary, as TestMain allows) on the database dsn and a free loopback
// port, and returns its base URL. The process gets SIGTERM when the test
// ends and must then exit cleanly.
func startServe(t *testing.T, dsn string, args ...string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"--db", dsn, "--exports", t.TempDir(), "serve", "--addr", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(os.Environ(), "ALBUM_RUN_MAIN=1")
	cmd.WaitDelay = 30 * time.Second
	stderr := new(lockedBuffer)
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var base string
	lines := bufio.NewScanner(out)
	for base == "" && lines.Scan() {
		if rest, ok := strings.CutPrefix(lines.Text(), "Serving Album demo on "); ok {
			base, _, _ = strings.Cut(rest, " ")
		}
	}
	if base == "" {
		err := cmd.Wait()
		t.Fatalf("album serve %s printed no address (%v); stderr:\n%s", strings.Join(args, " "), err, stderr)
	}
	go io.Copy(io.Discard, out)
	t.Cleanup(func() {
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Errorf("stopping %s: %v", base, err)
		}
		if err := cmd.Wait(); err != nil {
			t.Errorf("album serve at %s: %v; stderr:\n%s", base, err, stderr)
		}
	})
	return base
}

// connectStateless connects an MCP client to endpoint as the bearer of
// token, or anonymously when it is empty. A stateless server has no
// stream of its own to offer, so the client opens none.
func connectStateless(t *testing.T, endpoint, token string) *mcp.ClientSession {
	t.Helper()
	hc := &http.Client{}
	if token != "" {
		hc.Transport = bearer{token}
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "album-scale-out", Version: "1"}, nil)
	cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{
		Endpoint: endpoint, HTTPClient: hc, MaxRetries: -1, DisableStandaloneSSE: true,
	}, nil)
	if err != nil {
		t.Fatalf("connecting to %s: %v", endpoint, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// callOK calls a tool and returns its structured content, failing the test
// on any failure.
func callOK(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) map[string]any {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	if res.IsError {
		t.Fatalf("%s %v: %s", name, args, contentText(res))
	}
	var out map[string]any
	data, err := json.Marshal(res.StructuredContent)
	if err == nil {
		err = json.Unmarshal(data, &out)
	}
	if err != nil {
		t.Fatalf("%s: structured content %s: %v", name, data, err)
	}
	return out
}

// trackCount returns the track count of the album with the given ID, as
// album.summarize tells it through cs.
func trackCount(t *testing.T, cs *mcp.ClientSession, album string) int {
	t.Helper()
	n, ok := callOK(t, cs, "album.summarize", map[string]any{"album": album})["track_count"].(float64)
	if !ok {
		t.Fatalf("album.summarize gave no track count")
	}
	return int(n)
}

// TestServeStateless runs `album serve --stateless --print-tokens` on
// SQLite: no session is handed out, and tokens and anonymous access work
// as they do with sessions.
func TestServeStateless(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out, w := io.Pipe()
	var stderr lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--db", filepath.Join(t.TempDir(), "album.db"), "--addr", "127.0.0.1:0", "--stateless", "--print-tokens"},
			nil, w, &stderr)
		w.Close()
	}()
	tokens := map[string]string{}
	var base string
	lines := bufio.NewScanner(out)
	for base == "" && lines.Scan() {
		if f := strings.Fields(lines.Text()); len(f) == 2 && strings.HasPrefix(f[1], "alb_") {
			tokens[f[0]] = f[1]
		}
		if rest, ok := strings.CutPrefix(lines.Text(), "Serving Album demo on "); ok {
			base, _, _ = strings.Cut(rest, " ")
		}
	}
	if base == "" {
		t.Fatalf("serve printed no address; stderr:\n%s", stderr.String())
	}
	go io.Copy(io.Discard, out)

	if id := initializeSessionID(t, base, ""); id != "" {
		t.Errorf("initialize handed out the session %q", id)
	}
	for _, c := range []struct {
		token string
		tools []string
	}{
		{"", []string{"album__list", "album__search", "album__summarize", "site__info"}},
		{tokens["editor"], []string{"album__add_track", "album__archive", "album__delete", "album__list", "album__protect", "album__publish", "album__search", "album__summarize", "album__takedown", "site__info", "translation__export"}},
	} {
		cs := connectStateless(t, base+"/mcp", c.token)
		if got := toolNames(t, cs); !slices.Equal(got, c.tools) {
			t.Errorf("tools = %v, want %v", got, c.tools)
		}
		cs.Close()
	}
	req, _ := http.NewRequest("POST", base+"/mcp", strings.NewReader(initializeRequest))
	req.Header.Set("Authorization", "Bearer alb_not-a-token")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a wrong token: %d, want 401", resp.StatusCode)
	}

	cancel()
	if code := <-done; code != 0 {
		t.Errorf("serve exited %d; stderr:\n%s", code, stderr.String())
	}
}

const initializeRequest = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"probe","version":"1"}}}`

// initializeSessionID sends an initialize request to base's /mcp with
// token (none when empty) and returns the session ID the answer carries,
// failing the test unless it is 200 OK.
func initializeSessionID(t *testing.T, base, token string) string {
	t.Helper()
	req, _ := http.NewRequest("POST", base+"/mcp", strings.NewReader(initializeRequest))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: initialize = %d %s", base, resp.StatusCode, body)
	}
	return resp.Header.Get("Mcp-Session-Id")
}

// TestStatelessScaleOut runs two `album serve --stateless` processes on
// one PostgreSQL database, on loopback, and alternates tools/call between
// them: every write made through one is read back through the other, first
// by a client of each process, then by one client behind a round-robin
// load balancer, whose requests land on each process in turn.
func TestStatelessScaleOut(t *testing.T) {
	dsn := postgresSchema(t)
	servers := []string{startServe(t, dsn, "--stateless"), startServe(t, dsn, "--stateless")}

	// Stateless: no session ID is handed out, and there is no stream to GET.
	for _, base := range servers {
		if id := initializeSessionID(t, base, ""); id != "" {
			t.Errorf("%s: initialize handed out the session %q", base, id)
		}
		resp, err := http.Get(base + "/mcp")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusMethodNotAllowed {
			t.Errorf("%s: GET /mcp = %d, want 405 from a stateless server", base, resp.StatusCode)
		}
	}

	s := mustOpen(t, dsn) // seeded by the servers
	editorToken, err := s.IssueToken(context.Background(), "editor")
	if err != nil {
		t.Fatal(err)
	}
	adminToken, err := s.IssueToken(context.Background(), "admin")
	if err != nil {
		t.Fatal(err)
	}
	night := albumID(t, s, "Night Studies")

	t.Run("a client on each", func(t *testing.T) {
		clients := []*mcp.ClientSession{
			connectStateless(t, servers[0]+"/mcp", editorToken),
			connectStateless(t, servers[1]+"/mcp", editorToken),
		}
		before := trackCount(t, clients[1], night)
		for i := range 10 {
			w, r := clients[i%2], clients[(i+1)%2]
			title := fmt.Sprintf("Written through server %d, call %d", i%2, i)
			track := callOK(t, w, "album.add_track", map[string]any{"album": night, "title": title})
			if label, _ := track["track"].(map[string]any)["label"].(string); label != title {
				t.Fatalf("album.add_track gave %v, want the track %q", track, title)
			}
			if got, want := trackCount(t, r, night), before+i+1; got != want {
				t.Fatalf("after write %d through server %d, server %d counts %d tracks, want %d", i, i%2, (i+1)%2, got, want)
			}
		}

		admins := []*mcp.ClientSession{
			connectStateless(t, servers[0]+"/mcp", adminToken),
			connectStateless(t, servers[1]+"/mcp", adminToken),
		}
		for i, slogan := range []string{"Set through server 0", "Set through server 1"} {
			callOK(t, admins[i], "site.update_info", map[string]any{"values": map[string]any{"slogan": slogan}})
			site, _ := callOK(t, admins[1-i], "site.info", nil)["site"].(map[string]any)
			if site["slogan"] != slogan {
				t.Errorf("server %d reads the slogan %v after server %d set %q", 1-i, site["slogan"], i, slogan)
			}
		}
	})

	t.Run("behind a load balancer", func(t *testing.T) {
		var mu sync.Mutex
		var next int
		var calls []int // the server each tools/call went to, in order
		targets := make([]*url.URL, len(servers))
		for i, base := range servers {
			targets[i], _ = url.Parse(base)
		}
		proxy := &httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) {
			mu.Lock()
			defer mu.Unlock()
			i := next % len(targets)
			next++
			pr.SetURL(targets[i])
			if isToolsCall(pr.Out) {
				calls = append(calls, i)
			}
		}}
		balancer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			// An HTTP/1 server that answers before it has read a body
			// to its end reads the rest itself, racing the proxy's copy
			// of it to the server, which then cuts the answer short:
			// full duplex leaves the body to the copy.
			if err := http.NewResponseController(w).EnableFullDuplex(); err != nil {
				t.Errorf("the balancer: %v", err)
			}
			proxy.ServeHTTP(w, r)
		}))
		defer balancer.Close()

		cs := connectStateless(t, balancer.URL+"/mcp", editorToken)
		before := trackCount(t, cs, night)
		const writes = 10
		for i := range writes {
			callOK(t, cs, "album.add_track", map[string]any{"album": night, "title": fmt.Sprintf("Balanced %d", i)})
			if got, want := trackCount(t, cs, night), before+i+1; got != want {
				t.Fatalf("after balanced write %d: %d tracks, want %d", i, got, want)
			}
		}
		mu.Lock()
		defer mu.Unlock()
		if len(calls) != 1+2*writes {
			t.Fatalf("%d tools/call requests went through the balancer, want %d", len(calls), 1+2*writes)
		}
		// Every call, each read after a write among them, reached the
		// other server than the call before it.
		for k := 1; k < len(calls); k++ {
			if calls[k] == calls[k-1] {
				t.Errorf("tools/call %d and %d both went to server %d: %v", k-1, k, calls[k], calls)
			}
		}
		t.Logf("servers of the tools/call requests behind the balancer, in order: %v", calls)
	})

	tracks, err := s.Tracks(context.Background(), mustAlbum(t, s, "Night Studies"))
	if err != nil {
		t.Fatal(err)
	}
	if len(tracks) != 2+10+10 {
		t.Errorf("Night Studies has %d tracks in the database, want 22 (2 seeded, 20 written)", len(tracks))
	}
}

// isToolsCall reports whether r is a JSON-RPC tools/call request, reading
// its body and putting it back.
func isToolsCall(r *http.Request) bool {
	if r.Method != http.MethodPost || r.Body == nil {
		return false
	}
	body, err := io.ReadAll(r.Body)
	r.Body.Close()
	r.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return false
	}
	var msg struct{ Method string }
	return json.Unmarshal(body, &msg) == nil && msg.Method == "tools/call"
}
