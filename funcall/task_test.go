package funcall_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"testing"

	"github.com/toolapi/toolapi/funcall"
	"github.com/toolapi/toolapi/tool"
)

// descriptions returns the description of each tool declared in format f,
// by name.
func descriptions(t *testing.T, set *funcall.Toolset, f funcall.Format) map[string]string {
	t.Helper()
	d, err := set.Declarations(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	var raw []map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, r := range raw {
		if fn, ok := r["function"].(map[string]any); ok {
			r = fn
		}
		out[r["name"].(string)], _ = r["description"].(string)
	}
	return out
}

// TestTaskDeclarations checks that every format's declaration of a tool
// whose calls all run as background tasks says so at the end of its
// description, once, and that of any other tool does not.
func TestTaskDeclarations(t *testing.T) {
	reg := tool.NewRegistry(&tool.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	anyone := func(context.Context, *tool.Values) (bool, error) { return true, nil }
	handler := func(context.Context, *tool.Values) (*tool.Result, error) { return nil, nil }
	err := reg.Add(
		&tool.Tool{ID: "album.export", Label: "Export", Description: "Exports albums.", Operation: tool.OpRead,
			Access: anyone, Task: tool.TaskRequired, Deprecated: "use album.dump", Handler: handler},
		&tool.Tool{ID: "album.scan", Label: "Scan", Description: "Scans albums.", Operation: tool.OpRead,
			Access: anyone, Task: tool.TaskOptional, Handler: handler},
		&tool.Tool{ID: "album.find", Label: "Find", Description: "Finds albums.", Operation: tool.OpRead,
			Access: anyone, Handler: handler},
	)
	if err != nil {
		t.Fatal(err)
	}
	set := funcall.New(reg, editor)
	want := map[string]string{
		"album__export": "Deprecated: use album.dump\n\nExports albums.\n\n" + funcall.TaskNote,
		"album__scan":   "Scans albums.",
		"album__find":   "Finds albums.",
	}
	for _, f := range funcall.Formats() {
		got := descriptions(t, set, f)
		for name, w := range want {
			if got[name] != w {
				t.Errorf("%s: %s: description %q, want %q", f, name, got[name], w)
			}
		}
	}
}
