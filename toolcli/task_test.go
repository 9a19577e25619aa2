package toolcli

import (
	"bytes"
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	_ "modernc.org/sqlite"

	"github.com/toolapi/toolapi/task"
	"github.com/toolapi/toolapi/task/tasktest"
	"github.com/toolapi/toolapi/tool"
)

// newTaskCLI returns a registry whose tool job.rename, run only as a
// task, asks for a name, and a started task Manager over it on SQLite.
func newTaskCLI(t *testing.T) (*tool.Registry, *task.Manager) {
	reg, m, _ := newTaskCLIPoll(t, 20*time.Millisecond)
	return reg, m
}

// newTaskCLIPoll is newTaskCLI with the poll interval poll, returning the
// database too.
func newTaskCLIPoll(t *testing.T, poll time.Duration) (*tool.Registry, *task.Manager, *sql.DB) {
	t.Helper()
	db := tasktest.SQLite(t)
	reg := tool.NewRegistry(nil)
	err := reg.Add(&tool.Tool{
		ID: "job.rename", Label: "Rename", Description: "Asks for a name.", Task: tool.TaskRequired, Destructive: new(bool), Permission: "jobs",
		Outputs: []*tool.Definition{{Name: "name", Type: "string", Required: true}},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			e, err := tool.Elicit(ctx, "New name?", &jsonschema.Schema{Type: "object",
				Properties: map[string]*jsonschema.Schema{"name": {Type: "string", MinLength: jsonschema.Ptr(1)}}, Required: []string{"name"}})
			if err != nil {
				return nil, err
			}
			if e.Action != "accept" {
				return tool.Failed("Not renamed.", nil), nil
			}
			tool.Progress(ctx, 1, 1, "renamed")
			return tool.Succeeded("Renamed.", map[string]any{"name": e.Content["name"]}), nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	m := tasktest.Start(t, reg, db, &task.Options{Account: func(context.Context, string) (tool.Account, error) { return ada, nil }, PollInterval: poll, ProgressEvery: time.Millisecond})
	return reg, m, db
}

// ada runs the tasks of the tests.
var ada = &tool.User{ID: "ada", Permissions: []string{"jobs"}}

func runTaskCLI(t *testing.T, reg *tool.Registry, opts *Options, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	opts.DefaultAccount = ada
	code := Run(t.Context(), reg, args, &stdout, &stderr, opts)
	return code, stdout.String(), stderr.String()
}

// TestTaskAnswer: a detached task that asks is answered with task answer;
// wait, with nobody to ask, says how; a bad answer names the rule.
func TestTaskAnswer(t *testing.T) {
	reg, m := newTaskCLI(t)
	opts := &Options{Name: "app tool", Tasks: m}
	code, out, _ := runTaskCLI(t, reg, opts, "run", "job.rename", "--detach")
	id := strings.TrimSpace(out)
	if code != 0 || id == "" {
		t.Fatalf("run --detach: exit %d, %q", code, out)
	}
	code, _, errOut := runTaskCLI(t, reg, opts, "task", "wait", id)
	if code != 1 || !strings.Contains(errOut, "waits for an answer: New name?") || !strings.Contains(errOut, "app tool task answer "+id) {
		t.Fatalf("wait with nobody to ask: exit %d, %s", code, errOut)
	}
	code, out, _ = runTaskCLI(t, reg, opts, "task", "show", id)
	if code != 0 || !strings.Contains(out, "Question: New name?") || !strings.Contains(out, "input_required") {
		t.Errorf("show of a waiting task: exit %d, %s", code, out)
	}
	code, _, errOut = runTaskCLI(t, reg, opts, "task", "answer", id)
	if code != 1 || !strings.Contains(errOut, "asks for values: give them with --input") {
		t.Errorf("answer without values: exit %d, %s", code, errOut)
	}
	code, _, errOut = runTaskCLI(t, reg, opts, "task", "answer", id, "--input", "name=")
	if code != 1 || !strings.Contains(errOut, "name") {
		t.Errorf("answer with an empty name: exit %d, %s", code, errOut)
	}
	code, out, errOut = runTaskCLI(t, reg, opts, "task", "answer", id, "--input", "name=Bob")
	if code != 0 || !strings.Contains(out, "answered (accept)") {
		t.Fatalf("answer: exit %d, %s %s", code, out, errOut)
	}
	code, out, _ = runTaskCLI(t, reg, opts, "task", "wait", id, "--json")
	if code != 0 || !strings.Contains(out, `"name": "Bob"`) {
		t.Errorf("wait after the answer: exit %d, %s", code, out)
	}
	code, _, errOut = runTaskCLI(t, reg, opts, "task", "answer", id, "--input", "name=Eve")
	if code != 1 || !strings.Contains(errOut, "is not waiting for an answer") {
		t.Errorf("a second answer: exit %d, %s", code, errOut)
	}
}

// TestRunRequiredTaskAsks: a tool whose calls are tasks, run without
// --detach, is waited for, and its question is asked of the person at
// the command line (any reader that is not a file is asked).
func TestRunRequiredTaskAsks(t *testing.T) {
	reg, m := newTaskCLI(t)
	opts := &Options{Name: "app tool", Tasks: m, Stdin: strings.NewReader("Alice\n")}
	code, out, errOut := runTaskCLI(t, reg, opts, "run", "job.rename")
	if code != 0 || !strings.Contains(out, `"name": "Alice"`) || !strings.Contains(errOut, "New name?") {
		t.Errorf("run of a required task: exit %d, %s\n%s", code, out, errOut)
	}
	opts = &Options{Name: "app tool", Tasks: m, Stdin: strings.NewReader("\n")}
	code, _, errOut = runTaskCLI(t, reg, opts, "run", "job.rename")
	if code != 1 || !strings.Contains(errOut, "Not renamed.") {
		t.Errorf("a declined question: exit %d, %s", code, errOut)
	}
}

// TestTasksNotConfigured: without a task manager, the task commands and
// a task tool say so.
func TestTasksNotConfigured(t *testing.T) {
	reg, _ := newTaskCLI(t)
	code, _, errOut := runTaskCLI(t, reg, &Options{Name: "app tool"}, "task", "list")
	if code != 1 || !strings.Contains(errOut, "tasks are not configured") {
		t.Errorf("task list: exit %d, %s", code, errOut)
	}
	code, _, errOut = runTaskCLI(t, reg, &Options{Name: "app tool"}, "run", "job.rename")
	if code != 1 || !strings.Contains(errOut, "tasks are not configured") {
		t.Errorf("run: exit %d, %s", code, errOut)
	}
}

// TestWaitAsksOnce: when the task runs in another process, which takes an
// answer only at its next poll, wait asks the question once, not again
// while the answer waits to be taken.
func TestWaitAsksOnce(t *testing.T) {
	reg, _, db := newTaskCLIPoll(t, 500*time.Millisecond)
	// The command's own Manager runs nothing: the other one does.
	m, err := task.New(reg, db, &task.Options{Account: func(context.Context, string) (tool.Account, error) { return ada, nil }})
	if err != nil {
		t.Fatal(err)
	}
	opts := &Options{Name: "app tool", Tasks: m, Stdin: strings.NewReader("Alice\n")}
	code, out, errOut := runTaskCLI(t, reg, opts, "run", "job.rename")
	if code != 0 || !strings.Contains(out, `"name": "Alice"`) {
		t.Fatalf("run: exit %d, %s\n%s", code, out, errOut)
	}
	if n := strings.Count(errOut, "New name?"); n != 1 {
		t.Errorf("the question was asked %d times:\n%s", n, errOut)
	}
}
