package mcpserver

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolapi/toolapi/tool"
)

// stepUp returns the scopes that [Options.StepUp] names for the tools/call
// that r carries, when its account may not call the tool: "" when r is
// not a single tools/call, or the account may call the tool, or StepUp
// names none. It reads the body of r and puts it back.
func (h *httpHandler) stepUp(r *http.Request, acct tool.Account) string {
	if h.s.opts.StepUp == nil || r.Method != http.MethodPost || r.Body == nil {
		return ""
	}
	limit := int64(mcp.DefaultMaxRequestBodyBytes)
	body, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
	if err != nil || int64(len(body)) > limit {
		return "" // the SDK answers
	}
	var msg struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &msg) != nil || msg.Method != "tools/call" {
		return ""
	}
	e := h.s.entry(msg.Params.Name)
	if e == nil || e.tool.Allowed(acct) {
		return ""
	}
	return h.s.opts.StepUp(acct, e.tool)
}
