package toolcli_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/toolapi/toolapi/idempotency"
	"github.com/toolapi/toolapi/tool"
	"github.com/toolapi/toolapi/toolcli"
)

// TestIdempotencyKeyFlag checks that --idempotency-key runs a write tool
// once for two runs with one key, printing the first run's result again,
// and that the flag on a tool without the key is an option error.
func TestIdempotencyKeyFlag(t *testing.T) {
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "keys.db")+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	keys, err := idempotency.NewSQLStore(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := keys.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	var ran atomic.Int64
	reg := tool.NewRegistry(&tool.Options{Adjust: idempotency.AddInput})
	err = reg.Add(&tool.Tool{
		ID: "note.add", Label: "Add note", Description: "Adds a note.", Operation: tool.OpWrite, Permission: "notes",
		Inputs:  []*tool.Definition{{Name: "text", Type: "string", Required: true}},
		Outputs: []*tool.Definition{{Name: "note", Type: "integer"}},
		Handler: func(_ context.Context, in *tool.Values) (*tool.Result, error) {
			return tool.Succeeded("", map[string]any{"note": ran.Add(1)}), nil
		},
	}, &tool.Tool{
		ID: "note.list", Label: "List notes", Description: "Lists notes.", Operation: tool.OpRead, Permission: "notes",
		Handler: func(context.Context, *tool.Values) (*tool.Result, error) { return nil, nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	reg.Use(idempotency.Middleware(keys, nil))
	opts := &toolcli.Options{Accounts: func(_ context.Context, name string) (tool.Account, error) {
		return &tool.User{ID: name, Permissions: []string{"notes"}}, nil
	}}
	cli := func(args ...string) (int, string) {
		var out, errOut strings.Builder
		code := toolcli.Run(context.Background(), reg, args, &out, &errOut, opts)
		return code, out.String() + errOut.String()
	}
	_, first := cli("run", "note.add", "--user", "ann", "--input", "text=hi", "--idempotency-key", "req-1", "--json", "--yes")
	_, again := cli("run", "note.add", "--user", "ann", "--input", "text=hi", "--idempotency-key", "req-1", "--json", "--yes")
	if first != again || !strings.Contains(first, `"note": 1`) || ran.Load() != 1 {
		t.Fatalf("two runs with one key: ran %d times\n%s\n%s", ran.Load(), first, again)
	}
	code, out := cli("run", "note.add", "--user", "ann", "--input", "text=other", "--idempotency-key", "req-1", "--json", "--yes")
	if code != 1 || !strings.Contains(out, idempotency.RuleKeyReused) {
		t.Errorf("other inputs under one key: exit %d\n%s", code, out)
	}
	code, out = cli("run", "note.list", "--user", "ann", "--idempotency-key", "req-2")
	if code == 0 || !strings.Contains(out, "--idempotency-key: note.list takes no idempotency key") {
		t.Errorf("--idempotency-key on a read tool: exit %d\n%s", code, out)
	}
}
