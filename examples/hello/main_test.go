package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolapi/toolapi/internal/testenv"
)

// buildHello builds the hello binary and returns its path.
func buildHello(t *testing.T) string {
	t.Helper()
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
	return bin
}

// bearer adds a bearer token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestServe runs `hello serve --print-tokens` as a person would, uses a
// printed token over MCP, and stops it with SIGTERM: it shuts down and
// exits 0.
func TestServe(t *testing.T) {
	testenv.NeedFull(t)
	bin := buildHello(t)
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--print-tokens")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	tokens := map[string]string{}
	var base string
	lines := bufio.NewScanner(out)
	for base == "" && lines.Scan() {
		if f := strings.Fields(lines.Text()); len(f) == 2 && strings.HasPrefix(f[1], "tok_") {
			tokens[f[0]] = f[1]
		}
		if rest, ok := strings.CutPrefix(lines.Text(), "Serving Hello on "); ok {
			base, _, _ = strings.Cut(rest, " ")
		}
	}
	if base == "" || tokens["admin"] == "" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("serve printed no address or no admin token (%v); stderr:\n%s", tokens, stderr.String())
	}
	rest := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(out)
		rest <- string(b)
	}()

	c := mcp.NewClient(&mcp.Implementation{Name: "hello-test", Version: "1"}, nil)
	cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{
		Endpoint: base + "/mcp", HTTPClient: &http.Client{Transport: bearer{tokens["admin"]}}, MaxRetries: -1, DisableStandaloneSSE: true,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	list, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
	}
	if !slices.Contains(names, "rocket__launch") {
		t.Errorf("admin's tools = %v, want rocket__launch (rocket.launch) among them", names)
	}
	cs.Close()

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("serve after SIGTERM: %v; stderr:\n%s", err, stderr.String())
	}
	if got := <-rest; !strings.Contains(got, "Shutting down") {
		t.Errorf("serve printed after its address %q; want it to say it is shutting down", got)
	}
}

// TestBinary builds the hello binary and runs its tool command as a
// person or a script would, checking the output and the exit status.
func TestBinary(t *testing.T) {
	testenv.NeedFull(t)
	bin := buildHello(t)

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
			name:   "anonymous may not launch: not found, as if there were no such tool",
			args:   []string{"tool", "run", "rocket.launch", "--json", "--yes"},
			status: 1, errorType: "tool_not_found",
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
