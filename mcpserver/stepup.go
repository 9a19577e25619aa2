package mcpserver

import (
	"bytes"
	"io"
	"net/http"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolapi/toolapi/tool"
)

// calledExtra is the key, in the TokenInfo of an HTTP request, of the
// [resolvedCall] of the tools/call it carries, when [httpHandler.stepUp]
// found it.
const calledExtra = "toolapi/called"

// A resolvedCall is the tool a tools/call names, found by its name.
type resolvedCall struct {
	name string
	tool *tool.Tool
}

// resolvedTool returns the tool that step-up found for cr, or nil when
// it found none for the name cr carries.
func resolvedTool(cr *mcp.CallToolRequest) *tool.Tool {
	if cr.Extra == nil || cr.Extra.TokenInfo == nil {
		return nil
	}
	rc, ok := cr.Extra.TokenInfo.Extra[calledExtra].(resolvedCall)
	if !ok || rc.name != cr.Params.Name {
		return nil
	}
	return rc.tool
}

// stepUp returns the scopes that [Options.StepUp] names for the tools/call
// that r carries, when its account may not call the tool: "" when r is
// not a single tools/call, or the account may call the tool, or StepUp
// names none. The tool is found by the call's name or ID, as
// [Server.resolveName] finds it; called holds it (a nil tool when r is no
// tools/call of one), which the request hands on so that the name is
// resolved once.
//
// It reads the body of r only as far as the method and the tool's name (a
// call that names its tool before its arguments has them unread) and puts
// back what it read.
func (h *httpHandler) stepUp(r *http.Request, acct tool.Account) (called resolvedCall, scope string) {
	if h.s.opts.StepUp == nil || r.Method != http.MethodPost || r.Body == nil {
		return resolvedCall{}, ""
	}
	var read bytes.Buffer
	name, ok := toolsCallName(io.TeeReader(io.LimitReader(r.Body, mcp.DefaultMaxRequestBodyBytes), &read))
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(&read, r.Body), r.Body}
	if !ok {
		return resolvedCall{}, "" // the SDK answers
	}
	t, ok := h.s.reg.ToolByName(name)
	if !ok {
		return resolvedCall{}, ""
	}
	called = resolvedCall{name: name, tool: t}
	if t.Allowed(acct) {
		return called, ""
	}
	if n, bad := h.narrowing(r, acct); bad != "" || !n.Allows(t) {
		// Out of the request's reach whatever the token: answered as
		// a tool that does not exist, with no scope to ask for.
		return called, ""
	}
	return called, h.s.opts.StepUp(acct, t)
}

// toolsCallName returns the tool's name of the JSON-RPC message body holds
// when it is a tools/call, reading body until it knows: a message whose
// method comes first and is another is read no further, nor are the
// arguments of a call that names its tool before them. ok is false for
// anything else (a batch, a message that is no JSON, another method).
func toolsCallName(body io.Reader) (name string, ok bool) {
	dec := jsontext.NewDecoder(body, jsontext.AllowDuplicateNames(true))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return "", false
	}
	var method string
	haveName := false
	for dec.PeekKind() == '"' {
		key, err := dec.ReadToken()
		if err != nil {
			return "", false
		}
		switch key.String() {
		case "method":
			tok, err := dec.ReadToken()
			if err != nil || tok.Kind() != '"' {
				return "", false
			}
			if method = tok.String(); method != "tools/call" {
				return "", false
			}
		case "params":
			if dec.PeekKind() != '{' {
				return "", false
			}
			// Before the method, the rest of the params is read past.
			if name, haveName = paramsName(dec, method == ""); !haveName {
				return "", false
			}
		default:
			if dec.SkipValue() != nil {
				return "", false
			}
			continue
		}
		if method != "" && haveName {
			return name, true
		}
	}
	return "", false
}

// paramsName reads the params object dec is at up to its name member,
// skipping the members before it, and returns the name; with finish, it
// reads on to the object's end.
func paramsName(dec *jsontext.Decoder, finish bool) (string, bool) {
	if _, err := dec.ReadToken(); err != nil { // '{'
		return "", false
	}
	for dec.PeekKind() == '"' {
		key, err := dec.ReadToken()
		if err != nil {
			return "", false
		}
		if key.String() != "name" {
			if dec.SkipValue() != nil {
				return "", false
			}
			continue
		}
		tok, err := dec.ReadToken()
		if err != nil || tok.Kind() != '"' {
			return "", false
		}
		name := tok.String() // before the decoder moves on
		if finish {
			for dec.PeekKind() == '"' {
				if _, err := dec.ReadToken(); err != nil || dec.SkipValue() != nil {
					return "", false
				}
			}
			if end, err := dec.ReadToken(); err != nil || end.Kind() != '}' {
				return "", false
			}
		}
		return name, true
	}
	return "", false
}
