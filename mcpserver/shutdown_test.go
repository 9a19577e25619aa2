package mcpserver_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolapi/toolapi/mcpserver"
)

// TestShutdownPendingQuestion checks that Shutdown, with a confirmation
// asked and never answered, ends the question at once (the tool does not
// run and the call fails), ends the event streams, closes the sessions
// and returns long before its grace period, and that the Server refuses
// new sessions from then on.
func TestShutdownPendingQuestion(t *testing.T) {
	f := newFixture(t)
	srv := mcpserver.New(f.reg, &mcpserver.Options{Authenticate: mcpserver.Bearer(lookupToken)})
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)

	asked := make(chan struct{}, 1)
	testOver := make(chan struct{})
	never := &mcp.ClientOptions{ElicitationHandler: func(ctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked <- struct{}{}
		select { // the person never answers
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-testOver:
			return &mcp.ElicitResult{Action: "decline"}, nil
		}
	}}
	cs, err := connectHTTP(t, ts.URL, "admin-token", never, legacy)
	if err != nil {
		t.Fatal(err)
	}
	// Should the test fail, the question ends before the server closes.
	t.Cleanup(func() { close(testOver) })
	idle := openSession(t, ts.URL, "editor-token")
	stream, status := openStream(t, ts.URL, "editor-token", idle, "", "")
	if status != 200 {
		t.Fatalf("GET /mcp: status %d", status)
	}
	type answer struct {
		res *mcp.CallToolResult
		err error
	}
	called := make(chan answer, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "site.publish", Arguments: map[string]any{"note": "spring"}})
		called <- answer{res, err}
	}()
	waitFor(t, asked, "the confirmation question")

	// A grace period of an hour: returning at all shows it was not waited.
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	shut := make(chan error, 1)
	go func() { shut <- srv.Shutdown(ctx) }()
	if err := waitFor(t, shut, "the end of Shutdown"); err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	a := waitFor(t, called, "the answer to the pending call")
	if a.err == nil && !a.res.IsError {
		t.Errorf("the call whose confirmation was pending: %s, want a failure", mustJSON(t, a.res))
	}
	f.mu.Lock()
	if f.published != 0 {
		t.Errorf("the tool ran %d times without confirmation", f.published)
	}
	f.mu.Unlock()
	if err := stream.ended(t); err != nil {
		t.Errorf("the event stream of an idle session: %v", err)
	}
	// Shutdown has closed it; the SDK's handler forgets a closed session
	// on its own goroutine, so a loaded machine may see it a moment longer.
	gone := false
	for deadline := time.Now().Add(10 * time.Second); !gone && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		gone = !alive(t, ts.URL, "editor-token", idle)
	}
	if !gone {
		t.Errorf("an idle session is still open 10 s after Shutdown")
	}
	resp, body := postBody(t, ts.URL, initialize, map[string]string{"Authorization": "Bearer editor-token"})
	if !strings.Contains(body, "shutting down") {
		t.Errorf("initialize after Shutdown: %d %s, want a refusal saying the server is shutting down", resp.StatusCode, body)
	}
}
