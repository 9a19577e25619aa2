package mcpserver_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolapi/toolapi/internal/testenv"
	"github.com/toolapi/toolapi/mcpserver"
)

// floodChildEnv makes TestStreamFlood the server it floods.
const floodChildEnv = "TOOLAPI_TEST_STREAM_FLOOD_SERVER"

// TestStreamFlood floods a server process limited to 1,024 file
// descriptors with anonymous sessions, each opening an event stream, from
// 100 loopback addresses: more streams than it has descriptors. The server
// must hold no more streams than its limits allow, and keep answering
// /healthz and a signed-in account.
func TestStreamFlood(t *testing.T) {
	if os.Getenv(floodChildEnv) != "" {
		serveFlooded(t)
		return
	}
	testenv.NeedFull(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestStreamFlood$")
	cmd.Env = append(os.Environ(), floodChildEnv+"=1")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if err != nil || !ok {
		t.Fatalf("the server said %q, %v", line, err)
	}
	go io.Copy(io.Discard, stdout)
	base := "http://" + addr

	const attempts, addresses = 1100, 100
	var (
		mu       sync.Mutex
		statuses = map[int]int{}
		held     []*sse
		failures []string
	)
	clients := make([]*http.Client, addresses)
	for i := range clients {
		d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 1, byte(i+1))}}
		clients[i] = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: 2}}
	}
	work := make(chan int)
	var wg sync.WaitGroup
	for range 32 {
		wg.Go(func() {
			for i := range work {
				a := i % addresses
				local := fmt.Sprintf("127.0.1.%d", a+1)
				session, err := initializeFrom(clients[a], base)
				if err == nil {
					var s *sse
					if s, err = dialStream(base, "", session, "", local); err == nil {
						mu.Lock()
						statuses[s.resp.StatusCode]++
						if s.resp.StatusCode == 200 {
							held = append(held, s)
						} else {
							s.conn.Close()
						}
						mu.Unlock()
						continue
					}
				}
				mu.Lock()
				failures = append(failures, err.Error())
				mu.Unlock()
			}
		})
	}
	for i := range attempts {
		work <- i
	}
	close(work)
	wg.Wait()
	defer func() {
		for _, s := range held {
			s.conn.Close()
		}
	}()
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d attempts from %d addresses: streams answered %v, %d attempts failed; the server holds %d descriptors",
		attempts, addresses, statuses, len(failures), len(fds))
	if len(failures) > 0 {
		t.Errorf("%d initialize or GET requests failed, first: %s", len(failures), failures[0])
	}
	// The anonymous flood holds at most its share of sessions, each with
	// one stream, and its idle connections: far below the descriptors.
	if limit := 2*mcpserver.DefaultMaxAnonymousStreams + 2*addresses + 64; len(fds) > limit {
		t.Errorf("the server holds %d descriptors during the flood, want at most %d", len(fds), limit)
	}

	// While the flood holds what it can, the server answers everyone.
	hc := &http.Client{Timeout: 10 * time.Second}
	resp, err := hc.Get(base + "/healthz")
	if err != nil {
		t.Fatalf("/healthz during the flood: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("/healthz during the flood: status %d", resp.StatusCode)
	}
	cs, err := connectHTTP(t, base+"/mcp", "editor-token", nil, legacy)
	if err != nil {
		t.Fatalf("a signed-in client during the flood: %v", err)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "album.search", Arguments: map[string]any{"word": "blue"}})
	if err != nil || res.IsError {
		t.Errorf("a signed-in call during the flood: %v, %v", res, err)
	}
	s, err := dialStream(base, "editor-token", openSession(t, base+"/mcp", "editor-token"), "", "")
	if err != nil {
		t.Fatalf("a signed-in stream during the flood: %v", err)
	}
	s.conn.Close()
	if s.resp.StatusCode != 200 {
		t.Errorf("a signed-in stream during the flood: status %d", s.resp.StatusCode)
	}
}

// initializeFrom opens an anonymous session with client and returns its
// ID.
func initializeFrom(client *http.Client, base string) (string, error) {
	req, err := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(initialize))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	id := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || id == "" {
		return "", fmt.Errorf("initialize: status %d", resp.StatusCode)
	}
	return id, nil
}

// serveFlooded is the server of TestStreamFlood: the fixture's tools with
// the default limits, anonymous access and a health check, in a process
// limited to 1,024 file descriptors, until its standard input closes.
func serveFlooded(t *testing.T) {
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: 1024, Max: 1024}); err != nil {
		t.Fatal(err)
	}
	f := newFixture(t)
	srv := mcpserver.New(f.reg, &mcpserver.Options{Authenticate: mcpserver.Bearer(lookupToken), AllowAnonymous: true})
	mux := http.NewServeMux()
	mux.Handle("/mcp", srv.Handler())
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok\n") })
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("listening on %s\n", ln.Addr())
	go hs.Serve(ln)
	io.Copy(io.Discard, os.Stdin)
	hs.Close()
}
