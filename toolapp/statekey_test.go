package toolapp

import (
	"bytes"
	"context"
	"testing"
)

// TestStateKeyWithSessions checks that the MCP server of serve signs
// request states with App.StateKey with sessions too, not only with
// --stateless: a 2026-07-28 client asks without a session whatever the
// server keeps for older clients, so its answer may reach another process
// than its question.
func TestStateKeyWithSessions(t *testing.T) {
	a := newTestApp(t)
	app, err := a.open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	key := []byte("a state key shared by every process")
	app.StateKey = func(context.Context) ([]byte, error) { return key, nil }
	for _, stateless := range []bool{false, true} {
		m := mcpOptions(app, &Options{Stateless: stateless}, true)
		if !bytes.Equal(m.StateKey, key) {
			t.Errorf("stateless %v: state key %q, want App.StateKey's", stateless, m.StateKey)
		}
	}
}
