// Package toolanthropic offers the tools of a [tool.Registry] to Claude
// models through the official Go SDK (github.com/anthropics/anthropic-sdk-go):
// it declares them as the SDK's tool parameters and runs the tool_use
// blocks of a model's message, answering with tool_result blocks.
//
//	tools := toolanthropic.New(reg, account, nil)
//	params.Tools = tools.Declarations()
//	msg, err := client.Messages.New(ctx, params)
//	params.Messages = append(params.Messages, msg.ToParam())
//	params.Messages = append(params.Messages, anthropic.NewUserMessage(tools.Run(ctx, msg.Content)...))
//
// The declared tools are those the account may run, under the names
// [tool.NameOf] gives them. Every call runs through the registry's
// run path for that account (permission, validation, access checks,
// confirmation). A tool_result holds the JSON of a [funcall.Response]:
// {"success","message","outputs"}, and on a failure "error_type" and, when
// the input was wrong, "violations" and "input_schema", so that the model
// can correct it and call again; a failed call's tool_result is marked
// is_error. Error text from inside a tool never reaches the model.
//
// The Messages API has no way to ask a person to approve a call: a tool
// marked Confirm runs only when [Options.Confirmer] confirms it, and is
// refused with a message saying so when there is none.
//
// Nor can a run pause: with [Options.Tasks], a tool that may run as a
// task (see package task) starts one, and its call answers at once with
// the task's handle ("task" in the response) in place of outputs. The
// tools tasks_get and tasks_cancel are then declared too, and the model
// follows the task with them, for this account's tasks only. A question
// the task asks a person is answered where the task lives: the Tool
// Explorer's task page, the command line's task answer, or an MCP client.
package toolanthropic

import (
	"context"
	"encoding/json"

	"github.com/anthropics/anthropic-sdk-go"

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
// and run in the Anthropic SDK's types. They are safe for concurrent use.
type Tools struct {
	set *funcall.Toolset
}

// New returns the tools of reg that acct may run (a nil acct is
// [tool.Anonymous]). opts may be nil.
func New(reg *tool.Registry, acct tool.Account, opts *Options) *Tools {
	t := &Tools{set: funcall.New(reg, acct)}
	if opts != nil {
		t.set = t.set.WithConfirmer(opts.Confirmer).WithTasks(opts.Tasks)
	}
	return t
}

// Declarations returns the declarations of the tools
// (MessageNewParams.Tools), in ID order.
func (t *Tools) Declarations() []anthropic.ToolUnionParam {
	d, _ := t.set.Declarations(funcall.Anthropic) // a known format: no error
	decls := d.([]funcall.AnthropicTool)
	out := make([]anthropic.ToolUnionParam, 0, len(decls))
	for _, d := range decls {
		u := anthropic.ToolUnionParamOfTool(inputSchema(d.InputSchema), d.Name)
		u.OfTool.Description = anthropic.String(d.Description)
		out = append(out, u)
	}
	return out
}

// Run runs the tool_use blocks among content (a model's message content),
// one after the other, and returns a tool_result block answering each, in
// their order; other blocks are skipped. Send them back in one user
// message after the model's message.
func (t *Tools) Run(ctx context.Context, content []anthropic.ContentBlockUnion) []anthropic.ContentBlockParamUnion {
	var out []anthropic.ContentBlockParamUnion
	for _, block := range content {
		if block.Type != "tool_use" {
			continue
		}
		use := block.AsToolUse()
		resp := t.Call(ctx, use.Name, use.Input)
		out = append(out, anthropic.NewToolResultBlock(use.ID, encode(resp), !resp.Success))
	}
	return out
}

// Call runs the tool a model called by name with a JSON input and returns
// the response to send back.
func (t *Tools) Call(ctx context.Context, name string, input json.RawMessage) *funcall.Response {
	return t.set.Dispatch(ctx, name, input)
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

// inputSchema returns a JSON Schema object as the SDK's input schema:
// properties and required in their fields, every other keyword but type
// among the extra fields.
func inputSchema(s any) anthropic.ToolInputSchemaParam {
	var m map[string]any
	if b, err := json.Marshal(s); err == nil {
		json.Unmarshal(b, &m)
	}
	p := anthropic.ToolInputSchemaParam{Properties: map[string]any{}}
	for k, v := range m {
		switch k {
		case "type":
		case "properties":
			p.Properties = v
		case "required":
			for _, r := range v.([]any) {
				p.Required = append(p.Required, r.(string))
			}
		default:
			if p.ExtraFields == nil {
				p.ExtraFields = map[string]any{}
			}
			p.ExtraFields[k] = v
		}
	}
	return p
}
