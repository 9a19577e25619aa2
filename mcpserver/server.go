// Package mcpserver serves the tools of a [tool.Registry] to MCP clients,
// on the official Go SDK (github.com/modelcontextprotocol/go-sdk).
//
//	srv := mcpserver.New(reg, &mcpserver.Options{
//		Authenticate: mcpserver.Bearer(lookupToken),
//	})
//	http.Handle("/mcp", srv.Handler())   // streamable HTTP
//	// or, for a local agent over stdin and stdout:
//	err := srv.RunStdio(ctx, account)
//
// Each tool is listed under its ID with its label as title, its description,
// the input and output schemas of its definitions and the hints its
// operation implies (readOnlyHint for read and explain, idempotentHint for
// read, explain and transform, destructiveHint as the tool says). A client
// sees only the tools its account may call, and the list follows the
// registry: adding or removing tools notifies connected clients.
//
// Every tools/call runs through [tool.Registry.RunJSON], the one run path
// every caller shares. A success gives structuredContent (the outputs) and
// a text block holding their JSON; outputs whose media type is image/* or
// audio/* also become image or audio content, and outputs holding a
// [tool.Resource] become embedded resources. A failure gives isError with
// the message, the violations and, for input failures, the input schema, so
// that an agent can correct its arguments.
//
// While it runs, a tool reaches the client through its context:
// [tool.Progress] and [tool.Log] become progress and log notifications,
// [tool.Sample] and [tool.Elicit] become sampling and elicitation requests,
// and a tool marked Confirm asks the person through elicitation before it
// runs. Clients on protocol versions from 2026-07-28 on are asked through
// multi round-trip requests, whose request state the Server signs (see
// [Options.StateKey]).
package mcpserver

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolapi/toolapi/tool"
)

// Options configure a [Server]; see each field for its zero value. With
// none set, HTTP callers must authenticate (and cannot, without
// Authenticate) and HTTP clients get sessions.
type Options struct {
	// Name and Version identify the server to clients. Empty means
	// "toolapi" and "0.0.0".
	Name, Version string
	// Title is a human name for the server; empty means none.
	Title string
	// Instructions tell clients how to use the server; empty means none.
	Instructions string
	// Logger receives what goes wrong while serving. Nil means the
	// registry's logger.
	Logger *slog.Logger

	// Authenticate returns the account an HTTP request is made for, usually
	// by its bearer token (see [Bearer]). It returns a nil account and a nil
	// error for a request that carries no credentials, and an error for
	// credentials it rejects, which is answered 401. Nil means every HTTP
	// request carries no credentials.
	Authenticate func(r *http.Request) (tool.Account, error)
	// AllowAnonymous lets HTTP requests without credentials through as
	// [tool.Anonymous], who sees only the tools that need no permission.
	// False answers them 401 with a WWW-Authenticate: Bearer challenge.
	AllowAnonymous bool

	// Stateless serves streamable HTTP without sessions: every request
	// stands alone, so several processes can serve one endpoint behind any
	// load balancer. A stateless server notifies no list changes, and asks
	// the client (sampling, elicitation, and so confirmation) only on
	// protocol versions from 2026-07-28 on, whose multi round-trip requests
	// carry the answers from one request to the next (in a request state
	// signed with StateKey, which the processes must then share); older
	// clients get [tool.ErrUnsupported]. False keeps a session per client.
	Stateless bool
	// StateKey signs the request state of multi round-trip calls (protocol
	// versions from 2026-07-28 on). A call that asks the client a question
	// answers with a state holding the answers so far and the question,
	// bound to the tool, its arguments and the account, and valid for 15
	// minutes; the call that brings the answer runs only with a state
	// signed with this key, and otherwise fails without running. The key
	// should be at least 32 random bytes, kept secret. Nil means a random
	// key per Server, which does for one process; several processes that
	// serve one endpoint without sessions must share a key, or an answer
	// that reaches another process than its question is refused.
	StateKey []byte
	// SessionTimeout closes HTTP sessions idle that long. Zero never
	// closes them.
	SessionTimeout time.Duration
	// JSONResponse answers HTTP requests with application/json rather than
	// an event stream. False streams, which progress and log notifications
	// need.
	JSONResponse bool
	// TrustedOrigins are the origins ("https://app.example.com") whose
	// browser pages may send POST and DELETE requests to the HTTP endpoint
	// besides the endpoint's own origin, as [http.CrossOriginProtection]
	// decides: a browser request that its Sec-Fetch-Site header marks
	// cross-site, or that lacks the header and has an Origin whose host is
	// not the request's Host, is refused 403 unless its origin is trusted.
	// Requests with neither header (non-browser clients) pass, and so do
	// all GET, HEAD and OPTIONS requests, whatever their origin: a GET opens
	// the event stream of a session, which needs the session's ID and the
	// credentials of its account. Nil trusts no other origin.
	TrustedOrigins []string
	// DisableLocalhostProtection turns off the DNS-rebinding protection:
	// by default a request that reaches a loopback address with a Host
	// header naming anything but a loopback host is refused 403.
	DisableLocalhostProtection bool

	// Advertise, when set, adjusts the MCP description of each tool before
	// it is listed: icons, _meta, or an equivalent form of its schemas (the
	// run path validates against the tool's definitions, so a schema must
	// keep accepting exactly what they accept). mt.InputSchema and
	// mt.OutputSchema are the Server's own copies, of type
	// *jsonschema.Schema. It runs while the Server updates its list of
	// tools, so it must not call the Server.
	Advertise func(t *tool.Tool, mt *mcp.Tool)
}

// A Server serves the tools of a registry over MCP. Create one with [New];
// it is safe for concurrent use and serves any number of clients.
type Server struct {
	reg    *tool.Registry
	opts   Options
	logger *slog.Logger
	quiet  *slog.Logger // logger without Info and Debug, for the SDK
	mcp    *mcp.Server

	stateKey []byte           // signs request states
	now      func() time.Time // the clock of request states

	mu     sync.Mutex
	listed map[string]*entry // registry tools added to mcp, by ID

	httpOnce sync.Once
	http     http.Handler
}

// schemaDialect is the JSON Schema dialect the advertised schemas follow.
const schemaDialect = "https://json-schema.org/draft/2020-12/schema"

// New returns a Server for the tools of reg. opts may be nil.
func New(reg *tool.Registry, opts *Options) *Server {
	s := &Server{reg: reg, listed: make(map[string]*entry)}
	if opts != nil {
		s.opts = *opts
	}
	if s.opts.Name == "" {
		s.opts.Name = "toolapi"
	}
	if s.opts.Version == "" {
		s.opts.Version = "0.0.0"
	}
	s.logger = s.opts.Logger
	if s.logger == nil {
		s.logger = reg.Logger()
	}
	s.now = time.Now
	s.stateKey = bytes.Clone(s.opts.StateKey)
	if s.stateKey == nil {
		s.stateKey = make([]byte, 32)
		rand.Read(s.stateKey) // never fails
	} else if len(s.stateKey) < 32 {
		s.logger.Warn("the state key is shorter than 32 bytes", "bytes", len(s.stateKey))
	}
	// The SDK logs each session it opens at Info; a stateless server opens
	// one per request, so only its warnings are kept.
	s.quiet = slog.New(minLevel{s.logger.Handler(), slog.LevelWarn})
	s.mcp = mcp.NewServer(&mcp.Implementation{
		Name: s.opts.Name, Title: s.opts.Title, Version: s.opts.Version,
	}, &mcp.ServerOptions{
		Instructions: s.opts.Instructions,
		Logger:       s.quiet,
		Capabilities: &mcp.ServerCapabilities{
			Logging: &mcp.LoggingCapabilities{},
			Tools:   &mcp.ToolCapabilities{ListChanged: true},
		},
	})
	s.mcp.AddReceivingMiddleware(s.filterList)
	reg.OnChange(s.sync)
	s.sync()
	return s
}

// MCPServer returns the SDK server underneath, for adding what the registry
// does not hold (prompts, resources). Its tools are managed by s.
func (s *Server) MCPServer() *mcp.Server { return s.mcp }

// Connect serves one client over t for acct, as [mcp.Server.Connect] does.
// It returns at once; the session ends when the client leaves or it is
// closed.
func (s *Server) Connect(ctx context.Context, t mcp.Transport, acct tool.Account) (*mcp.ServerSession, error) {
	return s.mcp.Connect(tool.WithAccount(ctx, acct), t, nil)
}

// RunStdio serves one client over standard input and output for acct until
// the client leaves or ctx is done.
func (s *Server) RunStdio(ctx context.Context, acct tool.Account) error {
	return s.mcp.Run(tool.WithAccount(ctx, acct), &mcp.StdioTransport{})
}

// sync makes the SDK server's tools those of the registry.
func (s *Server) sync() {
	s.mu.Lock()
	defer s.mu.Unlock()
	seen := make(map[string]bool)
	for _, t := range s.reg.List(nil) {
		seen[t.ID] = true
		if e := s.listed[t.ID]; e != nil && e.tool == t {
			continue
		}
		e, err := s.describe(t)
		if err != nil {
			s.logger.Error("tool not served over MCP", "tool", t.ID, "reason", err.Error())
			if s.listed[t.ID] != nil {
				s.mcp.RemoveTools(t.ID)
				delete(s.listed, t.ID)
			}
			continue
		}
		s.mcp.AddTool(e.mt, s.callHandler(t.ID))
		s.listed[t.ID] = e
	}
	var gone []string
	for id := range s.listed {
		if !seen[id] {
			gone = append(gone, id)
			delete(s.listed, id)
		}
	}
	if len(gone) > 0 {
		s.mcp.RemoveTools(gone...)
	}
}

// An entry is a registry tool as the Server serves it.
type entry struct {
	tool        *tool.Tool
	mt          *mcp.Tool
	inputSchema string // the JSON of mt.InputSchema, for input failures
}

// entry returns the served tool with the given ID, or nil.
func (s *Server) entry(id string) *entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.listed[id]
}

// describe returns the MCP description of t.
func (s *Server) describe(t *tool.Tool) (*entry, error) {
	in := s.reg.InputSchema(t.ID)
	if in == nil || in.Type != "object" {
		return nil, fmt.Errorf("no object input schema")
	}
	op := t.Op()
	destructive := t.IsDestructive()
	mt := &mcp.Tool{
		Name:        t.ID,
		Title:       t.Label,
		Description: t.Description,
		InputSchema: withDialect(in),
		Annotations: &mcp.ToolAnnotations{
			Title:           t.Label,
			ReadOnlyHint:    op.ReadOnly(),
			DestructiveHint: &destructive,
			IdempotentHint:  op.Idempotent(),
		},
	}
	if out := s.reg.OutputSchema(t.ID); out != nil {
		mt.OutputSchema = withDialect(out)
	}
	if s.opts.Advertise != nil {
		s.opts.Advertise(t, mt)
		if mt.Name != t.ID {
			return nil, fmt.Errorf("Advertise renamed the tool to %q", mt.Name)
		}
		if sch, ok := mt.InputSchema.(*jsonschema.Schema); !ok || sch == nil || sch.Type != "object" {
			return nil, fmt.Errorf("Advertise left no object input schema")
		}
	}
	b, err := json.MarshalIndent(mt.InputSchema, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	return &entry{tool: t, mt: mt, inputSchema: string(b)}, nil
}

// withDialect returns a copy of sch that names its dialect.
func withDialect(sch *jsonschema.Schema) *jsonschema.Schema {
	c := sch.CloneSchemas()
	if c.Schema == "" {
		c.Schema = schemaDialect
	}
	return c
}

// filterList is receiving middleware that leaves out of tools/list the
// registry tools the caller's account may not call.
func (s *Server) filterList(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if method != "tools/list" || err != nil {
			return res, err
		}
		lr, ok := res.(*mcp.ListToolsResult)
		if !ok {
			return res, err
		}
		// The account's permissions may take a store to check: they are
		// checked outside the lock that every tools/call takes.
		tools := make([]*tool.Tool, len(lr.Tools))
		s.mu.Lock()
		for i, mt := range lr.Tools {
			if e := s.listed[mt.Name]; e != nil {
				tools[i] = e.tool
			}
		}
		s.mu.Unlock()
		acct := accountOf(ctx, req.GetExtra())
		kept := make([]*mcp.Tool, 0, len(lr.Tools))
		for i, mt := range lr.Tools {
			if t := tools[i]; t == nil || t.Allowed(acct) {
				kept = append(kept, mt)
			}
		}
		lr.Tools = kept
		// The list is the account's own: no one else may be served it
		// from a cache.
		lr.Cacheable.CacheScope = "private"
		return lr, nil
	}
}

// minLevel is a slog.Handler that drops records below min.
type minLevel struct {
	slog.Handler
	min slog.Level
}

func (h minLevel) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min && h.Handler.Enabled(ctx, l)
}

func (h minLevel) WithAttrs(as []slog.Attr) slog.Handler {
	return minLevel{h.Handler.WithAttrs(as), h.min}
}

func (h minLevel) WithGroup(name string) slog.Handler {
	return minLevel{h.Handler.WithGroup(name), h.min}
}
