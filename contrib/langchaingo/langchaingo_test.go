package toollangchaingo_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms"

	toollangchaingo "github.com/toolapi/toolapi/contrib/langchaingo"
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

// scriptedModel is an llms.Model whose turns are scripted: each reads the
// messages it is sent and answers.
type scriptedModel struct {
	t     *testing.T
	turns []func(msgs []llms.MessageContent, opts llms.CallOptions) *llms.ContentResponse
	sent  [][]llms.MessageContent
}

func (m *scriptedModel) GenerateContent(ctx context.Context, msgs []llms.MessageContent, options ...llms.CallOption) (*llms.ContentResponse, error) {
	var opts llms.CallOptions
	for _, o := range options {
		o(&opts)
	}
	m.sent = append(m.sent, msgs)
	if len(m.sent) > len(m.turns) {
		return nil, errors.New("the script has no more turns")
	}
	return m.turns[len(m.sent)-1](msgs, opts), nil
}

func (m *scriptedModel) Call(ctx context.Context, prompt string, options ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, options...)
}

func toolCalls(calls ...llms.ToolCall) *llms.ContentResponse {
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{ToolCalls: calls}}}
}

func call(id, name, args string) llms.ToolCall {
	return llms.ToolCall{ID: id, Type: "function", FunctionCall: &llms.FunctionCall{Name: name, Arguments: args}}
}

// toolAnswers returns the tool responses among msgs by call ID.
func toolAnswers(msgs []llms.MessageContent) map[string]string {
	out := map[string]string{}
	for _, m := range msgs {
		for _, p := range m.Parts {
			if r, ok := p.(llms.ToolCallResponse); ok {
				out[r.ToolCallID] = r.Content
			}
		}
	}
	return out
}

func TestExecutor(t *testing.T) {
	reg, secretRuns := newRegistry(t)
	set := toollangchaingo.New(reg, agent, nil)

	model := &scriptedModel{t: t}
	model.turns = append(model.turns,
		// The model asks for a text too long and for a tool it may not run.
		func(msgs []llms.MessageContent, opts llms.CallOptions) *llms.ContentResponse {
			var names []string
			for _, f := range opts.Functions {
				names = append(names, f.Name)
			}
			if diff := cmp.Diff([]string{"db__query", "rocket__launch", "text__upper"}, names); diff != "" {
				t.Errorf("functions the agent declares (-want +got):\n%s", diff)
			}
			return toolCalls(call("call_1", "text__upper", `{"text":"far too long a text"}`), call("call_2", "vault__secret", `{}`))
		},
		// It reads the violations and calls again within the limit.
		func(msgs []llms.MessageContent, opts llms.CallOptions) *llms.ContentResponse {
			answers := toolAnswers(msgs)
			var resp struct {
				ErrorType  string           `json:"error_type"`
				Violations []tool.Violation `json:"violations"`
			}
			if err := json.Unmarshal([]byte(answers["call_1"]), &resp); err != nil {
				t.Fatalf("answer to call_1 %q: %v", answers["call_1"], err)
			}
			want := []tool.Violation{{Path: "text", Rule: tool.RuleMaxLength, Message: "must be at most 10 characters long", Limit: tool.Ptr(10.0)}}
			if resp.ErrorType != "invalid_input" || !cmp.Equal(want, resp.Violations) {
				t.Errorf("answer to the long text: %s", answers["call_1"])
			}
			if got := answers["call_2"]; got != "vault__secret is not a valid tool, try another one" {
				t.Errorf("answer to the secret tool: %q", got)
			}
			return toolCalls(call("call_3", "text__upper", `{"text":"hello"}`))
		},
		// It answers from the result.
		func(msgs []llms.MessageContent, opts llms.CallOptions) *llms.ContentResponse {
			var resp struct {
				Success bool
				Outputs map[string]string
			}
			if err := json.Unmarshal([]byte(toolAnswers(msgs)["call_3"]), &resp); err != nil || !resp.Success {
				t.Fatalf("answer to call_3: %v %+v", err, resp)
			}
			return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: resp.Outputs["result"]}}}
		},
	)

	executor := agents.NewExecutor(agents.NewOpenAIFunctionsAgent(model, set.Tools()), agents.WithMaxIterations(5))
	answer, err := chains.Run(context.Background(), executor, "Shout hello.")
	if err != nil {
		t.Fatal(err)
	}
	if answer != "HELLO" {
		t.Errorf("answer %q, want HELLO", answer)
	}
	if len(model.sent) != 3 {
		t.Errorf("the model was called %d times, want 3", len(model.sent))
	}
	if *secretRuns != 0 {
		t.Errorf("the secret tool ran %d times", *secretRuns)
	}
}

func TestToolFailures(t *testing.T) {
	reg, _ := newRegistry(t)
	byName := map[string]interface {
		Call(context.Context, string) (string, error)
		Description() string
	}{}
	for _, tl := range toollangchaingo.New(reg, agent, nil).Tools() {
		byName[tl.Name()] = tl
	}
	if got, want := byName["text__upper"].Description(), `Upper-cases a text.
Input: a JSON object matching this JSON Schema: {"type":"object","properties":{"text":{"type":"string","maxLength":10,"pattern":"^[^\\x00]*$"}},"required":["text"],"additionalProperties":false}`; got != want {
		t.Errorf("description:\n%s\nwant:\n%s", got, want)
	}
	tests := []struct {
		name, input string
		want        map[string]any
	}{
		{"rocket__launch", `{}`, map[string]any{"success": false, "error_type": "access_denied",
			"message": "Launch runs only when a person confirms it, and this caller cannot ask for confirmation."}},
		{"db__query", `{}`, map[string]any{"success": false, "error_type": "execution_failed", "message": "Query failed."}},
		{"text__upper", `hello`, map[string]any{"success": false, "error_type": "invalid_input"}},
	}
	for _, tt := range tests {
		got, err := byName[tt.name].Call(context.Background(), tt.input)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(got), &m); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		for k, v := range tt.want {
			if !cmp.Equal(v, m[k]) {
				t.Errorf("%s %s: %s is %v, want %v", tt.name, tt.input, k, m[k], v)
			}
		}
		if strings.Contains(got, "password") {
			t.Errorf("%s leaks internal error text: %s", tt.name, got)
		}
	}
}

func TestFunctions(t *testing.T) {
	reg, _ := newRegistry(t)
	set := toollangchaingo.New(reg, agent, &toollangchaingo.Options{Confirmer: tool.Confirmed})
	defs := set.Definitions()
	if len(defs) != 3 || defs[2].Type != "function" || defs[2].Function.Name != "text__upper" {
		t.Fatalf("definitions: %+v", defs)
	}
	b, _ := json.Marshal(defs[2].Function.Parameters)
	if want := `{"type":"object","properties":{"text":{"type":"string","maxLength":10,"pattern":"^[^\\x00]*$"}},"required":["text"],"additionalProperties":false}`; string(b) != want {
		t.Errorf("parameters %s, want %s", b, want)
	}
	if got := set.Call(context.Background(), "rocket__launch", ""); !strings.Contains(got, `"success":true`) {
		t.Errorf("confirmed launch: %s", got)
	}
}
