package toolgenai_test

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
	"google.golang.org/genai"

	toolgenai "github.com/toolapi/toolapi/contrib/genai"
	"github.com/toolapi/toolapi/funcall"
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

func TestGenerateContent(t *testing.T) {
	reg, secretRuns := newRegistry(t)
	tools := toolgenai.New(reg, agent, nil)

	var parts []any
	for _, c := range calls {
		parts = append(parts, map[string]any{"functionCall": map[string]any{"id": c.id, "name": c.name, "args": json.RawMessage(c.args)}})
	}
	first, _ := json.Marshal(map[string]any{"candidates": []any{map[string]any{
		"content": map[string]any{"role": "model", "parts": parts}, "finishReason": "STOP"}}})
	final := `{"candidates":[{"content":{"role":"model","parts":[{"text":"HELLO"}]},"finishReason":"STOP"}]}`
	srv := newServer(t, string(first), final)

	ctx := context.Background()
	client, err := genai.NewClient(ctx, &genai.ClientConfig{
		APIKey: "test", Backend: genai.BackendGeminiAPI, HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL},
	})
	if err != nil {
		t.Fatal(err)
	}
	config := &genai.GenerateContentConfig{Tools: []*genai.Tool{tools.Tool()}}
	contents := genai.Text("Shout hello.")
	resp, err := client.Models.GenerateContent(ctx, "gemini-test", contents, config)
	if err != nil {
		t.Fatal(err)
	}
	contents = append(contents, resp.Candidates[0].Content, tools.Run(ctx, resp.FunctionCalls()))
	resp, err = client.Models.GenerateContent(ctx, "gemini-test", contents, config)
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.Text(); got != "HELLO" {
		t.Errorf("final answer %q, want HELLO", got)
	}

	// The declarations: the tools agent may run, under model-safe names,
	// with their JSON Schemas whole.
	decls := srv.bodies[0]["tools"].([]any)[0].(map[string]any)["functionDeclarations"].([]any)
	var names []any
	for _, d := range decls {
		names = append(names, d.(map[string]any)["name"])
	}
	if diff := cmp.Diff([]any{"db__query", "rocket__launch", "text__upper"}, names); diff != "" {
		t.Errorf("declared names (-want +got):\n%s", diff)
	}
	wantDecl := map[string]any{"name": "text__upper", "description": "Upper-cases a text.", "parametersJsonSchema": wantResults[1]["input_schema"]}
	if diff := cmp.Diff(wantDecl, decls[2]); diff != "" {
		t.Errorf("declaration of text.upper (-want +got):\n%s", diff)
	}

	// The second request answers every call with a function response, the
	// result under "output" on success and under "error" on failure.
	sent := srv.bodies[1]["contents"].([]any)
	if len(sent) != 3 {
		t.Fatalf("second request has %d contents, want 3", len(sent))
	}
	last := sent[2].(map[string]any)
	got := last["parts"].([]any)
	if last["role"] != "user" || len(got) != len(calls) {
		t.Fatalf("last content: role %v with %d parts; want user with %d", last["role"], len(got), len(calls))
	}
	for i, c := range calls {
		key := "error"
		if i == 0 {
			key = "output"
		}
		want := map[string]any{"functionResponse": map[string]any{"id": c.id, "name": c.name, "response": map[string]any{key: wantResults[i]}}}
		if diff := cmp.Diff(want, got[i]); diff != "" {
			t.Errorf("answer to %s %s (-want +got):\n%s", c.name, c.args, diff)
		}
	}
	if b, _ := json.Marshal(got); strings.Contains(string(b), "password") {
		t.Errorf("the answers leak internal error text: %s", b)
	}
	if *secretRuns != 0 {
		t.Errorf("the secret tool ran %d times", *secretRuns)
	}
}

func TestConfirmer(t *testing.T) {
	reg, _ := newRegistry(t)
	tools := toolgenai.New(reg, agent, &toolgenai.Options{Confirmer: tool.Confirmed})
	got := tools.Call(context.Background(), &genai.FunctionCall{Name: "rocket__launch"})
	if resp, ok := got.Response["output"].(*funcall.Response); !ok || resp.Message != "Launched." {
		t.Errorf("confirmed launch: %+v", got.Response)
	}
}

// nulFree is the pattern the core puts on every string input: no NUL characters.
const nulFree = `^[^\x00]*$`
