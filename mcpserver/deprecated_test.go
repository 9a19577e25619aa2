package mcpserver_test

import (
	"context"
	"testing"

	"github.com/toolapi/toolapi/mcpserver"
	"github.com/toolapi/toolapi/tool"
)

// TestListDeprecated checks that tools/list starts a deprecated tool's
// description with its note and carries the note in the tool's _meta,
// and leaves other tools alone.
func TestListDeprecated(t *testing.T) {
	f := newFixture(t)
	old := &tool.Tool{ID: "album.find", Label: "Find", Description: "Finds albums.", Operation: tool.OpRead,
		Access: anyone, Deprecated: "use album.search",
		Handler: func(context.Context, *tool.Values) (*tool.Result, error) { return tool.Succeeded("", nil), nil }}
	if err := f.reg.Add(old); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, mcpserver.New(f.reg, nil), admin, nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	type listed struct{ description, meta string }
	got := map[string]listed{}
	for _, mt := range res.Tools {
		note, _ := mt.Meta[mcpserver.DeprecatedMetaKey].(string)
		got[mt.Name] = listed{mt.Description, note}
	}
	for name, want := range map[string]listed{
		"album__find":   {"Deprecated: use album.search\n\nFinds albums.", "use album.search"},
		"album__search": {"Finds albums whose title contains a word.", ""},
	} {
		if got[name] != want {
			t.Errorf("%s: %+v, want %+v", name, got[name], want)
		}
	}
}
