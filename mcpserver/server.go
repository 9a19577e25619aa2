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
// Each tool is listed under its name, [tool.NameOf] ("album.add_track" is
// "album__add_track"), which every model API accepts as a function name,
// so clients that hand MCP tools to a model need not rename them
// ([Options.RawIDs] lists IDs instead). A name depends on the ID alone, so
// every server of an application, before and after a restart, lists a tool
// under the same name. tools/call takes the name or the ID, found with
// [tool.Registry.ToolByName], as are the tools of completions and of
// step-up authorization. A tool the account may not call is answered, in
// tools/call and in completions, exactly as a tool that does not exist.
// A tool is listed with its label as title, its description,
// the input and output schemas of its definitions and the hints its
// operation implies (readOnlyHint for read and explain, idempotentHint for
// read, explain and transform, destructiveHint as the tool says,
// openWorldHint for trigger, which reaches outside the application), and
// its icon ([tool.Tool.Icon]) as its icons, with the media type its address
// tells. An input with a [tool.Definition.Header] is marked in the input
// schema with x-mcp-header, which has clients of protocol versions from
// 2026-07-28 on mirror its value in an Mcp-Param-* header for gateways; the
// HTTP handler checks a call's headers against its body (see
// [Server.Handler]). A
// deprecated tool's description starts with "Deprecated: " and its note,
// which _meta also carries under [DeprecatedMetaKey]. A client
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
// An agent completes a tool's arguments with completion/complete, whose
// reference names the tool as a resource URI, {"type": "ref/resource",
// "uri": "tool://album__add_track"} (see [ToolURIScheme]): argument.name is
// the input, argument.value what is typed so far, and context.arguments the
// other arguments as text. The values are those of
// [tool.Registry.Complete] (the input's choices, as its refiner makes them
// from the other arguments, or the IDs of the entities whose label matches,
// with their labels in _meta under [MetaLabels]), at most 100. A tool the
// account may not call completes nothing, as if it did not exist.
//
// While it runs, a tool reaches the client through its context:
// [tool.Progress] and [tool.Log] become progress and log notifications,
// [tool.Elicit], [tool.Ask] and [tool.Sample] become elicitation, roots
// and sampling requests, and a tool marked Confirm asks the person through
// elicitation before it runs. Clients on protocol versions from 2026-07-28
// on are asked through multi round-trip requests: the call answers with
// the questions, each under its key, and a request state the Server signs
// (see [Options.StateKey]), and the tool runs again from the start when
// the client calls back with the answers. Such a client is offered
// sampling only by a tool that declares it needs it ([tool.NeedsSampling]),
// and a tool that needs what a client does not offer ([tool.Tool.Needs])
// is refused before it runs.
//
// With [Options.Apps], each tool also has an MCP App, a ui:// resource
// ([AppURI]) whose page agent hosts show inside the conversation.
package mcpserver

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolapi/toolapi/internal/dialect"
	"github.com/toolapi/toolapi/ratelimit"
	"github.com/toolapi/toolapi/secrets"
	"github.com/toolapi/toolapi/task"
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
	// ResourceMetadataURL is the URL of the protected resource metadata
	// of the HTTP endpoint (RFC 9728), named in every Bearer challenge of
	// a 401 or 403 answer, so that an OAuth client finds where to get a
	// token. Empty names none.
	ResourceMetadataURL string
	// StepUp, when set, returns the scopes (separated by spaces) an OAuth
	// client should ask for so that its token lets acct call t, a tool acct
	// may not call (as ResourceServer.StepUp of package oauth does). An HTTP request
	// carrying a tools/call of such a tool is then answered 403 with an
	// insufficient_scope challenge naming them, without running it, so
	// that the client can ask its person for more; "" lets the call go on
	// and fail as access. Nil never steps up.
	StepUp func(acct tool.Account, t *tool.Tool) string
	// AllowAnonymous lets HTTP requests without credentials through as
	// [tool.Anonymous], who sees only the tools that need no permission.
	// False answers them 401 with a WWW-Authenticate: Bearer challenge.
	AllowAnonymous bool

	// Stateless serves streamable HTTP without sessions: every request
	// stands alone, so several processes can serve one endpoint behind any
	// load balancer. A stateless server notifies list changes only to
	// clients of protocol versions from 2026-07-28 on that listen for them
	// (subscriptions/listen, a stream held by the process that serves it;
	// older clients have no stream to be told on), and asks
	// the client (sampling, elicitation, and so confirmation) only on
	// protocol versions from 2026-07-28 on, whose multi round-trip requests
	// carry the answers from one request to the next (in a request state
	// signed with StateKey, which the processes must then share); older
	// clients get [tool.ErrUnsupported]. It is also the sturdiest way to
	// serve anonymous clients: there is no session to evict and no event
	// stream to hold. False keeps a session per client.
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
	// SessionTimeout closes HTTP sessions idle that long: no request of
	// theirs ran for that time (a client keeps a session open by pinging).
	// Zero means [DefaultSessionTimeout], 30 minutes; negative never closes
	// them.
	SessionTimeout time.Duration
	// MaxSessions caps the HTTP sessions open at once. A client opening
	// one more closes the session idle longest (one with no request
	// running), or is refused with a JSON-RPC error when every session is
	// busy. Zero means [DefaultMaxSessions], 1000; negative means no cap.
	MaxSessions int
	// MaxSessionsPerAccount caps the HTTP sessions one account holds open
	// at once, the same way: a client opening one more closes its
	// account's session idle longest. All anonymous clients (the account
	// with the ID of [tool.Anonymous]) count as one account, and this is
	// their total; a new anonymous session past it closes the idlest
	// session of the client address holding the most anonymous sessions.
	// Zero means [DefaultMaxSessionsPerAccount], 100; negative means no
	// cap.
	MaxSessionsPerAccount int
	// MaxSessionsPerAddress caps the anonymous HTTP sessions one client
	// address (see ClientAddress) holds open at once: a client opening
	// one more closes that address's session idle longest, so that one
	// address flooding initialize requests recycles its own sessions and
	// leaves the others' alone. Zero means [DefaultMaxSessionsPerAddress],
	// 10; negative means no cap. Anonymous access is sturdiest without
	// sessions (see Stateless): there is then nothing to evict.
	MaxSessionsPerAddress int

	// MaxStreams caps the event streams (the GET requests of sessions,
	// each holding a connection) open at once. A GET past a cap is
	// answered with a Retry-After header: 503 past MaxStreams or
	// MaxAnonymousStreams, 429 past MaxStreamsPerAccount or
	// MaxStreamsPerAddress. A stream ends with its session (closed,
	// evicted for a new one, or idle past SessionTimeout), and the
	// connection of a stream is closed when the stream ends, never kept
	// alive. Zero means [DefaultMaxStreams], 500; negative means no cap.
	MaxStreams int
	// MaxStreamsPerAccount caps the event streams one signed-in account
	// holds open at once. Zero means [DefaultMaxStreamsPerAccount], 10;
	// negative means no cap.
	MaxStreamsPerAccount int
	// MaxAnonymousStreams caps the event streams of all anonymous clients
	// together, so that they never take the streams of signed-in
	// accounts. Zero means [DefaultMaxAnonymousStreams], 100; negative
	// means no cap.
	MaxAnonymousStreams int
	// MaxStreamsPerAddress caps the anonymous event streams of one client
	// address. Zero means [DefaultMaxStreamsPerAddress], 4; negative means
	// no cap.
	MaxStreamsPerAddress int

	// AuthFailures limits the failed checks of credentials per client
	// address (see [ratelimit.Failures]): a request with credentials from
	// an address out of checks is answered 429 with a Retry-After header
	// before they are checked, unless they were accepted recently; a
	// request without credentials is never refused by it. Share one
	// between the doors of an application (the explorer's sign-in). Nil
	// means a limit of its own with the defaults of
	// [ratelimit.FailureOptions]; one made with a negative Burst turns the
	// limit off.
	AuthFailures *ratelimit.Failures
	// ClientAddress returns the address a request comes from, for the
	// limit on failed authentications and the anonymous shares of
	// sessions and streams. Nil means the peer of the connection, IPv6
	// addresses by their /64 network (see [ratelimit.ClientAddress] for
	// one that reads the address a trusted reverse proxy reports).
	ClientAddress func(r *http.Request) string
	// ChallengeScope lists the scopes, separated by spaces, that the
	// Bearer challenge of a 401 answer names, so that an OAuth client
	// asks for them (as ResourceServer.ChallengeScope of package oauth
	// returns). Empty names none.
	ChallengeScope string
	// UsedStates remembers the request states of multi round-trip calls
	// that were used, so that each runs the tool once: a call replaying a
	// state fails without running. Each account has a share
	// ([DefaultUsedStatesPerAccount] unexpired states): an account that
	// fills it, by sending states back without answers, say, has its own
	// calls refused until they expire, and no one else's. Nil means a
	// [MemoryStateStore] of [DefaultUsedStates] states, which holds for
	// one process; several processes serving one endpoint (with or
	// without sessions) should share one store, a [SQLStateStore] in their
	// shared database, or a state may be used once in each process.
	UsedStates StateStore
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
	// AllowedHosts lists the host names (or host:port) the HTTP endpoint
	// answers under besides loopback hosts, against DNS rebinding; "*"
	// allows any. Behind a reverse proxy on the same machine, list the
	// public hosts it forwards. Nil allows any host, except on requests
	// that reached a loopback address, where only loopback hosts are
	// allowed. A request under another host is refused 403.
	AllowedHosts []string
	// DisableLocalhostProtection turns off the Host check of
	// AllowedHosts: every host is served.
	DisableLocalhostProtection bool

	// RawIDs lists each tool under its ID ("album.add_track") rather than
	// its name ("album__add_track", see [tool.NameOf]). Model APIs
	// refuse tool names with "." or characters outside [a-zA-Z0-9_-], so
	// clients that pass MCP tools on to a model unchanged fail on IDs;
	// tools/call takes either form whatever this says. False lists names.
	RawIDs bool

	// FoldAnnotations moves the annotations of the advertised schemas
	// (examples, default, contentMediaType, contentEncoding, $comment,
	// deprecated, readOnly, writeOnly) into their descriptions, for clients
	// that pass the schemas on to model APIs that refuse those keywords
	// (Gemini's function declarations refuse examples, contentMediaType and
	// contentEncoding). The schemas accept exactly what they accepted: an
	// annotation validates nothing. False advertises them as keywords.
	FoldAnnotations bool

	// Advertise, when set, adjusts the MCP description of each tool before
	// it is listed: icons, _meta, or an equivalent form of its schemas (the
	// run path validates against the tool's definitions, so a schema must
	// keep accepting exactly what they accept). mt.InputSchema and
	// mt.OutputSchema are the Server's own copies, of type
	// *jsonschema.Schema. It runs while the Server updates its list of
	// tools, so it must not call the Server.
	Advertise func(t *tool.Tool, mt *mcp.Tool)

	// SDK holds options for the SDK server underneath, for what the
	// registry does not cover: a completion handler, resource subscription
	// handlers, a page size. The Server sets Instructions, Logger and the
	// logging, tools and completions capabilities itself, over what SDK
	// says. Completion requests for a tool's arguments (see
	// [ToolURIScheme]) are answered by the Server; SDK.CompletionHandler
	// answers all others (those of the application's prompts and resource
	// templates). Add prompts and resources to [Server.MCPServer]. Nil
	// means the SDK's defaults.
	SDK *mcp.ServerOptions

	// Listed, when set, chooses the tools tools/list shows among those the
	// account may run: a core set and the search tool of package
	// toolsearch, say, so that a catalog of thousands fits in an agent's
	// context. The tools it leaves out stay callable by name or ID, for an
	// agent that found them by searching. Nil lists them all.
	Listed func(t *tool.Tool) bool

	// ListTTL is how long a client may reuse a list it was given
	// (tools/list, prompts/list, resources/list and
	// resources/templates/list), sent as the list's ttlMs in whole
	// milliseconds. A change of a list (a tool added to or removed from
	// the registry, a prompt or resource of the application's) is sent at
	// once to the clients that listen for it (a session's stream, or a
	// subscriptions/listen stream), which then ask again; a client that
	// does not listen sees the change once the TTL of its copy is past.
	// The server itself keeps no copy: a list is made anew for each
	// request. The tool list is the account's own, so it is always marked
	// cacheScope private; the others are public unless an app of
	// Options.Apps is among them. Zero means [DefaultListTTL], a minute;
	// negative sends 0, which has clients reuse nothing.
	ListTTL time.Duration

	// EventStore, when set, keeps the events of each HTTP session's
	// streams so that a client whose stream broke off (or was closed by
	// the server mid-call) reconnects with Last-Event-ID and receives what
	// it missed: [mcp.NewMemoryEventStore] keeps them in memory, bounded
	// by its MaxBytes (10 MiB unless set). The server then opens each SSE
	// stream with a priming event, for sessions that negotiated protocol
	// version 2025-11-25 or later (a request naming an older version in
	// its Mcp-Protocol-Version header, or none, is served at the version
	// its session negotiated). It has no effect on a stateless server.
	// Nil means a broken stream's events are lost.
	EventStore mcp.EventStore

	// Apps, when set, gives every tool an MCP App: the tool is listed with
	// _meta.ui.resourceUri naming [AppURI] of it, a resource whose page
	// Apps builds (explorer.Apps builds the Tool Explorer's form of the
	// tool), read under the account of the request: the app of a tool the
	// account may not call is an unknown resource. A tool whose _meta.ui
	// Advertise points at another resource (the application's own app)
	// gets none. Nil generates no apps.
	Apps AppBuilder
	// Tasks, when set, serves the tasks extension of MCP
	// ([TasksExtension]): a call of a tool whose Task mode is optional or
	// required, by a client that declares the extension, creates a task of
	// Tasks and answers its ID at once; the client then polls it
	// (tasks/get), answers its questions (tasks/update) and cancels it
	// (tasks/cancel). A client that does not declare the extension runs an
	// optional task tool in its request, and gets the missing capability
	// error (-32021) for a required one. Nil serves no tasks: task tools
	// run in the caller's request.
	Tasks *task.Manager
	// Secrets, when set, collects the sensitive inputs a call leaves out
	// out of band (see [secrets]): a client that offers URL elicitation
	// is sent the address of the page where its person enters them, and
	// the call goes on once they have (through elicitation/create on a
	// session, through an input-required result from protocol version
	// 2026-07-28 on); any other client gets a failed result whose message
	// gives the address, and calls again with the same arguments once its
	// person has entered them. Nil: such a call fails for the missing
	// inputs.
	Secrets *secrets.Desk
}

// A Server serves the tools of a registry over MCP. Create one with [New];
// it is safe for concurrent use and serves any number of clients.
type Server struct {
	reg    *tool.Registry
	opts   Options
	logger *slog.Logger
	quiet  *slog.Logger // logger without Info and Debug, for the SDK
	mcp    *mcp.Server

	stateKey []byte              // signs request states
	used     StateStore          // the request states used
	now      func() time.Time    // the clock of request states and limits
	sessions *sessions           // the HTTP sessions open
	failures *ratelimit.Failures // failed authentications by client address
	apps     apps                // the apps generated, see apps.go

	mu     sync.Mutex
	listed map[string]*entry // registry tools added to mcp, by ID

	httpOnce sync.Once
	http     http.Handler

	quit    context.Context // done once Shutdown is called: pending questions end
	stopAll context.CancelFunc
}

// schemaDialect is the JSON Schema dialect the advertised schemas follow.
const schemaDialect = "https://json-schema.org/draft/2020-12/schema"

// New returns a Server for the tools of reg. opts may be nil.
func New(reg *tool.Registry, opts *Options) *Server {
	s := &Server{reg: reg, listed: make(map[string]*entry)}
	s.quit, s.stopAll = context.WithCancel(context.Background())
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
	s.used = s.opts.UsedStates
	if s.used == nil {
		s.used = NewMemoryStateStore(0, 0)
	}
	s.applyLimitDefaults()
	// The SDK logs each session it opens at Info; a stateless server opens
	// one per request, so only its warnings are kept.
	s.quiet = slog.New(minLevel{s.logger.Handler(), slog.LevelWarn})
	var sdk mcp.ServerOptions
	if s.opts.SDK != nil {
		sdk = *s.opts.SDK
	}
	sdk.Instructions = s.opts.Instructions
	sdk.Logger = s.quiet
	caps := &mcp.ServerCapabilities{}
	if sdk.Capabilities != nil {
		*caps = *sdk.Capabilities
	}
	caps.Logging = &mcp.LoggingCapabilities{}
	caps.Tools = &mcp.ToolCapabilities{ListChanged: true}
	caps.Completions = &mcp.CompletionCapabilities{}
	if s.opts.Apps != nil {
		s.apps.tools = make(map[string]string)
		caps.Resources = &mcp.ResourceCapabilities{ListChanged: true}
		caps.AddExtension(UIExtension, map[string]any{"mimeTypes": []string{AppMIMEType}})
	}
	if s.opts.Tasks != nil {
		caps.AddExtension(TasksExtension, map[string]any{})
	}
	if caps.Resources == nil {
		// Outputs over their budget are read as resources (overflow.go).
		caps.Resources = &mcp.ResourceCapabilities{}
	}
	sdk.Capabilities = caps
	sdk.CompletionHandler = s.completionHandler(sdk.CompletionHandler)
	sdk.SetCacheable = s.cacheable(sdk.SetCacheable)
	s.mcp = mcp.NewServer(&mcp.Implementation{
		Name: s.opts.Name, Title: s.opts.Title, Version: s.opts.Version,
	}, &sdk)
	receiving := []mcp.Middleware{s.filterList, s.filterApps, s.resolveName, s.sessions.middleware, s.validateOnly, s.readOverflow}
	if s.opts.Tasks != nil {
		s.addTaskMethods()
		receiving = append(receiving, s.tasks)
	}
	s.mcp.AddReceivingMiddleware(receiving...)
	s.mcp.AddSendingMiddleware(s.questions)
	reg.OnChange(s.sync)
	s.sync()
	return s
}

// Shutdown ends the serving of s for a server that is shutting down: from
// then on it refuses new HTTP sessions and event streams, ends every
// stream (so that the HTTP server can let their connections go), ends
// every question a tool is waiting on (a confirmation asked and not yet
// answered fails, and its tool does not run), and closes each HTTP
// session once no request of it runs. It returns when no session is left,
// or when ctx is done, after closing the sessions still busy, with ctx's
// error. Call it beside [http.Server.Shutdown], with the same grace period.
func (s *Server) Shutdown(ctx context.Context) error {
	s.stopAll()
	left := s.sessions.shutdown()
	select {
	case <-left:
		return nil
	case <-ctx.Done():
		s.sessions.closeAll()
		return ctx.Err()
	}
}

// errShuttingDown ends a question asked while the Server shuts down.
var errShuttingDown = errors.New("the server is shutting down")

// questions is sending middleware that ends the requests a tool sends to
// the client (elicitation, sampling, roots) when the Server shuts down,
// rather than wait for an answer that would come too late.
func (s *Server) questions(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "elicitation/create", "sampling/createMessage", "roots/list":
		default:
			return next(ctx, method, req)
		}
		if s.quit.Err() != nil {
			return nil, errShuttingDown
		}
		ctx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		stop := context.AfterFunc(s.quit, func() { cancel(errShuttingDown) })
		defer stop()
		res, err := next(ctx, method, req)
		if err != nil && context.Cause(ctx) == errShuttingDown {
			return nil, errShuttingDown
		}
		return res, err
	}
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
			if old := s.listed[t.ID]; old != nil {
				s.mcp.RemoveTools(old.mt.Name)
				delete(s.listed, t.ID)
				s.dropApp(t.ID)
			}
			continue
		}
		s.mcp.AddTool(e.mt, s.callHandler(e))
		s.listed[t.ID] = e
		s.syncApp(e)
	}
	var gone []string
	for id, e := range s.listed {
		if !seen[id] {
			gone = append(gone, e.mt.Name)
			delete(s.listed, id)
			s.dropApp(id)
		}
	}
	if len(gone) > 0 {
		s.mcp.RemoveTools(gone...)
	}
}

// DeprecatedMetaKey is the key of a deprecated tool's note in the _meta of
// the tool tools/list gives, whose description also starts with
// "Deprecated: " and the note (see [tool.Tool.Deprecated]).
const DeprecatedMetaKey = "io.toolapi/deprecated"

// An entry is a registry tool as the Server serves it.
type entry struct {
	tool        *tool.Tool
	mt          *mcp.Tool
	inputSchema string        // the JSON of mt.InputSchema, for input failures
	headers     []paramHeader // the inputs mt.InputSchema marks with x-mcp-header
}

// entry returns the served tool with the given ID, or nil.
func (s *Server) entry(id string) *entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.listed[id]
}

// describe returns the MCP description of t.
func (s *Server) describe(t *tool.Tool) (*entry, error) {
	info := s.reg.Describe(t.ID)
	if info == nil || info.InputSchema == nil || info.InputSchema.Type != "object" {
		return nil, fmt.Errorf("no object input schema")
	}
	name := t.ID
	if !s.opts.RawIDs {
		name = tool.NameOf(t.ID)
	}
	op := t.EffectiveOperation()
	destructive := t.IsDestructive()
	openWorld := op == tool.OpTrigger
	mt := &mcp.Tool{
		Name:        name,
		Title:       t.Label,
		Description: t.AdvertisedDescription(),
		InputSchema: withDialect(info.InputSchema),
		Annotations: &mcp.ToolAnnotations{
			Title:           t.Label,
			ReadOnlyHint:    op.ReadOnly(),
			DestructiveHint: &destructive,
			IdempotentHint:  op.Idempotent(),
			OpenWorldHint:   &openWorld,
		},
	}
	if t.Icon != "" {
		mt.Icons = []mcp.Icon{toolIcon(t.Icon)}
	}
	if t.Deprecated != "" {
		mt.Meta = mcp.Meta{DeprecatedMetaKey: t.Deprecated}
	}
	if out := info.OutputSchema; out != nil {
		mt.OutputSchema = withDialect(out)
	}
	if s.opts.FoldAnnotations {
		var err error
		if mt.InputSchema, err = foldAnnotations(mt.InputSchema.(*jsonschema.Schema)); err != nil {
			return nil, fmt.Errorf("input schema: %w", err)
		}
		if mt.OutputSchema != nil {
			if mt.OutputSchema, err = foldAnnotations(mt.OutputSchema.(*jsonschema.Schema)); err != nil {
				return nil, fmt.Errorf("output schema: %w", err)
			}
		}
	}
	markHeaders(mt.InputSchema.(*jsonschema.Schema), t)
	if s.opts.Secrets != nil {
		tool.LeaveSecretsOut(mt.InputSchema.(*jsonschema.Schema), t)
	}
	s.advertiseApp(t, mt)
	if s.opts.Advertise != nil {
		s.opts.Advertise(t, mt)
		if mt.Name != name {
			return nil, fmt.Errorf("Advertise renamed the tool to %q", mt.Name)
		}
		if sch, ok := mt.InputSchema.(*jsonschema.Schema); !ok || sch == nil || sch.Type != "object" {
			return nil, fmt.Errorf("Advertise left no object input schema")
		}
	}
	headers, err := paramHeaders(mt.InputSchema.(*jsonschema.Schema))
	if err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	b, err := json.MarshalIndent(mt.InputSchema, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	return &entry{tool: t, mt: mt, inputSchema: string(b), headers: headers}, nil
}

// foldAnnotations returns a copy of sch with its annotations in its
// descriptions (see [Options.FoldAnnotations]).
func foldAnnotations(sch *jsonschema.Schema) (*jsonschema.Schema, error) {
	b, err := json.Marshal(sch)
	if err != nil {
		return nil, err
	}
	m, err := dialect.Decode(b)
	if err != nil {
		return nil, err
	}
	if b, err = json.Marshal(dialect.FoldAnnotations(m)); err != nil {
		return nil, err
	}
	out := new(jsonschema.Schema)
	if err := json.Unmarshal(b, out); err != nil {
		return nil, err
	}
	return out, nil
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
		for i, mt := range lr.Tools {
			tools[i] = s.served(mt.Name)
		}
		acct := accountOf(ctx, req.GetExtra())
		n := narrowingOf(ctx, req.GetExtra())
		kept := make([]*mcp.Tool, 0, len(lr.Tools))
		for i, mt := range lr.Tools {
			if t := tools[i]; t == nil || t.Allowed(acct) && n.Allows(t) && (s.opts.Listed == nil || s.opts.Listed(t)) {
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

// served returns the registry tool that the SDK server holds under name,
// as [Server.sync] added it, or nil for a name that is none (a tool the
// application added to the SDK server itself).
func (s *Server) served(name string) *tool.Tool {
	t, ok := s.reg.ToolByName(name)
	if !ok {
		return nil
	}
	if e := s.entry(t.ID); e != nil && e.mt.Name == name {
		return e.tool
	}
	return nil
}

// resolveName is receiving middleware that finds the tool of a tools/call,
// once, by its name or its ID ([tool.Registry.ToolByName]). A tool the
// caller's account may not call is answered as the SDK answers a name it
// does not hold, so that a caller cannot tell the two apart; any other
// tool is handed to the SDK under the name it is listed under. A name the
// registry does not know is left to the SDK, which may hold a tool of the
// application's own under it.
func (s *Server) resolveName(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "tools/call" {
			return next(ctx, method, req)
		}
		cr, ok := req.(*mcp.CallToolRequest)
		if !ok || cr.Params == nil {
			return next(ctx, method, req)
		}
		t := resolvedTool(cr)
		if t == nil {
			var ok bool
			if t, ok = s.reg.ToolByName(cr.Params.Name); !ok {
				return next(ctx, method, req)
			}
		}
		if !t.Allowed(accountOf(ctx, cr.Extra)) || !narrowingOf(ctx, cr.Extra).Allows(t) {
			return nil, unknownTool(cr.Params.Name)
		}
		if e := s.entry(t.ID); e != nil {
			cr.Params.Name = e.mt.Name
		}
		return next(ctx, method, req)
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
