// Package toolopenai offers the tools of a [tool.Registry] to OpenAI models
// through the official Go SDK (github.com/openai/openai-go/v3): it declares
// them as the SDK's tool parameters, for Chat Completions and for the
// Responses API, and runs the function calls a model makes, answering with
// the SDK's tool messages and function_call_output items.
//
//	tools := toolopenai.New(reg, account, nil)
//	params.Tools = tools.Chat()
//	completion, err := client.Chat.Completions.New(ctx, params)
//	msg := completion.Choices[0].Message
//	params.Messages = append(params.Messages, msg.ToParam())
//	params.Messages = append(params.Messages, tools.RunChat(ctx, msg)...)
//
// The declared tools are those the account may run, under the names
// [tool.NameOf] gives them. Every call runs through the registry's
// run path for that account (permission, validation, access checks,
// confirmation) and its answer is the JSON of a [funcall.Response]:
// {"success","message","outputs"}, and on a failure "error_type" and, when
// the arguments were wrong, "violations" and "input_schema", so that the
// model can correct them and call again. Error text from inside a tool
// never reaches the model.
//
// Neither API has a way to ask a person to approve a call: a tool marked
// Confirm runs only when [Options.Confirmer] confirms it, and is refused
// with a message saying so when there is none.
//
// Nor can a run pause: with [Options.Tasks], a tool that may run as a
// task (see package task) starts one, and its call answers at once with
// the task's handle ("task" in the response) in place of outputs. The
// tools tasks_get and tasks_cancel are then declared too, and the model
// follows the task with them, for this account's tasks only. A question
// the task asks a person is answered where the task lives: the Tool
// Explorer's task page, the command line's task answer, or an MCP client.
package toolopenai

import (
	"context"
	"encoding/json"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/toolapi/toolapi/funcall"
	"github.com/toolapi/toolapi/tool"
)

// Options configure [New]. The zero value is the default.
type Options struct {
	// Confirmer confirms each run of a tool marked Confirm, as a person
	// would. Nil means such runs are refused as access failures whose
	// message says that a person must confirm them.
	Confirmer tool.Confirmer
	// Tasks runs the tools that may run as tasks as background tasks
	// (see funcall.Toolset.WithTasks; functask.New makes one of a task
	// Manager). Nil runs every call in the request.
	Tasks funcall.Tasks
}

// Tools are the tools of a registry that one account may run, declared
// and run in the OpenAI SDK's types. They are safe for concurrent use.
type Tools struct {
	set   *funcall.Toolset
	decls []funcall.OpenAITool
}

// New returns the tools of reg that acct may run (a nil acct is
// [tool.Anonymous]). opts may be nil.
func New(reg *tool.Registry, acct tool.Account, opts *Options) *Tools {
	t := &Tools{set: funcall.New(reg, acct)}
	if opts != nil {
		t.set = t.set.WithConfirmer(opts.Confirmer).WithTasks(opts.Tasks)
	}
	decls, _ := t.set.Declarations(funcall.OpenAI) // a known format: no error
	t.decls = decls.([]funcall.OpenAITool)
	return t
}

// Chat returns the declarations of the tools for Chat Completions
// (ChatCompletionNewParams.Tools), in ID order.
func (t *Tools) Chat() []openai.ChatCompletionToolUnionParam {
	out := make([]openai.ChatCompletionToolUnionParam, 0, len(t.decls))
	for _, d := range t.decls {
		out = append(out, openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
			Name:        d.Function.Name,
			Description: param.NewOpt(d.Function.Description),
			Parameters:  schemaMap(d.Function.Parameters),
		}))
	}
	return out
}

// Responses returns the declarations of the tools for the Responses API
// (ResponseNewParams.Tools), in ID order. They are not strict: the input
// schemas use keywords outside the strict subset.
func (t *Tools) Responses() []responses.ToolUnionParam {
	out := make([]responses.ToolUnionParam, 0, len(t.decls))
	for _, d := range t.decls {
		u := responses.ToolParamOfFunction(d.Function.Name, schemaMap(d.Function.Parameters), false)
		u.OfFunction.Description = param.NewOpt(d.Function.Description)
		out = append(out, u)
	}
	return out
}

// RunChat runs the function tool calls of an assistant message, one after
// the other, and returns a tool message answering each, in the order of
// the calls. A call of a custom tool is answered as a tool not found.
// Append the message (msg.ToParam()) and then these to the conversation.
func (t *Tools) RunChat(ctx context.Context, msg openai.ChatCompletionMessage) []openai.ChatCompletionMessageParamUnion {
	out := make([]openai.ChatCompletionMessageParamUnion, 0, len(msg.ToolCalls))
	for _, call := range msg.ToolCalls {
		var resp *funcall.Response
		if call.Type == "function" {
			resp = t.Run(ctx, call.Function.Name, call.Function.Arguments)
		} else {
			resp = notFound(call.Custom.Name)
		}
		out = append(out, openai.ToolMessage(encode(resp), call.ID))
	}
	return out
}

// RunResponses runs the function calls among the output items of a
// response, one after the other, and returns a function_call_output item
// answering each, in the order of the calls. Other items are skipped.
// Append the output items (as input items) and then these to the next
// request's input, or send these alone with PreviousResponseID.
func (t *Tools) RunResponses(ctx context.Context, output []responses.ResponseOutputItemUnion) []responses.ResponseInputItemUnionParam {
	var out []responses.ResponseInputItemUnionParam
	for _, item := range output {
		if item.Type != "function_call" {
			continue
		}
		call := item.AsFunctionCall()
		u := responses.ResponseInputItemParamOfFunctionCallOutput(encode(t.Run(ctx, call.Name, call.Arguments)))
		u.OfFunctionCallOutput.CallID = param.NewOpt(call.CallID)
		out = append(out, u)
	}
	return out
}

// Run runs the tool a model called by name with JSON arguments and returns
// the response to send back.
func (t *Tools) Run(ctx context.Context, name, arguments string) *funcall.Response {
	return t.set.Dispatch(ctx, name, []byte(arguments))
}

func notFound(name string) *funcall.Response {
	return &funcall.Response{Message: "There is no tool named " + name + ".", ErrorType: funcall.ToolNotFound}
}

// encode returns the JSON of resp. A Response holds only JSON values, so
// encoding cannot fail.
func encode(resp *funcall.Response) string {
	b, err := json.Marshal(resp)
	if err != nil {
		return `{"success":false,"message":"The result could not be encoded.","error_type":"execution_failed"}`
	}
	return string(b)
}

// schemaMap returns a JSON Schema as the map the SDK declares parameters
// with.
func schemaMap(s any) map[string]any {
	b, err := json.Marshal(s)
	if err != nil {
		return map[string]any{"type": "object"}
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil || m == nil {
		return map[string]any{"type": "object"}
	}
	return m
}
