package all_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	einotool "github.com/cloudwego/eino/components/tool"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"

	toolanthropic "github.com/toolapi/toolapi/contrib/anthropic"
	tooleino "github.com/toolapi/toolapi/contrib/eino"
	toolgenai "github.com/toolapi/toolapi/contrib/genai"
	toolgenkit "github.com/toolapi/toolapi/contrib/genkit"
	toollangchaingo "github.com/toolapi/toolapi/contrib/langchaingo"
	toolopenai "github.com/toolapi/toolapi/contrib/openai"
	"github.com/toolapi/toolapi/funcall"
	"github.com/toolapi/toolapi/tool"
)

var agent = &tool.User{ID: "agent", Permissions: []string{"use tools"}}

// newRegistry returns a registry of a tool that upper-cases a text and
// one that a person must confirm.
func newRegistry(t *testing.T) *tool.Registry {
	t.Helper()
	reg := tool.NewRegistry(nil)
	err := reg.Add(
		&tool.Tool{
			ID: "text.upper", Label: "Upper", Description: "Upper-cases a text.",
			Operation: tool.OpTransform, Permission: "use tools",
			Inputs:  []*tool.Definition{{Name: "text", Type: "string", Required: true}},
			Outputs: []*tool.Definition{{Name: "result", Type: "string", Required: true}},
			Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
				return tool.Succeeded("", map[string]any{"result": strings.ToUpper(in.String("text"))}), nil
			},
		},
		&tool.Tool{
			ID: "rocket.launch", Label: "Launch", Description: "Launches the rocket.",
			Operation: tool.OpTrigger, Permission: "use tools", Confirm: true,
			Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
				return tool.Succeeded("Launched.", nil), nil
			},
		},
	)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// adapters runs a call of the tool named name with the JSON arguments args
// through each adapter, with the Confirmer c, and returns each answer as
// decoded JSON.
func adapters(t *testing.T, reg *tool.Registry, c tool.Confirmer, name, args string) map[string]any {
	t.Helper()
	ctx := context.Background()
	out := map[string]any{}
	decode := func(adapter string, v any) {
		b, err := json.Marshal(v)
		if s, ok := v.(string); ok {
			b, err = []byte(s), nil
		}
		var m any
		if err == nil {
			err = json.Unmarshal(b, &m)
		}
		if err != nil {
			t.Fatalf("%s answered %v: %v", adapter, v, err)
		}
		out[adapter] = m
	}

	decode("openai", toolopenai.New(reg, agent, &toolopenai.Options{Confirmer: c}).Run(ctx, name, args))
	decode("anthropic", toolanthropic.New(reg, agent, &toolanthropic.Options{Confirmer: c}).Call(ctx, name, json.RawMessage(args)))

	var gargs map[string]any
	if err := json.Unmarshal([]byte(args), &gargs); err != nil {
		t.Fatal(err)
	}
	fr := toolgenai.New(reg, agent, &toolgenai.Options{Confirmer: c}).Call(ctx, &genai.FunctionCall{Name: name, Args: gargs})
	for _, v := range fr.Response { // "output" or "error"
		decode("genai", v)
	}

	for _, tl := range toollangchaingo.New(reg, agent, &toollangchaingo.Options{Confirmer: c}).Tools() {
		if tl.Name() == name {
			s, err := tl.Call(ctx, args)
			if err != nil {
				t.Fatalf("langchaingo: %v", err)
			}
			decode("langchaingo", s)
		}
	}

	for _, tl := range tooleino.New(reg, agent, &tooleino.Options{Confirmer: c}).Tools() {
		if info, _ := tl.Info(ctx); info.Name == name {
			s, err := tl.(einotool.InvokableTool).InvokableRun(ctx, args)
			if err != nil {
				t.Fatalf("eino: %v", err)
			}
			decode("eino", s)
		}
	}

	for _, tl := range toolgenkit.New(reg, agent, &toolgenkit.Options{Confirmer: c}).Tools() {
		if tl.Name() == name {
			r, err := tl.RunRaw(ctx, gargs)
			if err != nil {
				t.Fatalf("genkit: %v", err)
			}
			decode("genkit", r)
		}
	}
	return out
}

// TestAllAdapters runs one tool through each of the six adapters, built
// together in this module, and finds the same answer from each.
func TestAllAdapters(t *testing.T) {
	reg := newRegistry(t)
	for _, tt := range []struct {
		what string
		c    tool.Confirmer
		name string
		args string
		want map[string]any
	}{
		{"a tool", nil, "text__upper", `{"text":"hello"}`,
			map[string]any{"success": true, "message": "Upper completed.", "outputs": map[string]any{"result": "HELLO"}}},
		{"a confirmed tool", funcall.Answer(true), "rocket__launch", `{}`,
			map[string]any{"success": true, "message": "Launched."}},
		{"a refused tool", funcall.Answer(false), "rocket__launch", `{}`,
			map[string]any{"success": false, "message": "Launch was not confirmed, so it did not run.", "error_type": "access_denied"}},
	} {
		got := adapters(t, reg, tt.c, tt.name, tt.args)
		want := map[string]any{}
		for _, a := range []string{"openai", "anthropic", "genai", "langchaingo", "eino", "genkit"} {
			want[a] = tt.want
		}
		// All but Genkit, whose output schema leaves out an empty
		// outputs, answer a success with outputs, {} when there are none.
		if tt.want["success"] == true && tt.want["outputs"] == nil {
			for _, a := range []string{"openai", "anthropic", "genai", "langchaingo", "eino"} {
				w := map[string]any{"outputs": map[string]any{}}
				for k, v := range tt.want {
					w[k] = v
				}
				want[a] = w
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: answers by adapter (-want +got):\n%s", tt.what, diff)
		}
	}
}
