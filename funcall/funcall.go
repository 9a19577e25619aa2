// Package funcall offers the tools of a [tool.Registry] to language models
// through function calling, as OpenAI and Anthropic declare tools, and runs
// the calls a model makes.
//
//	set := funcall.New(reg, account)
//	body := map[string]any{"model": "...", "tools": set.OpenAI(), ...}
//	// ... the model answers with a tool call: a name and JSON arguments ...
//	resp := set.Dispatch(ctx, call.Name, []byte(call.Arguments))
//	// send resp (JSON) back to the model as the tool's result
//
// A [Toolset] holds the tools the account may call when it is made. Their
// names are the tool IDs made acceptable to both APIs (letters, digits, "_"
// and "-", at most 64 characters): "." becomes "__" ("album.search" is
// "album__search"), any other character "_", and a name that is still too
// long, or that two IDs would share, is cut and given a suffix derived from
// the ID ("..._3f2a9c1d"), the same on every run.
//
// Every call runs through [tool.Registry.RunJSON] for the Toolset's
// account. Its [Response] is {"success","message","outputs"}; a failure
// adds "error_type" and, when the arguments were wrong, "violations" and
// "input_schema", so that the model can correct them.
package funcall

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/toolapi/toolapi/tool"
)

// A Toolset is the tools an account may call, under the names a model
// calls them by. It is safe for concurrent use.
type Toolset struct {
	reg   *tool.Registry
	acct  tool.Account
	tools []*tool.Tool      // by ID
	names map[string]string // by ID
	ids   map[string]string // by name
}

// New returns the Toolset of the tools of reg that acct may call.
func New(reg *tool.Registry, acct tool.Account) *Toolset {
	if acct == nil {
		acct = tool.Anonymous
	}
	s := &Toolset{reg: reg, acct: acct, tools: reg.List(&tool.Filter{Account: acct})}
	ids := make([]string, len(s.tools))
	for i, t := range s.tools {
		ids[i] = t.ID
	}
	s.names = Names(ids)
	s.ids = make(map[string]string, len(s.names))
	for id, name := range s.names {
		s.ids[name] = id
	}
	return s
}

// Name returns the name the tool with the given ID is declared under, or ""
// when the Toolset does not hold it.
func (s *Toolset) Name(id string) string { return s.names[id] }

// ID returns the ID of the tool declared under name, or "".
func (s *Toolset) ID(name string) string { return s.ids[name] }

// An OpenAITool declares a tool in OpenAI's function-calling format.
type OpenAITool struct {
	Type     string         `json:"type"` // "function"
	Function OpenAIFunction `json:"function"`
}

// An OpenAIFunction is the function of an [OpenAITool].
type OpenAIFunction struct {
	Name        string             `json:"name"`
	Description string             `json:"description"`
	Parameters  *jsonschema.Schema `json:"parameters"`
}

// An AnthropicTool declares a tool in Anthropic's tool-use format.
type AnthropicTool struct {
	Name        string             `json:"name"`
	Description string             `json:"description"`
	InputSchema *jsonschema.Schema `json:"input_schema"`
}

// OpenAI returns the declarations of the Toolset's tools for OpenAI, in ID
// order. Each holds its own copy of the input schema.
func (s *Toolset) OpenAI() []OpenAITool {
	out := make([]OpenAITool, 0, len(s.tools))
	for _, t := range s.tools {
		out = append(out, OpenAITool{Type: "function", Function: OpenAIFunction{
			Name: s.names[t.ID], Description: t.Description, Parameters: s.inputSchema(t),
		}})
	}
	return out
}

// Anthropic returns the declarations of the Toolset's tools for Anthropic,
// in ID order. Each holds its own copy of the input schema.
func (s *Toolset) Anthropic() []AnthropicTool {
	out := make([]AnthropicTool, 0, len(s.tools))
	for _, t := range s.tools {
		out = append(out, AnthropicTool{Name: s.names[t.ID], Description: t.Description, InputSchema: s.inputSchema(t)})
	}
	return out
}

func (s *Toolset) inputSchema(t *tool.Tool) *jsonschema.Schema {
	if sch := s.reg.InputSchema(t.ID); sch != nil {
		return sch.CloneSchemas()
	}
	return &jsonschema.Schema{Type: "object"}
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
// response to send back. A tool that needs confirmation runs only when ctx
// carries a [tool.Confirmer] (see [tool.WithConfirmer]) that confirms it.
// A panic in the run (the registry recovers and logs it) is an
// execution_failed response whose message does not carry it.
func (s *Toolset) Dispatch(ctx context.Context, name string, arguments []byte) *Response {
	id, ok := s.ids[name]
	if !ok {
		return &Response{Message: "There is no tool named " + name + ".", ErrorType: ToolNotFound}
	}
	res, err := s.reg.RunJSON(tool.WithAccount(ctx, s.acct), id, arguments)
	if errors.Is(err, tool.ErrNotFound) || res == nil {
		return &Response{Message: "The tool " + name + " is no longer available.", ErrorType: ToolNotFound}
	}
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
		if t, ok := s.reg.Tool(id); ok {
			r.InputSchema = s.inputSchema(t)
		}
	case tool.FailureAccess:
		r.ErrorType = AccessDenied
	default:
		r.ErrorType = ExecutionFailed
	}
	return r
}

// maxName is the longest name both APIs accept.
const maxName = 64

// Names returns the function-calling name of each ID: "." becomes "__",
// any character but letters, digits, "_" and "-" becomes "_", and a name
// longer than 64 characters or shared by several IDs is cut and suffixed
// with a hash of its ID. The names are unique and depend only on the set of
// IDs.
func Names(ids []string) map[string]string {
	ids = slices.Clone(ids)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	plain := make(map[string]string, len(ids))
	count := make(map[string]int, len(ids))
	for _, id := range ids {
		n := plainName(id)
		plain[id] = n
		count[n]++
	}
	names := make(map[string]string, len(ids))
	taken := make(map[string]bool, len(ids))
	var hashed []string
	for _, id := range ids {
		if n := plain[id]; n != "" && len(n) <= maxName && count[n] == 1 {
			names[id] = n
			taken[n] = true
		} else {
			hashed = append(hashed, id)
		}
	}
	for _, id := range hashed {
		sum := sha256.Sum256([]byte(id))
		digest := hex.EncodeToString(sum[:])
		for size := 8; ; size += 4 {
			suffix := "_" + digest[:min(size, len(digest))]
			base := plain[id]
			if len(base) > maxName-len(suffix) {
				base = base[:maxName-len(suffix)]
			}
			if n := base + suffix; !taken[n] || size >= len(digest) {
				names[id] = n
				taken[n] = true
				break
			}
		}
	}
	return names
}

// plainName is id with "." as "__" and any other character outside
// [a-zA-Z0-9_-] as "_".
func plainName(id string) string {
	var b strings.Builder
	for _, r := range id {
		switch {
		case r == '.':
			b.WriteString("__")
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}
