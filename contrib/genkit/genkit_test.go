package toolgenkit_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/core"
	"github.com/firebase/genkit/go/genkit"
	"github.com/google/go-cmp/cmp"

	toolgenkit "github.com/toolapi/toolapi/contrib/genkit"
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

// define is a tool whose input the schema cannot check: only words of its
// dictionary are accepted.
func define() *tool.Tool {
	return &tool.Tool{
		ID: "word.define", Label: "Define", Description: "Defines a word.",
		Operation: tool.OpRead, Permission: "use tools",
		Inputs:  []*tool.Definition{{Name: "word", Type: "string", Required: true}},
		Outputs: []*tool.Definition{{Name: "result", Type: "string", Required: true}},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			if in.String("word") != "hello" {
				return nil, tool.InputErrorf("word", "is not in the dictionary; it knows: hello")
			}
			return tool.Succeeded("", map[string]any{"result": "a greeting"}), nil
		},
	}
}

// script is a scripted model: each turn reads the request and answers.
type script struct {
	mu    sync.Mutex
	turns []func(req *ai.ModelRequest) *ai.Message
	sent  []*ai.ModelRequest
	// noRequest leaves the responses' Request nil, as some models do.
	noRequest bool
}

func (s *script) generate(ctx context.Context, req *ai.ModelRequest, cb ai.ModelStreamCallback) (*ai.ModelResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sent = append(s.sent, req)
	if len(s.sent) > len(s.turns) {
		return nil, errors.New("the script has no more turns")
	}
	resp := &ai.ModelResponse{Message: s.turns[len(s.sent)-1](req), FinishReason: ai.FinishReasonStop, Request: req}
	if s.noRequest {
		resp.Request = nil
	}
	return resp, nil
}

// setup returns a Genkit with the scripted model, and the tools.
func setup(t *testing.T, s *script, opts *toolgenkit.Options) (*genkit.Genkit, ai.Model, *toolgenkit.Tools, *int) {
	t.Helper()
	reg, secretRuns := newRegistry(t)
	if err := reg.Add(define()); err != nil {
		t.Fatal(err)
	}
	g := genkit.Init(context.Background())
	m := genkit.DefineModel(g, "test/scripted", &ai.ModelOptions{Supports: &ai.ModelSupports{Tools: true, Multiturn: true}}, s.generate)
	return g, m, toolgenkit.New(reg, agent, opts), secretRuns
}

func calls(reqs ...*ai.ToolRequest) *ai.Message {
	msg := &ai.Message{Role: ai.RoleModel}
	for _, r := range reqs {
		msg.Content = append(msg.Content, ai.NewToolRequestPart(r))
	}
	return msg
}

// outputs returns the outputs of the tool responses in req by ref.
func outputs(t *testing.T, req *ai.ModelRequest) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, m := range req.Messages {
		for _, p := range m.Content {
			if p.ToolResponse != nil {
				b, _ := json.Marshal(p.ToolResponse.Output)
				var o map[string]any
				if err := json.Unmarshal(b, &o); err != nil {
					t.Fatalf("output of %s: %v", p.ToolResponse.Ref, err)
				}
				out[p.ToolResponse.Ref] = o
			}
		}
	}
	return out
}

func TestGenerate(t *testing.T) {
	s := &script{}
	g, m, set, _ := setup(t, s, nil)
	s.turns = append(s.turns,
		// The model asks for a word the dictionary lacks and for a tool
		// that fails inside.
		func(req *ai.ModelRequest) *ai.Message {
			var names []string
			schemas := map[string]map[string]any{}
			for _, d := range req.Tools {
				names = append(names, d.Name)
				schemas[d.Name] = d.InputSchema
			}
			slices.Sort(names)
			if diff := cmp.Diff([]string{"db__query", "rocket__launch", "text__upper", "word__define"}, names); diff != "" {
				t.Errorf("tools declared to the model (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(upperInput, schemas["text__upper"]); diff != "" {
				t.Errorf("input schema of text.upper (-want +got):\n%s", diff)
			}
			for _, d := range req.Tools {
				if diff := cmp.Diff([]any{"success", "message"}, d.OutputSchema["required"]); diff != "" {
					t.Errorf("output schema of %s: required (-want +got):\n%s", d.Name, diff)
				}
				// The tool's own outputs are the schema of "outputs".
				outputs := d.OutputSchema["properties"].(map[string]any)["outputs"]
				want := map[string]any{"type": "object", "properties": map[string]any{}, "additionalProperties": false,
					"description": "The tool's outputs by name, on success."}
				if d.Name == "text__upper" || d.Name == "word__define" {
					want["properties"] = map[string]any{"result": map[string]any{"type": "string"}}
					want["required"] = []any{"result"}
				}
				if diff := cmp.Diff(want, outputs); diff != "" {
					t.Errorf("output schema of %s: outputs (-want +got):\n%s", d.Name, diff)
				}
			}
			return calls(&ai.ToolRequest{Name: "word__define", Ref: "1", Input: map[string]any{"word": "helo"}},
				&ai.ToolRequest{Name: "db__query", Ref: "2", Input: map[string]any{}})
		},
		// It reads the violations and calls again with a known word.
		func(req *ai.ModelRequest) *ai.Message {
			got := outputs(t, req)
			want := map[string]any{"success": false, "message": "Invalid input for Define: word: is not in the dictionary; it knows: hello",
				"error_type": "invalid_input", "violations": []any{map[string]any{"path": "word", "rule": "handler", "message": "is not in the dictionary; it knows: hello"}},
				"input_schema": map[string]any{"type": "object", "properties": map[string]any{"word": map[string]any{"type": "string", "pattern": nulFree}},
					"required": []any{"word"}, "additionalProperties": false}}
			if diff := cmp.Diff(want, got["1"]); diff != "" {
				t.Errorf("output for the unknown word (-want +got):\n%s", diff)
			}
			want = map[string]any{"success": false, "message": "Query failed.", "error_type": "execution_failed"}
			if diff := cmp.Diff(want, got["2"]); diff != "" {
				t.Errorf("output of the failing tool (-want +got):\n%s", diff)
			}
			return calls(&ai.ToolRequest{Name: "word__define", Ref: "3", Input: map[string]any{"word": "hello"}})
		},
		// It answers from the result.
		func(req *ai.ModelRequest) *ai.Message {
			out := outputs(t, req)["3"]
			result, _ := out["outputs"].(map[string]any)["result"].(string)
			return ai.NewModelTextMessage(result)
		},
	)
	resp, err := generate(g, m, set, ai.WithPrompt("Define hello."))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text() != "a greeting" {
		t.Errorf("answer %q, want %q", resp.Text(), "a greeting")
	}
	if len(s.sent) != 3 {
		t.Errorf("the model was called %d times, want 3", len(s.sent))
	}
	if b, _ := json.Marshal(resp.History()); strings.Contains(string(b), "password") {
		t.Errorf("the history leaks internal error text: %s", b)
	}
}

// TestGenerateRetry: arguments outside the declared schema reach the
// model as an invalid_input output with the violations and the input
// schema; it calls again and answers.
func TestGenerateRetry(t *testing.T) {
	s := &script{}
	g, m, set, _ := setup(t, s, nil)
	s.turns = append(s.turns,
		func(req *ai.ModelRequest) *ai.Message {
			return calls(&ai.ToolRequest{Name: "text__upper", Ref: "1", Input: map[string]any{"text": "far too long a text", "loud": true}})
		},
		func(req *ai.ModelRequest) *ai.Message {
			want := map[string]any{"success": false, "message": "Invalid input for Upper: text: must be at most 10 characters long; loud: is not an input of this tool",
				"error_type": "invalid_input", "violations": []any{
					map[string]any{"path": "text", "rule": "maxLength", "message": "must be at most 10 characters long", "limit": 10.0},
					map[string]any{"path": "loud", "rule": "additionalProperties", "message": "is not an input of this tool", "detail": "input"},
				},
				"input_schema": upperInput}
			if diff := cmp.Diff(want, outputs(t, req)["1"]); diff != "" {
				t.Errorf("output for the invalid input (-want +got):\n%s", diff)
			}
			return calls(&ai.ToolRequest{Name: "text__upper", Ref: "2", Input: map[string]any{"text": "hello"}})
		},
		func(req *ai.ModelRequest) *ai.Message {
			result, _ := outputs(t, req)["2"]["outputs"].(map[string]any)["result"].(string)
			return ai.NewModelTextMessage(result)
		},
	)
	resp, err := generate(g, m, set, ai.WithPrompt("Shout hello."))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text() != "HELLO" || len(s.sent) != 3 {
		t.Errorf("answer %q after %d model calls, want HELLO after 3", resp.Text(), len(s.sent))
	}
}

// TestGenerateUndeclared: a call of a tool the account may not run, or of
// one that does not exist, reaches the model as a tool_not_found output
// under the name it called; nothing runs, and the model answers.
func TestGenerateUndeclared(t *testing.T) {
	s := &script{}
	g, m, set, secretRuns := setup(t, s, nil)
	secret := &ai.ToolRequest{Name: "vault__secret", Ref: "1", Input: map[string]any{"key": "k"}}
	missing := &ai.ToolRequest{Name: "no__such", Ref: "2", Input: map[string]any{}}
	upper := &ai.ToolRequest{Name: "text__upper", Ref: "3", Input: map[string]any{"text": "hi"}}
	s.turns = append(s.turns,
		func(req *ai.ModelRequest) *ai.Message { return calls(secret, missing, upper) },
		func(req *ai.ModelRequest) *ai.Message {
			got := outputs(t, req)
			for _, call := range []*ai.ToolRequest{secret, missing} {
				want := map[string]any{"success": false, "message": "There is no tool named " + call.Name + ".", "error_type": "tool_not_found"}
				if diff := cmp.Diff(want, got[call.Ref]); diff != "" {
					t.Errorf("output for %s (-want +got):\n%s", call.Name, diff)
				}
			}
			// The model sees its own calls, and the answers under their names.
			var seen []*ai.ToolRequest
			var answered []string
			for _, msg := range req.Messages {
				for _, p := range msg.Content {
					if p.ToolRequest != nil {
						seen = append(seen, p.ToolRequest)
					}
					if p.ToolResponse != nil {
						answered = append(answered, p.ToolResponse.Ref+" "+p.ToolResponse.Name)
					}
				}
			}
			if diff := cmp.Diff([]*ai.ToolRequest{secret, missing, upper}, seen); diff != "" {
				t.Errorf("calls in the history (-want +got):\n%s", diff)
			}
			slices.Sort(answered)
			if diff := cmp.Diff([]string{"1 vault__secret", "2 no__such", "3 text__upper"}, answered); diff != "" {
				t.Errorf("answers in the history (-want +got):\n%s", diff)
			}
			return ai.NewModelTextMessage("I may not read the secret.")
		},
	)
	resp, err := generate(g, m, set, ai.WithPrompt("Read the secret."))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text() != "I may not read the secret." || len(s.sent) != 2 {
		t.Errorf("answer %q after %d model calls, want the refusal read after 2", resp.Text(), len(s.sent))
	}
	if *secretRuns != 0 {
		t.Errorf("the secret tool ran %d times", *secretRuns)
	}
	if b, _ := json.Marshal(resp.History()); strings.Contains(string(b), "toolgenkit") {
		t.Errorf("the history shows the middleware's own tool: %s", b)
	}
}

// TestUndeclaredWithoutMiddleware: without the middleware, Genkit ends
// Generate on a call of a tool it was not given.
func TestUndeclaredWithoutMiddleware(t *testing.T) {
	s := &script{}
	g, m, set, _ := setup(t, s, nil)
	s.turns = append(s.turns, func(req *ai.ModelRequest) *ai.Message {
		return calls(&ai.ToolRequest{Name: "vault__secret", Ref: "1", Input: map[string]any{}})
	})
	_, err := genkit.Generate(context.Background(), g, ai.WithModel(m), ai.WithPrompt("Go."), ai.WithTools(set.Refs()...))
	var ge *core.GenkitError
	if !errors.As(err, &ge) || ge.Status != core.NOT_FOUND {
		t.Errorf("error %v, want Genkit's NOT_FOUND", err)
	}
}

// TestConfirmInterrupt runs a tool marked Confirm: Generate is
// interrupted, and restarted to run the tool or to refuse it as a person
// decided; also with a model that leaves its responses' Request nil,
// which resp.History() reads. The value of the sensitive input is hidden
// from the person.
func TestConfirmInterrupt(t *testing.T) {
	for _, tt := range []struct {
		confirm, noRequest bool
		want               map[string]any
	}{
		{true, false, map[string]any{"success": true, "message": "Launched."}},
		{false, false, map[string]any{"success": false, "message": "Launch was not confirmed, so it did not run.", "error_type": "access_denied"}},
		{true, true, map[string]any{"success": true, "message": "Launched."}},
		{false, true, map[string]any{"success": false, "message": "Launch was not confirmed, so it did not run.", "error_type": "access_denied"}},
	} {
		s := &script{noRequest: tt.noRequest}
		g, m, set, _ := setup(t, s, nil)
		var got map[string]any
		s.turns = append(s.turns,
			func(req *ai.ModelRequest) *ai.Message {
				return calls(&ai.ToolRequest{Name: "rocket__launch", Ref: "1", Input: map[string]any{"code": "0000"}})
			},
			func(req *ai.ModelRequest) *ai.Message {
				got = outputs(t, req)["1"]
				return ai.NewModelTextMessage("Done.")
			},
		)
		resp, err := generate(g, m, set, ai.WithPrompt("Launch."))
		if err != nil {
			t.Fatal(err)
		}
		interrupts := resp.Interrupts()
		if resp.FinishReason != ai.FinishReasonInterrupted || len(interrupts) != 1 {
			t.Fatalf("finish reason %q with %d interrupts, want interrupted with 1", resp.FinishReason, len(interrupts))
		}
		info, ok := ai.InterruptAs[toolgenkit.Confirmation](interrupts[0])
		want := toolgenkit.Confirmation{Tool: "rocket__launch", Label: "Launch", Input: map[string]any{"code": "(hidden)"},
			Message: `Run Launch (rocket.launch) with {"code":"(hidden)"}?`}
		if diff := cmp.Diff(want, info); !ok || diff != "" {
			t.Errorf("interrupt metadata (-want +got):\n%s", diff)
		}
		restart := set.Decline(interrupts[0])
		if tt.confirm {
			restart = set.Confirm(interrupts[0])
		}
		resp, err = generate(g, m, set, ai.WithMessages(resp.History()...), ai.WithToolRestarts(restart))
		if err != nil {
			t.Fatal(err)
		}
		if resp.Text() != "Done." {
			t.Errorf("answer %q, want Done.", resp.Text())
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("confirm %v, no request %v: output (-want +got):\n%s", tt.confirm, tt.noRequest, diff)
		}
	}
}

// TestConfirmer runs a tool marked Confirm with a Confirmer that decides:
// Generate is not interrupted.
func TestConfirmer(t *testing.T) {
	s := &script{}
	g, m, set, _ := setup(t, s, &toolgenkit.Options{Confirmer: tool.Confirmed})
	var got map[string]any
	s.turns = append(s.turns,
		func(req *ai.ModelRequest) *ai.Message {
			return calls(&ai.ToolRequest{Name: "rocket__launch", Ref: "1", Input: map[string]any{}})
		},
		func(req *ai.ModelRequest) *ai.Message {
			got = outputs(t, req)["1"]
			return ai.NewModelTextMessage("Done.")
		},
	)
	resp, err := generate(g, m, set, ai.WithPrompt("Launch."))
	if err != nil {
		t.Fatal(err)
	}
	if resp.FinishReason == ai.FinishReasonInterrupted {
		t.Errorf("Generate was interrupted")
	}
	if diff := cmp.Diff(map[string]any{"success": true, "message": "Launched."}, got); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}

// upperInput is the input schema of text.upper.
var upperInput = map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string", "maxLength": 10.0, "pattern": nulFree}},
	"required": []any{"text"}, "additionalProperties": false}

// generate runs Generate with the scripted model m and the tools, as a
// user would: the tools and their middleware.
func generate(g *genkit.Genkit, m ai.Model, set *toolgenkit.Tools, opts ...ai.GenerateOption) (*ai.ModelResponse, error) {
	opts = append(opts, ai.WithModel(m), ai.WithTools(set.Refs()...), ai.WithMiddleware(set.Middleware()))
	return genkit.Generate(context.Background(), g, opts...)
}

// nulFree is the pattern the core puts on every string input: no NUL characters.
const nulFree = `^[^\x00]*$`
