package mcpserver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolapi/toolapi/secrets"
	"github.com/toolapi/toolapi/tool"
)

// accountExtra is the key of the account in the TokenInfo of an
// authenticated HTTP request.
const accountExtra = "toolapi/account"

// accountOf returns the account a request is made for: the one its HTTP
// request authenticated, else the one its session was connected for (see
// [Server.Connect]), else [tool.Anonymous].
func accountOf(ctx context.Context, extra *mcp.RequestExtra) tool.Account {
	if extra != nil && extra.TokenInfo != nil {
		if a, ok := extra.TokenInfo.Extra[accountExtra].(tool.Account); ok {
			return a
		}
	}
	return tool.AccountFrom(ctx)
}

// callHandler returns the tools/call handler of e, which [Server.resolveName]
// found by the name of the call: the arguments go to the run path as the
// client sent them, decoded once there.
func (s *Server) callHandler(e *entry) mcp.ToolHandler {
	id := e.tool.ID
	return func(ctx context.Context, req *mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
		ctx = narrowed(ctx, req.Extra)
		acct := accountOf(ctx, req.Extra)
		c := &call{req: req, tool: e.tool, rounds: req.ProtocolVersion() >= newProtocol}
		if res, err := c.missingFeature(); res != nil || err != nil {
			return res, err
		}
		if c.rounds {
			if c.answers, err = s.answers(ctx, id, acct.AccountID(), req.Params, c.argsDigest); err != nil {
				s.logger.Warn("answers of a call refused", "tool", id, "account", acct.AccountID(), "reason", err.Error())
				if errors.Is(err, ErrTooManyStates) || errors.Is(err, errStateUnchecked) {
					// Not the caller's parameters: the call may succeed later.
					return errorResult(refusal(e.tool, err)), nil
				}
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: refusal(e.tool, err)}
			}
			var cancel context.CancelFunc
			ctx, cancel = context.WithCancel(ctx)
			defer cancel()
			c.stop = cancel
		}
		ctx = tool.WithAccount(ctx, acct)
		ctx = withCaller(ctx, req)
		ctx = tool.WithReporter(ctx, c)
		ctx = tool.WithClient(ctx, c)
		if c.canElicit() {
			ctx = tool.WithConfirmer(ctx, c)
		}
		if s.opts.Secrets != nil {
			c.desk = s.opts.Secrets
			ctx = tool.WithSecretAsker(ctx, c)
		}
		defer func() {
			if p := recover(); p != nil {
				s.logger.Error("tool call panicked", "tool", id, "panic", fmt.Sprint(p))
				res, err = errorResult(e.tool.Label+" failed."), nil
			}
		}()
		r, err := s.reg.RunJSON(ctx, id, req.Params.Arguments)
		if err != nil {
			if errors.Is(err, tool.ErrNotFound) {
				// Removed from the registry since the call was resolved.
				return nil, unknownTool(req.Params.Name)
			}
			return nil, err
		}
		if pending, used := c.asked(); pending != nil {
			state, err := s.signState(id, c.argsDigest(), acct.AccountID(), used, pending)
			if err != nil {
				s.logger.Error("request state does not marshal to JSON", "tool", id, "error", err.Error())
				return errorResult(e.tool.Label + " failed."), nil
			}
			return &mcp.CallToolResult{InputRequests: pending, RequestState: state}, nil
		}
		return s.result(e, r), nil
	}
}

// refusal is the message of a call whose request state or answers err
// refused (see [Server.answers]).
func refusal(t *tool.Tool, err error) string {
	switch {
	case errors.Is(err, errStateExpired):
		return t.Label + " did not run: its question was answered too late. Call it again."
	case errors.Is(err, errStateUsed):
		return t.Label + " did not run: its request state was used by an earlier call. Call it again without requestState and inputResponses."
	case errors.Is(err, errNotAsked):
		return t.Label + " did not run: the call answers a question that was not asked. Call it again without inputResponses."
	case errors.Is(err, ErrTooManyStates):
		return t.Label + " did not run: this account has too many questions open (request states used in the last 15 minutes). Try again once some have expired."
	case errors.Is(err, errStateUnchecked):
		return t.Label + " did not run: the server could not record the use of its request state. Try again later."
	}
	return t.Label + " did not run: the request state does not belong to this call. Call it again without requestState and inputResponses."
}

// unknownTool is the protocol error for a tool the server does not hold,
// as the SDK answers it for names it never held.
func unknownTool(id string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown tool %q", id)}
}

// result turns the result of a run into the answer to tools/call.
func (s *Server) result(e *entry, r *tool.Result) *mcp.CallToolResult {
	if !r.Success {
		res := failure(e, r)
		if r.Overflow != nil {
			// A failure whose outputs were over the budget: where they are.
			res.Content = append(res.Content, &mcp.TextContent{Text: readIt(r.Overflow)}, overflowLink(e.tool, r.Overflow))
		}
		return res
	}
	if r.Overflow != nil {
		return overflowResult(e.tool, r)
	}
	outputs := r.Outputs
	if outputs == nil {
		outputs = map[string]any{}
	}
	// Media outputs become content blocks of their own; the text block
	// holds the JSON of the others.
	var media []mcp.Content
	plain := outputs
	for _, d := range e.tool.Outputs {
		v, ok := outputs[d.Name]
		if !ok {
			continue
		}
		cs, ok := mediaContent(d, v)
		if !ok {
			continue
		}
		if media == nil {
			plain = maps.Clone(outputs)
		}
		media = append(media, cs...)
		delete(plain, d.Name)
	}
	if outputs == nil {
		outputs = map[string]any{} // structured content is an object
	}
	structured, err := json.Marshal(outputs)
	if err != nil {
		s.logger.Error("tool outputs do not marshal to JSON", "tool", e.tool.ID, "error", err.Error())
		return errorResult(e.tool.Label + " failed.")
	}
	var text string
	switch {
	case len(media) == 0 && len(outputs) > 0:
		text = string(structured)
	case len(plain) > 0:
		b, err := json.Marshal(plain)
		if err != nil {
			s.logger.Error("tool outputs do not marshal to JSON", "tool", e.tool.ID, "error", err.Error())
			return errorResult(e.tool.Label + " failed.")
		}
		text = string(b)
	default:
		text = r.Message
		if text == "" {
			text = e.tool.Label + " completed."
		}
	}
	content := make([]mcp.Content, 0, 1+len(media))
	content = append(content, &mcp.TextContent{Text: text})
	content = append(content, media...)
	return &mcp.CallToolResult{Content: content, StructuredContent: json.RawMessage(structured)}
}

// failure turns a failed run into an isError answer: the message, then for
// input failures the violations and the input schema, bounded (see
// [violationsText]), and the outputs of a failure that carries some.
func failure(e *entry, r *tool.Result) *mcp.CallToolResult {
	msg := r.Message
	if msg == "" {
		msg = e.tool.Label + " failed."
	}
	content := []mcp.Content{&mcp.TextContent{Text: clip(msg, maxMessageBytes)}}
	if r.Failure == tool.FailureInput {
		if len(r.Violations) > 0 {
			content = append(content, &mcp.TextContent{Text: violationsText(r.Violations)})
		}
		content = append(content, &mcp.TextContent{Text: "Input schema:\n" + e.inputSchema})
	}
	res := &mcp.CallToolResult{IsError: true, Content: content}
	if r.Failure == tool.FailureInput {
		res.Meta = violationsMeta(r.Violations)
	}
	if len(r.Outputs) > 0 {
		// A failure that carries outputs (tool.Failed) gives them as on
		// success: structured, and as JSON text.
		if b, err := json.Marshal(r.Outputs); err == nil {
			res.StructuredContent = json.RawMessage(b)
			res.Content = append(res.Content, &mcp.TextContent{Text: "Outputs: " + string(b)})
		}
	}
	return res
}

func errorResult(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}
}

// mediaContent returns the content blocks an output becomes beside the
// text block: image or audio content for image/* and audio/* media
// (base64 strings), embedded resources for [tool.MediaResource]. ok is
// false for any other output, and for values that are not what their media
// type promises, which then stay in the text block.
func mediaContent(d *tool.Definition, v any) (cs []mcp.Content, ok bool) {
	media := d.Constraints.Media
	values := []any{v}
	if d.Type == "list" {
		if d.Items != nil && d.Items.Constraints.Media != "" {
			media = d.Items.Constraints.Media
		}
		l, isList := v.([]any)
		if !isList {
			return nil, false
		}
		values = l
	}
	if media == "" || v == nil {
		return nil, false
	}
	for _, x := range values {
		c := contentOf(media, x)
		if c == nil {
			return nil, false
		}
		cs = append(cs, c)
	}
	return cs, true
}

// contentOf returns the content block of one value of the given media type,
// or nil.
func contentOf(media string, v any) mcp.Content {
	switch {
	case media == tool.MediaResource:
		if rc := resourceContents(v); rc != nil {
			return &mcp.EmbeddedResource{Resource: rc}
		}
	case strings.HasPrefix(media, "image/"):
		if data, ok := decodeBytes(v); ok {
			return &mcp.ImageContent{Data: data, MIMEType: media}
		}
	case strings.HasPrefix(media, "audio/"):
		if data, ok := decodeBytes(v); ok {
			return &mcp.AudioContent{Data: data, MIMEType: media}
		}
	}
	return nil
}

// decodeBytes returns the bytes of a published binary value: a standard
// base64 string.
func decodeBytes(v any) ([]byte, bool) {
	switch v := v.(type) {
	case string:
		b, err := base64.StdEncoding.DecodeString(v)
		return b, err == nil
	case []byte:
		return v, true
	}
	return nil, false
}

// resourceContents returns the resource a published resource value holds:
// a map with uri, mime_type, and text or blob.
func resourceContents(v any) *mcp.ResourceContents {
	switch v := v.(type) {
	case map[string]any:
		uri, _ := v["uri"].(string)
		if uri == "" {
			return nil
		}
		rc := &mcp.ResourceContents{URI: uri}
		rc.MIMEType, _ = v["mime_type"].(string)
		rc.Text, _ = v["text"].(string)
		if blob, ok := v["blob"]; ok && blob != nil {
			b, ok := decodeBytes(blob)
			if !ok {
				return nil
			}
			rc.Blob = b
		}
		return rc
	case tool.Resource:
		return &mcp.ResourceContents{URI: v.URI, MIMEType: v.MediaType, Text: v.Text, Blob: v.Blob}
	case *tool.Resource:
		if v != nil {
			return resourceContents(*v)
		}
	}
	return nil
}

// A call is one tools/call in progress: the [tool.Reporter], [tool.Client]
// and [tool.Confirmer] of its run.
//
// Clients on protocol versions before 2026-07-28 are asked through requests
// of the session while the tool runs. Later clients answer through multi
// round-trip requests (SEP-2322): the first question of a run that has no
// answer yet ends it (the tool sees its context cancelled; a [tool.Ask]
// asks all of its questions together) and the call answers with the
// question; the client asks its model or person and calls again with the
// answer and the request state, which carries the answers so far, and the
// tool runs again from the start, its earlier questions answered from
// them. A tool that asks should therefore ask before it changes anything.
// The Server signs the request state and binds it to the tool, the
// arguments, the account and an expiry, and takes only answers to the
// questions the state says were asked (see [Options.StateKey] and
// mrtr.go).
type call struct {
	req    *mcp.CallToolRequest
	tool   *tool.Tool
	rounds bool // the client answers through multi round-trip requests

	digest []byte // of the arguments, once asked for (see argsDigest)

	mu      sync.Mutex
	answers mcp.InputResponseMap // by question, so far, as the Server accepted them
	asks    int                  // questions asked without a key in this run
	keys    map[string]bool      // the keys of the questions asked in this run
	pending mcp.InputRequestMap  // the questions that ended this run
	stop    context.CancelFunc

	desk *secrets.Desk // collects the sensitive inputs left out, if set
}

// argsDigest returns the digest of the call's arguments that its request
// states carry, computed once: a call that brings a request state and asks
// again needs it twice. It is called outside the run, never concurrently.
func (c *call) argsDigest() []byte {
	if c.digest == nil {
		c.digest = argsDigest(c.req.Params.Arguments)
	}
	return c.digest
}

// Progress sends a progress notification when the request asked for them
// (it carries a progress token).
func (c *call) Progress(ctx context.Context, done, total float64, message string) {
	token := c.req.Params.GetProgressToken()
	if token == nil {
		return
	}
	c.req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
		ProgressToken: token, Progress: done, Total: total, Message: message,
	})
}

// Log sends a log notification; the session drops it below the level the
// client set.
func (c *call) Log(ctx context.Context, level, message string) {
	c.req.Session.Log(ctx, &mcp.LoggingMessageParams{
		Level: logLevel(level), Logger: c.tool.ID, Data: message,
	})
}

// logLevel maps a level name to an MCP logging level; unknown names are
// info.
func logLevel(level string) mcp.LoggingLevel {
	switch l := strings.ToLower(level); l {
	case "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency":
		return mcp.LoggingLevel(l)
	case "warn":
		return "warning"
	}
	return "info"
}
