package toolcli_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolapi/toolapi/tool"
)

// info and run take a tool's name in MCP and function calling as well as
// its ID.
func TestToolByName(t *testing.T) {
	reg := newRegistry(t)
	_, byID, _ := call(t, reg, nil, "info", "demo.sum")
	code, byName, errOut := call(t, reg, nil, "info", "demo__sum")
	if code != 0 {
		t.Fatalf("info demo__sum: exit status %d; stderr:\n%s", code, errOut)
	}
	if diff := cmp.Diff(byID, byName); diff != "" {
		t.Errorf("info by name differs from info by ID (-ID +name):\n%s", diff)
	}
	if !strings.Contains(byName, "Name:         demo__sum (in MCP and function calling)") {
		t.Errorf("info does not show the name:\n%s", byName)
	}

	want := result{Success: true, Message: "Sum completed.", Outputs: map[string]any{"sum": 3.0}}
	for _, word := range []string{"demo__sum", "demo.sum"} {
		if diff := cmp.Diff(want, runJSON(t, reg, nil, word, "--input", "numbers=1", "--input", "numbers=2")); diff != "" {
			t.Errorf("run %s (-want +got):\n%s", word, diff)
		}
	}

	code, _, errOut = call(t, reg, nil, "info", "demo__nope")
	if code != 1 || !strings.Contains(errOut, `tool "demo__nope" not found`) {
		t.Errorf("info of an unknown name: exit status %d, stderr %q", code, errOut)
	}
	if got := runJSON(t, reg, nil, "demo__nope"); got.ErrorType != "tool_not_found" || !strings.Contains(got.Message, "demo__nope") {
		t.Errorf("run of an unknown name: %+v", got)
	}
}

// info and run of a tool the account may not run answer exactly as for a
// tool that does not exist, by its name or its ID, with or without --json,
// whatever inputs or preset the run names; the account that may run it
// runs it.
func TestRunHiddenAsUnknown(t *testing.T) {
	reg := newRegistry(t)
	without := newRegistry(t)
	without.Remove("demo.secret")
	for _, word := range []string{"demo__secret", "demo.secret"} {
		for _, args := range [][]string{
			{"run", word},
			{"run", "--json", word},
			{"run", "--json", word, "--input", "secret=x", "--preset", "mine"},
			{"run", word, "--input", `{"secret":"x"}`},
			{"info", word},
			{"info", "--format", "json", word},
		} {
			code, out, errOut := call(t, reg, nil, args...)
			wantCode, wantOut, wantErr := call(t, without, nil, args...)
			if code != wantCode || out != wantOut || errOut != wantErr {
				t.Errorf("%q: %d, %q, %q; want, as for no such tool, %d, %q, %q", args, code, out, errOut, wantCode, wantOut, wantErr)
			}
			if code != 1 || !strings.Contains(out+errOut, `not found for account`) || !strings.Contains(out+errOut, word) {
				t.Errorf("%q: %d, %q, %q; want a failure saying the tool is not found", args, code, out, errOut)
			}
		}
		if got := runJSON(t, reg, nil, word, "--user", "admin"); !got.Success || got.Outputs["secret"] != "for admin" {
			t.Errorf("run %s --user admin: %+v", word, got)
		}
	}
	// From Go, the run path names the permission.
	res, err := reg.Run(t.Context(), "demo.secret", nil)
	if err != nil || res.Failure != tool.FailureAccess || !strings.Contains(res.Message, `it needs the permission "see secrets"`) {
		t.Errorf("Registry.Run of demo.secret: %+v, %v", res, err)
	}
}
