package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestReconnection follows SEP-1699 over HTTP: test_reconnection closes the
// SSE stream of its call after the priming event, and a GET with the
// priming event's ID as Last-Event-ID receives the answer. A session that
// negotiated 2025-11-25 gets this whatever protocol version its later
// requests name in their header (the conformance suite's name 2025-03-26),
// or if they name none; one that negotiated an older version gets its
// answer on the first stream, without event IDs.
func TestReconnection(t *testing.T) {
	srv, stopTasks, err := newServer(context.Background(), false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stopTasks)
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	for _, tc := range []struct {
		negotiated, header string
		resumes            bool
	}{
		{"2025-11-25", "2025-11-25", true},
		{"2025-11-25", "2025-03-26", true},
		{"2025-11-25", "", true},
		{"2025-06-18", "2025-06-18", false},
		{"2025-06-18", "2025-03-26", false},
	} {
		t.Run(tc.negotiated+" header "+tc.header, func(t *testing.T) {
			reconnect(t, hs.URL, tc.negotiated, tc.header, tc.resumes)
		})
	}
}

// reconnect opens a session at protocol version negotiated, calls
// test_reconnection with header as Mcp-Protocol-Version, and checks that
// the stream closes mid-call and resumes (resumes) or carries the answer.
func reconnect(t *testing.T, url, negotiated, header string, resumes bool) {
	do := func(req *http.Request, session string) *http.Response {
		t.Helper()
		if header != "" {
			req.Header.Set("Mcp-Protocol-Version", header)
		}
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	post := func(session, body string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest("POST", url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		return do(req, session)
	}
	resp := post("", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+negotiated+`","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`)
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
	if !resumes {
		if len(first) == 0 || !answered(first[len(first)-1]) || first[0].id != "" && strings.TrimSpace(first[0].data) == "" {
			t.Fatalf("the call's stream is not the answer without a priming event: %+v", first)
		}
		return
	}
	if len(first) == 0 || first[0].id == "" || strings.TrimSpace(first[0].data) != "" {
		t.Fatalf("the call's stream does not open with a priming event: %+v", first)
	}
	for _, e := range first {
		if strings.Contains(e.data, `"result"`) {
			t.Fatalf("the answer came on the first stream, which should have been closed mid-call: %+v", first)
		}
	}

	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Last-Event-ID", first[0].id)
	resp = do(req, session)
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("resuming: %s", resp.Status)
	}
	for _, e := range readEvents(t, resp.Body) {
		if answered(e) {
			return
		}
	}
	t.Fatal("the resumed stream did not carry the answer")
}

// answered reports whether e carries the answer of test_reconnection.
func answered(e event) bool {
	return strings.Contains(e.data, `"id":1,"result"`) && strings.Contains(e.data, "Reconnection test completed")
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
