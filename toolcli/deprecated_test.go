package toolcli_test

import (
	"context"
	"strings"
	"testing"

	"github.com/toolapi/toolapi/tool"
)

// TestDeprecatedShown checks that list (table and Markdown), info and
// list's JSON show a deprecated tool's note, and leave others unmarked.
func TestDeprecatedShown(t *testing.T) {
	reg := newRegistry(t)
	old := &tool.Tool{ID: "demo.old_sum", Label: "Old sum", Description: "Adds up numbers, the old way.",
		Operation: tool.OpTransform, Access: anyone, Deprecated: "use demo.sum",
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) { return tool.Succeeded("", nil), nil }}
	if err := reg.Add(old); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args      []string
		want, not string
	}{
		{[]string{"list", "--operation", "transform"}, "demo.old_sum  demo__old_sum  transform  no           Old sum (deprecated: use demo.sum)\n", "Sum (deprecated"},
		{[]string{"list", "--format", "markdown"}, "| `demo.old_sum` | `demo__old_sum` | Old sum (deprecated: use demo.sum) | transform |", "Sum (deprecated"},
		{[]string{"list", "--format", "json"}, `"deprecated": "use demo.sum"`, ""},
		{[]string{"info", "demo.old_sum"}, "\nDeprecated:   use demo.sum\n", ""},
		{[]string{"info", "demo.sum"}, "Destructive:", "Deprecated"},
	} {
		code, out, errOut := call(t, reg, nil, tt.args...)
		if code != 0 {
			t.Errorf("%q: exit %d: %s", tt.args, code, errOut)
		}
		if !strings.Contains(out, tt.want) {
			t.Errorf("%q printed no %q:\n%s", tt.args, tt.want, out)
		}
		if tt.not != "" && strings.Contains(out, tt.not) {
			t.Errorf("%q printed %q:\n%s", tt.args, tt.not, out)
		}
	}
}
