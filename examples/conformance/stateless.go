package main

import (
	"context"
	"errors"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolapi/toolapi/tool"
)

// The tools of the suite's server-stateless scenario (MCP 2026-07-28
// without sessions). Each shows a rule the MCP server keeps for every
// tool, not one the tool keeps itself:
//
//   - test_missing_capability declares that it needs sampling, so a client
//     that does not offer sampling is refused (MissingRequiredClientCapability,
//     -32021) before the tool runs;
//   - test_streaming_elicitation asks the caller's person a question, which
//     reaches a client of 2026-07-28 as an input-required result, never as
//     a request of its own on the response stream;
//   - test_logging_tool logs, and the log reaches only a client that asked
//     for logs (a log level in the request's _meta);
//   - test_trigger_tool_change and test_trigger_prompt_change change the
//     list of tools and of prompts, which the clients listening for the
//     change (subscriptions/listen) are told of.
//
// The two triggers add a spare tool or prompt when it is absent and remove
// it when it is present, so that any number of calls changes the list
// each time and never grows it past one more entry.

// spareToolID and sparePrompt are what the triggers add and remove.
const (
	spareToolID = "test_spare_tool"
	sparePrompt = "test_spare_prompt"
)

// statelessTools returns the tools of the server-stateless scenario; the
// triggers change reg's tools and the prompts of the SDK server that
// prompts returns (set once the server exists).
func statelessTools(reg *tool.Registry, prompts func() *mcp.Server) []*tool.Tool {
	const perm = "run conformance tests"
	var (
		mu          sync.Mutex // one change of a list at a time
		promptAdded bool       // whether the spare prompt is there
	)
	return []*tool.Tool{{
		ID: "test_missing_capability", Label: "Needs sampling",
		Description: "Asks the caller's model a question; refused to a client that does not offer sampling.",
		Operation:   tool.OpRead, Permission: perm, Needs: []tool.ClientFeature{tool.NeedsSampling},
		Handler: func(ctx context.Context, _ *tool.Values) (*tool.Result, error) {
			text, err := tool.Sample(ctx, "Say hello.", 20)
			if err != nil {
				return nil, err
			}
			return tool.Succeeded("Sampling response: "+text, nil), nil
		},
	}, {
		ID: "test_streaming_elicitation", Label: "Asks a person",
		Description: "Asks the caller's person for a name (key name) and greets them.",
		Operation:   tool.OpRead, Permission: perm,
		Handler: func(ctx context.Context, _ *tool.Values) (*tool.Result, error) {
			el, err := tool.Elicit(ctx, "What is your name?", &jsonschema.Schema{
				Type:       "object",
				Properties: map[string]*jsonschema.Schema{"name": {Type: "string"}},
				Required:   []string{"name"},
			})
			if err != nil {
				return nil, err
			}
			return tool.Succeeded("Hello, "+textOf(el, "name")+"!", nil), nil
		},
	}, {
		ID: "test_logging_tool", Label: "Logs",
		Description: "Logs a message at level info, which reaches only a client that asked for logs.",
		Operation:   tool.OpRead, Permission: perm,
		Handler: func(ctx context.Context, _ *tool.Values) (*tool.Result, error) {
			tool.Log(ctx, "info", "test_logging_tool ran")
			return tool.Succeeded("logged at level info", nil), nil
		},
	}, {
		ID: "test_trigger_tool_change", Label: "Change the tools",
		Description: "Adds the spare tool test_spare_tool, or removes it when it is there, which changes the list of tools.",
		Operation:   tool.OpWrite, Permission: perm,
		Handler: func(context.Context, *tool.Values) (*tool.Result, error) {
			mu.Lock()
			defer mu.Unlock()
			if reg.Remove(spareToolID) {
				return tool.Succeeded("removed "+spareToolID, nil), nil
			}
			if err := reg.Add(spareTool()); err != nil {
				return nil, errors.Join(errors.New("adding the spare tool"), err)
			}
			return tool.Succeeded("added "+spareToolID, nil), nil
		},
	}, {
		ID: "test_trigger_prompt_change", Label: "Change the prompts",
		Description: "Adds the spare prompt test_spare_prompt, or removes it when it is there, which changes the list of prompts.",
		Operation:   tool.OpWrite, Permission: perm,
		Handler: func(context.Context, *tool.Values) (*tool.Result, error) {
			mu.Lock()
			defer mu.Unlock()
			s := prompts()
			if promptAdded {
				s.RemovePrompts(sparePrompt)
				promptAdded = false
				return tool.Succeeded("removed "+sparePrompt, nil), nil
			}
			promptAdded = true
			s.AddPrompt(&mcp.Prompt{Name: sparePrompt, Description: "A prompt test_trigger_prompt_change adds and removes"},
				func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
					return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{
						Role: "user", Content: &mcp.TextContent{Text: "A spare prompt."},
					}}}, nil
				})
			return tool.Succeeded("added "+sparePrompt, nil), nil
		},
	}}
}

// spareTool is the tool test_trigger_tool_change adds.
func spareTool() *tool.Tool {
	return &tool.Tool{
		ID: spareToolID, Label: "Spare tool",
		Description: "A tool test_trigger_tool_change adds and removes; it does nothing.",
		Operation:   tool.OpRead, Permission: "run conformance tests",
		Handler: func(context.Context, *tool.Values) (*tool.Result, error) {
			return tool.Succeeded("", nil), nil
		},
	}
}
