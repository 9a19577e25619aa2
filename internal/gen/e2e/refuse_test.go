package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolapi/toolapi/funcall"
	"github.com/toolapi/toolapi/mcpserver"
	"github.com/toolapi/toolapi/tool"
)

// TestRefusalReason checks that the reason an access method gives with
// tool.Refuse reaches every caller: the run path, the command line, MCP and
// function calling, as an access failure.
func TestRefusalReason(t *testing.T) {
	const want = "You may not run Rename: renaming needs the rename permission."
	r := newRegistry(t, &Scheduler{}, &Site{}, &Lister{})
	reader := &tool.User{ID: "reader", Permissions: []string{"access content"}}

	if res := run(t, r, tool.WithAccount(context.Background(), reader), "e2e.rename", `{"title":"x"}`); res.Failure != tool.FailureAccess || res.Message != want {
		t.Errorf("run: %v %q; want an access failure %q", res.Failure, res.Message, want)
	}

	code, out := cli(t, r, "run", "e2e.rename", "--json", "--yes", "--user", "reader", "--input", "title=x")
	if code != 1 || out["error_type"] != "access_denied" || out["message"] != want {
		t.Errorf("CLI: exit %d, %v; want access_denied with %q", code, out, want)
	}

	resp := funcall.New(r, reader).Dispatch(context.Background(), tool.NameOf("e2e.rename"), []byte(`{"title":"x"}`))
	if resp.ErrorType != funcall.AccessDenied || resp.Message != want {
		t.Errorf("dispatch: %s %q; want %s %q", resp.ErrorType, resp.Message, funcall.AccessDenied, want)
	}

	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := mcpserver.New(r, nil).Connect(ctx, st, reader)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool.NameOf("e2e.rename"), Arguments: map[string]any{"title": "x"}})
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	if !res.IsError || !strings.Contains(text.String(), want) {
		t.Errorf("MCP: isError %v, text %q; want an error saying %q", res.IsError, text.String(), want)
	}
}
