package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolapi/toolapi/explorer"
	"github.com/toolapi/toolapi/tool"
	"github.com/toolapi/toolapi/toolapp"
)

// interruptedText is what the explorer shows of an interrupted run.
const interruptedText = "This run was interrupted"

// An explorer run that its process abandons ends as interrupted, shown as
// such on its page and in the history instead of "under way" for ever:
// a run left by a process that died is ended by the next process on the
// same host and address as it starts; a run under way when the server
// shuts down is ended as it does; and a run under way far longer than a
// run may last is shown as interrupted whatever became of its process.
func TestServeInterruptsLeftoverRuns(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "album.db")
	s := mustOpen(t, db)
	token, err := s.IssueToken(context.Background(), "editor")
	if err != nil {
		t.Fatal(err)
	}
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	runs := s.Explorer()
	started := time.Now().UTC()
	inputs := json.RawMessage(`{"album":"1","title":"Left"}`)
	for _, r := range []*explorer.Run{
		// The process that served addr before died during this run.
		{ID: "died", Owner: "editor", Tool: "album.add_track", Inputs: inputs, Started: started, Process: host + " " + addr},
		// A process elsewhere died during this run, long ago.
		{ID: "stale", Owner: "editor", Tool: "album.add_track", Inputs: inputs, Started: started.Add(-time.Hour), Process: "gone 10.0.0.9:8080"},
		// A process elsewhere runs this one now.
		{ID: "elsewhere", Owner: "editor", Tool: "album.add_track", Inputs: inputs, Started: started, Process: "other 10.0.0.9:8080"},
	} {
		if err := runs.StartRun(context.Background(), r); err != nil {
			t.Fatal(err)
		}
	}

	app, err := NewApp(s, t.TempDir(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	err = app.Registry.Add(&tool.Tool{
		ID: "test.stuck", Label: "Stuck", Description: "Waits for the test, whatever its context says.",
		Operation: tool.OpRead, Permission: permAccessContent,
		Inputs: []*tool.Definition{{Name: "note", Type: "string"}},
		Handler: func(context.Context, *tool.Values) (*tool.Result, error) {
			<-release
			return nil, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opts := (&flags{}).options()
	opts.Stdout = io.Discard
	opts.ShutdownTimeout = 200 * time.Millisecond
	served := make(chan error, 1)
	service := app.Service()
	service.Close = nil // the test closes the store
	go func() { served <- toolapp.Serve(ctx, ln, service, opts) }()
	base := "http://" + addr

	p := newPerson(t)
	p.signIn(base, "editor", token)
	page := func(id string) string {
		_, body := p.get(base + "/tools/album.add_track?run=" + id)
		return body
	}
	for _, id := range []string{"died", "stale"} {
		if body := page(id); !strings.Contains(body, interruptedText) {
			t.Errorf("the run %q is not shown interrupted", id)
		}
	}
	_, history := p.get(base + "/tools/album.add_track")
	if n := strings.Count(history, "✗ interrupted"); n != 2 || strings.Count(history, "under way") != 1 {
		t.Errorf("the history shows %d interrupted runs and %d under way, want 2 and 1", n, strings.Count(history, "under way"))
	}

	// A run under way when the server shuts down, of a tool that does not
	// stop when its context ends.
	p.get(base + "/tools/test.stuck")
	posted := make(chan struct{})
	go func() {
		defer close(posted)
		form := url.Values{"action": {"run"}, "once": {p.once}, "in:note": {"Cut"}, "csrf": {p.csrf}}
		req, _ := http.NewRequest("POST", base+"/tools/test.stuck", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if resp, err := p.c.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	var cut *explorer.Run
	waitFor(t, 10*time.Second, "the run to start", func() bool {
		rs, err := runs.Runs(context.Background(), "editor", "test.stuck", 10)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rs {
			if !strings.Contains(string(r.Inputs), "Cut") {
				continue
			}
			cut = &r
			return true
		}
		return false
	})
	if cut.Process != host+" "+addr {
		t.Errorf("the run is owned by %q, want %q", cut.Process, host+" "+addr)
	}
	cancel()
	if err := <-served; err != nil {
		t.Errorf("Serve: %v", err)
	}
	got, err := runs.Run(context.Background(), "editor", cut.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(got.Outcome), `"interrupted":true`) {
		t.Errorf("the run cut by the shutdown: outcome %s, want interrupted", got.Outcome)
	}
	if elsewhere, err := runs.Run(context.Background(), "editor", "elsewhere"); err != nil || elsewhere.Outcome != nil {
		t.Errorf("the run of another process: %+v, %v; want it left under way", elsewhere, err)
	}
	close(release)
	<-posted
}
