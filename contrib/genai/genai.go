// Package toolgenai offers the tools of a [tool.Registry] to Gemini models
// through the Google Gen AI Go SDK (google.golang.org/genai): it declares
// them as the SDK's function declarations and runs the function calls of a
// model's answer, answering with function responses.
//
//	tools := toolgenai.New(reg, account, nil)
//	config := &genai.GenerateContentConfig{Tools: []*genai.Tool{tools.Tool()}}
//	resp, err := client.Models.GenerateContent(ctx, model, contents, config)
//	contents = append(contents, resp.Candidates[0].Content, tools.Run(ctx, resp.FunctionCalls()))
//
// The declared tools are those the account may run, under the names
// [tool.NameOf] gives them, each with its input schema whole as
// parametersJsonSchema (JSON Schema, not the OpenAPI subset of
// "parameters"). Every call runs through the registry's run path for that
// account (permission, validation, access checks, confirmation). A function
// response carries the [funcall.Response] of the call under "output" when
// it succeeded and under "error" when it failed, as the API documents:
// {"success","message","outputs"}, and on a failure "error_type" and, when
// the arguments were wrong, "violations" and "input_schema", so that the
// model can correct them and call again. Error text from inside a tool
// never reaches the model.
//
// The API has no way to ask a person to approve a call: a tool marked
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
package toolgenai

import (
	"context"
	"encoding/json"

	"google.golang.org/genai"

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
// and run in the Gen AI SDK's types. They are safe for concurrent use.
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

// Tool returns one genai.Tool declaring every tool, in ID order.
func (t *Tools) Tool() *genai.Tool {
	d, _ := t.set.Declarations(funcall.Anthropic) // a known format: no error
	decls := d.([]funcall.AnthropicTool)          // name, description and a copy of the input schema
	out := &genai.Tool{FunctionDeclarations: make([]*genai.FunctionDeclaration, 0, len(decls))}
	for _, d := range decls {
		out.FunctionDeclarations = append(out.FunctionDeclarations, &genai.FunctionDeclaration{
			Name:                 d.Name,
			Description:          d.Description,
			ParametersJsonSchema: d.InputSchema,
		})
	}
	return out
}

// Run runs calls (a response's FunctionCalls()), one after the other, and
// returns the user content answering them: one function response part per
// call, in their order. It returns nil when there are no calls.
func (t *Tools) Run(ctx context.Context, calls []*genai.FunctionCall) *genai.Content {
	if len(calls) == 0 {
		return nil
	}
	parts := make([]*genai.Part, 0, len(calls))
	for _, c := range calls {
		parts = append(parts, &genai.Part{FunctionResponse: t.Call(ctx, c)})
	}
	return genai.NewContentFromParts(parts, genai.RoleUser)
}

// Call runs one function call and returns its function response.
func (t *Tools) Call(ctx context.Context, call *genai.FunctionCall) *genai.FunctionResponse {
	var resp *funcall.Response
	if args, err := json.Marshal(call.Args); err != nil {
		resp = &funcall.Response{Message: "The arguments are not JSON.", ErrorType: funcall.InvalidInput}
	} else {
		resp = t.set.Dispatch(ctx, call.Name, args)
	}
	key := "output"
	if !resp.Success {
		key = "error"
	}
	return &genai.FunctionResponse{ID: call.ID, Name: call.Name, Response: map[string]any{key: resp}}
}
