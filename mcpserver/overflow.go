package mcpserver

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolapi/toolapi/tool"
)

// OverflowURIPrefix begins the address of outputs that were over their
// tool's byte budget (see [tool.Budget]): a call answers a resource_link
// to it, and resources/read of it answers the outputs' JSON to the
// account that ran the tool, and "resource not found" to any other.
const OverflowURIPrefix = "toolapi://overflow/"

// OverflowURI returns the address of the outputs kept as o.
func OverflowURI(o *tool.Overflow) string { return OverflowURIPrefix + o.ID }

// overflowResult is the answer to a successful call whose outputs were
// over the tool's byte budget: the message, which says so, where they
// are, and a link to them. It has no structured content: none that the
// output schema describes would say where the outputs are.
func overflowResult(t *tool.Tool, r *tool.Result) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{
		&mcp.TextContent{Text: r.Message + " " + readIt(r.Overflow)},
		overflowLink(t, r.Overflow),
	}}
}

// readIt says how to read the outputs kept as o.
func readIt(o *tool.Overflow) string {
	return "Read them with resources/read of " + OverflowURI(o) + " (this account only, until " +
		o.Expires.UTC().Format("2006-01-02 15:04:05 UTC") + ")."
}

// overflowLink returns the resource_link to the outputs kept as o.
func overflowLink(t *tool.Tool, o *tool.Overflow) *mcp.ResourceLink {
	size := int64(o.Bytes)
	return &mcp.ResourceLink{
		URI:         OverflowURI(o),
		Name:        "outputs",
		Title:       "Outputs of " + t.Label,
		Description: "The outputs of " + t.Label + " as JSON, over the tool's budget of " + strconv.Itoa(o.Budget) + " bytes.",
		MIMEType:    "application/json",
		Size:        &size,
	}
}

// readOverflow is receiving middleware that answers resources/read of an
// overflow address (see [OverflowURIPrefix]) for the account of the
// request.
func (s *Server) readOverflow(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		rr, ok := req.(*mcp.ReadResourceRequest)
		if !ok || method != "resources/read" || rr.Params == nil {
			return next(ctx, method, req)
		}
		id, ok := strings.CutPrefix(rr.Params.URI, OverflowURIPrefix)
		if !ok {
			return next(ctx, method, req)
		}
		acct := accountOf(ctx, rr.Extra)
		data, _, err := s.reg.ReadOverflow(tool.WithAccount(ctx, acct), id)
		if err != nil {
			if !errors.Is(err, tool.ErrOverflowNotFound) {
				s.logger.Error("reading outputs over their budget", "error", err.Error())
			}
			return nil, mcp.ResourceNotFoundError(rr.Params.URI)
		}
		res := &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{
			URI: rr.Params.URI, MIMEType: "application/json", Text: string(data),
		}}}
		res.Cacheable.CacheScope = "private"
		return res, nil
	}
}
