package main

import (
	"bufio"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestReconnection follows SEP-1699 over HTTP: test_reconnection closes the
// SSE stream of its call after the priming event, and a GET with the
// priming event's ID as Last-Event-ID receives the answer.
func TestReconnection(t *testing.T) {
	srv, err := newServer(false)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()

	post := func(session, body string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest("POST", hs.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	resp := post("", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`)
	session := resp.Header.Get("Mcp-Session-Id")
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if session == "" {
		t.Fatal("initialize gave no session ID")
	}
	post(session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`).Body.Close()

	resp = post(session, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_reconnection","arguments":{}}}`)
	first := readEvents(t, resp.Body)
	resp.Body.Close()
	if len(first) == 0 || first[0].id == "" || strings.TrimSpace(first[0].data) != "" {
		t.Fatalf("the call's stream does not open with a priming event: %+v", first)
	}
	for _, e := range first {
		if strings.Contains(e.data, `"result"`) {
			t.Fatalf("the answer came on the first stream, which should have been closed mid-call: %+v", first)
		}
	}

	req, _ := http.NewRequest("GET", hs.URL, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", session)
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	req.Header.Set("Last-Event-ID", first[0].id)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("resuming: %s", resp.Status)
	}
	for _, e := range readEvents(t, resp.Body) {
		if strings.Contains(e.data, `"id":1,"result"`) && strings.Contains(e.data, "Reconnection test completed") {
			return
		}
	}
	t.Fatal("the resumed stream did not carry the answer")
}

type event struct{ id, data string }

// readEvents reads server-sent events from r until it ends or an event
// carries a JSON-RPC result.
func readEvents(t *testing.T, r io.Reader) []event {
	t.Helper()
	var events []event
	var e event
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			events = append(events, e)
			if strings.Contains(e.data, `"result"`) {
				return events
			}
			e = event{}
		case strings.HasPrefix(line, "id:"):
			e.id = strings.TrimSpace(strings.TrimPrefix(line, "id:"))
		case strings.HasPrefix(line, "data:"):
			e.data += strings.TrimSpace(strings.TrimPrefix(line, "data:"))
		}
	}
	return events
}
