package tooleino_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudwego/eino/adk"
	einotool "github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	tooleino "github.com/toolapi/toolapi/contrib/eino"
	"github.com/toolapi/toolapi/funcall"
	"github.com/toolapi/toolapi/tool"
)

// goTasks runs each task in a goroutine of this process, through the
// registry's run path. The durable engine (package task) needs a database
// and River, which this module does not depend on; the adapter sees only
// funcall.Tasks, which both implement. A call with {"ask":true} starts a
// task that waits for a person's answer, which answer gives, as the Tool
// Explorer or an MCP client would.
type goTasks struct {
	reg   *tool.Registry
	mu    sync.Mutex
	tasks map[string]*funcall.Task
	owner map[string]string
	stop  map[string]context.CancelFunc
}

func newGoTasks(reg *tool.Registry) *goTasks {
	return &goTasks{reg: reg, tasks: map[string]*funcall.Task{}, owner: map[string]string{}, stop: map[string]context.CancelFunc{}}
}

func (g *goTasks) Create(ctx context.Context, toolID string, args json.RawMessage) (*funcall.Task, error) {
	if _, vs, err := g.reg.ValidateJSON(ctx, toolID, args); err != nil || len(vs) > 0 {
		res, _ := g.reg.RunJSON(ctx, toolID, args)
		return nil, &funcall.TaskRefusedError{Result: res}
	}
	var in struct{ Ask bool }
	_ = json.Unmarshal(args, &in)
	g.mu.Lock()
	defer g.mu.Unlock()
	id := fmt.Sprintf("T%d", len(g.tasks)+1)
	tk := &funcall.Task{ID: id, Tool: toolID, Status: funcall.TaskWorking, PollInterval: 10 * time.Millisecond}
	if in.Ask {
		tk.Status, tk.Question = funcall.TaskInputRequired, "Which quarter?"
	}
	g.tasks[id], g.owner[id] = tk, tool.AccountFrom(ctx).AccountID()
	run, cancel := context.WithCancel(context.WithoutCancel(ctx))
	g.stop[id] = cancel
	go func() {
		res, _ := g.reg.RunJSON(run, toolID, args)
		g.mu.Lock()
		defer g.mu.Unlock()
		if tk.Status == funcall.TaskWorking {
			tk.Status, tk.Result = funcall.TaskFailed, res
			if res.Success {
				tk.Status = funcall.TaskCompleted
			}
		}
	}()
	c := *tk
	return &c, nil
}

// answer gives the answer the task id waits for.
func (g *goTasks) answer(id string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.tasks[id].Status, g.tasks[id].Question = funcall.TaskWorking, ""
}

func (g *goTasks) Get(ctx context.Context, id string) (*funcall.Task, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	tk, ok := g.tasks[id]
	if !ok || g.owner[id] != tool.AccountFrom(ctx).AccountID() {
		return nil, funcall.ErrTaskNotFound
	}
	c := *tk
	return &c, nil
}

func (g *goTasks) Cancel(ctx context.Context, id string) (*funcall.Task, error) {
	if _, err := g.Get(ctx, id); err != nil {
		return nil, err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	tk := g.tasks[id]
	if tk.Status != funcall.TaskWorking && tk.Status != funcall.TaskInputRequired {
		return nil, funcall.ErrTaskFinished
	}
	tk.Status, tk.Result = funcall.TaskCancelled, tool.Failed("Cancelled.", nil)
	g.stop[id]()
	c := *tk
	return &c, nil
}

// taskRegistry returns a registry of one tool that runs as a task and,
// given "hold", runs until release is closed.
func taskRegistry(t *testing.T, release <-chan struct{}) *tool.Registry {
	t.Helper()
	reg := tool.NewRegistry(nil)
	if err := reg.Add(&tool.Tool{
		ID: "report.build", Label: "Build", Description: "Builds a report.", Operation: tool.OpTransform,
		Permission: "use tools", Task: tool.TaskRequired,
		Inputs:  []*tool.Definition{{Name: "hold", Type: "boolean"}, {Name: "ask", Type: "boolean"}},
		Outputs: []*tool.Definition{{Name: "pages", Type: "integer", Required: true}},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			if in.Bool("hold") {
				select {
				case <-release:
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
			return tool.Succeeded("Built.", map[string]any{"pages": 3}), nil
		},
	}); err != nil {
		t.Fatal(err)
	}
	return reg
}

const built = `{"success":true,"message":"Built.","outputs":{"pages":3},"task":{"task_id":"T1","status":"completed","poll_interval_seconds":0.01}}`

// TestTaskWaits: a call of a tool that runs as a task waits for the
// task's outcome; a call whose context ends first returns the task's
// handle, which tasks_get then follows.
func TestTaskWaits(t *testing.T) {
	release := make(chan struct{})
	reg := taskRegistry(t, release)
	set := tooleino.New(reg, agent, &tooleino.Options{Tasks: newGoTasks(reg)})
	ctx := context.Background()
	tools := map[string]einotool.InvokableTool{}
	var names []string
	for _, bt := range set.Tools() {
		info, err := bt.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, info.Name)
		tools[info.Name] = bt.(einotool.InvokableTool)
	}
	if diff := cmp.Diff([]string{"report__build", "tasks_cancel", "tasks_get"}, names); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}

	out, err := tools["report__build"].InvokableRun(ctx, `{}`)
	if err != nil || out != built {
		t.Errorf("the call did not wait for the outcome: %s, %v", out, err)
	}

	done, cancel := context.WithCancel(ctx)
	cancel()
	out, err = tools["report__build"].InvokableRun(done, `{"hold":true}`)
	var got map[string]any
	if err != nil || json.Unmarshal([]byte(out), &got) != nil {
		t.Fatalf("a call whose context ended: %s, %v", out, err)
	}
	task, _ := got["task"].(map[string]any)
	if task["status"] != "working" || task["task_id"] != "T2" || got["outputs"] != nil {
		t.Fatalf("a call whose context ended returned %v, want the task's handle", got)
	}
	close(release)
	for {
		out, err = tools["tasks_get"].InvokableRun(ctx, `{"task_id":"T2"}`)
		got = nil
		if err != nil || json.Unmarshal([]byte(out), &got) != nil {
			t.Fatalf("tasks_get: %s, %v", out, err)
		}
		if got["task"].(map[string]any)["status"] != "working" {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got["message"] != "Built." {
		t.Errorf("tasks_get after the end: %v", got)
	}
}

// TestReactAgentTaskInterrupt: under a react agent whose graph saves
// checkpoints, a task still working when the call's wait ends interrupts
// the run with a [tooleino.TaskPending]; resumed once the task has ended,
// the run answers with the task's outcome.
func TestReactAgentTaskInterrupt(t *testing.T) {
	release := make(chan struct{})
	reg := taskRegistry(t, release)
	set := tooleino.New(reg, agent, &tooleino.Options{Tasks: newGoTasks(reg), TaskWait: 30 * time.Millisecond})
	ctx := context.Background()

	s := &script{}
	s.turns = append(s.turns,
		func([]*schema.Message) *schema.Message {
			return calls(call("call_1", "report__build", `{"hold":true}`))
		},
		func(msgs []*schema.Message) *schema.Message {
			return schema.AssistantMessage(answers(msgs)["call_1"], nil)
		},
	)
	ag, err := react.NewAgent(ctx, &react.AgentConfig{
		ToolCallingModel: scriptedModel{s},
		ToolsConfig:      compose.ToolsNodeConfig{Tools: set.Tools(), UnknownToolsHandler: set.UnknownTool},
	})
	if err != nil {
		t.Fatal(err)
	}
	agentGraph, opts := ag.ExportGraph()
	g := compose.NewGraph[[]*schema.Message, *schema.Message]()
	if err := g.AddGraphNode("agent", agentGraph, opts...); err != nil {
		t.Fatal(err)
	}
	g.AddEdge(compose.START, "agent")
	g.AddEdge("agent", compose.END)
	run, err := g.Compile(ctx, compose.WithCheckPointStore(&memoryStore{m: map[string][]byte{}}))
	if err != nil {
		t.Fatal(err)
	}

	in := []*schema.Message{schema.UserMessage("Build the report.")}
	_, err = run.Invoke(ctx, in, compose.WithCheckPointID("c"))
	info, ok := compose.ExtractInterruptInfo(err)
	if !ok || len(info.InterruptContexts) != 1 {
		t.Fatalf("run: %v, want one interrupt", err)
	}
	ic := info.InterruptContexts[0]
	want := &tooleino.TaskPending{Tool: "report__build", TaskID: "T1", Status: "working"}
	if diff := cmp.Diff(want, ic.Info, ignoreMessage); diff != "" {
		t.Errorf("interrupt info (-want +got):\n%s", diff)
	}
	if tp, _ := ic.Info.(*tooleino.TaskPending); tp == nil || !slices.Contains(pendingMessages, tp.Message) {
		t.Errorf("interrupt info %+v, want one of the messages %q", ic.Info, pendingMessages)
	}

	close(release)
	out, err := run.Invoke(compose.Resume(ctx, ic.ID), in, compose.WithCheckPointID("c"))
	if err != nil {
		t.Fatalf("resumed run: %v", err)
	}
	if out.Content != built {
		t.Errorf("answer %q, want %q", out.Content, built)
	}
	if len(s.sent) != 2 {
		t.Errorf("the model was called %d times, want 2", len(s.sent))
	}
}

// TestADKTaskInputRequired: under an adk agent whose runner saves
// checkpoints, a task that waits for a person's answer interrupts the run
// at once with its question; resumed after the person answered (before
// the task ended, so the tool waits again), the run gives the task's
// outcome to the model.
func TestADKTaskInputRequired(t *testing.T) {
	release := make(chan struct{})
	reg := taskRegistry(t, release)
	tasks := newGoTasks(reg)
	set := tooleino.New(reg, agent, &tooleino.Options{Tasks: tasks, TaskWait: time.Minute})
	ctx := context.Background()

	s := &script{}
	s.turns = append(s.turns,
		func([]*schema.Message) *schema.Message {
			return calls(call("call_1", "report__build", `{"hold":true,"ask":true}`))
		},
		func(msgs []*schema.Message) *schema.Message {
			return schema.AssistantMessage(answers(msgs)["call_1"], nil)
		},
	)
	ag, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name: "builder", Description: "Builds reports.", Instruction: "Build when asked.",
		Model: scriptedModel{s},
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{
			Tools: set.Tools(), UnknownToolsHandler: set.UnknownTool,
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	runner := adk.NewRunner(ctx, adk.RunnerConfig{Agent: ag, CheckPointStore: &memoryStore{m: map[string][]byte{}}})

	start := time.Now()
	var interrupt *adk.InterruptCtx
	for ev := range events(runner.Query(ctx, "Build the report.", adk.WithCheckPointID("c"))) {
		if ev.Err != nil {
			t.Fatalf("run: %v", ev.Err)
		}
		if ev.Action != nil && ev.Action.Interrupted != nil {
			for _, ic := range ev.Action.Interrupted.InterruptContexts {
				if ic.IsRootCause {
					interrupt = ic
				}
			}
		}
	}
	if interrupt == nil {
		t.Fatal("the run did not interrupt")
	}
	if time.Since(start) > 30*time.Second {
		t.Errorf("the run waited for the task's wait instead of interrupting on the question")
	}
	want := &tooleino.TaskPending{Tool: "report__build", TaskID: "T1", Status: "input_required", Question: "Which quarter?",
		Message: `Build is running as task T1. Call tasks_get with {"task_id":"T1"} after 0.01 seconds to see how it stands and get its outcome.`}
	if diff := cmp.Diff(want, interrupt.Info); diff != "" {
		t.Errorf("interrupt info (-want +got):\n%s", diff)
	}

	tasks.answer("T1")
	go func() { time.Sleep(50 * time.Millisecond); close(release) }()
	iter, err := runner.ResumeWithParams(ctx, "c", &adk.ResumeParams{Targets: map[string]any{interrupt.ID: nil}})
	if err != nil {
		t.Fatalf("resume: %v", err)
	}
	var got []string
	for ev := range events(iter) {
		if ev.Err != nil {
			t.Fatalf("resumed run: %v", ev.Err)
		}
		if ev.Output == nil || ev.Output.MessageOutput == nil {
			continue
		}
		msg, err := ev.Output.MessageOutput.GetMessage()
		if err != nil {
			t.Fatal(err)
		}
		if msg.Role == schema.Tool || msg.Role == schema.Assistant {
			got = append(got, string(msg.Role)+": "+msg.Content)
		}
	}
	if diff := cmp.Diff([]string{"tool: " + built, "assistant: " + built}, got); diff != "" {
		t.Errorf("resumed run's messages (-want +got):\n%s", diff)
	}
}

// pendingMessages are the messages a TaskPending may carry for task T1:
// that of its start, when the wait ends before the first poll, and that
// of a poll.
var pendingMessages = []string{
	`Build is running as task T1. Call tasks_get with {"task_id":"T1"} after 0.01 seconds to see how it stands and get its outcome.`,
	"Task T1 is working.",
}

// ignoreMessage compares TaskPending values but for their Message.
var ignoreMessage = cmpopts.IgnoreFields(tooleino.TaskPending{}, "Message")

// TestTaskInterruptBesideConfirmation: in a ToolsNode of a graph that
// saves checkpoints, one model turn calls a tool marked Confirm and a task
// tool whose task asks a question; both interrupt. Once the question is
// answered, resuming only the confirmation runs the confirmed tool, and
// the task tool, whose task is working, looks at it once and interrupts
// again at once (it does not wait Options.TaskWait, 20 s); resuming it
// after the task ended gives its outcome.
func TestTaskInterruptBesideConfirmation(t *testing.T) {
	release := make(chan struct{})
	reg := taskRegistry(t, release)
	if err := reg.Add(&tool.Tool{
		ID: "rocket.launch", Label: "Launch", Description: "Launches the rocket.",
		Operation: tool.OpTrigger, Permission: "use tools", Confirm: true,
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			return tool.Succeeded("Launched.", nil), nil
		},
	}); err != nil {
		t.Fatal(err)
	}
	tasks := newGoTasks(reg)
	set := tooleino.New(reg, agent, &tooleino.Options{Tasks: tasks, TaskWait: 20 * time.Second})
	ctx := context.Background()
	g := compose.NewGraph[*schema.Message, []*schema.Message]()
	node, err := compose.NewToolNode(ctx, &compose.ToolsNodeConfig{Tools: set.Tools(), UnknownToolsHandler: set.UnknownTool})
	if err != nil {
		t.Fatal(err)
	}
	if err := g.AddToolsNode("tools", node); err != nil {
		t.Fatal(err)
	}
	g.AddEdge(compose.START, "tools")
	g.AddEdge("tools", compose.END)
	run, err := g.Compile(ctx, compose.WithCheckPointStore(&memoryStore{m: map[string][]byte{}}))
	if err != nil {
		t.Fatal(err)
	}
	in := calls(call("call_1", "report__build", `{"hold":true,"ask":true}`), call("call_2", "rocket__launch", `{}`))

	interrupts := func(err error) map[string]string { // kind by interrupt ID
		t.Helper()
		info, ok := compose.ExtractInterruptInfo(err)
		if !ok {
			t.Fatalf("run: %v, want an interrupt", err)
		}
		out := map[string]string{}
		for _, ic := range info.InterruptContexts {
			switch i := ic.Info.(type) {
			case *tooleino.TaskPending:
				out[ic.ID] = "task " + i.TaskID + " " + i.Status
			case *tooleino.Confirmation:
				out[ic.ID] = "confirm " + i.Tool
			}
		}
		return out
	}
	_, err = run.Invoke(ctx, in, compose.WithCheckPointID("c"))
	first := interrupts(err)
	var confirmID, taskID string
	for id, kind := range first {
		switch kind {
		case "confirm rocket__launch":
			confirmID = id
		case "task T1 input_required":
			taskID = id
		}
	}
	if len(first) != 2 || confirmID == "" || taskID == "" {
		t.Fatalf("first interrupts %v, want a confirmation and task T1 input_required", first)
	}

	tasks.answer("T1") // the task works again, and will for a while
	start := time.Now()
	_, err = run.Invoke(compose.ResumeWithData(ctx, confirmID, true), in, compose.WithCheckPointID("c"))
	second := interrupts(err)
	taskID = ""
	for id, kind := range second {
		if kind == "task T1 working" {
			taskID = id
		}
	}
	if len(second) != 1 || taskID == "" {
		t.Fatalf("interrupts after the confirmation %v, want task T1 working alone", second)
	}
	if time.Since(start) > 10*time.Second {
		t.Errorf("the task tool waited Options.TaskWait before interrupting again")
	}

	close(release)
	var get einotool.InvokableTool
	for _, bt := range set.Tools() {
		if info, _ := bt.Info(ctx); info.Name == funcall.TasksGet {
			get = bt.(einotool.InvokableTool)
		}
	}
	for range 500 { // wait for the task to end, at most 5 s
		if out, _ := get.InvokableRun(ctx, `{"task_id":"T1"}`); !strings.Contains(out, `"working"`) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	out, err := run.Invoke(compose.Resume(ctx, taskID), in, compose.WithCheckPointID("c"))
	if err != nil {
		t.Fatalf("resumed run: %v", err)
	}
	got := map[string]string{}
	for _, m := range out {
		got[m.ToolCallID] = m.Content
	}
	want := map[string]string{"call_1": built, "call_2": `{"success":true,"message":"Launched.","outputs":{}}`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tool answers (-want +got):\n%s", diff)
	}
}
