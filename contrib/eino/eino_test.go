package tooleino_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/cloudwego/eino/components/model"
	einotool "github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"
	"github.com/google/go-cmp/cmp"

	tooleino "github.com/toolapi/toolapi/contrib/eino"
	"github.com/toolapi/toolapi/tool"
)

// agent may use tools but not read secrets.
var agent = &tool.User{ID: "agent", Permissions: []string{"use tools"}}

// newRegistry returns a registry of four small tools and a count of the
// runs of the secret one, which agent may not run.
func newRegistry(t *testing.T) (*tool.Registry, *int) {
	t.Helper()
	secretRuns := new(int)
	reg := tool.NewRegistry(nil)
	err := reg.Add(
		&tool.Tool{
			ID: "text.upper", Label: "Upper", Description: "Upper-cases a text.",
			Operation: tool.OpTransform, Permission: "use tools",
			Inputs: []*tool.Definition{{Name: "text", Type: "string", Required: true,
				Constraints: tool.Constraints{Length: &tool.Bounds{Max: tool.Ptr(10)}}}},
			Outputs: []*tool.Definition{{Name: "result", Type: "string", Required: true}},
			Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
				return tool.Succeeded("", map[string]any{"result": strings.ToUpper(in.String("text"))}), nil
			},
		},
		&tool.Tool{
			ID: "vault.secret", Label: "Secret", Description: "Reads the secret.",
			Operation: tool.OpRead, Permission: "read secrets",
			Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
				*secretRuns++
				return tool.Succeeded("", nil), nil
			},
		},
		&tool.Tool{
			ID: "rocket.launch", Label: "Launch", Description: "Launches the rocket.",
			Operation: tool.OpTrigger, Permission: "use tools", Confirm: true,
			Inputs: []*tool.Definition{{Name: "code", Type: "string", Sensitive: true}},
			Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
				return tool.Succeeded("Launched.", nil), nil
			},
		},
		&tool.Tool{
			ID: "db.query", Label: "Query", Description: "Queries the database.",
			Operation: tool.OpRead, Permission: "use tools",
			Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
				return nil, errors.New("dial tcp 10.0.0.7:5432: password authentication failed")
			},
		},
	)
	if err != nil {
		t.Fatal(err)
	}
	return reg, secretRuns
}

// script is the state of a scripted chat model: its turns, and what it
// was sent.
type script struct {
	mu    sync.Mutex
	turns []func(msgs []*schema.Message) *schema.Message
	sent  [][]*schema.Message
	tools []*schema.ToolInfo
}

// scriptedModel is a model.ToolCallingChatModel whose answers are
// scripted.
type scriptedModel struct{ s *script }

func (m scriptedModel) Generate(ctx context.Context, msgs []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	m.s.mu.Lock()
	defer m.s.mu.Unlock()
	m.s.sent = append(m.s.sent, msgs)
	if len(m.s.sent) > len(m.s.turns) {
		return nil, errors.New("the script has no more turns")
	}
	return m.s.turns[len(m.s.sent)-1](msgs), nil
}

func (m scriptedModel) Stream(ctx context.Context, msgs []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	msg, err := m.Generate(ctx, msgs, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{msg}), nil
}

func (m scriptedModel) WithTools(tools []*schema.ToolInfo) (model.ToolCallingChatModel, error) {
	m.s.mu.Lock()
	m.s.tools = tools
	m.s.mu.Unlock()
	return m, nil
}

func calls(cs ...schema.ToolCall) *schema.Message { return schema.AssistantMessage("", cs) }

func call(id, name, args string) schema.ToolCall {
	return schema.ToolCall{ID: id, Type: "function", Function: schema.FunctionCall{Name: name, Arguments: args}}
}

// answers returns the tool messages among msgs by call ID.
func answers(msgs []*schema.Message) map[string]string {
	out := map[string]string{}
	for _, m := range msgs {
		if m.Role == schema.Tool {
			out[m.ToolCallID] = m.Content
		}
	}
	return out
}

func TestReactAgent(t *testing.T) {
	reg, secretRuns := newRegistry(t)
	set := tooleino.New(reg, agent, nil)
	ctx := context.Background()

	s := &script{}
	s.turns = append(s.turns,
		// The model asks for a text too long, for a tool it may not run,
		// and for one that fails inside.
		func(msgs []*schema.Message) *schema.Message {
			return calls(call("call_1", "text__upper", `{"text":"far too long a text"}`),
				call("call_2", "vault__secret", `{}`), call("call_3", "db__query", `{}`))
		},
		// It reads the violations and calls again within the limit.
		func(msgs []*schema.Message) *schema.Message {
			got := answers(msgs)
			var resp struct {
				ErrorType  string           `json:"error_type"`
				Violations []tool.Violation `json:"violations"`
			}
			if err := json.Unmarshal([]byte(got["call_1"]), &resp); err != nil {
				t.Fatalf("answer to call_1 %q: %v", got["call_1"], err)
			}
			want := []tool.Violation{{Path: "text", Rule: tool.RuleMaxLength, Message: "must be at most 10 characters long", Limit: tool.Ptr(10.0)}}
			if resp.ErrorType != "invalid_input" || !cmp.Equal(want, resp.Violations) {
				t.Errorf("answer to the long text: %s", got["call_1"])
			}
			if want := `{"success":false,"message":"There is no tool named vault__secret.","error_type":"tool_not_found"}`; got["call_2"] != want {
				t.Errorf("answer to the secret tool: %s, want %s", got["call_2"], want)
			}
			if want := `{"success":false,"message":"Query failed.","error_type":"execution_failed"}`; got["call_3"] != want {
				t.Errorf("answer to the failing tool: %s, want %s", got["call_3"], want)
			}
			return calls(call("call_4", "text__upper", `{"text":"hello"}`))
		},
		// It answers from the result.
		func(msgs []*schema.Message) *schema.Message {
			var resp struct {
				Success bool
				Outputs map[string]string
			}
			if err := json.Unmarshal([]byte(answers(msgs)["call_4"]), &resp); err != nil || !resp.Success {
				t.Fatalf("answer to call_4: %v %+v", err, resp)
			}
			return schema.AssistantMessage(resp.Outputs["result"], nil)
		},
	)

	ag, err := react.NewAgent(ctx, &react.AgentConfig{
		ToolCallingModel: scriptedModel{s},
		ToolsConfig:      compose.ToolsNodeConfig{Tools: set.Tools(), UnknownToolsHandler: set.UnknownTool},
		MaxStep:          10,
	})
	if err != nil {
		t.Fatal(err)
	}
	out, err := ag.Generate(ctx, []*schema.Message{schema.UserMessage("Shout hello.")})
	if err != nil {
		t.Fatal(err)
	}
	if out.Content != "HELLO" {
		t.Errorf("answer %q, want HELLO", out.Content)
	}
	if len(s.sent) != 3 {
		t.Errorf("the model was called %d times, want 3", len(s.sent))
	}
	var names []string
	for _, info := range s.tools {
		names = append(names, info.Name)
	}
	if diff := cmp.Diff([]string{"db__query", "rocket__launch", "text__upper"}, names); diff != "" {
		t.Errorf("tools bound to the model (-want +got):\n%s", diff)
	}
	params, err := s.tools[2].ParamsOneOf.ToJSONSchema()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(params)
	var got map[string]any
	json.Unmarshal(b, &got)
	want := map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string", "maxLength": 10.0, "pattern": nulFree}},
		"required": []any{"text"}, "additionalProperties": false}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("schema of text.upper (-want +got):\n%s", diff)
	}
	if *secretRuns != 0 {
		t.Errorf("the secret tool ran %d times", *secretRuns)
	}
}

// memoryStore is a compose.CheckPointStore in memory.
type memoryStore struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (s *memoryStore) Get(ctx context.Context, id string) ([]byte, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.m[id]
	return b, ok, nil
}

func (s *memoryStore) Set(ctx context.Context, id string, b []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[id] = b
	return nil
}

// TestConfirmInterrupt runs a tool marked Confirm in a graph: the run
// interrupts, and resumes to run the tool or to refuse it as a person
// decided.
func TestConfirmInterrupt(t *testing.T) {
	reg, _ := newRegistry(t)
	set := tooleino.New(reg, agent, nil)
	ctx := context.Background()

	node, err := compose.NewToolNode(ctx, &compose.ToolsNodeConfig{Tools: set.Tools()})
	if err != nil {
		t.Fatal(err)
	}
	g := compose.NewGraph[*schema.Message, []*schema.Message]()
	if err := g.AddToolsNode("tools", node); err != nil {
		t.Fatal(err)
	}
	g.AddEdge(compose.START, "tools")
	g.AddEdge("tools", compose.END)
	run, err := g.Compile(ctx, compose.WithCheckPointStore(&memoryStore{m: map[string][]byte{}}))
	if err != nil {
		t.Fatal(err)
	}

	for _, tt := range []struct {
		confirm bool
		want    string
	}{
		{true, `{"success":true,"message":"Launched.","outputs":{}}`},
		{false, `{"success":false,"message":"Launch was not confirmed, so it did not run.","error_type":"access_denied"}`},
	} {
		id := "run-" + map[bool]string{true: "yes", false: "no"}[tt.confirm]
		in := calls(call("call_1", "rocket__launch", `{}`))
		_, err := run.Invoke(ctx, in, compose.WithCheckPointID(id))
		info, ok := compose.ExtractInterruptInfo(err)
		if !ok || len(info.InterruptContexts) != 1 {
			t.Fatalf("run %s: %v, want one interrupt", id, err)
		}
		ic := info.InterruptContexts[0]
		want := &tooleino.Confirmation{Tool: "rocket__launch", Label: "Launch", Arguments: `{}`, Message: "Run Launch (rocket.launch)?"}
		if diff := cmp.Diff(want, ic.Info); diff != "" {
			t.Errorf("interrupt info (-want +got):\n%s", diff)
		}
		out, err := run.Invoke(compose.ResumeWithData(ctx, ic.ID, tt.confirm), in, compose.WithCheckPointID(id))
		if err != nil {
			t.Fatalf("resumed run %s: %v", id, err)
		}
		if len(out) != 1 || out[0].Content != tt.want {
			t.Errorf("resumed run %s answered %v, want %s", id, out, tt.want)
		}
	}
}

func TestConfirmer(t *testing.T) {
	reg, _ := newRegistry(t)
	set := tooleino.New(reg, agent, &tooleino.Options{Confirmer: tool.Confirmed})
	for _, tl := range set.Tools() {
		info, _ := tl.Info(context.Background())
		if info.Name != "rocket__launch" {
			continue
		}
		got, err := tl.(einotool.InvokableTool).InvokableRun(context.Background(), `{}`)
		if err != nil || !strings.Contains(got, "Launched.") {
			t.Errorf("confirmed launch: %s, %v", got, err)
		}
	}
}

// nulFree is the pattern the core puts on every string input: no NUL characters.
const nulFree = `^[^\x00]*$`
