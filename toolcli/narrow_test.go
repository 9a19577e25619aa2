package toolcli_test

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/toolapi/toolapi/tool"
)

// narrowRegistry holds a viewer read tool and an editor write tool; ran
// records the tools that ran.
func narrowRegistry(t *testing.T) (*tool.Registry, func() []string) {
	t.Helper()
	var mu sync.Mutex
	var runs []string
	h := func(id string) tool.Handler {
		return func(context.Context, *tool.Values) (*tool.Result, error) {
			mu.Lock()
			runs = append(runs, id)
			mu.Unlock()
			return tool.Succeeded("done", nil), nil
		}
	}
	reg := tool.NewRegistry(&tool.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	err := reg.Add(
		&tool.Tool{ID: "photo.view", Label: "View", Description: "Shows a photo.", Operation: tool.OpRead, Access: anyone,
			Groups: []string{"viewer"}, Handler: h("photo.view")},
		&tool.Tool{ID: "photo.edit", Label: "Edit", Description: "Edits a photo.", Operation: tool.OpWrite, Access: anyone,
			Destructive: tool.Ptr(false), Groups: []string{"editor"}, Handler: h("photo.edit")},
	)
	if err != nil {
		t.Fatal(err)
	}
	return reg, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), runs...)
	}
}

func TestNarrowedRunIsNotFound(t *testing.T) {
	reg, ran := narrowRegistry(t)
	for _, args := range [][]string{
		{"photo.edit", "--groups", "viewer"},
		{"photo.edit", "--groups=viewer"},
		{"photo.edit", "--read-only"},
		{"photo.view", "--groups", "editor"},
	} {
		r := runJSON(t, reg, nil, append(args[1:], args[0])...)
		none := runJSON(t, reg, nil, append([]string{"photo.nothing"}, args[1:]...)...)
		if r.Success || r.ErrorType != none.ErrorType || r.ErrorType == "" {
			t.Errorf("run %q: %+v, want the failure of an unknown tool (%+v)", args, r, none)
		}
	}
	if got := ran(); len(got) != 0 {
		t.Fatalf("tools ran outside the narrowing: %v", got)
	}
	if r := runJSON(t, reg, nil, "photo.view", "--groups", "viewer", "--read-only"); !r.Success {
		t.Errorf("photo.view under viewer: %+v", r)
	}
	if got := ran(); len(got) != 1 || got[0] != "photo.view" {
		t.Errorf("ran %v, want photo.view", got)
	}
}

func TestNarrowedListAndInfo(t *testing.T) {
	reg, _ := narrowRegistry(t)
	for _, c := range []struct {
		args      []string
		has, lack string
	}{
		{[]string{"list", "--groups", "viewer"}, "photo.view", "photo.edit"},
		{[]string{"list", "--read-only"}, "photo.view", "photo.edit"},
		{[]string{"list", "--groups", "editor"}, "photo.edit", "photo.view"},
		{[]string{"search", "photo", "--groups=viewer"}, "photo.view", "photo.edit"},
		{[]string{"export", "--groups", "viewer"}, "photo__view", "photo__edit"},
	} {
		code, stdout, stderr := call(t, reg, nil, c.args...)
		if code != 0 || !strings.Contains(stdout, c.has) || strings.Contains(stdout, c.lack) {
			t.Errorf("%q: %d, stdout %q, stderr %q; want %s and not %s", c.args, code, stdout, stderr, c.has, c.lack)
		}
	}
	code, _, stderr := call(t, reg, nil, "info", "photo.edit", "--groups", "viewer")
	if want := `tool "photo.edit" is out of reach: not in the toolsets viewer of this connection`; code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("info under viewer: %d %q, want %q", code, stderr, want)
	}
	code, _, stderr = call(t, reg, nil, "info", "photo.edit", "--read-only")
	if want := "not read-only (its operation is write)"; code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("info read-only: %d %q, want %q", code, stderr, want)
	}
}

func TestNarrowUnknownGroupFlag(t *testing.T) {
	reg, ran := narrowRegistry(t)
	for args, want := range map[string]string{
		"list --groups admins":           `--groups: unknown tool group "admins": no tool declares it (the groups are editor, viewer)`,
		"run photo.view --groups admins": `unknown tool group "admins"`,
		"list --groups":                  "--groups needs a comma-separated list of toolsets",
		"list --read-only=maybe":         `--read-only must be true or false, not "maybe"`,
	} {
		code, _, stderr := call(t, reg, nil, strings.Fields(args)...)
		if code != 1 || !strings.Contains(stderr, want) {
			t.Errorf("%s: %d %q, want %q", args, code, stderr, want)
		}
	}
	if got := ran(); len(got) != 0 {
		t.Errorf("ran %v", got)
	}
}
