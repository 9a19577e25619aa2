package mcpserver_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolapi/toolapi/mcpserver"
	"github.com/toolapi/toolapi/tool"
)

// TestCompleteValueBound checks that a completion value longer than
// mcpserver.MaxCompletionValue characters is refused as invalid params,
// naming argument.value and the bound, without searching and without
// logging an error; a value at the bound is searched.
func TestCompleteValueBound(t *testing.T) {
	var logs bytes.Buffer
	reg := tool.NewRegistry(&tool.Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	var searches atomic.Int64
	err := reg.AddEntityType(&tool.EntityType{
		ID: "album", Label: "Album",
		Load:     func(context.Context, string) (any, error) { return nil, tool.ErrEntityNotFound },
		Access:   func(context.Context, tool.Account, any, string) (bool, error) { return true, nil },
		Describe: func(any) (string, string, bool) { return "", "", false },
		Search: func(context.Context, tool.Account, string, int) ([]tool.EntityRef, error) {
			searches.Add(1)
			return nil, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	err = reg.Add(&tool.Tool{
		ID: "album.open", Label: "Open", Description: "Opens an album.", Operation: tool.OpRead,
		Inputs:  []*tool.Definition{{Name: "album", Type: "entity:album", Required: true, EntityOp: "view"}},
		Handler: func(context.Context, *tool.Values) (*tool.Result, error) { return nil, nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, mcpserver.New(reg, nil), editor, nil)
	ask := func(value string) error {
		_, err := cs.Complete(context.Background(), &mcp.CompleteParams{
			Ref:      &mcp.CompleteReference{Type: "ref/resource", URI: "tool://album__open"},
			Argument: mcp.CompleteParamsArgument{Name: "album", Value: value},
		})
		return err
	}

	long := strings.Repeat("%_", 30_000) // 60,000 characters of LIKE wildcards
	err = ask(long)
	if err == nil || !strings.Contains(err.Error(), "argument.value") || !strings.Contains(err.Error(), "256") {
		t.Errorf("completing a value of 60,000 characters: %v, want an error naming argument.value and its bound", err)
	}
	if n := searches.Load(); n != 0 {
		t.Errorf("the value reached %d searches", n)
	}
	if strings.Contains(logs.String(), "level=ERROR") {
		t.Errorf("logged an error: %s", logs.String())
	}
	if err := ask(strings.Repeat("é", mcpserver.MaxCompletionValue)); err != nil {
		t.Errorf("completing a value of %d characters: %v", mcpserver.MaxCompletionValue, err)
	}
	if n := searches.Load(); n != 1 {
		t.Errorf("a value at the bound reached %d searches, want 1", n)
	}
}
