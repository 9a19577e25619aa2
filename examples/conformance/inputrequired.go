package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolapi/toolapi/tool"
)

// The tools of the suite's input-required-result scenarios (multi
// round-trip requests of MCP 2026-07-28). Each asks its questions with
// tool.Ask, under the keys the suite looks for, or is marked Confirm; the
// MCP server turns the questions into an input-required result with a
// signed request state, and runs the tool again, from the start, when the
// client calls back with the answers. The tools are written by hand, not
// generated, because three of them declare that they need sampling
// (tool.NeedsSampling), which sampling needs from protocol version
// 2026-07-28 on.

// inputRequiredTools returns the tools of the input-required-result
// scenarios.
func inputRequiredTools() []*tool.Tool {
	const perm = "run conformance tests"
	name := &jsonschema.Schema{
		Type:       "object",
		Properties: map[string]*jsonschema.Schema{"name": {Type: "string"}},
		Required:   []string{"name"},
	}
	color := &jsonschema.Schema{
		Type:       "object",
		Properties: map[string]*jsonschema.Schema{"color": {Type: "string"}},
		Required:   []string{"color"},
	}
	stateOK := func(context.Context, *tool.Values) (*tool.Result, error) {
		return tool.Succeeded("state-ok: requestState received and confirmation accepted", nil), nil
	}
	return []*tool.Tool{{
		ID: "test_input_required_result_elicitation", Label: "Input required: elicitation",
		Description: "Asks the caller's name (key user_name) and greets them.",
		Operation:   tool.OpRead, Permission: perm,
		Handler: func(ctx context.Context, _ *tool.Values) (*tool.Result, error) {
			a, err := tool.Ask(ctx, tool.Question{Key: "user_name", Kind: tool.AskPerson, Message: "What is your name?", Schema: name})
			if err != nil {
				return nil, err
			}
			return tool.Succeeded(fmt.Sprintf("Hello, %s!", textOf(a[0].Elicitation, "name")), nil), nil
		},
	}, {
		ID: "test_input_required_result_sampling", Label: "Input required: sampling",
		Description: "Asks the caller's model for the capital of France (key capital_question).",
		Operation:   tool.OpRead, Permission: perm, Needs: []tool.ClientFeature{tool.NeedsSampling},
		Handler: func(ctx context.Context, _ *tool.Values) (*tool.Result, error) {
			a, err := tool.Ask(ctx, tool.Question{Key: "capital_question", Kind: tool.AskModel, Prompt: "What is the capital of France?", MaxTokens: 100})
			if err != nil {
				return nil, err
			}
			return tool.Succeeded("Sampling response: "+a[0].Text, nil), nil
		},
	}, {
		ID: "test_input_required_result_list_roots", Label: "Input required: roots",
		Description: "Asks the caller for its roots (key client_roots).",
		Operation:   tool.OpRead, Permission: perm,
		Handler: func(ctx context.Context, _ *tool.Values) (*tool.Result, error) {
			a, err := tool.Ask(ctx, tool.Question{Key: "client_roots", Kind: tool.AskRoots})
			if err != nil {
				return nil, err
			}
			return tool.Succeeded(fmt.Sprintf("Client exposed %d root(s): %s", len(a[0].Roots), strings.Join(a[0].Roots, ", ")), nil), nil
		},
	}, {
		ID: "test_input_required_result_request_state", Label: "Input required: request state",
		Description: "Runs once the caller's person confirms it; the confirmation's answer comes back with the signed request state.",
		Operation:   tool.OpRead, Permission: perm, Confirm: true,
		Handler: stateOK,
	}, {
		ID: "test_input_required_result_multiple_inputs", Label: "Input required: several inputs",
		Description: "Asks the caller's person, model and roots in one round.",
		Operation:   tool.OpRead, Permission: perm, Needs: []tool.ClientFeature{tool.NeedsSampling},
		Handler: func(ctx context.Context, _ *tool.Values) (*tool.Result, error) {
			a, err := tool.Ask(ctx,
				tool.Question{Key: "user_name", Kind: tool.AskPerson, Message: "What is your name?", Schema: name},
				tool.Question{Key: "greeting", Kind: tool.AskModel, Prompt: "Generate a greeting", MaxTokens: 50},
				tool.Question{Key: "client_roots", Kind: tool.AskRoots},
			)
			if err != nil {
				return nil, err
			}
			return tool.Succeeded(fmt.Sprintf("%s %s — %d root(s) visible", a[1].Text, textOf(a[0].Elicitation, "name"), len(a[2].Roots)), nil), nil
		},
	}, {
		ID: "test_input_required_result_multi_round", Label: "Input required: two rounds",
		Description: "Asks the caller's name, then their favourite colour, one round each.",
		Operation:   tool.OpRead, Permission: perm,
		Handler: func(ctx context.Context, _ *tool.Values) (*tool.Result, error) {
			first, err := tool.Ask(ctx, tool.Question{Key: "step1", Kind: tool.AskPerson, Message: "Step 1: What is your name?", Schema: name})
			if err != nil {
				return nil, err
			}
			second, err := tool.Ask(ctx, tool.Question{Key: "step2", Kind: tool.AskPerson, Message: "Step 2: What is your favorite color?", Schema: color})
			if err != nil {
				return nil, err
			}
			return tool.Succeeded(fmt.Sprintf("Multi-round complete: %s likes %s",
				textOf(first[0].Elicitation, "name"), textOf(second[0].Elicitation, "color")), nil), nil
		},
	}, {
		ID: "test_input_required_result_tampered_state", Label: "Input required: tampered state",
		Description: "Runs once the caller's person confirms it; a request state changed by the client is refused.",
		Operation:   tool.OpRead, Permission: perm, Confirm: true,
		Handler: stateOK,
	}, {
		ID: "test_input_required_result_capabilities", Label: "Input required: capabilities",
		Description: "Asks only what the client declares it can answer: its person, then its model.",
		Operation:   tool.OpRead, Permission: perm, Needs: []tool.ClientFeature{tool.NeedsSampling},
		Handler: func(ctx context.Context, _ *tool.Values) (*tool.Result, error) {
			asked := 0
			for _, q := range []tool.Question{
				{Key: "user_name", Kind: tool.AskPerson, Message: "What is your name?", Schema: name},
				{Key: "greeting", Kind: tool.AskModel, Prompt: "Generate a short greeting", MaxTokens: 50},
			} {
				_, err := tool.Ask(ctx, q)
				if errors.Is(err, tool.ErrUnsupported) {
					continue
				}
				if err != nil {
					return nil, err
				}
				asked++
			}
			return tool.Succeeded(fmt.Sprintf("Capability-aware input requests fulfilled (%d)", asked), nil), nil
		},
	}}
}

// textOf returns the string the person gave for key, or "unknown".
func textOf(el *tool.Elicitation, key string) string {
	if el != nil && el.Action == "accept" {
		if s, _ := el.Content[key].(string); s != "" {
			return s
		}
	}
	return "unknown"
}

// addInputRequiredPrompt adds test_input_required_result_prompt, a prompt
// of the application's own that asks its person for context through a
// multi round-trip request, as the SDK lets any prompt do.
func addInputRequiredPrompt(s *mcp.Server) {
	s.AddPrompt(&mcp.Prompt{
		Name: "test_input_required_result_prompt", Description: "Asks the caller's person for context before it is given",
	}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		if r, ok := req.Params.InputResponses["user_context"].(*mcp.ElicitResult); ok && r.Action == "accept" {
			if text, _ := r.Content["context"].(string); text != "" {
				return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{
					Role: "user", Content: &mcp.TextContent{Text: "Context: " + text},
				}}}, nil
			}
		}
		return &mcp.GetPromptResult{InputRequests: mcp.InputRequestMap{
			"user_context": &mcp.ElicitParams{
				Message: "What context should the prompt use?",
				RequestedSchema: &jsonschema.Schema{
					Type:       "object",
					Properties: map[string]*jsonschema.Schema{"context": {Type: "string"}},
					Required:   []string{"context"},
				},
			},
		}}, nil
	})
}
