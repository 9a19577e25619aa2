package tooleino_test

import (
	"context"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/google/go-cmp/cmp"

	tooleino "github.com/toolapi/toolapi/contrib/eino"
)

// TestADKRunnerConfirm runs a tool marked Confirm under an adk agent whose
// runner saves checkpoints: the run interrupts with a [tooleino.Confirmation]
// (which the checkpoint must be able to hold), and resumes from the
// checkpoint to run the tool or to refuse it as a person decided.
func TestADKRunnerConfirm(t *testing.T) {
	reg, _ := newRegistry(t)
	set := tooleino.New(reg, agent, nil)
	ctx := context.Background()

	for _, tt := range []struct {
		confirm bool
		want    string
	}{
		{true, `{"success":true,"message":"Launched.","outputs":{}}`},
		{false, `{"success":false,"message":"Launch was not confirmed, so it did not run.","error_type":"access_denied"}`},
	} {
		s := &script{}
		s.turns = append(s.turns,
			func([]*schema.Message) *schema.Message {
				return calls(call("call_1", "rocket__launch", `{"code":"0000"}`))
			},
			func(msgs []*schema.Message) *schema.Message {
				return schema.AssistantMessage(answers(msgs)["call_1"], nil)
			},
		)
		ag, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
			Name: "launcher", Description: "Launches rockets.", Instruction: "Launch when asked.",
			Model: scriptedModel{s},
			ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{
				Tools: set.Tools(), UnknownToolsHandler: set.UnknownTool,
			}},
		})
		if err != nil {
			t.Fatal(err)
		}
		runner := adk.NewRunner(ctx, adk.RunnerConfig{Agent: ag, CheckPointStore: &memoryStore{m: map[string][]byte{}}})

		var interrupt *adk.InterruptCtx
		for ev := range events(runner.Query(ctx, "Launch the rocket.", adk.WithCheckPointID("c"))) {
			if ev.Err != nil {
				t.Fatalf("confirm %v: run: %v", tt.confirm, ev.Err)
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
			t.Fatalf("confirm %v: the run did not interrupt", tt.confirm)
		}
		want := &tooleino.Confirmation{Tool: "rocket__launch", Label: "Launch",
			Arguments: `{"code":"(hidden)"}`, Message: `Run Launch (rocket.launch) with {"code":"(hidden)"}?`}
		if diff := cmp.Diff(want, interrupt.Info); diff != "" {
			t.Errorf("confirm %v: interrupt info (-want +got):\n%s", tt.confirm, diff)
		}

		iter, err := runner.ResumeWithParams(ctx, "c", &adk.ResumeParams{Targets: map[string]any{interrupt.ID: tt.confirm}})
		if err != nil {
			t.Fatalf("confirm %v: resume: %v", tt.confirm, err)
		}
		var got []string
		for ev := range events(iter) {
			if ev.Err != nil {
				t.Fatalf("confirm %v: resumed run: %v", tt.confirm, ev.Err)
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
		if diff := cmp.Diff([]string{"tool: " + tt.want, "assistant: " + tt.want}, got); diff != "" {
			t.Errorf("confirm %v: resumed run's messages (-want +got):\n%s", tt.confirm, diff)
		}
	}
}

// events ranges over the events of an adk iterator.
func events(iter *adk.AsyncIterator[*adk.AgentEvent]) func(func(*adk.AgentEvent) bool) {
	return func(yield func(*adk.AgentEvent) bool) {
		for {
			ev, ok := iter.Next()
			if !ok || !yield(ev) {
				return
			}
		}
	}
}
