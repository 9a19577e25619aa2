package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolapi/toolapi/tool"
)

// ToolURIScheme opens the URI of a completion reference that names a tool:
// a completion/complete request whose ref is {"type": "ref/resource",
// "uri": "tool://NAME"} completes the argument argument.name of the tool
// NAME (its name as listed, or its ID, percent-encoded where it is not a
// valid URI host).
const ToolURIScheme = "tool://"

// MetaLabels is the key, in the _meta of a completion result for a tool,
// of the labels of its values, one per value in order: an entity's label
// beside its ID ("Blue Hours" for "42"), the value itself for a choice.
const MetaLabels = "toolapi/labels"

// MaxCompletionValue is the most characters argument.value may hold in a
// completion request for a tool: a longer value is refused as invalid
// params and reaches no search.
const MaxCompletionValue = 256

// completionHandler returns the completion/complete handler of the Server:
// references to a tool (see [ToolURIScheme]) are answered from the
// registry, and the others by next, the application's handler (nil: none).
func (s *Server) completionHandler(next func(context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error)) func(context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	return func(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
		p := req.Params
		if p.Ref != nil && p.Ref.Type == "ref/resource" && strings.HasPrefix(p.Ref.URI, ToolURIScheme) {
			return s.completeTool(ctx, req)
		}
		if next != nil {
			return next(ctx, req)
		}
		what := "this reference"
		if p.Ref != nil {
			what = fmt.Sprintf("%s %q", p.Ref.Type, p.Ref.Name+p.Ref.URI)
		}
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(
			"no completions for %s: only tools complete here, as ref/resource %sNAME", what, ToolURIScheme)}
	}
}

// completeTool answers a completion request for an argument of a tool
// with [tool.Registry.Complete].
func (s *Server) completeTool(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	p := req.Params
	name, err := url.PathUnescape(strings.TrimPrefix(p.Ref.URI, ToolURIScheme))
	if err != nil || name == "" {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(
			"ref.uri %q must be %sNAME, with the tool's name or ID percent-encoded", p.Ref.URI, ToolURIScheme)}
	}
	acct := accountOf(ctx, req.Extra)
	t, ok := s.reg.ToolByName(name)
	if !ok || !t.Allowed(acct) || !narrowingOf(ctx, req.Extra).Allows(t) || s.entry(t.ID) == nil {
		// A tool the account may not call is answered as one that does
		// not exist, as tools/call answers it; so is one not served.
		return nil, unknownTool(name)
	}
	if n := utf8.RuneCountInString(p.Argument.Value); n > MaxCompletionValue {
		// Nothing so long is worth a search: it would only load the store.
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(
			"argument.value: must be at most %d characters to complete, not %d", MaxCompletionValue, n)}
	}
	var args map[string]any
	if p.Context != nil && len(p.Context.Arguments) > 0 {
		// Context arguments are strings: read them as a person's typing,
		// as the CLI and the explorer's forms are read ("3", "true").
		args = make(map[string]any, len(p.Context.Arguments))
		for k, v := range p.Context.Arguments {
			if k != p.Argument.Name {
				args[k] = tool.Text(v)
			}
		}
	}
	got, err := s.reg.Complete(tool.WithAccount(ctx, acct), t.ID, p.Argument.Name, p.Argument.Value, args)
	if errors.Is(err, tool.ErrNotFound) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(
			"argument.name: tool %q has no input %q", name, p.Argument.Name)}
	}
	if err != nil {
		s.logger.Error("completion failed", "tool", t.ID, "input", p.Argument.Name, "error", err.Error())
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf(
			"completing input %q of %s failed; try again", p.Argument.Name, t.Label)}
	}
	got = got[:min(len(got), tool.MaxSuggestions)]
	values := make([]string, len(got))
	labels := make([]string, len(got))
	for i, sg := range got {
		values[i], labels[i] = sg.Value, sg.Label
	}
	res := &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: values}}
	if len(got) == tool.MaxSuggestions {
		// The registry stops at the cap: there may be more.
		res.Completion.HasMore = true
	} else {
		res.Completion.Total = len(got)
	}
	if len(got) > 0 {
		res.Meta = mcp.Meta{MetaLabels: labels}
	}
	return res, nil
}
