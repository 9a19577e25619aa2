package toolcli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolapi/toolapi/funcall"
)

func TestExportGolden(t *testing.T) {
	reg := newRegistry(t)
	for _, f := range funcall.Formats() {
		format := string(f)
		t.Run(format, func(t *testing.T) {
			code, out, errOut := call(t, reg, nil, "export", "--format", format, "--user", "admin")
			if code != 0 {
				t.Fatalf("exit status %d; stderr:\n%s", code, errOut)
			}
			golden := filepath.Join("testdata", "export-"+format+".json")
			if *update {
				if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to write it)", err)
			}
			if diff := cmp.Diff(string(want), out); diff != "" {
				t.Errorf("export --format %s differs from %s (-want +got); go test ./toolcli -run TestExportGolden -update rewrites it:\n%s", format, golden, diff)
			}
		})
	}
}

// The declarations printed are funcall's, for the account --user names.
func TestExport(t *testing.T) {
	reg := newRegistry(t)
	tests := []struct {
		name  string
		args  []string
		names []string
	}{
		{name: "default format is openai", args: nil, names: []string{"demo__echo", "demo__fail", "demo__launch", "demo__refuse", "demo__sum"}},
		{name: "anonymous", args: []string{"--format", "openai"}, names: []string{"demo__echo", "demo__fail", "demo__launch", "demo__refuse", "demo__sum"}},
		{name: "admin", args: []string{"--user", "admin", "--format=anthropic"}, names: []string{"demo__echo", "demo__fail", "demo__launch", "demo__refuse", "demo__secret", "demo__sum"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := call(t, reg, nil, append([]string{"export"}, tt.args...)...)
			if code != 0 {
				t.Fatalf("exit status %d; stderr:\n%s", code, errOut)
			}
			anthropic := strings.Contains(strings.Join(tt.args, " "), "anthropic")
			var decls []map[string]any
			if err := json.Unmarshal([]byte(out), &decls); err != nil {
				t.Fatalf("%v; stdout:\n%s", err, out)
			}
			var names []string
			for _, d := range decls {
				if anthropic {
					names = append(names, d["name"].(string))
					if d["input_schema"].(map[string]any)["type"] != "object" {
						t.Errorf("%s: input_schema is not an object schema: %v", d["name"], d["input_schema"])
					}
					continue
				}
				if d["type"] != "function" {
					t.Errorf("declaration type %v, want function", d["type"])
				}
				f := d["function"].(map[string]any)
				names = append(names, f["name"].(string))
				if f["parameters"].(map[string]any)["type"] != "object" {
					t.Errorf("%s: parameters is not an object schema: %v", f["name"], f["parameters"])
				}
			}
			if diff := cmp.Diff(tt.names, names); diff != "" {
				t.Errorf("declared names (-want +got):\n%s", diff)
			}
		})
	}
}

// What export prints is what a program gets from funcall for the same
// account, so a model sees the same tools either way.
func TestExportMatchesFuncall(t *testing.T) {
	reg := newRegistry(t)
	set := funcall.New(reg, users["admin"])
	for _, f := range funcall.Formats() {
		format := string(f)
		decls, err := set.Declarations(f)
		if err != nil {
			t.Fatal(err)
		}
		code, out, errOut := call(t, reg, nil, "export", "--user", "admin", "--format", format)
		if code != 0 {
			t.Fatalf("%s: exit status %d; stderr:\n%s", format, code, errOut)
		}
		want, err := json.Marshal(decls)
		if err != nil {
			t.Fatal(err)
		}
		var got, wantV any
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%s: %v; stdout:\n%s", format, err, out)
		}
		if err := json.Unmarshal(want, &wantV); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(wantV, got); diff != "" {
			t.Errorf("%s: export differs from funcall (-funcall +export):\n%s", format, diff)
		}
	}
}

func TestExportFailures(t *testing.T) {
	reg := newRegistry(t)
	tests := []struct {
		args   []string
		stderr string // a part of it
	}{
		{args: []string{"--format", "cohere"}, stderr: `--format must be one of openai|openai-strict|openai-responses|openai-responses-strict|anthropic|anthropic-strict|gemini, not "cohere"`},
		{args: []string{"demo.echo"}, stderr: "export takes no words"},
		{args: []string{"--user", "nobody"}, stderr: `user "nobody" not found`},
		{args: []string{"--user", "mallory"}, stderr: `user "mallory" is blocked`},
		{args: []string{"--bogus"}, stderr: "-bogus"},
	}
	for _, tt := range tests {
		code, out, errOut := call(t, reg, nil, append([]string{"export"}, tt.args...)...)
		if code != 1 || out != "" || !strings.Contains(errOut, tt.stderr) {
			t.Errorf("export %q: exit status %d (want 1)\nstdout:\n%s\nstderr:\n%s", tt.args, code, out, errOut)
		}
	}
	code, out, _ := call(t, reg, nil, "export", "-h")
	if code != 0 || !strings.Contains(out, "-format") {
		t.Errorf("export -h: exit status %d, stdout:\n%s", code, out)
	}
	code, out, _ = call(t, reg, nil, "help")
	if code != 0 || !strings.Contains(out, "app tool export [--format FORMAT] [--user NAME]") {
		t.Errorf("help does not show export: exit status %d, stdout:\n%s", code, out)
	}
}
