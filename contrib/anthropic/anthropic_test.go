package toolanthropic_test

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

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/google/go-cmp/cmp"

	toolanthropic "github.com/toolapi/toolapi/contrib/anthropic"
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

func TestMessages(t *testing.T) {
	reg, secretRuns := newRegistry(t)
	tools := toolanthropic.New(reg, agent, nil)

	content := []any{map[string]any{"type": "text", "text": "Let me call the tools."}}
	for _, c := range calls {
		content = append(content, map[string]any{"type": "tool_use", "id": c.id, "name": c.name, "input": json.RawMessage(c.args)})
	}
	first, _ := json.Marshal(map[string]any{"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test",
		"content": content, "stop_reason": "tool_use", "usage": map[string]any{"input_tokens": 10, "output_tokens": 10}})
	final := `{"id":"msg_2","type":"message","role":"assistant","model":"claude-test","content":[{"type":"text","text":"HELLO"}],"stop_reason":"end_turn","usage":{"input_tokens":10,"output_tokens":1}}`
	srv := newServer(t, string(first), final)
	client := anthropic.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("test"), option.WithMaxRetries(0))

	ctx := context.Background()
	params := anthropic.MessageNewParams{
		Model:     "claude-test",
		MaxTokens: 100,
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Shout hello."))},
		Tools:     tools.Declarations(),
	}
	msg, err := client.Messages.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	params.Messages = append(params.Messages, msg.ToParam(), anthropic.NewUserMessage(tools.Run(ctx, msg.Content)...))
	msg, err = client.Messages.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	if got := msg.Content[0].Text; got != "HELLO" {
		t.Errorf("final answer %q, want HELLO", got)
	}

	// The declarations: the tools agent may run, under model-safe names,
	// with their input schemas whole.
	decls := srv.bodies[0]["tools"].([]any)
	var names []any
	for _, d := range decls {
		names = append(names, d.(map[string]any)["name"])
	}
	if diff := cmp.Diff([]any{"db__query", "rocket__launch", "text__upper"}, names); diff != "" {
		t.Errorf("declared names (-want +got):\n%s", diff)
	}
	wantDecl := map[string]any{"name": "text__upper", "description": "Upper-cases a text.", "input_schema": wantResults[1]["input_schema"]}
	if diff := cmp.Diff(wantDecl, decls[2]); diff != "" {
		t.Errorf("declaration of text.upper (-want +got):\n%s", diff)
	}

	// The second request answers every tool_use with a tool_result in one
	// user message.
	messages := srv.bodies[1]["messages"].([]any)
	if len(messages) != 3 {
		t.Fatalf("second request has %d messages, want 3", len(messages))
	}
	last := messages[2].(map[string]any)
	results := last["content"].([]any)
	if last["role"] != "user" || len(results) != len(calls) {
		t.Fatalf("last message: role %v with %d blocks; want user with %d", last["role"], len(results), len(calls))
	}
	for i, c := range calls {
		r := results[i].(map[string]any)
		wantError := i != 0
		if r["type"] != "tool_result" || r["tool_use_id"] != c.id || r["is_error"] != wantError {
			t.Errorf("block %d: type %v, tool_use_id %v, is_error %v; want tool_result, %s, %v", i, r["type"], r["tool_use_id"], r["is_error"], c.id, wantError)
		}
		text := r["content"].([]any)[0].(map[string]any)["text"].(string)
		var got map[string]any
		if err := json.Unmarshal([]byte(text), &got); err != nil {
			t.Fatalf("content of the answer to %s: %v", c.id, err)
		}
		if diff := cmp.Diff(wantResults[i], got); diff != "" {
			t.Errorf("answer to %s %s (-want +got):\n%s", c.name, c.args, diff)
		}
		if strings.Contains(text, "password") {
			t.Errorf("answer to %s leaks internal error text: %s", c.name, text)
		}
	}
	if *secretRuns != 0 {
		t.Errorf("the secret tool ran %d times", *secretRuns)
	}
}

func TestConfirmer(t *testing.T) {
	reg, _ := newRegistry(t)
	tools := toolanthropic.New(reg, agent, &toolanthropic.Options{Confirmer: tool.Confirmed})
	if got := tools.Call(context.Background(), "rocket__launch", nil); !got.Success || got.Message != "Launched." {
		t.Errorf("confirmed launch: %+v", got)
	}
}

// nulFree is the pattern the core puts on every string input: no NUL characters.
const nulFree = `^[^\x00]*$`
