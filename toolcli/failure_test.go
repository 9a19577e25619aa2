package toolcli_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolapi/toolapi/tool"
)

// partialImport is a hand-written tool that fails after doing part of its
// work, and says how much with its outputs.
var partialImport = &tool.Tool{
	ID: "demo.import", Label: "Import", Description: "Imports rows; stops at the first bad one.",
	Operation: tool.OpTransform, Access: anyone,
	Inputs: []*tool.Definition{{Name: "rows", Type: "list", Required: true, Items: &tool.Definition{Type: "string"}}},
	Outputs: []*tool.Definition{
		{Name: "imported", Type: "integer", Required: true},
		{Name: "bad_row", Type: "string"},
	},
	Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
		rows := tool.ListOf[string](in.Get("rows"))
		for i, r := range rows {
			if r == "" {
				return tool.Failed(fmt.Sprintf("Row %d is empty; the rows before it were imported.", i+1),
					map[string]any{"imported": i, "bad_row": r}), nil
			}
		}
		return tool.Succeeded("", map[string]any{"imported": len(rows)}), nil
	},
}

// A failed run carries the outputs the tool returned with tool.Failed, in
// the JSON answer and in the text form.
func TestFailureCarriesOutputs(t *testing.T) {
	reg := newRegistry(t)
	if err := reg.Add(partialImport); err != nil {
		t.Fatal(err)
	}
	got := runJSON(t, reg, nil, "demo.import", "--input", "rows=a", "--input", "rows=b", "--input", "rows=")
	want := result{
		Message:    "Row 3 is empty; the rows before it were imported.",
		Outputs:    map[string]any{"imported": 2.0, "bad_row": ""},
		ErrorType:  "execution_failed",
		Violations: []tool.Violation{},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("run --json of a failure with outputs (-want +got):\n%s", diff)
	}

	_, out, _ := call(t, reg, nil, "run", "--json", "demo.import", "--input", "rows=")
	if diff := cmp.Diff([]string{"success", "message", "outputs", "error_type", "violations"}, keys(t, out)); diff != "" {
		t.Errorf("keys of a failure with outputs (-want +got):\n%s", diff)
	}

	// Text: the message on stderr, the outputs on stdout, as on success.
	code, out, errOut := call(t, reg, nil, "run", "demo.import", "--input", "rows=", "--input", "rows=b")
	if code != 1 {
		t.Errorf("exit status %d, want 1", code)
	}
	if diff := cmp.Diff("Row 1 is empty; the rows before it were imported.\n", errOut); diff != "" {
		t.Errorf("stderr (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff("{\n  \"bad_row\": \"\",\n  \"imported\": 0\n}\n", out); diff != "" {
		t.Errorf("stdout (-want +got):\n%s", diff)
	}
}
