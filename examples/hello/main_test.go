package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestBinary builds the hello binary and runs its tool command as a
// person or a script would, checking the output and the exit status.
func TestBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary")
	}
	goTool, err := exec.LookPath("go") // go test puts its own go first on PATH
	if err != nil {
		t.Skipf("no go command: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "hello")
	build := exec.Command(goTool, "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	type result struct {
		Success    bool           `json:"success"`
		Message    string         `json:"message"`
		Outputs    map[string]any `json:"outputs"`
		ErrorType  string         `json:"error_type"`
		Violations []struct {
			Path    string `json:"path"`
			Message string `json:"message"`
		} `json:"violations"`
	}
	tests := []struct {
		name      string
		args      []string
		status    int
		success   bool
		errorType string
		outputs   map[string]any
		paths     []string
	}{
		{
			name:    "greet",
			args:    []string{"tool", "run", "hello.greet", "--input", "name=Ada", "--input", "count=2", "--json"},
			success: true,
			outputs: map[string]any{"greetings": []any{"Hello, Ada!", "Hello, Ada!"}},
		},
		{
			name:   "count out of range",
			args:   []string{"tool", "run", "hello.greet", "--json", "--input", "name=Ada", "--input", "count=9"},
			status: 1, errorType: "invalid_input", paths: []string{"count"},
		},
		{
			name:    "sum",
			args:    []string{"tool", "run", "--json", "hello.sum", "--input", "numbers=40", "--input", "numbers=2"},
			success: true,
			outputs: map[string]any{"sum": 42.0},
		},
		{
			name:    "shout",
			args:    []string{"tool", "run", "text.shout", "--json", "--input", `{"text":"hi","volume":"louder"}`},
			success: true,
			outputs: map[string]any{"result": "HI!!"},
		},
		{
			name:   "malformed JSON",
			args:   []string{"tool", "run", "text.shout", "--json", "--input", `{"text":`},
			status: 1, errorType: "invalid_option",
		},
		{
			name:   "anonymous may not launch",
			args:   []string{"tool", "run", "rocket.launch", "--json", "--yes"},
			status: 1, errorType: "access_denied",
		},
		{
			name:   "launch needs a person to confirm",
			args:   []string{"tool", "run", "rocket.launch", "--json", "--user", "admin"},
			status: 1, errorType: "access_denied",
		},
		{
			name:    "admin launches",
			args:    []string{"tool", "run", "rocket.launch", "--json", "--user", "admin", "--yes", "--input", "destination=mars"},
			success: true,
			outputs: map[string]any{"destination": "mars"},
		},
		{
			name:   "mallory is blocked",
			args:   []string{"tool", "run", "hello.greet", "--json", "--user", "mallory", "--input", "name=x"},
			status: 1, errorType: "user_blocked",
		},
		{
			name:   "unknown user",
			args:   []string{"tool", "run", "hello.greet", "--json", "--user", "eve", "--input", "name=x"},
			status: 1, errorType: "user_not_found",
		},
		{
			name:   "unknown tool",
			args:   []string{"tool", "run", "hello.nope", "--json"},
			status: 1, errorType: "tool_not_found",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(bin, tt.args...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			status := 0
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				status = exit.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if status != tt.status {
				t.Errorf("exit status %d, want %d; stderr:\n%s", status, tt.status, stderr.String())
			}
			var r result
			if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
				t.Fatalf("stdout is not JSON: %v\n%s", err, stdout.String())
			}
			if r.Success != tt.success || r.ErrorType != tt.errorType {
				t.Errorf("success %v error_type %q, want %v %q; message %q", r.Success, r.ErrorType, tt.success, tt.errorType, r.Message)
			}
			if tt.outputs != nil {
				if diff := cmp.Diff(tt.outputs, r.Outputs); diff != "" {
					t.Errorf("outputs (-want +got):\n%s", diff)
				}
			}
			var paths []string
			for _, v := range r.Violations {
				paths = append(paths, v.Path)
			}
			if diff := cmp.Diff(tt.paths, paths); diff != "" {
				t.Errorf("violation paths (-want +got):\n%s", diff)
			}
		})
	}

	// The table lists what anonymous callers may run.
	out, err := exec.Command(bin, "tool", "list").Output()
	if err != nil {
		t.Fatal(err)
	}
	if s := string(out); !strings.Contains(s, "hello.greet") || strings.Contains(s, "rocket.launch") {
		t.Errorf("tool list:\n%s", s)
	}
}
