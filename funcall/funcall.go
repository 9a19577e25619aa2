// Package funcall offers the tools of a [tool.Registry] to language models
// through function calling, declared the way each model API takes them,
// and runs the calls a model makes.
//
//	set := funcall.New(reg, account)
//	decls, _ := set.Declarations(funcall.OpenAI)
//	body := map[string]any{"model": "...", "tools": decls, ...}
//	// ... the model answers with a tool call: a name and JSON arguments ...
//	resp := set.Dispatch(ctx, call.Name, []byte(call.Arguments))
//	// send resp (JSON) back to the model as the tool's result
//
// A [Toolset] holds the tools the account may call when it is made, under
// their names ([tool.NameOf]), which every model API accepts: letters,
// digits, "_" and "-", at most 64 characters, a letter or "_" first
// ("album.search" is "album__search"). A name is its ID's alone: the same
// for every account, process and version of an application, and the same
// that MCP lists. A call names its tool by its name or its ID, found with
// [tool.Registry.ToolByName]; a tool the Toolset does not hold, or that the
// account may no longer call, is answered exactly as one that does not
// exist.
//
// [Toolset.Declarations] writes the declarations in each [Format]: OpenAI's
// Chat Completions and Responses forms, plain or strict, Anthropic's, plain
// or strict, and Gemini's. The strict and Gemini formats rewrite the input
// schemas into the subset of JSON Schema their API takes, saying in each
// description what the subset cannot (examples, media types, lengths), and
// [Toolset.DispatchFormat] and [Toolset.DispatchCall] map the arguments a
// model sends in such a format back before the run: a strict null for an
// optional input is its absence, and Gemini's JSON text of a map or of a
// value of any type is decoded. A deprecated tool's description starts
// with "Deprecated: " and its note ([tool.Tool.AdvertisedDescription]);
// that of a tool whose every call runs as a background task
// ([tool.TaskRequired]) ends with [TaskNote].
//
// Every call runs through [tool.Registry.RunJSON] for the Toolset's
// account, which validates the arguments against the tool's own
// definitions, whatever the format. Its [Response] is
// {"success","message","outputs"}; a failure adds "error_type" and, when
// the arguments were wrong, "violations" and "input_schema", so that the
// model can correct them. Each violation has its "path", its "rule" (a
// stable key such as "required" or "maximum", see [tool.Violation]) with
// the rule's datum ("limit", "choices", "detail") and its "message".
package funcall

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/toolapi/toolapi/internal/dialect"
	"github.com/toolapi/toolapi/tool"
)

// A Toolset is the tools an account may call, under the names a model
// calls them by. It is safe for concurrent use.
type Toolset struct {
	reg   *tool.Registry
	acct  tool.Account
	tools []*tool.Tool    // by ID
	decl  []*tool.Tool    // the tools declared, by ID: tools unless Declare chose
	held  map[string]bool // the IDs of tools

	confirmer  tool.Confirmer   // see WithConfirmer
	narrowings []tool.Narrowing // see Narrowed
	tasks      Tasks            // see WithTasks
	secrets    tool.SecretAsker // see WithSecrets
}

// New returns the Toolset of the tools of reg that acct may call.
func New(reg *tool.Registry, acct tool.Account) *Toolset {
	if acct == nil {
		acct = tool.Anonymous
	}
	s := &Toolset{reg: reg, acct: acct, held: make(map[string]bool)}
	s.tools = reg.List(&tool.Filter{Account: acct})
	for _, t := range s.tools {
		s.held[t.ID] = true
	}
	s.decl = s.tools
	return s
}

// Declare returns a Toolset that declares only the tools keep chooses
// (a core set and the search tool of package toolsearch, say, so that a
// catalog of thousands fits in a model's context) and dispatches every
// tool of s, so a model can call a tool it found by searching.
func (s *Toolset) Declare(keep func(t *tool.Tool) bool) *Toolset {
	out := *s
	out.decl = nil
	for _, t := range s.tools {
		if keep(t) {
			out.decl = append(out.decl, t)
		}
	}
	return &out
}

// Name returns the name the tool with the given ID is declared under
// ([tool.NameOf]), or "" when the Toolset does not hold it.
func (s *Toolset) Name(id string) string {
	if !s.held[id] {
		return ""
	}
	return tool.NameOf(id)
}

// ID returns the ID of the tool declared under name, or "". A tool's ID
// itself is accepted as a name too.
func (s *Toolset) ID(name string) string {
	if t := s.lookUp(name); t != nil {
		return t.ID
	}
	return ""
}

// lookUp returns the tool a call names, by its name or its ID, when the
// Toolset holds it and the account may still call it; nil otherwise.
func (s *Toolset) lookUp(name string) *tool.Tool {
	t, ok := s.reg.ToolByName(name)
	if !ok || !s.held[t.ID] || !t.Allowed(s.acct) || s.isTaskFunction(t.ID) {
		return nil
	}
	return t
}

// notFound is the response to a call of a tool the Toolset does not hold,
// or the account may not call: the same for both.
func notFound(name string) *Response {
	return &Response{Message: "There is no tool named " + name + ".", ErrorType: ToolNotFound}
}

// A Format is a way a model API declares tools, the form [Toolset.Declarations]
// writes and [Toolset.DispatchCall] reads.
type Format string

// The formats.
const (
	// OpenAI is the Chat Completions API's: {"type":"function","function":{...}},
	// the parameters as the input schema.
	OpenAI Format = "openai"
	// OpenAIStrict is OpenAI with strict mode (Structured Outputs): every
	// property required, an optional one as a union with null,
	// additionalProperties false on every object, and the keywords outside
	// the strict subset said in the description. A tool that cannot be
	// expressed so (a map without declared properties, a value of any
	// type, objects nested more than 10 deep, more than 5000 properties)
	// keeps its schema and "strict": false.
	OpenAIStrict Format = "openai-strict"
	// OpenAIResponses is the Responses API's flat form:
	// {"type":"function","name",...,"strict":false}.
	OpenAIResponses Format = "openai-responses"
	// OpenAIResponsesStrict is OpenAIResponses with strict mode, as
	// OpenAIStrict.
	OpenAIResponsesStrict Format = "openai-responses-strict"
	// Anthropic is the Messages API's: {"name","description","input_schema"}.
	Anthropic Format = "anthropic"
	// AnthropicStrict is Anthropic with strict tool use: additionalProperties
	// false on every object and the keywords outside its supported subset
	// said in the description. A tool that cannot be expressed so is
	// declared without "strict".
	AnthropicStrict Format = "anthropic-strict"
	// Gemini is the Gemini API's function declarations
	// ({"name","description","parameters"}, under a tool's
	// "functionDeclarations"), their parameters in the OpenAPI 3.0 subset
	// Gemini takes: one type plus nullable, no additionalProperties,
	// examples, contentEncoding, contentMediaType, not or $schema, their
	// meaning said in the description. A map without declared properties,
	// and a value of any type, are declared as a string holding their JSON,
	// which [Toolset.DispatchFormat] decodes; a tool without inputs declares
	// no parameters.
	Gemini Format = "gemini"
)

// Formats lists every format.
func Formats() []Format {
	return []Format{OpenAI, OpenAIStrict, OpenAIResponses, OpenAIResponsesStrict, Anthropic, AnthropicStrict, Gemini}
}

// dialect is f's schema dialect, 0 for JSON Schema as it is.
func (f Format) dialect() dialect.Dialect {
	switch f {
	case OpenAIStrict, OpenAIResponsesStrict:
		return dialect.OpenAIStrict
	case AnthropicStrict:
		return dialect.AnthropicStrict
	case Gemini:
		return dialect.Gemini
	}
	return 0
}

// An OpenAITool declares a tool in OpenAI's Chat Completions format.
type OpenAITool struct {
	Type     string         `json:"type"` // "function"
	Function OpenAIFunction `json:"function"`
}

// An OpenAIFunction is the function of an [OpenAITool].
type OpenAIFunction struct {
	Name        string             `json:"name"`
	Description string             `json:"description"`
	Parameters  *jsonschema.Schema `json:"parameters"`
	// Strict is set in the strict format ([OpenAIStrict]) only.
	Strict *bool `json:"strict,omitempty"`
}

// An OpenAIResponsesTool declares a tool in OpenAI's Responses format.
type OpenAIResponsesTool struct {
	Type        string             `json:"type"` // "function"
	Name        string             `json:"name"`
	Description string             `json:"description"`
	Parameters  *jsonschema.Schema `json:"parameters"`
	// Strict is always written: the Responses API takes a missing one as
	// true.
	Strict bool `json:"strict"`
}

// An AnthropicTool declares a tool in Anthropic's tool-use format.
type AnthropicTool struct {
	Name        string             `json:"name"`
	Description string             `json:"description"`
	InputSchema *jsonschema.Schema `json:"input_schema"`
	// Strict asks for strict tool use ([AnthropicStrict]).
	Strict bool `json:"strict,omitempty"`
}

// A GeminiFunction declares a tool as a Gemini function declaration.
type GeminiFunction struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Parameters is nil for a tool without inputs.
	Parameters *jsonschema.Schema `json:"parameters,omitempty"`
}

// Declarations returns the declarations of the Toolset's tools in format
// f, in ID order: a []OpenAITool, []OpenAIResponsesTool, []AnthropicTool or
// []GeminiFunction. An unknown format is an error.
func (s *Toolset) Declarations(f Format) (any, error) {
	switch f {
	case OpenAI:
		return s.withTaskDeclarations(f, s.openAI()), nil
	case OpenAIStrict:
		return s.withTaskDeclarations(f, s.openAIStrict()), nil
	case OpenAIResponses:
		return s.withTaskDeclarations(f, s.openAIResponses(false)), nil
	case OpenAIResponsesStrict:
		return s.withTaskDeclarations(f, s.openAIResponses(true)), nil
	case Anthropic:
		return s.withTaskDeclarations(f, s.anthropic()), nil
	case AnthropicStrict:
		return s.withTaskDeclarations(f, s.anthropicStrict()), nil
	case Gemini:
		return s.withTaskDeclarations(f, s.gemini()), nil
	}
	return nil, fmt.Errorf("unknown format %q: want one of %s", f, formatList())
}

func formatList() string {
	var b strings.Builder
	for i, f := range Formats() {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(string(f))
	}
	return b.String()
}

// openAI returns the declarations of the Toolset's tools for OpenAI's Chat
// Completions API, in ID order. Each holds its own copy of the input
// schema.
func (s *Toolset) openAI() []OpenAITool {
	out := make([]OpenAITool, 0, len(s.decl))
	for _, t := range s.decl {
		out = append(out, OpenAITool{Type: "function", Function: OpenAIFunction{
			Name: tool.NameOf(t.ID), Description: description(t), Parameters: s.inputSchema(t),
		}})
	}
	return out
}

// openAIStrict returns the declarations of [OpenAIStrict], in ID order.
func (s *Toolset) openAIStrict() []OpenAITool {
	out := make([]OpenAITool, 0, len(s.decl))
	for _, t := range s.decl {
		params, strict := s.converted(t, dialect.OpenAIStrict)
		out = append(out, OpenAITool{Type: "function", Function: OpenAIFunction{
			Name: tool.NameOf(t.ID), Description: description(t), Parameters: params, Strict: &strict,
		}})
	}
	return out
}

// openAIResponses returns the declarations of the Toolset's tools for
// OpenAI's Responses API, strict ([OpenAIResponsesStrict]) or not, in ID
// order.
func (s *Toolset) openAIResponses(strict bool) []OpenAIResponsesTool {
	out := make([]OpenAIResponsesTool, 0, len(s.decl))
	for _, t := range s.decl {
		params, ok := s.inputSchema(t), false
		if strict {
			params, ok = s.converted(t, dialect.OpenAIStrict)
		}
		out = append(out, OpenAIResponsesTool{
			Type: "function", Name: tool.NameOf(t.ID), Description: description(t), Parameters: params, Strict: ok,
		})
	}
	return out
}

// anthropic returns the declarations of the Toolset's tools for Anthropic,
// in ID order. Each holds its own copy of the input schema.
func (s *Toolset) anthropic() []AnthropicTool {
	out := make([]AnthropicTool, 0, len(s.decl))
	for _, t := range s.decl {
		out = append(out, AnthropicTool{Name: tool.NameOf(t.ID), Description: description(t), InputSchema: s.inputSchema(t)})
	}
	return out
}

// anthropicStrict returns the declarations of [AnthropicStrict], in ID
// order.
func (s *Toolset) anthropicStrict() []AnthropicTool {
	out := make([]AnthropicTool, 0, len(s.decl))
	for _, t := range s.decl {
		params, strict := s.converted(t, dialect.AnthropicStrict)
		out = append(out, AnthropicTool{Name: tool.NameOf(t.ID), Description: description(t), InputSchema: params, Strict: strict})
	}
	return out
}

// gemini returns the declarations of [Gemini], in ID order.
func (s *Toolset) gemini() []GeminiFunction {
	out := make([]GeminiFunction, 0, len(s.decl))
	for _, t := range s.decl {
		params, _ := s.converted(t, dialect.Gemini)
		out = append(out, GeminiFunction{Name: tool.NameOf(t.ID), Description: description(t), Parameters: params})
	}
	return out
}

// TaskNote ends the description of a tool whose every call runs as a
// background task ([tool.TaskRequired]).
const TaskNote = "Runs as a background task: the call returns a task handle."

// description returns t's description as the declarations give it: its
// advertised description ([tool.Tool.AdvertisedDescription]), and
// [TaskNote] for a tool whose calls all run as tasks.
func description(t *tool.Tool) string {
	d := t.AdvertisedDescription()
	if t.Task == tool.TaskRequired {
		d = strings.TrimRight(d, " \n") + "\n\n" + TaskNote
	}
	return d
}

func (s *Toolset) inputSchema(t *tool.Tool) *jsonschema.Schema {
	if info := s.reg.Describe(t.ID); info != nil && info.InputSchema != nil {
		sch := info.InputSchema.CloneSchemas()
		if s.secrets != nil {
			tool.LeaveSecretsOut(sch, t)
		}
		return sch
	}
	return &jsonschema.Schema{Type: "object"}
}

// converted returns t's input schema in dialect d, and whether d could
// express it; when it could not, the schema as it is. Gemini expresses
// every schema, and a tool without inputs has nil parameters there.
func (s *Toolset) converted(t *tool.Tool, d dialect.Dialect) (*jsonschema.Schema, bool) {
	plain := s.inputSchema(t)
	b, err := json.Marshal(plain)
	if err != nil {
		return plain, false
	}
	m, err := dialect.Decode(b)
	if err != nil {
		return plain, false
	}
	c, err := dialect.Convert(m, d)
	if err != nil {
		return plain, false
	}
	if c == nil {
		return nil, true
	}
	b, err = json.Marshal(c)
	if err != nil {
		return plain, false
	}
	out := new(jsonschema.Schema)
	if err := json.Unmarshal(b, out); err != nil {
		return plain, false
	}
	return out, true
}

// A Response is the result of a tool call, to send back to the model as
// JSON.
type Response struct {
	// Success reports whether the tool ran and succeeded.
	Success bool `json:"success"`
	// Message is a sentence about the outcome.
	Message string `json:"message"`
	// Outputs holds the tool's outputs by name: always present on success
	// ({} when the tool has none), and on a failure that carries some.
	Outputs map[string]any `json:"outputs,omitzero"`
	// ErrorType is set on failure: tool_not_found, invalid_input,
	// access_denied or execution_failed.
	ErrorType string `json:"error_type,omitempty"`
	// Violations lists what was wrong with the arguments of an
	// invalid_input failure.
	Violations []tool.Violation `json:"violations,omitempty"`
	// InputSchema is the tool's input schema, on an invalid_input failure.
	InputSchema *jsonschema.Schema `json:"input_schema,omitempty"`
	// Task is the task a call of a tool that runs as a task started, or
	// the task tasks_get or tasks_cancel was asked about (see
	// [Toolset.WithTasks]); nil otherwise.
	Task *TaskHandle `json:"task,omitempty"`
	// Secret, on an invalid_input failure of a call that left out
	// sensitive inputs the Toolset collects out of band
	// ([Toolset.WithSecrets]), says where the person enters them; the
	// model shows the link, and calls again with the same arguments once
	// the person has.
	Secret *tool.SecretLink `json:"secret,omitempty"`
}

// The error types of a failed [Response].
const (
	ToolNotFound    = "tool_not_found"
	InvalidInput    = "invalid_input"
	AccessDenied    = "access_denied"
	ExecutionFailed = "execution_failed"
)

// Dispatch runs the tool a model called by name with arguments (a JSON
// object; empty means none) for the Toolset's account, and returns the
// response to send back. A tool that needs confirmation runs only when the
// Toolset's Confirmer ([Toolset.WithConfirmer]), or else one ctx carries
// (see [tool.WithConfirmer]), confirms it.
// A panic in the run (the registry recovers and logs it) is an
// execution_failed response whose message does not carry it.
func (s *Toolset) Dispatch(ctx context.Context, name string, arguments []byte) *Response {
	if s.isTaskFunction(name) {
		return s.taskCall(ctx, name, arguments)
	}
	t := s.lookUp(name)
	if t == nil {
		return notFound(name)
	}
	return s.dispatch(ctx, t, name, arguments)
}

// dispatch runs t, which a call named name, with arguments; as a task
// when the Toolset has tasks and t may run as one.
func (s *Toolset) dispatch(ctx context.Context, t *tool.Tool, name string, arguments []byte) *Response {
	if s.tasks != nil && t.Task != tool.TaskNever {
		return s.startTask(ctx, t, name, arguments)
	}
	res, err := s.reg.RunJSON(tool.WithCaller(s.runContext(ctx), tool.Caller{Channel: tool.ChannelFuncall}), t.ID, arguments)
	if errors.Is(err, tool.ErrNotFound) || res == nil {
		return notFound(name) // removed from the registry since
	}
	return s.response(t, res)
}

// response is the response of res, a Result of t.
func (s *Toolset) response(t *tool.Tool, res *tool.Result) *Response {
	r := &Response{Success: res.Success, Message: res.Message, Outputs: res.Outputs}
	if res.Success {
		if r.Outputs == nil {
			r.Outputs = map[string]any{}
		}
		return r
	}
	switch res.Failure {
	case tool.FailureInput:
		r.ErrorType = InvalidInput
		r.Violations = res.Violations
		r.Secret = res.Secret
		r.InputSchema = s.inputSchema(t)
	case tool.FailureAccess:
		r.ErrorType = AccessDenied
	default:
		r.ErrorType = ExecutionFailed
	}
	return r
}

// DispatchFormat is [Toolset.Dispatch] for a model the tools were declared
// to in format f: it first maps the arguments back to what the input
// schema accepts. In the strict formats a null for an optional input means
// the input is absent; in [Gemini], the JSON text of a map without declared
// properties or of a value of any type is decoded. Arguments that are not
// a JSON object are passed on as they are, for the run path to refuse.
func (s *Toolset) DispatchFormat(ctx context.Context, f Format, name string, arguments []byte) *Response {
	if s.isTaskFunction(name) {
		return s.taskCall(ctx, name, arguments)
	}
	t := s.lookUp(name)
	if t == nil {
		return notFound(name)
	}
	d := f.dialect()
	if d == 0 {
		return s.dispatch(ctx, t, name, arguments)
	}
	sch, err := dialect.Decode(s.reg.InputSchemaJSON(t.ID))
	if err != nil {
		return s.dispatch(ctx, t, name, arguments)
	}
	if s.secrets != nil {
		// Declared optional (see WithSecrets): a null means left out.
		required, _ := sch["required"].([]any)
		sch["required"] = slices.DeleteFunc(slices.Clone(required), func(n any) bool {
			return slices.ContainsFunc(t.OutOfBandInputs(), func(d *tool.Definition) bool { return d.Name == n })
		})
	}
	dec := json.NewDecoder(bytes.NewReader(arguments))
	dec.UseNumber()
	var args map[string]any
	if err := dec.Decode(&args); err != nil || dec.More() || args == nil {
		return s.dispatch(ctx, t, name, arguments)
	}
	restored, err := json.Marshal(dialect.Restore(args, sch, d))
	if err != nil {
		return s.dispatch(ctx, t, name, arguments)
	}
	return s.dispatch(ctx, t, name, restored)
}

// DispatchCall runs a tool call as a model API hands it over, in format
// f, and returns the response to send back. call is the JSON of one call
// in any API's form: OpenAI Chat Completions'
// {"type":"function","function":{"name","arguments"}}, OpenAI Responses'
// {"type":"function_call","name","arguments"}, Anthropic's
// {"type":"tool_use","name","input"}, or Gemini's {"functionCall":{"name","args"}}
// or {"name","args"}; "arguments" may be a JSON object or a string holding
// one. The arguments are mapped back as [Toolset.DispatchFormat] does.
func (s *Toolset) DispatchCall(ctx context.Context, f Format, call []byte) *Response {
	name, args, ok := parseCall(call)
	if !ok {
		return &Response{
			Message:   "The tool call is not in a known form: it needs a name and arguments, as {\"name\":...,\"arguments\":{...}}.",
			ErrorType: InvalidInput,
		}
	}
	return s.DispatchFormat(ctx, f, name, args)
}

// parseCall returns the name and the JSON arguments of a tool call.
func parseCall(call []byte) (name string, args []byte, ok bool) {
	var c struct {
		Name         string          `json:"name"`
		Arguments    json.RawMessage `json:"arguments"`
		Input        json.RawMessage `json:"input"`
		Args         json.RawMessage `json:"args"`
		Function     json.RawMessage `json:"function"`
		FunctionCall json.RawMessage `json:"functionCall"`
	}
	if err := json.Unmarshal(call, &c); err != nil {
		return "", nil, false
	}
	switch {
	case len(c.Function) > 0 && c.Name == "":
		return parseCall(c.Function)
	case len(c.FunctionCall) > 0:
		return parseCall(c.FunctionCall)
	case c.Name == "":
		return "", nil, false
	}
	raw := c.Arguments
	if len(raw) == 0 {
		raw = c.Input
	}
	if len(raw) == 0 {
		raw = c.Args
	}
	// OpenAI sends the arguments as a string holding their JSON.
	var text string
	if err := json.Unmarshal(raw, &text); err == nil {
		raw = []byte(text)
	}
	if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		raw = nil
	}
	return c.Name, raw, true
}
