package tooleino_test

import (
	"context"
	"testing"

	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"
	"github.com/google/go-cmp/cmp"

	tooleino "github.com/toolapi/toolapi/contrib/eino"
)

// TestReactAgentCheckpoint follows the path docs/contrib/eino.md shows for
// a react agent whose tools need confirmation: react.NewAgent takes no
// checkpoint store, so its graph is exported and compiled, as a node of a
// graph of one's own, with the store; the run interrupts and resumes from
// the checkpoint with the person's answer.
func TestReactAgentCheckpoint(t *testing.T) {
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
				return calls(call("call_1", "rocket__launch", `{}`))
			},
			func(msgs []*schema.Message) *schema.Message {
				return schema.AssistantMessage(answers(msgs)["call_1"], nil)
			},
		)

		// The documented path, as docs/contrib/eino.md shows it.
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

		in := []*schema.Message{schema.UserMessage("Launch the rocket.")}
		_, err = run.Invoke(ctx, in, compose.WithCheckPointID("conversation-7"))
		info, ok := compose.ExtractInterruptInfo(err)
		if !ok || len(info.InterruptContexts) != 1 {
			t.Fatalf("confirm %v: run: %v, want one interrupt", tt.confirm, err)
		}
		ic := info.InterruptContexts[0]
		want := &tooleino.Confirmation{Tool: "rocket__launch", Label: "Launch", Arguments: `{}`, Message: "Run Launch (rocket.launch)?"}
		if diff := cmp.Diff(want, ic.Info); diff != "" {
			t.Errorf("confirm %v: interrupt info (-want +got):\n%s", tt.confirm, diff)
		}
		out, err := run.Invoke(compose.ResumeWithData(ctx, ic.ID, tt.confirm), in, compose.WithCheckPointID("conversation-7"))
		if err != nil {
			t.Fatalf("confirm %v: resumed run: %v", tt.confirm, err)
		}
		if out.Content != tt.want {
			t.Errorf("confirm %v: answer %q, want %q", tt.confirm, out.Content, tt.want)
		}
		if len(s.sent) != 2 {
			t.Errorf("confirm %v: the model was called %d times, want 2", tt.confirm, len(s.sent))
		}
	}
}
