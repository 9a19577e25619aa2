package toolopenai_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	toolopenai "github.com/toolapi/toolapi/contrib/openai"
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

// server answers each request with the next of replies (JSON) and keeps
// the request bodies.
type server struct {
	*httptest.Server
	mu      sync.Mutex
	replies []string
	bodies  []map[string]any
}

func newServer(t *testing.T, replies ...string) *server {
	s := &server{replies: replies}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		b, _ := io.ReadAll(r.Body)
		var body map[string]any
		if err := json.Unmarshal(b, &body); err != nil {
			t.Errorf("request body: %v", err)
		}
		s.bodies = append(s.bodies, body)
		if len(s.replies) == 0 {
			http.Error(w, `{"error":{"message":"no more replies"}}`, http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, s.replies[0])
		s.replies = s.replies[1:]
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *server) client() openai.Client {
	return openai.NewClient(option.WithBaseURL(s.URL), option.WithAPIKey("test"), option.WithMaxRetries(0))
}

// calls are the tool calls the scripted model makes: one good, one with
// a text too long, one of a tool the account may not run, one that needs
// confirmation, one that fails inside.
var calls = []struct{ id, name, args string }{
	{"call_1", "text__upper", `{"text":"hello"}`},
	{"call_2", "text__upper", `{"text":"far too long a text"}`},
	{"call_3", "vault__secret", `{}`},
	{"call_4", "rocket__launch", `{}`},
	{"call_5", "db__query", `{}`},
}

// wantResults are the answers to calls, as the model reads them.
var wantResults = []map[string]any{
	{"success": true, "message": "Upper completed.", "outputs": map[string]any{"result": "HELLO"}},
	{"success": false, "message": "Invalid input for Upper: text: must be at most 10 characters long", "error_type": "invalid_input",
		"violations": []any{map[string]any{"path": "text", "rule": "maxLength", "message": "must be at most 10 characters long", "limit": 10.0}},
		"input_schema": map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string", "maxLength": 10.0, "pattern": nulFree}},
			"required": []any{"text"}, "additionalProperties": false}},
	{"success": false, "message": "There is no tool named vault__secret.", "error_type": "tool_not_found"},
	{"success": false, "message": "Launch runs only when a person confirms it, and this caller cannot ask for confirmation.", "error_type": "access_denied"},
	{"success": false, "message": "Query failed.", "error_type": "execution_failed"},
}

func TestChat(t *testing.T) {
	reg, secretRuns := newRegistry(t)
	tools := toolopenai.New(reg, agent, nil)

	var toolCalls []any
	for _, c := range calls {
		toolCalls = append(toolCalls, map[string]any{"id": c.id, "type": "function",
			"function": map[string]any{"name": c.name, "arguments": c.args}})
	}
	first, _ := json.Marshal(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-test",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "tool_calls",
			"message": map[string]any{"role": "assistant", "content": nil, "tool_calls": toolCalls}}},
	})
	final := `{"id":"chatcmpl-2","object":"chat.completion","created":2,"model":"gpt-test","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"HELLO"}}]}`
	srv := newServer(t, string(first), final)
	client := srv.client()

	ctx := context.Background()
	params := openai.ChatCompletionNewParams{
		Model:    "gpt-test",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Shout hello.")},
		Tools:    tools.Chat(),
	}
	completion, err := client.Chat.Completions.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	msg := completion.Choices[0].Message
	params.Messages = append(params.Messages, msg.ToParam())
	params.Messages = append(params.Messages, tools.RunChat(ctx, msg)...)
	completion, err = client.Chat.Completions.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	if got := completion.Choices[0].Message.Content; got != "HELLO" {
		t.Errorf("final answer %q, want HELLO", got)
	}

	// The declarations: the tools agent may run, under model-safe names.
	var names []any
	for _, d := range srv.bodies[0]["tools"].([]any) {
		d := d.(map[string]any)
		if d["type"] != "function" {
			t.Errorf("tool type %v, want function", d["type"])
		}
		names = append(names, d["function"].(map[string]any)["name"])
	}
	if diff := cmp.Diff([]any{"db__query", "rocket__launch", "text__upper"}, names); diff != "" {
		t.Errorf("declared names (-want +got):\n%s", diff)
	}

	// The second request carries one tool message per call.
	messages := srv.bodies[1]["messages"].([]any)
	if len(messages) != 2+len(calls) {
		t.Fatalf("second request has %d messages, want %d", len(messages), 2+len(calls))
	}
	for i, c := range calls {
		m := messages[2+i].(map[string]any)
		if m["role"] != "tool" || m["tool_call_id"] != c.id {
			t.Errorf("message %d: role %v, tool_call_id %v; want tool, %s", 2+i, m["role"], m["tool_call_id"], c.id)
		}
		var got map[string]any
		if err := json.Unmarshal([]byte(m["content"].(string)), &got); err != nil {
			t.Fatalf("content of the answer to %s: %v", c.id, err)
		}
		if diff := cmp.Diff(wantResults[i], got); diff != "" {
			t.Errorf("answer to %s %s (-want +got):\n%s", c.name, c.args, diff)
		}
		if strings.Contains(m["content"].(string), "password") {
			t.Errorf("answer to %s leaks internal error text: %s", c.name, m["content"])
		}
	}
	if *secretRuns != 0 {
		t.Errorf("the secret tool ran %d times", *secretRuns)
	}
}

func TestResponses(t *testing.T) {
	reg, _ := newRegistry(t)
	tools := toolopenai.New(reg, agent, nil)

	output := []any{map[string]any{"type": "reasoning", "id": "rs_1", "summary": []any{}}}
	for _, c := range calls {
		output = append(output, map[string]any{"type": "function_call", "id": "fc_" + c.id, "call_id": c.id,
			"name": c.name, "arguments": c.args, "status": "completed"})
	}
	first, _ := json.Marshal(map[string]any{"id": "resp_1", "object": "response", "created_at": 1, "model": "gpt-test",
		"status": "completed", "output": output})
	final := `{"id":"resp_2","object":"response","created_at":2,"model":"gpt-test","status":"completed","output":[{"type":"message","id":"msg_1","role":"assistant","status":"completed","content":[{"type":"output_text","text":"HELLO","annotations":[]}]}]}`
	srv := newServer(t, string(first), final)
	client := srv.client()

	ctx := context.Background()
	resp, err := client.Responses.New(ctx, responses.ResponseNewParams{
		Model: "gpt-test",
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("Shout hello.")},
		Tools: tools.Responses(),
	})
	if err != nil {
		t.Fatal(err)
	}
	resp, err = client.Responses.New(ctx, responses.ResponseNewParams{
		Model:              "gpt-test",
		PreviousResponseID: openai.String(resp.ID),
		Input:              responses.ResponseNewParamsInputUnion{OfInputItemList: tools.RunResponses(ctx, resp.Output)},
		Tools:              tools.Responses(),
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.OutputText(); got != "HELLO" {
		t.Errorf("final answer %q, want HELLO", got)
	}

	decl := srv.bodies[0]["tools"].([]any)[2].(map[string]any)
	if decl["type"] != "function" || decl["name"] != "text__upper" || decl["strict"] != false || decl["parameters"] == nil {
		t.Errorf("declaration of text.upper: %v", decl)
	}
	input := srv.bodies[1]["input"].([]any)
	if len(input) != len(calls) {
		t.Fatalf("second request has %d input items, want %d", len(input), len(calls))
	}
	for i, c := range calls {
		item := input[i].(map[string]any)
		if item["type"] != "function_call_output" || item["call_id"] != c.id {
			t.Errorf("item %d: type %v, call_id %v; want function_call_output, %s", i, item["type"], item["call_id"], c.id)
		}
		var got map[string]any
		if err := json.Unmarshal([]byte(item["output"].(string)), &got); err != nil {
			t.Fatalf("output of the answer to %s: %v", c.id, err)
		}
		if diff := cmp.Diff(wantResults[i], got); diff != "" {
			t.Errorf("answer to %s %s (-want +got):\n%s", c.name, c.args, diff)
		}
	}
}

func TestConfirmer(t *testing.T) {
	reg, _ := newRegistry(t)
	tools := toolopenai.New(reg, agent, &toolopenai.Options{Confirmer: tool.Confirmed})
	if got := tools.Run(context.Background(), "rocket__launch", "{}"); !got.Success || got.Message != "Launched." {
		t.Errorf("confirmed launch: %+v", got)
	}
}

// nulFree is the pattern the core puts on every string input: no NUL characters.
const nulFree = `^[^\x00]*$`
