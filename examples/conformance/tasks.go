package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	_ "modernc.org/sqlite"

	"github.com/toolapi/toolapi/task"
	"github.com/toolapi/toolapi/tool"
)

// The tools of the suite's tasks scenarios (the tasks extension of MCP):
// greet runs in the request; slow_compute, protocol_error_job,
// confirm_delete and multi_input (two questions at once) may run as
// tasks, and failing_job and test_tool_with_task run only as tasks.
// test_tool_with_task asks the caller's name first (tool.Tool.AskFirst): a
// client of protocol version 2026-07-28 answers it in input-required
// rounds of its tools/call, the task is created by the round that answers,
// and its run finds the answer there. Their
// tasks are kept by a task manager on SQLite in a temporary directory,
// removed when the server stops.

// taskTools returns the tools of the tasks scenarios.
func taskTools() []*tool.Tool {
	const perm = "run conformance tests"
	return []*tool.Tool{{
		ID: "greet", Label: "Greet", Description: "Greets a name; runs in the request.",
		Operation: tool.OpRead, Permission: perm,
		Inputs: []*tool.Definition{{Name: "name", Type: "string", Required: true}},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			return tool.Succeeded("Hello, "+in.String("name")+"!", nil), nil
		},
	}, {
		ID: "slow_compute", Label: "Slow compute", Description: "Sleeps a number of seconds, then answers; may run as a task.",
		Operation: tool.OpRead, Permission: perm, Task: tool.TaskOptional,
		Inputs: []*tool.Definition{
			{Name: "seconds", Type: "integer", Required: true, Description: "Seconds to sleep, 0 to 600."},
			{Name: "label", Type: "string"},
		},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			secs := min(max(in.Int("seconds"), 0), 600)
			select {
			case <-time.After(time.Duration(secs) * time.Second):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return tool.Succeeded(fmt.Sprintf("computed %s after %d seconds", in.String("label"), in.Int("seconds")), nil), nil
		},
	}, {
		ID: "failing_job", Label: "Failing job", Description: "Fails after about a second; runs only as a task.",
		Operation: tool.OpRead, Permission: perm, Task: tool.TaskRequired,
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			time.Sleep(time.Second)
			return tool.Failed("the job failed, as it always does", nil), nil
		},
	}, {
		ID: "protocol_error_job", Label: "Protocol error job", Description: "Panics; may run as a task.",
		Operation: tool.OpRead, Permission: perm, Task: tool.TaskOptional,
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			panic("protocol_error_job panics")
		},
	}, {
		ID: "confirm_delete", Label: "Confirm delete", Description: "Asks to confirm the deletion of a file; may run as a task.",
		Operation: tool.OpRead, Permission: perm, Task: tool.TaskOptional,
		Inputs: []*tool.Definition{{Name: "filename", Type: "string", Required: true}},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			a, err := tool.Elicit(ctx, "Delete "+in.String("filename")+"?", &jsonschema.Schema{Type: "object",
				Properties: map[string]*jsonschema.Schema{"confirm": {Type: "boolean"}}})
			if err != nil {
				return nil, err
			}
			if a.Action != "accept" {
				return tool.Succeeded("kept "+in.String("filename"), nil), nil
			}
			return tool.Succeeded("deleted "+in.String("filename"), nil), nil
		},
	}, {
		ID: "multi_input", Label: "Multi input", Description: "Asks a name and a confirmation at once, then greets; may run as a task.",
		Operation: tool.OpRead, Permission: perm, Task: tool.TaskOptional,
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			as, err := tool.Ask(ctx,
				tool.Question{Kind: tool.AskPerson, Message: "What is your name?", Schema: &jsonschema.Schema{Type: "object",
					Properties: map[string]*jsonschema.Schema{"name": {Type: "string"}}, Required: []string{"name"}}},
				tool.Question{Kind: tool.AskPerson, Message: "Go ahead?", Schema: &jsonschema.Schema{Type: "object",
					Properties: map[string]*jsonschema.Schema{"confirm": {Type: "boolean"}}}})
			if err != nil {
				return nil, err
			}
			if as[1].Elicitation.Action != "accept" {
				return tool.Succeeded("not greeted", nil), nil
			}
			return tool.Succeeded(fmt.Sprintf("Hello, %s!", textOf(as[0].Elicitation, "name")), nil), nil
		},
	}, {
		ID: "test_tool_with_task", Label: "Tool with task", Description: "Asks the caller's name before its task, then greets them in the task.",
		Operation: tool.OpRead, Permission: perm, Task: tool.TaskRequired,
		AskFirst: []tool.Question{userName},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			as, err := tool.Ask(ctx, userName)
			if err != nil {
				return nil, err
			}
			return tool.Succeeded(fmt.Sprintf("Hello, %s!", textOf(as[0].Elicitation, "name")), nil), nil
		},
	}}
}

// userName is the question test_tool_with_task asks before its task is
// created; its run reads the answer under the same key.
var userName = tool.Question{Key: "user_name", Kind: tool.AskPerson, Message: "What is your name?",
	Schema: &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"name": {Type: "string"}}, Required: []string{"name"}}}

// newTasks returns a started task manager of reg's tools on SQLite in a
// new temporary directory, and the function that stops it and removes
// the directory.
func newTasks(ctx context.Context, reg *tool.Registry) (*task.Manager, func(), error) {
	dir, err := os.MkdirTemp("", "conformance-tasks")
	if err != nil {
		return nil, nil, err
	}
	db, err := sql.Open("sqlite", filepath.Join(dir, "tasks.db")+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)")
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	cleanup := func() { db.Close(); os.RemoveAll(dir) }
	if err := task.Migrate(ctx, db); err != nil {
		cleanup()
		return nil, nil, err
	}
	m, err := task.New(reg, db, &task.Options{
		Account:      func(context.Context, string) (tool.Account, error) { return tester, nil },
		PollInterval: 200 * time.Millisecond,
	})
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	if err := m.Start(ctx); err != nil {
		cleanup()
		return nil, nil, err
	}
	return m, func() {
		stop, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		m.Stop(stop)
		cleanup()
	}, nil
}
