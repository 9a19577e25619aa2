package main

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolapi/toolapi/internal/testenv"
)

// The replicas tests run the album as its operators would behind a load
// balancer: the album binary, three `album serve --stateless` processes on
// one PostgreSQL server of the test's own, and Debian's haproxy with
// scripts/replicas/haproxy.cfg in front.

// pgServer is a PostgreSQL server of the test's own, which it may restart.
type pgServer struct {
	t    testing.TB
	bin  string   // the folder of initdb, pg_ctl and psql
	dir  string   // its data lives in dir/data
	as   []string // the command prefix that runs as the server's user
	port int
	dsn  string
}

// startPostgres initializes and starts a PostgreSQL server on a free
// loopback port, with a database album, stopped when the test ends.
func startPostgres(t testing.TB) *pgServer {
	t.Helper()
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_ctl")
	if len(dirs) == 0 {
		t.Fatal("no PostgreSQL server is installed (scripts/postgres.sh installs one)")
	}
	sort.Strings(dirs)
	pg := &pgServer{t: t, bin: filepath.Dir(dirs[len(dirs)-1])}
	// Not t.TempDir: the server's user must reach the folder.
	dir, err := os.MkdirTemp("", "toolapi-replicas-pg")
	if err != nil {
		t.Fatal(err)
	}
	pg.dir = dir
	t.Cleanup(func() { os.RemoveAll(dir) })
	if os.Getuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Fatalf("running as root, PostgreSQL needs the user postgres: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
		pg.as = []string{"runuser", "-u", "postgres", "--"}
	}
	pg.run("initdb", "-D", filepath.Join(dir, "data"), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8")
	addr := freeAddr(t)
	pg.port, _ = strconv.Atoi(addr[strings.LastIndexByte(addr, ':')+1:])
	pg.run("pg_ctl", "-D", filepath.Join(dir, "data"), "-l", filepath.Join(dir, "server.log"), "-w",
		"-o", fmt.Sprintf("-c listen_addresses=127.0.0.1 -p %d -k %s -c fsync=off -c max_connections=200", pg.port, dir), "start")
	t.Cleanup(func() { pg.run("pg_ctl", "-D", filepath.Join(dir, "data"), "-m", "immediate", "-w", "stop") })
	pg.run("psql", "-h", dir, "-p", strconv.Itoa(pg.port), "-U", "postgres", "-v", "ON_ERROR_STOP=1", "-q", "-c", "CREATE DATABASE album")
	pg.dsn = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/album?sslmode=disable", pg.port)
	return pg
}

func (pg *pgServer) run(name string, args ...string) {
	pg.t.Helper()
	cmd := exec.Command(filepath.Join(pg.bin, name), args...)
	if pg.as != nil {
		cmd = exec.Command(pg.as[0], append(append(pg.as[1:], filepath.Join(pg.bin, name)), args...)...)
	}
	cmd.Dir = pg.dir
	if out, err := cmd.CombinedOutput(); err != nil {
		pg.t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

// restart stops the server (ending every connection) and starts it again.
func (pg *pgServer) restart() {
	// With its log in a file: the server must not hold run's output open.
	pg.run("pg_ctl", "-D", filepath.Join(pg.dir, "data"), "-l", filepath.Join(pg.dir, "server.log"), "-m", "fast", "-w", "restart")
}

// buildAlbum builds the album binary into a temporary folder.
func buildAlbum(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "album")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// A replica is one `album serve --stateless` process on a fixed address.
type replica struct {
	t       testing.TB
	bin     string
	dsn     string
	addr    string
	exports string
	cmd     *exec.Cmd
	stderr  *lockedBuffer
	exited  chan error
}

// start starts the replica and waits until its /readyz answers 200.
func (r *replica) start() {
	r.t.Helper()
	r.stderr = new(lockedBuffer)
	// haproxy checks /readyz every second and takes a replica out after
	// two failures: a replica told to stop drains for three.
	r.cmd = exec.Command(r.bin, "--db", r.dsn, "--exports", r.exports, "serve", "--stateless", "--drain", "3s", "--addr", r.addr)
	r.cmd.Stdout, r.cmd.Stderr = io.Discard, r.stderr
	if err := r.cmd.Start(); err != nil {
		r.t.Fatal(err)
	}
	r.exited = make(chan error, 1)
	go func(cmd *exec.Cmd, exited chan error) { exited <- cmd.Wait() }(r.cmd, r.exited)
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get("http://" + r.addr + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("replica %s not ready after 60s; stderr:\n%s", r.addr, r.stderr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stop sends sig and waits for the process to end.
func (r *replica) stop(sig syscall.Signal) error {
	r.cmd.Process.Signal(sig)
	select {
	case err := <-r.exited:
		return err
	case <-time.After(30 * time.Second):
		r.cmd.Process.Kill()
		return fmt.Errorf("replica %s still ran 30s after %v", r.addr, sig)
	}
}

// startHAProxy starts haproxy with scripts/replicas/haproxy.cfg on front,
// in front of the three backends, until the test ends.
func startHAProxy(t testing.TB, front string, backends [3]string) {
	t.Helper()
	path, err := exec.LookPath("haproxy")
	if err != nil {
		t.Fatal("haproxy is not installed (apt-get install haproxy)")
	}
	cfg, err := filepath.Abs("../../scripts/replicas/haproxy.cfg")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(path, "-db", "-f", cfg)
	cmd.Env = append(os.Environ(), "ALBUM_FRONT="+front, "ALBUM_R1="+backends[0], "ALBUM_R2="+backends[1], "ALBUM_R3="+backends[2])
	out := new(lockedBuffer)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get("http://" + front + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("haproxy on %s does not answer; its output:\n%s", front, out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// issueToken issues an API token for name with `album tokens`.
func issueToken(t testing.TB, bin, dsn, name string) string {
	t.Helper()
	out, err := exec.Command(bin, "--db", dsn, "tokens", name).Output()
	if err != nil {
		t.Fatalf("album tokens %s: %v", name, err)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 2 && f[0] == name {
			return f[1]
		}
	}
	t.Fatalf("album tokens %s printed no token:\n%s", name, out)
	return ""
}

// A callResult is how one tools/call over HTTP ended.
type callResult struct {
	status     int // 0: no HTTP answer
	retryAfter string
	ok         bool // 200 with a result that is no error
	toolError  bool // 200 with a result that is an error
}

// callTool sends one stateless MCP tools/call to base as the bearer of
// token.
func callTool(hc *http.Client, base, token, name string, args map[string]any) callResult {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": name, "arguments": args}})
	req, _ := http.NewRequest("POST", base+"/mcp", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := hc.Do(req)
	if err != nil {
		return callResult{}
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	r := callResult{status: resp.StatusCode, retryAfter: resp.Header.Get("Retry-After")}
	if resp.StatusCode == http.StatusOK {
		s := string(b)
		switch {
		case strings.Contains(s, `"isError":true`), !strings.Contains(s, `"result"`):
			r.toolError = true
		default:
			r.ok = true
		}
	}
	return r
}

// loadStats counts how the calls of a load ended.
type loadStats struct {
	mu           sync.Mutex
	calls, ok    int
	toolErrors   int
	byStatus     map[int]int // failures by HTTP status; 0 for no answer
	noRetryAfter int         // 503s without a Retry-After
	acked        []string    // titles of the tracks whose write succeeded
	unacked      []string    // titles of the tracks whose write failed
}

func (s *loadStats) add(r callResult, title string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	switch {
	case r.ok:
		s.ok++
	case r.toolError:
		s.toolErrors++
	default:
		s.byStatus[r.status]++
		if r.status == http.StatusServiceUnavailable && r.retryAfter == "" {
			s.noRetryAfter++
		}
	}
	if title != "" {
		if r.ok {
			s.acked = append(s.acked, title)
		} else {
			s.unacked = append(s.unacked, title)
		}
	}
}

func (s *loadStats) failures() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls - s.ok
}

func (s *loadStats) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return fmt.Sprintf("%d calls: %d ok, %d tool errors, failures by status %v, %d 503s without Retry-After", s.calls, s.ok, s.toolErrors, s.byStatus, s.noRetryAfter)
}

// A load runs searches and writes against base until stopped.
type load struct {
	stats  *loadStats
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// startLoad starts searchers clients searching and writers clients adding
// tracks to album, each call after the last, as the bearer of token.
func startLoad(base, token, album string, searchers, writers int, tag string) *load {
	ctx, cancel := context.WithCancel(context.Background())
	l := &load{stats: &loadStats{byStatus: map[int]int{}}, cancel: cancel}
	hc := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: searchers + writers}}
	for i := range searchers {
		l.wg.Go(func() {
			words := []string{"blue", "harbour", "night", "rain"}
			for n := 0; ctx.Err() == nil; n++ {
				l.stats.add(callTool(hc, base, token, "album__search", map[string]any{"word": words[(i+n)%len(words)]}), "")
			}
		})
	}
	for i := range writers {
		l.wg.Go(func() {
			for n := 0; ctx.Err() == nil; n++ {
				title := fmt.Sprintf("%s-%d-%d", tag, i, n)
				l.stats.add(callTool(hc, base, token, "album__add_track", map[string]any{"album": album, "title": title}), title)
			}
		})
	}
	return l
}

// stop stops the load once the calls in flight have ended.
func (l *load) stop() *loadStats {
	l.cancel()
	l.wg.Wait()
	return l.stats
}

// TestReplicas runs three replicas behind haproxy on one PostgreSQL
// server. One confirmation answered on each replica runs once. Then, under
// load: a steady phase, answered in full; a kill -9
// of a replica, which loses at most the calls in flight; a restart of
// PostgreSQL, which gives 503s with a Retry-After (never 401 or 429) and
// then recovers in full; and a rolling restart. Every acknowledged write
// is in the database exactly once.
func TestReplicas(t *testing.T) {
	testenv.NeedFull(t)
	pg := startPostgres(t)
	bin := buildAlbum(t)
	token := issueToken(t, bin, pg.dsn, "editor") // also creates and seeds the schema
	exports := t.TempDir()
	var reps [3]*replica
	var addrs [3]string
	for i := range reps {
		addrs[i] = freeAddr(t)
		reps[i] = &replica{t: t, bin: bin, dsn: pg.dsn, addr: addrs[i], exports: exports}
		reps[i].start()
	}
	t.Cleanup(func() {
		for _, r := range reps {
			r.stop(syscall.SIGKILL)
		}
	})
	front := freeAddr(t)
	startHAProxy(t, front, addrs)
	base := "http://" + front

	db, err := sql.Open("pgx", pg.dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var album string
	if err := db.QueryRow(`SELECT id FROM albums WHERE title = 'Blue Hours'`).Scan(&album); err != nil {
		t.Fatal(err)
	}
	replayConfirmation(t, bin, pg.dsn, db, addrs[:])

	const searchers, writers = 6, 2
	inFlight := searchers + writers
	var all []*loadStats

	// Steady load: every call answered.
	l := startLoad(base, token, album, searchers, writers, "steady")
	time.Sleep(3 * time.Second)
	st := l.stop()
	all = append(all, st)
	t.Logf("steady: %s", st)
	if st.failures() != 0 || st.calls == 0 {
		t.Errorf("steady load: %s; want every call answered", st)
	}

	// kill -9 of a replica: only the calls in flight on it are lost.
	l = startLoad(base, token, album, searchers, writers, "kill")
	time.Sleep(time.Second)
	reps[0].stop(syscall.SIGKILL)
	time.Sleep(3 * time.Second)
	st = l.stop()
	all = append(all, st)
	t.Logf("kill -9 of a replica: %s", st)
	if st.failures() > inFlight {
		t.Errorf("kill -9 of a replica: %s; want at most the %d calls in flight lost", st, inFlight)
	}
	reps[0].start()

	// A restart of PostgreSQL: 503s with a Retry-After, never 401 or 429.
	l = startLoad(base, token, album, searchers, writers, "pgrestart")
	time.Sleep(time.Second)
	pg.restart()
	time.Sleep(2 * time.Second)
	st = l.stop()
	all = append(all, st)
	t.Logf("PostgreSQL restart: %s", st)
	st.mu.Lock()
	if n := st.byStatus[http.StatusUnauthorized] + st.byStatus[http.StatusTooManyRequests]; n > 0 {
		t.Errorf("PostgreSQL restart: %d calls answered 401 or 429; an unavailable store must answer 503", n)
	}
	if st.noRetryAfter > 0 {
		t.Errorf("PostgreSQL restart: %d 503s without a Retry-After", st.noRetryAfter)
	}
	st.mu.Unlock()
	// Full recovery: within 30s, a second of load answered in full.
	recovered := false
	for i, deadline := 0, time.Now().Add(30*time.Second); time.Now().Before(deadline); i++ {
		l = startLoad(base, token, album, searchers, writers, fmt.Sprintf("recovery%d", i))
		time.Sleep(time.Second)
		st = l.stop()
		all = append(all, st)
		if st.failures() == 0 && st.calls > 0 {
			recovered = true
			break
		}
	}
	if !recovered {
		t.Errorf("no full recovery within 30s of PostgreSQL's restart; last: %s", st)
	}

	// A rolling restart: each replica in turn stops (SIGTERM) and starts,
	// the next once it is ready.
	l = startLoad(base, token, album, searchers, writers, "rolling")
	for _, r := range reps {
		if err := r.stop(syscall.SIGTERM); err != nil {
			t.Errorf("replica %s after SIGTERM: %v; stderr:\n%s", r.addr, err, r.stderr)
		}
		r.start()
	}
	time.Sleep(time.Second)
	st = l.stop()
	all = append(all, st)
	t.Logf("rolling restart: %s", st)
	if st.failures() > inFlight {
		t.Errorf("rolling restart: %s; want at most %d calls lost", st, inFlight)
	}

	// No acknowledged write lost or duplicated.
	stored := map[string]int{}
	rows, err := db.Query(`SELECT title FROM tracks WHERE album_id = $1`, album)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var title string
		if err := rows.Scan(&title); err != nil {
			t.Fatal(err)
		}
		stored[title]++
	}
	rows.Close()
	acked, unackedStored := 0, 0
	for _, st := range all {
		for _, title := range st.acked {
			acked++
			if stored[title] != 1 {
				t.Errorf("the acknowledged write %q is stored %d times", title, stored[title])
			}
		}
		for _, title := range st.unacked {
			if stored[title] > 1 {
				t.Errorf("the failed write %q is stored %d times", title, stored[title])
			}
			unackedStored += stored[title]
		}
	}
	t.Logf("writes: %d acknowledged, each stored once; %d failed calls' writes were stored all the same", acked, unackedStored)
}

// TestReplicasThroughput measures album.search calls per second through
// haproxy with 16 and 64 clients, on PostgreSQL with one, two and three
// replicas, next to one process on SQLite behind the same haproxy. It is
// a measurement, not a check: set TOOLAPI_LOAD=1 to run it, and read the
// table it logs (go test -v). Each client sends one call after another.
func TestReplicasThroughput(t *testing.T) {
	if os.Getenv("TOOLAPI_LOAD") == "" {
		t.Skip("a measurement: set TOOLAPI_LOAD=1 to run it")
	}
	const window = 5 * time.Second
	pg := startPostgres(t)
	bin := buildAlbum(t)
	token := issueToken(t, bin, pg.dsn, "editor")
	exports := t.TempDir()
	var pgAddrs [3]string
	for i := range pgAddrs {
		pgAddrs[i] = freeAddr(t)
		r := &replica{t: t, bin: bin, dsn: pg.dsn, addr: pgAddrs[i], exports: exports}
		r.start()
		t.Cleanup(func() { r.stop(syscall.SIGKILL) })
	}
	sqliteDB := filepath.Join(t.TempDir(), "album.db")
	sqliteToken := issueToken(t, bin, sqliteDB, "editor")
	lite := &replica{t: t, bin: bin, dsn: sqliteDB, addr: freeAddr(t), exports: exports}
	lite.start()
	t.Cleanup(func() { lite.stop(syscall.SIGKILL) })

	type setup struct {
		name  string
		token string
		front string
	}
	var setups []setup
	for n := 1; n <= 3; n++ {
		front := freeAddr(t)
		// haproxy's three servers are the first n replicas, in turn.
		startHAProxy(t, front, [3]string{pgAddrs[0], pgAddrs[1%n], pgAddrs[2%n]})
		setups = append(setups, setup{fmt.Sprintf("PostgreSQL, %d replica(s)", n), token, front})
	}
	front := freeAddr(t)
	startHAProxy(t, front, [3]string{lite.addr, lite.addr, lite.addr})
	setups = append(setups, setup{"SQLite, 1 process", sqliteToken, front})

	rate := map[string]float64{}
	var table strings.Builder
	fmt.Fprintf(&table, "%-28s %10s %10s\n", "searches/s", "16 clients", "64 clients")
	for _, s := range setups {
		fmt.Fprintf(&table, "%-28s", s.name)
		for _, clients := range []int{16, 64} {
			l := startLoad("http://"+s.front, s.token, "", clients, 0, "")
			start := time.Now()
			time.Sleep(window)
			st := l.stop()
			r := float64(st.ok) / time.Since(start).Seconds()
			rate[fmt.Sprint(s.name, clients)] = r
			fmt.Fprintf(&table, " %10.0f", r)
			if st.failures() > 0 {
				t.Logf("%s, %d clients: %s", s.name, clients, st)
			}
		}
		table.WriteString("\n")
	}
	for _, clients := range []int{16, 64} {
		lite := rate[fmt.Sprint("SQLite, 1 process", clients)]
		fmt.Fprintf(&table, "ratio to SQLite at %d clients:", clients)
		for n := 1; n <= 3; n++ {
			fmt.Fprintf(&table, " %d replica(s) %.2f×", n, rate[fmt.Sprintf("PostgreSQL, %d replica(s)%d", n, clients)]/lite)
		}
		table.WriteString("\n")
	}
	t.Logf("GOMAXPROCS of the test %d; every process shares the machine\n%s", runtime.GOMAXPROCS(0), table.String())
}

// replayConfirmation asks album.delete on the first replica, then sends
// the one accepted answer to each replica in turn, as a client that
// retries on another address would: the album is deleted by exactly one
// of them, and the other two refuse the answer as used, since the
// replicas share the used request states through the database.
func replayConfirmation(t *testing.T, bin, dsn string, db *sql.DB, addrs []string) {
	t.Helper()
	token := issueToken(t, bin, dsn, "admin")
	var album string
	if err := db.QueryRow(`SELECT id FROM albums WHERE title = 'Harbour Lights'`).Scan(&album); err != nil {
		t.Fatal(err)
	}
	manual := &mcp.ClientOptions{
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "decline"}, nil
		},
	}
	sessions := make([]*mcp.ClientSession, len(addrs))
	for i, addr := range addrs {
		c := mcp.NewClient(&mcp.Implementation{Name: "replicas-test", Version: "1"}, manual)
		cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{
			Endpoint: "http://" + addr + "/mcp", HTTPClient: &http.Client{Transport: bearer{token}}, MaxRetries: -1, DisableStandaloneSSE: true,
		}, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
		if err != nil {
			t.Fatalf("replica %d: %v", i, err)
		}
		defer cs.Close()
		sessions[i] = cs
	}
	args := map[string]any{"album": album}
	asked, err := sessions[0].CallTool(t.Context(), &mcp.CallToolParams{Name: "album__delete", Arguments: args})
	if err != nil || !asked.NeedsInput() {
		t.Fatalf("album.delete: %v, %v; want a question", asked, err)
	}
	answer := &mcp.CallToolParams{Name: "album__delete", Arguments: args, RequestState: asked.RequestState, InputResponses: mcp.InputResponseMap{}}
	for q := range asked.InputRequests {
		answer.InputResponses[q] = &mcp.ElicitResult{Action: "accept"}
	}
	ran, used := 0, 0
	for i, cs := range sessions {
		res, err := cs.CallTool(t.Context(), answer)
		if err != nil {
			// A used state is refused as invalid params, without running.
			if strings.Contains(err.Error(), "used by an earlier call") {
				used++
				continue
			}
			t.Fatalf("the answer on replica %d: %v", i, err)
		}
		text := ""
		if len(res.Content) > 0 {
			if tc, ok := res.Content[0].(*mcp.TextContent); ok {
				text = tc.Text
			}
		}
		switch {
		case !res.IsError:
			ran++
		default:
			t.Errorf("the answer on replica %d: %q; want a run or a refusal of the used state", i, text)
		}
	}
	var left int
	if err := db.QueryRow(`SELECT count(*) FROM albums WHERE id = $1`, album).Scan(&left); err != nil {
		t.Fatal(err)
	}
	t.Logf("one confirmation answered on each of %d replicas: %d ran, %d refused as used", len(addrs), ran, used)
	if ran != 1 || used != len(addrs)-1 || left != 0 {
		t.Errorf("%d runs, %d refused as used, %d albums left; want 1 run, %d refused, the album deleted", ran, used, left, len(addrs)-1)
	}
}
