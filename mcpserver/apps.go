package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolapi/toolapi/tool"
)

// MCP Apps (the io.modelcontextprotocol/ui extension): with [Options.Apps]
// set, each tool is listed with _meta.ui.resourceUri naming its app, a
// ui:// resource whose HTML (of media type [AppMIMEType]) an agent host
// shows in a sandboxed frame inside the conversation. The page talks to
// the host over postMessage and calls the tool through it, so it runs
// under the account of the client's session, as any tools/call does.

// UIExtension is the name of the MCP Apps extension, under which the
// Server declares it in its capabilities.
const UIExtension = "io.modelcontextprotocol/ui"

// AppMIMEType is the media type of an app's page.
const AppMIMEType = "text/html;profile=mcp-app"

// ViolationsMetaKey is the key, in the _meta of a tools/call answer that
// failed on its inputs, of the violations as data: a list of {"path",
// "rule", "message"}, so that a form (an app's) places each next to its
// field without reading the text.
const ViolationsMetaKey = "io.toolapi/violations"

// An AppBuilder builds the page of a tool's app (see [Options.Apps]);
// explorer.Apps is one, built from the same definitions as the Tool
// Explorer's forms. Page returns the HTML of t's app as acct sees it,
// calling the tool by name over MCP, read at uri. args are nil, or the
// values of a form to show refined (the query "args" of a read, see
// [AppArgsMaxBytes]). The Server calls it only for an account that may
// call t.
type AppBuilder interface {
	Page(ctx context.Context, acct tool.Account, t *tool.Tool, name, uri string, args map[string]any) ([]byte, error)
}

// AppArgsMaxBytes bounds the query "args" of a read of an app's address
// (uri?args=JSON): the values of the form, as a JSON object, from which a
// tool with a refiner shows its refined fields. A longer one, or one that
// is not a JSON object, is refused as invalid params.
const AppArgsMaxBytes = 16 << 10

// AppURI returns the address of the app the Server named server
// generates for the tool with the given ID: "ui://album/album.add_track".
// Characters of server other than ASCII letters, digits, "-" and "." become "-".
func AppURI(server, id string) string {
	host := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '.' {
			return r
		}
		return '-'
	}, server)
	return "ui://" + host + "/" + id
}

// appMeta is the _meta.ui of an app's resource: a page that loads
// nothing and connects nowhere (no domain, no permission).
func appMeta() mcp.Meta {
	return mcp.Meta{"ui": map[string]any{
		"csp":           map[string]any{"connectDomains": []string{}, "resourceDomains": []string{}},
		"prefersBorder": true,
	}}
}

// apps holds the apps a Server generates, by resource URI.
type apps struct {
	mu    sync.Mutex
	tools map[string]string // tool ID by app URI
}

// advertiseApp names t's generated app in the _meta of its MCP
// description; [Options.Advertise] may then name an app of the
// application's instead.
func (s *Server) advertiseApp(t *tool.Tool, mt *mcp.Tool) {
	if s.opts.Apps == nil {
		return
	}
	if mt.Meta == nil {
		mt.Meta = mcp.Meta{}
	}
	mt.Meta["ui"] = map[string]any{"resourceUri": AppURI(s.opts.Name, t.ID)}
}

// syncApp serves the generated app of e, unless its tool's description
// names another app (one the application declared).
func (s *Server) syncApp(e *entry) {
	if s.opts.Apps == nil {
		return
	}
	uri := AppURI(s.opts.Name, e.tool.ID)
	if declaredApp(e.mt) != uri {
		s.dropApp(e.tool.ID)
		return
	}
	s.apps.mu.Lock()
	_, had := s.apps.tools[uri]
	s.apps.tools[uri] = e.tool.ID
	s.apps.mu.Unlock()
	if had {
		return
	}
	s.mcp.AddResource(&mcp.Resource{
		URI:         uri,
		Name:        e.mt.Name,
		Title:       e.tool.Label,
		Description: "A form that runs " + e.tool.Label + " and shows its outputs.",
		MIMEType:    AppMIMEType,
		Meta:        appMeta(),
	}, s.readApp)
}

// dropApp stops serving the generated app of the tool with the given ID.
func (s *Server) dropApp(id string) {
	if s.opts.Apps == nil {
		return
	}
	uri := AppURI(s.opts.Name, id)
	s.apps.mu.Lock()
	_, had := s.apps.tools[uri]
	delete(s.apps.tools, uri)
	s.apps.mu.Unlock()
	if had {
		s.mcp.RemoveResources(uri)
		if f, ok := s.opts.Apps.(interface{ Forget(id string) }); ok {
			f.Forget(id)
		}
	}
}

// declaredApp returns the _meta.ui.resourceUri of mt, "" for none.
func declaredApp(mt *mcp.Tool) string {
	ui, _ := mt.Meta["ui"].(map[string]any)
	uri, _ := ui["resourceUri"].(string)
	return uri
}

// appTool returns the tool whose generated app is at uri, if acct may
// call it and n (a request's narrowing, nil for none) keeps it; nil
// otherwise.
func (s *Server) appTool(uri string, acct tool.Account, n *tool.Narrowing) *entry {
	s.apps.mu.Lock()
	id, ok := s.apps.tools[uri]
	s.apps.mu.Unlock()
	if !ok {
		return nil
	}
	e := s.entry(id)
	if e == nil || !e.tool.Allowed(acct) || !n.Allows(e.tool) {
		return nil
	}
	return e
}

// readApp answers resources/read of a generated app. A tool the account
// may not call has no app: the answer is that of any unknown resource.
func (s *Server) readApp(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	acct := accountOf(ctx, req.Extra)
	e := s.appTool(uri, acct, narrowingOf(ctx, req.Extra))
	if e == nil {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	page, err := s.opts.Apps.Page(ctx, acct, e.tool, e.mt.Name, uri, nil)
	if err != nil {
		s.logger.Error("building the app of a tool", "tool", e.tool.ID, "error", err.Error())
		return nil, mcp.ResourceNotFoundError(uri)
	}
	res := &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{
		URI: uri, MIMEType: AppMIMEType, Text: string(page), Meta: appMeta(),
	}}}
	// The page offers the entities this account may see.
	res.Cacheable.CacheScope = "private"
	return res, nil
}

// filterApps is receiving middleware that leaves out of resources/list
// the apps of the tools the caller's account may not call, and answers
// the reads of an app's address with a query (see [AppArgsMaxBytes]).
func (s *Server) filterApps(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if rr, ok := req.(*mcp.ReadResourceRequest); ok && method == "resources/read" && s.opts.Apps != nil && rr.Params != nil {
			if base, query, ok := strings.Cut(rr.Params.URI, "?"); ok && s.isApp(base) {
				return s.readRefined(ctx, rr, base, query)
			}
		}
		res, err := next(ctx, method, req)
		if method != "resources/list" || err != nil || s.opts.Apps == nil {
			return res, err
		}
		lr, ok := res.(*mcp.ListResourcesResult)
		if !ok {
			return res, err
		}
		acct := accountOf(ctx, req.GetExtra())
		kept := lr.Resources[:0:0]
		for _, r := range lr.Resources {
			if !s.isApp(r.URI) || s.appTool(r.URI, acct, narrowingOf(ctx, req.GetExtra())) != nil {
				kept = append(kept, r)
			}
		}
		lr.Resources = kept
		lr.Cacheable.CacheScope = "private"
		return lr, nil
	}
}

// isApp reports whether uri is a generated app's.
func (s *Server) isApp(uri string) bool {
	s.apps.mu.Lock()
	defer s.apps.mu.Unlock()
	_, ok := s.apps.tools[uri]
	return ok
}

// violationsMeta returns the _meta of an input failure: its violations
// as data, under [ViolationsMetaKey].
func violationsMeta(vs []tool.Violation) mcp.Meta {
	n := min(len(vs), maxViolations)
	out := make([]map[string]string, 0, n)
	for _, v := range vs[:n] {
		out = append(out, map[string]string{
			"path":    clip(v.Path, maxViolationBytes),
			"rule":    clip(v.Rule, maxRuleBytes),
			"message": clip(v.Message, maxViolationBytes),
		})
	}
	return mcp.Meta{ViolationsMetaKey: out}
}

// ValidateMetaKey, set to true in the _meta of a tools/call, asks the
// Server to check the arguments only (see [tool.Registry.Validate]): the
// tool does not run. An app asks so for the arguments a model proposed,
// to show their violations before the person runs anything. The answer
// always has isError set, since nothing ran, and its _meta holds
// ValidateMetaKey (true) and [ViolationsMetaKey] (empty when the
// arguments are valid). A tool the account may not call is answered as
// one that does not exist. Servers without [Options.Apps] run the call as
// any other.
const ValidateMetaKey = "io.toolapi/validate"

// validateOnly is receiving middleware that answers the tools/call
// requests asking to check their arguments only.
func (s *Server) validateOnly(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "tools/call" || s.opts.Apps == nil {
			return next(ctx, method, req)
		}
		cr, ok := req.(*mcp.CallToolRequest)
		if !ok || cr.Params == nil || cr.Params.Meta[ValidateMetaKey] != true {
			return next(ctx, method, req)
		}
		t, ok := s.reg.ToolByName(cr.Params.Name)
		acct := accountOf(ctx, cr.Extra)
		if !ok || s.entry(t.ID) == nil || !t.Allowed(acct) || !narrowingOf(ctx, cr.Extra).Allows(t) {
			return nil, unknownTool(cr.Params.Name)
		}
		args := cr.Params.Arguments
		if len(args) == 0 {
			args = []byte("{}")
		}
		_, vs, err := s.reg.ValidateJSON(tool.WithAccount(ctx, acct), t.ID, args)
		if err != nil {
			return nil, unknownTool(cr.Params.Name)
		}
		text := "The arguments are valid. Validated only: the tool did not run."
		content := []mcp.Content{&mcp.TextContent{Text: text}}
		if len(vs) > 0 {
			text = "The arguments are not valid. Validated only: the tool did not run."
			content = []mcp.Content{&mcp.TextContent{Text: text}, &mcp.TextContent{Text: violationsText(vs)}}
		}
		meta := violationsMeta(vs)
		meta[ValidateMetaKey] = true
		return &mcp.CallToolResult{IsError: true, Content: content, Meta: meta}, nil
	}
}

// readRefined answers the read of the app at base with the query query:
// its page showing the values of the query's "args", refined.
func (s *Server) readRefined(ctx context.Context, req *mcp.ReadResourceRequest, base, query string) (*mcp.ReadResourceResult, error) {
	acct := accountOf(ctx, req.Extra)
	e := s.appTool(base, acct, narrowingOf(ctx, req.Extra))
	if e == nil {
		return nil, mcp.ResourceNotFoundError(req.Params.URI)
	}
	if len(query) > 3*AppArgsMaxBytes {
		return nil, invalidArgs()
	}
	q, err := url.ParseQuery(query)
	raw := q.Get("args")
	if err != nil || len(q) != 1 || raw == "" || len(raw) > AppArgsMaxBytes {
		return nil, invalidArgs()
	}
	var args map[string]any
	if err := json.Unmarshal([]byte(raw), &args); err != nil || args == nil {
		return nil, invalidArgs()
	}
	page, err := s.opts.Apps.Page(ctx, acct, e.tool, e.mt.Name, base, args)
	if err != nil {
		s.logger.Error("building the app of a tool", "tool", e.tool.ID, "error", err.Error())
		return nil, mcp.ResourceNotFoundError(req.Params.URI)
	}
	res := &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{
		URI: req.Params.URI, MIMEType: AppMIMEType, Text: string(page), Meta: appMeta(),
	}}}
	res.Cacheable.CacheScope = "private"
	return res, nil
}

// invalidArgs is the answer to a read of an app whose query is not one
// "args" holding a JSON object of at most AppArgsMaxBytes.
func invalidArgs() error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("args: must be one query parameter holding a JSON object of at most %d bytes", AppArgsMaxBytes)}
}
