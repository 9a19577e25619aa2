package toolcli_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/toolapi/toolapi/tool"
	"github.com/toolapi/toolapi/toolcli"
)

// TestCursorFlag pages through a paged tool with --cursor, seeing every
// item once; a cursor of another account is an input failure that runs
// nothing, --cursor on a tool that is not paged an option error, and an
// output over the byte budget is printed whole.
func TestCursorFlag(t *testing.T) {
	var runs atomic.Int64
	reg := tool.NewRegistry(&tool.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	err := reg.Add(&tool.Tool{
		ID: "note.list", Label: "List notes", Description: "Lists notes.", Operation: tool.OpRead, Permission: "notes",
		Budget:  tool.Budget{Items: 4},
		Outputs: []*tool.Definition{{Name: "result", Type: "list", Required: true, Items: &tool.Definition{Type: "integer"}}},
		Handler: func(context.Context, *tool.Values) (*tool.Result, error) {
			runs.Add(1)
			var out []any
			for i := range 10 {
				out = append(out, int64(i))
			}
			return tool.Succeeded("", map[string]any{"result": out}), nil
		},
	}, &tool.Tool{
		ID: "note.dump", Label: "Dump notes", Description: "Dumps notes.", Operation: tool.OpRead, Permission: "notes",
		Budget:  tool.Budget{Bytes: 100},
		Outputs: []*tool.Definition{{Name: "text", Type: "string", Required: true}},
		Handler: func(context.Context, *tool.Values) (*tool.Result, error) {
			return tool.Succeeded("", map[string]any{"text": strings.Repeat("n", 500)}), nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	opts := &toolcli.Options{Accounts: func(_ context.Context, name string) (tool.Account, error) {
		return &tool.User{ID: name, Permissions: []string{"notes"}}, nil
	}}
	cli := func(args ...string) (int, string) {
		var out, errOut strings.Builder
		code := toolcli.Run(context.Background(), reg, args, &out, &errOut, opts)
		return code, out.String() + errOut.String()
	}
	var seen []int
	cursor := ""
	for range 5 {
		args := []string{"run", "note.list", "--user", "ann", "--json"}
		if cursor != "" {
			args = append(args, "--cursor", cursor)
		}
		code, out := cli(args...)
		var res struct {
			Outputs struct {
				Result []int
				Next   string `json:"next_cursor"`
			}
		}
		if err := json.Unmarshal([]byte(out), &res); code != 0 || err != nil {
			t.Fatalf("exit %d, %v:\n%s", code, err, out)
		}
		seen = append(seen, res.Outputs.Result...)
		if cursor = res.Outputs.Next; cursor == "" {
			break
		}
	}
	if len(seen) != 10 || runs.Load() != 3 {
		t.Fatalf("saw %v in %d runs; want 0..9 in 3", seen, runs.Load())
	}
	for i, n := range seen {
		if n != i {
			t.Fatalf("saw %v", seen)
		}
	}
	_, out := cli("run", "note.list", "--user", "ann", "--json")
	var first struct{ Outputs map[string]any }
	json.Unmarshal([]byte(out), &first)
	before := runs.Load()
	code, out := cli("run", "note.list", "--user", "bob", "--json", "--cursor", first.Outputs["next_cursor"].(string))
	if code != 1 || !strings.Contains(out, `"invalid_input"`) || !strings.Contains(out, `"cursor"`) || runs.Load() != before {
		t.Errorf("bob with ann's cursor: exit %d, %d runs\n%s", code, runs.Load()-before, out)
	}
	code, out = cli("run", "note.dump", "--user", "ann", "--cursor", "abc")
	if code != 1 || !strings.Contains(out, "--cursor: note.dump is not paged") {
		t.Errorf("--cursor on a tool that is not paged: exit %d\n%s", code, out)
	}
	code, out = cli("run", "note.dump", "--user", "ann", "--json")
	if code != 0 || !strings.Contains(out, strings.Repeat("n", 500)) {
		t.Errorf("output over the byte budget: exit %d\n%s", code, out)
	}
}
