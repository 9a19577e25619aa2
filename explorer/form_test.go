package explorer

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolapi/toolapi/tool"
)

func TestParentPath(t *testing.T) {
	for in, want := range map[string]string{
		"tags[2]":           "tags",
		"settings.limit":    "settings",
		"rows[1].tags[0]":   "rows[1].tags",
		"rows[1].name":      "rows[1]",
		"word":              "",
		"meta.some key.x":   "meta.some key",
		"":                  "",
		"grid[0][1]":        "grid[0]",
		"settings.values[]": "settings.values",
	} {
		if got := parentPath(in); got != want {
			t.Errorf("parentPath(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSplitPath(t *testing.T) {
	got := splitPath("rows[1].tags[0]")
	want := []pathSeg{{name: "rows", index: -1}, {index: 1}, {name: "tags", index: -1}, {index: 0}}
	if !cmp.Equal(got, want, cmp.AllowUnexported(pathSeg{})) {
		t.Errorf("splitPath = %+v", got)
	}
	for _, bad := range []string{"a[", "a[x]", "a[-1]"} {
		if got := splitPath(bad); got != nil {
			t.Errorf("splitPath(%q) = %+v, want nil", bad, got)
		}
	}
}

// TestPlace checks where violations land: on the field of their path, on
// the nearest field above it, or on the form.
func TestPlace(t *testing.T) {
	env := newTestEnv(t, nil)
	every, _ := env.reg.Tool("demo.every")
	fm := env.exp.newForm(context.Background(), &visit{acct: testUsers["alice"]}, every)
	fm.state = map[string]any{
		"tags":     []any{"a", "b", "c"},
		"settings": map[string]any{"limit": "1"},
	}
	fm.build([]tool.Violation{
		{Path: "tags[2]", Message: "third"},
		{Path: "tags", Message: "list"},
		{Path: "settings.limit", Message: "limit"},
		{Path: "meta.k", Message: "key"},
		{Path: "tags[7]", Message: "beyond the rows"},
		{Path: "", Message: "whole"},
		{Path: "nowhere", Message: "unknown"},
	})
	got := map[string][]string{}
	var walk func(f *field)
	walk = func(f *field) {
		if len(f.Violations) > 0 {
			got[f.Path] = f.Violations
		}
		for _, c := range f.children {
			walk(c)
		}
	}
	for _, f := range fm.fields {
		walk(f)
	}
	want := map[string][]string{
		"tags[2]":        {"third"},
		"tags":           {"list", "[7]: beyond the rows"},
		"settings.limit": {"limit"},
		"meta":           {"k: key"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("violations by field (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"whole", "nowhere: unknown"}, fm.problems); diff != "" {
		t.Errorf("form-level problems (-want +got):\n%s", diff)
	}
}

func TestArgs(t *testing.T) {
	env := newTestEnv(t, nil)
	every, _ := env.reg.Tool("demo.every")
	fm := env.exp.newForm(context.Background(), &visit{acct: testUsers["alice"]}, every)
	fm.state = map[string]any{
		"title":    "  ",
		"notes":    " keep spaces ",
		"tags":     []any{nil, "", "a", nil},
		"settings": map[string]any{"limit": "", "label": nil},
		"extra":    `{"a": [1]}`,
		"meta":     "{}",
		"album":    "not json either",
		"mode":     "locked",
	}
	want := map[string]any{
		"notes": tool.Text(" keep spaces "),
		"tags":  []any{tool.Text("a")},
		"extra": map[string]any{"a": []any{1.0}},
		"meta":  tool.Text("{}"),
		"album": tool.Text("not json either"),
	}
	if diff := cmp.Diff(want, fm.args()); diff != "" {
		t.Errorf("args (-want +got):\n%s", diff)
	}
	fm.compact()
	if diff := cmp.Diff([]any{"a"}, fm.state["tags"]); diff != "" {
		t.Errorf("compacted tags (-want +got):\n%s", diff)
	}
}
