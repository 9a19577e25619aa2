package toolcli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolapi/toolapi/tool"
	"github.com/toolapi/toolapi/toolcli"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// users are the accounts of the test application.
var users = map[string]*tool.User{
	"admin":   {ID: "admin", Permissions: []string{"see secrets"}},
	"mallory": {ID: "mallory", Permissions: []string{"see secrets"}, IsBlocked: true},
}

func lookUp(_ context.Context, name string) (tool.Account, error) {
	if name == "broken" {
		return nil, errors.New("the user store is down")
	}
	if u, ok := users[name]; ok {
		return u, nil
	}
	return nil, fmt.Errorf("%w: %s", toolcli.ErrUnknownUser, name)
}

// anyone is the access check of a tool everybody may run.
func anyone(context.Context, *tool.Values) (bool, error) { return true, nil }

// testTools returns the tools every test runs against.
func testTools() []*tool.Tool {
	return []*tool.Tool{
		{
			ID:          "demo.echo",
			Label:       "Echo",
			Description: "Echoes its word, tags and limit back.",
			Operation:   tool.OpRead,
			Inputs: []*tool.Definition{
				{Name: "word", Type: "string", Required: true, Description: "A word.", Constraints: tool.Constraints{NotBlank: true}},
				{Name: "tags", Type: "list", Description: "Some tags.", Items: &tool.Definition{Type: "string",
					Constraints: tool.Constraints{Choice: []any{"red", "green", "blue"}}}},
				{Name: "settings", Type: "map", Description: "Settings.", Properties: []*tool.Definition{
					{Name: "limit", Type: "integer", Constraints: tool.Constraints{Range: &tool.Range{Min: tool.Ptr(1.0), Max: tool.Ptr(100.0)}}},
					{Name: "labels", Type: "list", Items: &tool.Definition{Type: "string"}},
				}},
			},
			Outputs: []*tool.Definition{
				{Name: "word", Type: "string", Required: true},
				{Name: "tags", Type: "list", Items: &tool.Definition{Type: "string"}},
				{Name: "limit", Type: "integer"},
				{Name: "labels", Type: "list", Items: &tool.Definition{Type: "string"}},
			},
			Access: anyone,
			Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
				out := map[string]any{"word": in.String("word")}
				if tags := in.List("tags"); tags != nil {
					out["tags"] = tags
				}
				if s := in.Map("settings"); s != nil {
					if l, ok := s["limit"]; ok {
						out["limit"] = l
					}
					if l, ok := s["labels"]; ok {
						out["labels"] = l
					}
				}
				return tool.Succeeded("", out), nil
			},
		},
		{
			ID:          "demo.sum",
			Label:       "Sum",
			Description: "Adds up whole numbers.",
			Operation:   tool.OpTransform,
			Inputs: []*tool.Definition{
				{Name: "numbers", Type: "list", Required: true, Items: &tool.Definition{Type: "integer"},
					Constraints: tool.Constraints{NotBlank: true}},
			},
			Outputs: []*tool.Definition{{Name: "sum", Type: "integer", Required: true}},
			Access:  anyone,
			Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
				var sum int64
				for _, n := range tool.ListOf[int64](in.Get("numbers")) {
					sum += n
				}
				return tool.Succeeded("", map[string]any{"sum": sum}), nil
			},
		},
		{
			ID:          "demo.fail",
			Label:       "Fail",
			Description: "Fails with an internal error.",
			Operation:   tool.OpWrite,
			Destructive: tool.Ptr(true),
			Access:      anyone,
			Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
				return nil, errors.New("the database is on fire")
			},
		},
		{
			ID:          "demo.refuse",
			Label:       "Refuse",
			Description: "Refuses its input | always.",
			Operation:   tool.OpTransform,
			Inputs:      []*tool.Definition{{Name: "word", Type: "string"}},
			Access:      anyone,
			Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
				return nil, tool.InputErrorf("word", "is not a word this tool likes")
			},
		},
		{
			ID:          "demo.secret",
			Label:       "Secret",
			Description: "Tells a secret.",
			Operation:   tool.OpRead,
			Permission:  "see secrets",
			Outputs:     []*tool.Definition{{Name: "secret", Type: "string", Required: true}},
			Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
				return tool.Succeeded("", map[string]any{"secret": "for " + tool.AccountFrom(ctx).AccountID()}), nil
			},
		},
		{
			ID:          "demo.launch",
			Label:       "Launch",
			Description: "Launches something, once a person confirms.",
			Operation:   tool.OpTrigger,
			Destructive: tool.Ptr(true),
			Confirm:     true,
			Outputs:     []*tool.Definition{{Name: "launched", Type: "boolean", Required: true}},
			Access:      anyone,
			Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
				tool.Progress(ctx, 1, 2, "ignition")
				tool.Log(ctx, "info", "lift-off")
				return tool.Succeeded("Launched.", map[string]any{"launched": true}), nil
			},
		},
	}
}

func newRegistry(t *testing.T) *tool.Registry {
	t.Helper()
	reg := tool.NewRegistry(&tool.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err := reg.Add(testTools()...); err != nil {
		t.Fatalf("Add: %v", err)
	}
	return reg
}

// call runs the CLI with args and returns its exit status, stdout and
// stderr.
func call(t *testing.T, reg *tool.Registry, opts *toolcli.Options, args ...string) (int, string, string) {
	t.Helper()
	if opts == nil {
		opts = &toolcli.Options{Name: "app tool", Accounts: lookUp}
	}
	var stdout, stderr bytes.Buffer
	code := toolcli.Run(context.Background(), reg, args, &stdout, &stderr, opts)
	return code, stdout.String(), stderr.String()
}

// result is the --json output of run.
type result struct {
	Success    bool             `json:"success"`
	Message    string           `json:"message"`
	Outputs    map[string]any   `json:"outputs"`
	ErrorType  string           `json:"error_type"`
	Violations []tool.Violation `json:"violations"`
}

// runJSON runs "run ... --json" and decodes what it printed, checking that
// the exit status agrees with success.
func runJSON(t *testing.T, reg *tool.Registry, opts *toolcli.Options, args ...string) result {
	t.Helper()
	code, stdout, stderr := call(t, reg, opts, append([]string{"run", "--json"}, args...)...)
	var r result
	dec := json.NewDecoder(strings.NewReader(stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		t.Fatalf("run %q: stdout is not a result: %v\nstdout: %s\nstderr: %s", args, err, stdout, stderr)
	}
	if want := map[bool]int{true: 0, false: 1}[r.Success]; code != want {
		t.Errorf("run %q: exit status %d, want %d", args, code, want)
	}
	return r
}

// keys returns the top-level keys of the JSON object s, in order.
func keys(t *testing.T, s string) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not a JSON object: %s", s)
	}
	var ks []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		ks = append(ks, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return ks
}

func TestRunJSONShape(t *testing.T) {
	reg := newRegistry(t)
	_, out, _ := call(t, reg, nil, "run", "demo.sum", "--json", "--input", "numbers=1")
	if diff := cmp.Diff([]string{"success", "message", "outputs"}, keys(t, out)); diff != "" {
		t.Errorf("success keys (-want +got):\n%s", diff)
	}
	_, out, _ = call(t, reg, nil, "run", "demo.nope", "--json")
	if diff := cmp.Diff([]string{"success", "message", "error_type", "violations"}, keys(t, out)); diff != "" {
		t.Errorf("failure keys (-want +got):\n%s", diff)
	}
	// A tool without outputs still prints an object.
	_, out, _ = call(t, reg, nil, "run", "demo.secret", "--json", "--user", "admin")
	if !strings.Contains(out, `"outputs"`) {
		t.Errorf("success without outputs key: %s", out)
	}
}

func TestRun(t *testing.T) {
	reg := newRegistry(t)
	tests := []struct {
		name string
		args []string
		want result
	}{
		{
			name: "text input",
			args: []string{"demo.echo", "--input", "word=hi"},
			want: result{Success: true, Message: "Echo completed.", Outputs: map[string]any{"word": "hi"}},
		},
		{
			name: "flags before the ID",
			args: []string{"--input", "word=hi", "demo.echo"},
			want: result{Success: true, Message: "Echo completed.", Outputs: map[string]any{"word": "hi"}},
		},
		{
			name: "equals inside the value",
			args: []string{"demo.echo", "--input=word=a=b"},
			want: result{Success: true, Message: "Echo completed.", Outputs: map[string]any{"word": "a=b"}},
		},
		{
			name: "repeated input builds a list",
			args: []string{"demo.echo", "--input", "word=hi", "--input", "tags=red", "--input", "tags=blue"},
			want: result{Success: true, Message: "Echo completed.", Outputs: map[string]any{"word": "hi", "tags": []any{"red", "blue"}}},
		},
		{
			name: "one value of a list input is a list",
			args: []string{"demo.echo", "--input", "word=hi", "--input", "tags=green"},
			want: result{Success: true, Message: "Echo completed.", Outputs: map[string]any{"word": "hi", "tags": []any{"green"}}},
		},
		{
			name: "dotted keys build maps",
			args: []string{"demo.echo", "--input", "word=hi", "--input", "settings.limit=5", "--input", "settings.labels=x"},
			want: result{Success: true, Message: "Echo completed.", Outputs: map[string]any{"word": "hi", "limit": 5.0, "labels": []any{"x"}}},
		},
		{
			name: "text is coerced to integers",
			args: []string{"demo.sum", "--input", "numbers=2", "--input", "numbers=40"},
			want: result{Success: true, Message: "Sum completed.", Outputs: map[string]any{"sum": 42.0}},
		},
		{
			name: "JSON object",
			args: []string{"demo.sum", "--input", `{"numbers":[1,2,3]}`},
			want: result{Success: true, Message: "Sum completed.", Outputs: map[string]any{"sum": 6.0}},
		},
		{
			name: "JSON merged with key=value",
			args: []string{"demo.echo", "--input", `{"word":"hi","settings":{"limit":7}}`, "--input", "settings.labels=a"},
			want: result{Success: true, Message: "Echo completed.", Outputs: map[string]any{"word": "hi", "limit": 7.0, "labels": []any{"a"}}},
		},
		{
			name: "JSON objects merge",
			args: []string{"demo.echo", "--input", `{"word":"hi","settings":{"limit":7}}`, "--input", `{"settings":{"labels":["b"]}}`},
			want: result{Success: true, Message: "Echo completed.", Outputs: map[string]any{"word": "hi", "limit": 7.0, "labels": []any{"b"}}},
		},
		{
			name: "tool message",
			args: []string{"demo.launch", "--yes"},
			want: result{Success: true, Message: "Launched.", Outputs: map[string]any{"launched": true}},
		},
		{
			name: "account reaches the tool",
			args: []string{"demo.secret", "--user", "admin"},
			want: result{Success: true, Message: "Secret completed.", Outputs: map[string]any{"secret": "for admin"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := runJSON(t, reg, nil, tt.args...)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("run %q (-want +got):\n%s", tt.args, diff)
			}
		})
	}
}

func TestRunFailures(t *testing.T) {
	reg := newRegistry(t)
	tests := []struct {
		name          string
		args          []string
		errorType     string
		violations    []string // paths; nil means any (also none)
		messageHas    string
		messageHasNot string
	}{
		{name: "unknown tool", args: []string{"demo.nope"}, errorType: "tool_not_found", messageHas: "demo.nope"},
		{name: "no ID", args: nil, errorType: "invalid_option"},
		{name: "two IDs", args: []string{"demo.echo", "demo.sum"}, errorType: "invalid_option"},
		{name: "unknown flag", args: []string{"demo.echo", "--colour", "red"}, errorType: "invalid_option", messageHas: "colour"},
		{name: "flag without value", args: []string{"demo.echo", "--input"}, errorType: "invalid_option"},
		{name: "malformed JSON", args: []string{"demo.echo", "--input", `{"word": "hi"`}, errorType: "invalid_option", messageHas: "malformed JSON"},
		{name: "JSON with text after it", args: []string{"demo.echo", "--input", `{"word":"hi"} x`}, errorType: "invalid_option", messageHas: "malformed JSON"},
		{name: "JSON syntax error", args: []string{"demo.echo", "--input", `{word: hi}`}, errorType: "invalid_option", messageHas: "malformed JSON"},
		{name: "JSON number out of range", args: []string{"demo.sum", "--input", `{"numbers":[1e999]}`}, errorType: "invalid_option", messageHas: "out of range"},
		{name: "input without equals", args: []string{"demo.echo", "--input", "word"}, errorType: "invalid_option", messageHas: "key=value"},
		{name: "empty key", args: []string{"demo.echo", "--input", "=hi"}, errorType: "invalid_option"},
		{name: "empty key part", args: []string{"demo.echo", "--input", "settings..limit=1"}, errorType: "invalid_option"},
		{name: "key below a value", args: []string{"demo.echo", "--input", "word=hi", "--input", "word.x=1"}, errorType: "invalid_option"},
		{name: "value on an object", args: []string{"demo.echo", "--input", "settings.limit=1", "--input", "settings=1"}, errorType: "invalid_option"},
		{name: "unknown user", args: []string{"demo.echo", "--input", "word=hi", "--user", "nobody"}, errorType: "user_not_found", messageHas: "nobody"},
		{name: "user look-up fails", args: []string{"demo.echo", "--input", "word=hi", "--user", "broken"}, errorType: "execution_failed"},
		{name: "blocked user", args: []string{"demo.echo", "--input", "word=hi", "--user", "mallory"}, errorType: "user_blocked", messageHas: "mallory"},
		{name: "blocked user before anything runs", args: []string{"demo.launch", "--yes", "--user", "mallory"}, errorType: "user_blocked"},
		{name: "missing input", args: []string{"demo.echo"}, errorType: "invalid_input", violations: []string{"word"}},
		{name: "bad list item", args: []string{"demo.echo", "--input", "word=hi", "--input", "tags=red", "--input", "tags=pink"}, errorType: "invalid_input", violations: []string{"tags[1]"}},
		{name: "bad nested value", args: []string{"demo.echo", "--input", "word=hi", "--input", "settings.limit=500"}, errorType: "invalid_input", violations: []string{"settings.limit"}},
		{name: "text not an integer", args: []string{"demo.sum", "--input", "numbers=1", "--input", "numbers=two"}, errorType: "invalid_input", violations: []string{"numbers[1]"}},
		{name: "several problems", args: []string{"demo.echo", "--input", "tags=pink", "--input", "settings.limit=0"}, errorType: "invalid_input", violations: []string{"settings.limit", "tags[0]", "word"}},
		{name: "unknown input", args: []string{"demo.echo", "--input", "word=hi", "--input", "colour=red"}, errorType: "invalid_input", violations: []string{"colour"}},
		{name: "typed JSON is not coerced", args: []string{"demo.sum", "--input", `{"numbers":["1"]}`}, errorType: "invalid_input", violations: []string{"numbers[0]"}},
		{name: "input error from the tool", args: []string{"demo.refuse", "--input", "word=x"}, errorType: "invalid_input", messageHas: "likes"},
		{name: "permission: as if there were no such tool", args: []string{"demo.secret"}, errorType: "tool_not_found", messageHas: `tool "demo.secret" not found`},
		{name: "confirmation needed", args: []string{"demo.launch"}, errorType: "access_denied", messageHas: "onfirm"},
		{name: "tool error stays inside", args: []string{"demo.fail", "--yes"}, errorType: "execution_failed", messageHasNot: "fire"},
		{name: "destructive needs --yes", args: []string{"demo.fail"}, errorType: "access_denied", messageHas: "--yes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := runJSON(t, reg, nil, tt.args...)
			if got.Success {
				t.Fatalf("run %q succeeded: %+v", tt.args, got)
			}
			if got.ErrorType != tt.errorType {
				t.Errorf("run %q: error_type %q, want %q (message %q)", tt.args, got.ErrorType, tt.errorType, got.Message)
			}
			if got.Message == "" {
				t.Errorf("run %q: no message", tt.args)
			}
			if tt.messageHas != "" && !strings.Contains(got.Message+fmt.Sprint(got.Violations), tt.messageHas) {
				t.Errorf("run %q: message %q (violations %v) does not mention %q", tt.args, got.Message, got.Violations, tt.messageHas)
			}
			if tt.messageHasNot != "" && strings.Contains(got.Message+fmt.Sprint(got.Violations), tt.messageHasNot) {
				t.Errorf("run %q: message %q (violations %v) mentions %q", tt.args, got.Message, got.Violations, tt.messageHasNot)
			}
			if got.Violations == nil {
				t.Errorf("run %q: violations is not an array", tt.args)
			}
			if tt.violations != nil {
				var paths []string
				for _, v := range got.Violations {
					paths = append(paths, v.Path)
					if v.Message == "" {
						t.Errorf("run %q: violation %q has no message", tt.args, v.Path)
					}
				}
				if diff := cmp.Diff(tt.violations, paths, cmpSorted); diff != "" {
					t.Errorf("run %q: violation paths (-want +got):\n%s\n%v", tt.args, diff, got.Violations)
				}
			}
		})
	}
}

var cmpSorted = cmp.Transformer("sort", func(s []string) []string {
	s = append([]string(nil), s...)
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	return s
})

func TestRunText(t *testing.T) {
	reg := newRegistry(t)
	code, out, errOut := call(t, reg, nil, "run", "demo.sum", "--input", "numbers=1", "--input", "numbers=2")
	if code != 0 {
		t.Fatalf("exit status %d, stderr %s", code, errOut)
	}
	want := "Sum completed.\n{\n  \"sum\": 3\n}\n"
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("stdout (-want +got):\n%s", diff)
	}

	code, out, errOut = call(t, reg, nil, "run", "demo.echo", "--input", "tags=pink")
	if code != 1 {
		t.Fatalf("exit status %d, want 1", code)
	}
	if out != "" {
		t.Errorf("a failure wrote on stdout: %q", out)
	}
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	var paths []string
	for _, l := range lines[1:] {
		path, msg, ok := strings.Cut(l, ": ")
		if !ok || msg == "" {
			t.Errorf("violation line %q is not path: message", l)
		}
		paths = append(paths, path)
	}
	if diff := cmp.Diff([]string{"tags[0]", "word"}, paths, cmpSorted); diff != "" {
		t.Errorf("violation lines (-want +got):\n%s\nstderr:\n%s", diff, errOut)
	}

	// A violation in people's words, under the tool's heading.
	code, _, errOut = call(t, reg, nil, "run", "demo.sum", "--input", "numbers=x")
	if want := "Invalid input for Sum:\nnumbers[0]: must be a whole number such as 7\n"; code != 1 || errOut != want {
		t.Errorf("one violation: exit status %d, stderr:\n%s\nwant:\n%s", code, errOut, want)
	}

	code, _, errOut = call(t, reg, nil, "run", "demo.echo", "--input", "{oops")
	if code != 1 || !strings.Contains(errOut, "malformed JSON") || !strings.Contains(errOut, "-input") {
		t.Errorf("malformed JSON: exit status %d, stderr:\n%s", code, errOut)
	}
}

func TestConfirm(t *testing.T) {
	reg := newRegistry(t)
	tests := []struct {
		name    string
		args    []string
		stdin   io.Reader
		success bool
		prompt  bool
	}{
		{name: "yes flag", args: []string{"--yes"}, stdin: nil, success: true},
		{name: "yes flag asks nobody", args: []string{"--yes"}, stdin: strings.NewReader("n\n"), success: true},
		{name: "prompt y", stdin: strings.NewReader("y\n"), success: true, prompt: true},
		{name: "prompt yes", stdin: strings.NewReader(" YES \n"), success: true, prompt: true},
		{name: "prompt no", stdin: strings.NewReader("n\n"), prompt: true},
		{name: "prompt empty", stdin: strings.NewReader("\n"), prompt: true},
		{name: "prompt end of input", stdin: strings.NewReader(""), prompt: true},
		{name: "no one to ask", stdin: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := &toolcli.Options{Name: "app tool", Stdin: tt.stdin}
			code, out, errOut := call(t, reg, opts, append([]string{"run", "demo.launch", "--json"}, tt.args...)...)
			var r result
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatalf("stdout %q: %v", out, err)
			}
			if r.Success != tt.success || (code == 0) != tt.success {
				t.Errorf("success %v, exit status %d, want success %v (message %q)", r.Success, code, tt.success, r.Message)
			}
			if !tt.success && r.ErrorType != "access_denied" {
				t.Errorf("error_type %q, want access_denied", r.ErrorType)
			}
			if got := strings.Contains(errOut, "Run Launch? [y/N] "); got != tt.prompt {
				t.Errorf("prompted %v, want %v; stderr:\n%s", got, tt.prompt, errOut)
			}
			if tt.success && !strings.Contains(errOut, "progress: 1/2 ignition") {
				t.Errorf("progress not reported; stderr:\n%s", errOut)
			}
		})
	}
}

// A destructive tool runs only once a person says yes at the terminal, or
// with --yes; an account that may not run it is refused without a
// question.
func TestDestructive(t *testing.T) {
	reg := newRegistry(t)
	wipe := &tool.Tool{
		ID: "demo.wipe", Label: "Wipe", Description: "Wipes everything.",
		Operation: tool.OpWrite, Permission: "see secrets",
		Inputs: []*tool.Definition{{Name: "scope", Type: "string", Default: "all",
			Constraints: tool.Constraints{Choice: []any{"all", "drafts"}}}},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			return tool.Succeeded("Wiped.", nil), nil
		},
	}
	if err := reg.Add(wipe); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		args       []string
		stdin      io.Reader
		errorType  string // "" means success
		messageHas string
		prompt     bool
	}{
		{name: "yes flag", args: []string{"--yes", "--user", "admin"}},
		{name: "prompt y", args: []string{"--user", "admin"}, stdin: strings.NewReader("y\n"), prompt: true},
		{name: "prompt n", args: []string{"--user", "admin"}, stdin: strings.NewReader("n\n"), prompt: true,
			errorType: "access_denied", messageHas: "not confirmed (--yes confirms it)"},
		{name: "prompt end of input", args: []string{"--user", "admin"}, stdin: strings.NewReader(""), prompt: true,
			errorType: "access_denied", messageHas: "not confirmed"},
		{name: "no one to ask", args: []string{"--user", "admin"},
			errorType: "access_denied", messageHas: "run it again with --yes"},
		{name: "no permission: no question", stdin: strings.NewReader("y\n"),
			errorType: "tool_not_found", messageHas: `tool "demo.wipe" not found`},
		{name: "bad input: no question", args: []string{"--user", "admin", "--input", "scope=everything"}, stdin: strings.NewReader("y\n"),
			errorType: "invalid_input", messageHas: "scope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := &toolcli.Options{Name: "app tool", Accounts: lookUp, Stdin: tt.stdin}
			code, out, errOut := call(t, reg, opts, append([]string{"run", "demo.wipe", "--json"}, tt.args...)...)
			var r result
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatalf("stdout %q: %v", out, err)
			}
			if r.Success != (tt.errorType == "") || (code == 0) != r.Success || r.ErrorType != tt.errorType {
				t.Errorf("success %v, exit status %d, error_type %q; want error_type %q (message %q)", r.Success, code, r.ErrorType, tt.errorType, r.Message)
			}
			if !strings.Contains(r.Message, tt.messageHas) {
				t.Errorf("message %q does not contain %q", r.Message, tt.messageHas)
			}
			if got := strings.Count(errOut, "Run Wipe? [y/N] "); got != map[bool]int{true: 1}[tt.prompt] {
				t.Errorf("prompted %d times, want %v; stderr:\n%s", got, tt.prompt, errOut)
			}
		})
	}
	// A destructive tool that also asks for confirmation asks once.
	opts := &toolcli.Options{Name: "app tool", Stdin: strings.NewReader("y\n")}
	_, _, errOut := call(t, reg, opts, "run", "demo.launch")
	if n := strings.Count(errOut, "[y/N]"); n != 1 {
		t.Errorf("demo.launch asked %d times; stderr:\n%s", n, errOut)
	}
}

func TestConfirmPipeIsNotAsked(t *testing.T) {
	reg := newRegistry(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	io.WriteString(w, "y\n")
	w.Close()
	got := runJSON(t, reg, &toolcli.Options{Stdin: r}, "demo.launch")
	if got.Success || got.ErrorType != "access_denied" {
		t.Errorf("a piped answer confirmed the run: %+v", got)
	}
}

func TestList(t *testing.T) {
	reg := newRegistry(t)
	tests := []struct {
		name string
		args []string
		ids  []string
	}{
		{name: "anonymous", args: []string{"list"}, ids: []string{"demo.echo", "demo.fail", "demo.launch", "demo.refuse", "demo.sum"}},
		{name: "admin", args: []string{"list", "--user", "admin"}, ids: []string{"demo.echo", "demo.fail", "demo.launch", "demo.refuse", "demo.secret", "demo.sum"}},
		{name: "operation", args: []string{"list", "--operation", "transform"}, ids: []string{"demo.refuse", "demo.sum"}},
		{name: "search any word", args: []string{"search", "whole", "echoes"}, ids: []string{"demo.echo", "demo.sum"}},
		{name: "search every word", args: []string{"search", "--match", "and", "echoes", "word"}, ids: []string{"demo.echo"}},
		{name: "search flags after words", args: []string{"search", "secret", "--user", "admin"}, ids: []string{"demo.secret"}},
		{name: "search hides what the account may not run", args: []string{"search", "secret"}, ids: nil},
		{name: "search with operation", args: []string{"search", "s", "--operation", "trigger"}, ids: []string{"demo.launch"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := call(t, reg, nil, append(tt.args, "--format", "json")...)
			if code != 0 {
				t.Fatalf("exit status %d; stderr:\n%s", code, errOut)
			}
			var defs []struct{ ID string }
			if err := json.Unmarshal([]byte(out), &defs); err != nil {
				t.Fatalf("%v; stdout:\n%s", err, out)
			}
			var ids []string
			for _, d := range defs {
				ids = append(ids, d.ID)
			}
			if diff := cmp.Diff(tt.ids, ids); diff != "" {
				t.Errorf("%q (-want +got):\n%s", tt.args, diff)
			}
		})
	}
}

func TestListTable(t *testing.T) {
	reg := newRegistry(t)
	code, out, _ := call(t, reg, nil, "list", "--operation", "transform")
	if code != 0 {
		t.Fatalf("exit status %d", code)
	}
	want := `ID           NAME          OPERATION  DESTRUCTIVE  LABEL
demo.refuse  demo__refuse  transform  no           Refuse
demo.sum     demo__sum     transform  no           Sum
`
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("table (-want +got):\n%s", diff)
	}
	code, out, _ = call(t, reg, nil, "search", "nothing-matches-this")
	if code != 0 || out != "No tools.\n" {
		t.Errorf("empty table: exit status %d, stdout %q", code, out)
	}
}

// checkGolden compares got with the file testdata/name, which -update
// rewrites.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	golden := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("output differs from %s (-want +got); go test ./toolcli -run %s -update rewrites it:\n%s", golden, t.Name(), diff)
	}
}

// Text info spells every rule a value must follow, and the properties of
// maps by their --input paths.
func TestInfoTextGolden(t *testing.T) {
	reg := newRegistry(t)
	err := reg.Add(&tool.Tool{
		ID: "demo.rules", Label: "Rules", Description: "Takes one input of each kind of rule.",
		Operation: tool.OpWrite, Access: anyone, Confirm: true,
		Inputs: []*tool.Definition{
			{Name: "name", Type: "string", Required: true, Description: "A name.", Examples: []any{"Ada", "Grace"},
				Constraints: tool.Constraints{NotBlank: true, Length: &tool.Bounds{Min: tool.Ptr(2), Max: tool.Ptr(40)}, Pattern: "^[A-Z]"}},
			{Name: "code", Type: "string", Constraints: tool.Constraints{Length: &tool.Bounds{Min: tool.Ptr(3), Max: tool.Ptr(3)}}},
			{Name: "level", Type: "integer", Default: 3, Description: "How hard.", Constraints: tool.Constraints{Range: &tool.Range{Min: tool.Ptr(1.0), Max: tool.Ptr(5.0)}}},
			{Name: "ratio", Type: "float", Constraints: tool.Constraints{NotNull: true, Range: &tool.Range{Min: tool.Ptr(0.5)}}},
			{Name: "colour", Type: "string", Default: "red", Constraints: tool.Constraints{Choice: []any{"red", "green", "blue"}}},
			{Name: "day", Type: "datetime_iso8601", Constraints: tool.Constraints{DateOnly: true}},
			{Name: "contact", Type: "string", Constraints: tool.Constraints{Email: true}},
			{Name: "password", Type: "string", Sensitive: true},
			{Name: "photo", Type: "string", Constraints: tool.Constraints{Encoding: "base64", Media: "image/png"}},
			{Name: "tags", Type: "list", Description: "Some tags.", Items: &tool.Definition{Type: "string",
				Constraints: tool.Constraints{Choice: []any{"a", "b"}}}, Constraints: tool.Constraints{NotBlank: true, Count: &tool.Bounds{Max: tool.Ptr(5)}}},
			{Name: "scores", Type: "map", Values: &tool.Definition{Type: "integer"}, Constraints: tool.Constraints{Count: &tool.Bounds{Min: tool.Ptr(1)}}},
			{Name: "settings", Type: "map", Description: "Settings.", Properties: []*tool.Definition{
				{Name: "limit", Type: "integer", Required: true, Description: "At most this many.", Constraints: tool.Constraints{Range: &tool.Range{Max: tool.Ptr(100.0)}}},
				{Name: "window", Type: "map", Properties: []*tool.Definition{
					{Name: "from", Type: "timestamp", Required: true},
				}},
			}},
			{Name: "people", Type: "list", Items: &tool.Definition{Type: "map", Properties: []*tool.Definition{
				{Name: "name", Type: "string", Required: true, Constraints: tool.Constraints{NotBlank: true}},
			}}},
			{Name: "secret", Type: "string", Locked: true, Default: "s3"},
		},
		Outputs: []*tool.Definition{
			{Name: "summary", Type: "string", Required: true, Nullable: true, Constraints: tool.Constraints{Media: "text/html"}},
		},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) { return tool.Succeeded("", nil), nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"demo.rules", "demo.echo"} {
		t.Run(id, func(t *testing.T) {
			code, out, errOut := call(t, reg, nil, "info", id)
			if code != 0 {
				t.Fatalf("exit status %d; stderr:\n%s", code, errOut)
			}
			checkGolden(t, "info-"+strings.TrimPrefix(id, "demo.")+".txt", out)
		})
	}
}

// info says whether a tool runs as a task and for how long its outcome
// is kept, what it needs of the client, its icon and the header an input
// is mirrored in, in text and in JSON.
func TestInfoTask(t *testing.T) {
	reg := newRegistry(t)
	handler := func(ctx context.Context, in *tool.Values) (*tool.Result, error) { return tool.Succeeded("", nil), nil }
	err := reg.Add(&tool.Tool{
		ID: "demo.export", Label: "Export", Description: "Exports everything.", Operation: tool.OpRead, Access: anyone,
		Task: tool.TaskRequired, TaskTTL: 30 * time.Minute, Needs: []tool.ClientFeature{tool.NeedsSampling, tool.NeedsLogging},
		Icon:    "data:image/png;base64,iVBORw0KGgo=",
		Inputs:  []*tool.Definition{{Name: "region", Type: "string", Required: true, Header: "Region"}},
		Handler: handler,
	}, &tool.Tool{
		ID: "demo.scan", Label: "Scan", Description: "Scans everything.", Operation: tool.OpRead, Access: anyone,
		Task: tool.TaskOptional, Icon: "https://example.com/scan.png", Handler: handler,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		id   string
		want []string
	}{
		{"demo.export", []string{
			"Task:         required (every call runs as a background task; its outcome is kept 30m0s)",
			"Needs:        sampling, logging (of the client)",
			"Icon:         image/png picture (34 bytes as a data: address)",
			"region  string  required, header Region",
		}},
		{"demo.scan", []string{
			"Task:         optional (a call may run as a background task; its outcome is kept 24h0m0s)",
			"Icon:         https://example.com/scan.png",
		}},
		{"demo.echo", nil},
	} {
		code, out, errOut := call(t, reg, nil, "info", tt.id)
		if code != 0 {
			t.Fatalf("%s: exit status %d; stderr:\n%s", tt.id, code, errOut)
		}
		for _, s := range tt.want {
			if !strings.Contains(out, s) {
				t.Errorf("info %s lacks %q:\n%s", tt.id, s, out)
			}
		}
		if tt.want == nil && (strings.Contains(out, "Task:") || strings.Contains(out, "Needs:") || strings.Contains(out, "Icon:")) {
			t.Errorf("info %s mentions a task, needs or icon it does not have:\n%s", tt.id, out)
		}
	}
	code, out, errOut := call(t, reg, nil, "info", "--format", "json", "demo.export")
	if code != 0 {
		t.Fatalf("exit status %d; stderr:\n%s", code, errOut)
	}
	var def map[string]any
	if err := json.Unmarshal([]byte(out), &def); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"task": "required", "task_ttl": "30m0s", "icon": "data:image/png;base64,iVBORw0KGgo=", "needs": []any{"sampling", "logging"}}
	for k, v := range want {
		if diff := cmp.Diff(v, def[k]); diff != "" {
			t.Errorf("info --format json: %s (-want +got):\n%s", k, diff)
		}
	}
}

func TestListMarkdownGolden(t *testing.T) {
	reg := newRegistry(t)
	code, out, errOut := call(t, reg, nil, "list", "--format", "markdown", "--user", "admin")
	if code != 0 {
		t.Fatalf("exit status %d; stderr:\n%s", code, errOut)
	}
	golden := filepath.Join("testdata", "list.md")
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
		t.Errorf("list --format markdown differs from %s (-want +got); go test ./toolcli -run TestListMarkdownGolden -update rewrites it:\n%s", golden, diff)
	}
}

func TestInfo(t *testing.T) {
	reg := newRegistry(t)
	code, out, errOut := call(t, reg, nil, "info", "--format", "json", "demo.echo")
	if code != 0 {
		t.Fatalf("exit status %d; stderr:\n%s", code, errOut)
	}
	if diff := cmp.Diff([]string{"id", "name", "label", "description", "operation", "destructive", "permission", "input_schema", "output_schema"}, keys(t, out)); diff != "" {
		t.Errorf("DEF keys (-want +got):\n%s", diff)
	}
	var def map[string]any
	if err := json.Unmarshal([]byte(out), &def); err != nil {
		t.Fatal(err)
	}
	echo, _ := reg.Tool("demo.echo")
	schema := func(v any) map[string]any {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	want := map[string]any{
		"id":            "demo.echo",
		"name":          "demo__echo",
		"label":         "Echo",
		"description":   "Echoes its word, tags and limit back.",
		"operation":     "read",
		"destructive":   false,
		"permission":    "",
		"input_schema":  schema(echo.Describe().InputSchema),
		"output_schema": schema(echo.Describe().OutputSchema),
	}
	if diff := cmp.Diff(want, def); diff != "" {
		t.Errorf("DEF (-want +got):\n%s", diff)
	}
	if in, _ := def["input_schema"].(map[string]any); in["type"] != "object" {
		t.Errorf("input_schema is not an object schema: %v", in)
	}

	code, out, errOut = call(t, reg, nil, "info", "demo.echo")
	if code != 0 {
		t.Fatalf("exit status %d; stderr:\n%s", code, errOut)
	}
	for _, s := range []string{"demo.echo: Echo", "Echoes its word", "Operation:    read", "Outputs:"} {
		if !strings.Contains(out, s) {
			t.Errorf("info text lacks %q:\n%s", s, out)
		}
	}

	code, _, errOut = call(t, reg, nil, "info", "demo.secret")
	wantErr := `app tool info: tool "demo.secret" not found for account "anonymous" (an account sees only the tools it may run; --user NAME acts for another)` + "\n"
	if code != 1 || errOut != wantErr {
		t.Errorf("info of a tool the account may not run: exit status %d, stderr %q, want %q", code, errOut, wantErr)
	}
	if code, out, _ := call(t, reg, nil, "info", "demo.secret", "--user", "admin", "--format", "json"); code != 0 || !strings.Contains(out, `"permission": "see secrets"`) {
		t.Errorf("info for admin: exit status %d, stdout:\n%s", code, out)
	}
}

func TestUsage(t *testing.T) {
	reg := newRegistry(t)
	tests := []struct {
		args   []string
		code   int
		stdout string // a part of it
		stderr string // a part of it
	}{
		{args: nil, code: 1, stderr: "Usage:"},
		{args: []string{"help"}, code: 0, stdout: "app tool run    ID"},
		{args: []string{"frobnicate"}, code: 1, stderr: `unknown command "frobnicate"`},
		{args: []string{"list", "--format", "yaml"}, code: 1, stderr: "--format must be"},
		{args: []string{"list", "--operation", "delete"}, code: 1, stderr: "--operation must be"},
		{args: []string{"list", "extra"}, code: 1, stderr: "list takes no words"},
		{args: []string{"list", "--user", "nobody"}, code: 1, stderr: `user "nobody" not found`},
		{args: []string{"list", "--user", "mallory"}, code: 1, stderr: `user "mallory" is blocked`},
		{args: []string{"list", "-h"}, code: 0, stdout: "-operation"},
		{args: []string{"run", "--help"}, code: 0, stdout: "-input"},
		{args: []string{"search"}, code: 1, stderr: "at least one word"},
		{args: []string{"search", "x", "--match", "xor"}, code: 1, stderr: "--match must be"},
		{args: []string{"info"}, code: 1, stderr: "one tool ID"},
		{args: []string{"info", "demo.nope"}, code: 1, stderr: `tool "demo.nope" not found`},
		{args: []string{"info", "demo.echo", "--format", "markdown"}, code: 1, stderr: "--format must be"},
		{args: []string{"run", "demo.echo", "--bogus"}, code: 1, stderr: "-bogus"},
	}
	for _, tt := range tests {
		code, out, errOut := call(t, reg, nil, tt.args...)
		if code != tt.code || !strings.Contains(out, tt.stdout) || !strings.Contains(errOut, tt.stderr) {
			t.Errorf("%q: exit status %d (want %d)\nstdout:\n%s\nstderr:\n%s", tt.args, code, tt.code, out, errOut)
		}
	}
}

func TestDefaultAccount(t *testing.T) {
	reg := newRegistry(t)
	opts := &toolcli.Options{Name: "app tool", Accounts: lookUp, DefaultAccount: users["admin"]}
	got := runJSON(t, reg, opts, "demo.secret")
	if !got.Success || got.Outputs["secret"] != "for admin" {
		t.Errorf("default account: %+v", got)
	}
	opts.DefaultAccount = users["mallory"]
	if got := runJSON(t, reg, opts, "demo.echo", "--input", "word=x"); got.ErrorType != "user_blocked" {
		t.Errorf("blocked default account: %+v", got)
	}
	// Without Accounts every --user is unknown.
	if got := runJSON(t, reg, &toolcli.Options{}, "demo.echo", "--user", "admin"); got.ErrorType != "user_not_found" {
		t.Errorf("--user without Accounts: %+v", got)
	}
}

// TestPromptSaysWhatChanges checks that the confirmation prompt lists the
// entities a run acts on by label and the inputs the caller set, never a
// sensitive one nor a label the account may not see, for a destructive
// tool and for one that asks for confirmation.
func TestPromptSaysWhatChanges(t *testing.T) {
	albums := map[string]string{"7": "Blue Train", "8": "Private Tapes", "9": "Red\x1b[2J Clay"}
	reg := tool.NewRegistry(&tool.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	err := reg.AddEntityType(&tool.EntityType{
		ID: "album", Label: "Album",
		Load: func(_ context.Context, id string) (any, error) {
			if _, ok := albums[id]; !ok {
				return nil, tool.ErrEntityNotFound
			}
			return id, nil
		},
		Access: func(_ context.Context, acct tool.Account, entity any, op string) (bool, error) {
			return entity != "8", nil
		},
		Describe: func(entity any) (string, string, bool) {
			id, ok := entity.(string)
			return id, albums[id], ok
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	done := func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
		return tool.Succeeded("Done.", nil), nil
	}
	err = reg.Add(
		&tool.Tool{ID: "demo.retitle", Label: "Retitle", Description: "Retitles an album.", Operation: tool.OpWrite,
			Inputs: []*tool.Definition{
				{Name: "album", Type: "entity:album", Required: true, EntityOp: "update"},
				{Name: "title", Type: "string", Required: true},
				{Name: "token", Type: "string", Sensitive: true},
				{Name: "notify", Type: "boolean", Default: true},
			},
			Handler: done},
		&tool.Tool{ID: "demo.merge", Label: "Merge", Description: "Merges albums.", Operation: tool.OpTransform, Confirm: true, Access: anyone,
			Inputs: []*tool.Definition{
				{Name: "albums", Type: "list", Required: true, Items: &tool.Definition{Type: "entity:album", EntityOp: "view"}},
				{Name: "note", Type: "string"},
			},
			Handler: done},
	)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		args     []string
		want     string
		mustNot  []string
		prompted bool
	}{
		{name: "destructive", args: []string{"demo.retitle", "--input", "album=7", "--input", "title=Kind of Blue", "--input", "token=hunter2"},
			want:    "Retitle will run with:\n  album: Blue Train (album 7)\n  title: \"Kind of Blue\"\nRun Retitle? [y/N] ",
			mustNot: []string{"hunter2", "token", "notify"}},
		{name: "an entity the account may not see", args: []string{"demo.retitle", "--input", "album=8", "--input", "title=x"},
			want:    "Retitle will run with:\n  album: album 8\n  title: \"x\"\nRun Retitle? [y/N] ",
			mustNot: []string{"Private Tapes"}},
		{name: "control characters", args: []string{"demo.retitle", "--input", "album=9", "--input", "title=x"},
			want:    "  album: Red?[2J Clay (album 9)\n",
			mustNot: []string{"\x1b"}},
		{name: "confirm", args: []string{"demo.merge", "--input", "albums=7", "--input", "albums=7"},
			want: "Merge will run with:\n  albums: Blue Train (album 7), Blue Train (album 7)\nRun Merge? [y/N] "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := &toolcli.Options{Name: "app tool", Stdin: strings.NewReader("n\n")}
			_, _, errOut := call(t, reg, opts, append([]string{"run"}, tt.args...)...)
			if !strings.Contains(errOut, tt.want) {
				t.Errorf("stderr does not hold the prompt\n%s\nstderr:\n%s", tt.want, errOut)
			}
			for _, s := range tt.mustNot {
				if strings.Contains(errOut, s) {
					t.Errorf("the prompt shows %q:\n%s", s, errOut)
				}
			}
		})
	}
}

// TestMisplacedFlagHint checks that a flag the command does not take, or
// a flag before the command word, fails with a hint: the flags the
// command takes, and that an application flag goes before "tool".
func TestMisplacedFlagHint(t *testing.T) {
	reg := newRegistry(t)
	opts := &toolcli.Options{Name: "album tool", Accounts: lookUp}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"run", "demo.echo", "--input", "word=x", "--db", "x.db"},
			`album tool run: flag provided but not defined: -db (album tool run takes --cursor, --detach, --idempotency-key, --input, --json, --preset, --user, --yes; if --db is a flag of the application, give it before "tool": album --db ... tool ...)`},
		{[]string{"list", "--db=x.db"},
			`flag provided but not defined: -db (album tool list takes --format, --operation, --user; if --db is a flag of the application, give it before "tool": album --db ... tool ...)`},
		{[]string{"--user", "admin", "run", "demo.secret"},
			`album tool: --user comes before the command word: give the command's flags after its word (album tool run ... --user ...); if --user is a flag of the application, give it before "tool": album --user ... tool ...`},
		{[]string{"--db=x.db", "list"},
			`album tool: --db=x.db comes before the command word: give the command's flags after its word (album tool list ... --db ...); if --db is a flag of the application, give it before "tool": album --db ... tool ...`},
	}
	for _, tt := range tests {
		code, _, errOut := call(t, reg, opts, tt.args...)
		if code != 1 || !strings.Contains(errOut, tt.want) {
			t.Errorf("%q: exit status %d, stderr:\n%s\nwant it to hold:\n%s", tt.args, code, errOut, tt.want)
		}
	}
	// With --json the hint is the failure's message.
	got := runJSON(t, reg, opts, "demo.echo", "--db", "x.db")
	if got.ErrorType != "invalid_option" || !strings.Contains(got.Message, `give it before "tool"`) {
		t.Errorf("--json: %+v", got)
	}
}

// TestRunJSONRule checks that --json gives each violation its rule key and
// datum beside the message, and the text output the people's words.
func TestRunJSONRule(t *testing.T) {
	reg := newRegistry(t)
	_, out, _ := call(t, reg, nil, "run", "demo.sum", "--json", "--input", "numbers=two")
	var raw struct {
		Violations []map[string]any `json:"violations"`
	}
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatal(err)
	}
	want := []map[string]any{{"path": "numbers[0]", "rule": "type", "message": "must be an integer", "detail": "integer"}}
	if diff := cmp.Diff(want, raw.Violations); diff != "" {
		t.Errorf("--json violations (-want +got):\n%s", diff)
	}
	got := runJSON(t, reg, nil, "demo.echo", "--input", "word=hi", "--input", "settings.limit=500")
	if len(got.Violations) != 1 || got.Violations[0].Rule != tool.RuleMaximum || got.Violations[0].Limit == nil || *got.Violations[0].Limit != 100 {
		t.Errorf("violations %+v, want one of rule %q with limit 100", got.Violations, tool.RuleMaximum)
	}
}
