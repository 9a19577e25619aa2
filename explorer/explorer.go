// Package explorer is the Tool Explorer: a web page where people find the
// tools of a [tool.Registry], read what each does and takes, run it with a
// form and see what came back.
//
//	reg := tool.NewRegistry(nil)
//	// ... reg.Add(tools...) ...
//	http.Handle("/", explorer.New(reg, &explorer.Options{
//		Authenticate: func(ctx context.Context, name, password string) (tool.Account, error) {
//			return users.SignIn(ctx, name, password)
//		},
//		Store: store, // explorer.NewSQLStore(ctx, db)
//	}))
//
// The pages are rendered on the server with html/template from templates
// and a style sheet embedded in the package; they work without JavaScript,
// and a small embedded script only makes them quicker to use.
//
// # Pages
//
// The list shows every tool the account may see (its label, ID, operation,
// destructive and deprecated marks and the first line of its description), searched by
// words and filtered by operation through [tool.Registry.List]. Each tool
// has a page with its description (after a notice for a deprecated tool),
// its inputs and outputs as tables (type,
// required, default, constraints, examples, media type), the access it
// requires, how to call it from the CLI, MCP and function calling, its
// input and output JSON Schemas and the suggested schema of its presets;
// and a form that runs it.
//
// # Forms
//
// The form is built from the tool's input definitions, with a control per
// data type: text, text areas, numbers, checkboxes, email and URL fields,
// date and time fields, selects for choices, repeatable rows for lists
// (each row with its own remove button), fieldsets for maps, JSON for
// free-form values, password fields for sensitive inputs and entity
// pickers that take an entity's label or ID; a data type the application
// adds gets a text field. What a person types is sent as
// [tool.Text] through [tool.Registry.Run], the one run path every caller
// shares, which coerces and validates it; the inputs may also be given as
// one JSON object. Before a run, [tool.Registry.Validate] checks every
// input, entity lookups included, so every problem comes back at once
// (with a missing confirmation among them), in plain words next to the
// field it concerns and in a summary at the top of the form that links to
// each field, with what was typed kept; nothing runs until none is left.
// An entity that does not exist is named in plain words, with entities
// whose labels hold what was typed suggested to pick when its type can
// search. A success shows the
// message and the outputs for people (names in words, times and durations
// as people write them, booleans as marks, entities as links, text/html as
// escaped source unless sanitised, images as images, lists as tables, maps
// as definition lists), the raw JSON, and the run as a command line, a
// curl call to /mcp and an MCP request.
//
// Presets are checked by [tool.Registry.Validate] with every input
// optional and stored as the canonical JSON it returns.
//
// # Runs
//
// A run follows post/redirect/get: the form posts once, the tool runs
// once and the browser is sent to the tool's page showing that run, which
// can be reloaded, or opened again from the account's history of runs,
// without running the tool again. Each form carries a one-time token, so
// that a second submission of the same form (a double click) shows the
// first one's run. Runs are kept by a [RunStore].
//
// # Many instances
//
// Sessions, presets and runs live in memory unless [Options.Store] keeps
// them: [NewSQLStore] keeps them in the application's SQLite or PostgreSQL
// database, so that every instance of the application knows every
// session, preset and run.
//
// # Security
//
// Running a tool or saving a preset needs a session, started by signing in
// (see [Options.Authenticate]) and kept in an HttpOnly, SameSite=Lax
// cookie, and the session's CSRF token, which every form carries; a POST
// without a valid token is refused with 403. Cross-origin POSTs are
// refused as well. Destructive tools and tools marked Confirm run only
// once the person ticks a box saying they understand. Requests under a
// Host the explorer does not answer to are refused (see
// [Options.AllowedHosts]), failed sign-ins are limited per client address
// (see [Options.SignInFailures]), and the sessions of guests are bounded
// per address, so that one guest cannot end the others', and in all.
// While the accounts or sessions cannot be read, pages are answered 503
// with Retry-After and visitors stay signed in. Sensitive inputs are never shown back, and are
// kept in no preset and no run. Every page is sent with a
// Content-Security-Policy that allows no inline script, nosniff and
// frame-ancestors 'none'.
//
// # MCP Apps
//
// [Apps] builds the MCP App of each tool from the same form: a page that
// an agent host shows inside the conversation, which runs the tool through
// the host and renders its outputs as the explorer does (mcpserver serves
// it when its Options.Apps is set).
package explorer

import (
	"context"
	"crypto/rand"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/toolapi/toolapi/audit"
	"github.com/toolapi/toolapi/ratelimit"
	"github.com/toolapi/toolapi/secrets"
	"github.com/toolapi/toolapi/task"
	"github.com/toolapi/toolapi/tool"
)

// Options configure the explorer; see each field for its zero value. With
// none set, visitors browse as [tool.Anonymous] and nobody can sign in.
type Options struct {
	// Title names the site in page headings. Empty means "Tool Explorer".
	Title string
	// AppName is the command that runs tools on the command line, as the
	// tool pages print it ("album" gives "album tool run ID ..."). Empty
	// means "APP".
	AppName string
	// Prefix is the URL path the handler is served under, starting and
	// ending with "/"; serve it with [http.StripPrefix] of the prefix
	// without its final slash. Empty means "/".
	Prefix string
	// Logger receives what goes wrong while serving. Nil means the
	// registry's logger.
	Logger *slog.Logger

	// Authenticate returns the account a person signs in as, given the
	// name and password typed on the sign-in page, or an error when they
	// do not match (the page then says only that they were wrong). Nil
	// means nobody can sign in with a password.
	Authenticate func(ctx context.Context, name, password string) (tool.Account, error)
	// PasswordLabel is the label of the secret on the sign-in page (an
	// application signing in with API tokens says "API token"). Empty
	// means "Password".
	PasswordLabel string
	// SignInNote is a sentence shown on the sign-in page, saying where
	// the credentials come from. Empty means none.
	SignInNote string
	// Anonymous returns the account of visitors who have not signed in:
	// they browse the tools it may see, and the sign-in page offers them
	// a session as that account ("continue as ..."). Nil means
	// [tool.Anonymous] for browsing and no such session.
	Anonymous func(ctx context.Context) (tool.Account, error)
	// Account, when set, looks a signed-in account up again by its ID on
	// every request, so that a changed permission or a block applies at
	// once; an error ends the session. Nil keeps the account the session
	// started with.
	Account func(ctx context.Context, id string) (tool.Account, error)

	// AllowedHosts lists the host names (or host:port) the explorer answers
	// under, against DNS rebinding; "*" allows any. Loopback hosts are
	// always allowed. Nil allows any host, except on requests that reached
	// a loopback address, where only loopback hosts are allowed (as /mcp
	// does).
	AllowedHosts []string
	// ClientAddress returns the address a request comes from, which
	// sign-in limits count per address (behind a proxy, the address it
	// reports: see [ratelimit.ClientAddress]). Nil means the connection's
	// IP address, an IPv6 address counted by its /64 network.
	ClientAddress func(r *http.Request) string
	// SignInFailures limits the failed sign-ins per client address (see
	// [ratelimit.Failures]); share one with the other doors of the
	// application (its MCP endpoint). Guests and a name and password
	// accepted recently are never refused by it; a sign-in whose check
	// fails with an error wrapping [tool.ErrUnavailable] is answered 503
	// and not counted. Nil means a limit of its own with the defaults of
	// [ratelimit.FailureOptions].
	SignInFailures *ratelimit.Failures

	// Key signs the CSRF tokens; it should be at least 32 random bytes.
	// Nil means the Store's [SessionStore.SessionKey], or without a Store
	// a random key made when [New] is called (sessions are kept in memory,
	// so they end with the process anyway).
	Key []byte
	// SessionLifetime is how long a session lasts after sign-in. Zero
	// means 12 hours.
	SessionLifetime time.Duration
	// CookieName names the session cookie. Empty means "toolapi_session".
	CookieName string
	// Secure marks the cookies Secure even on requests that did not come
	// over TLS (behind a proxy that terminates TLS). False marks them
	// Secure only on TLS requests.
	Secure bool

	// Store keeps sessions, presets and runs for every instance of the
	// application: with it, a person signed in on one instance is signed
	// in on all (see [SQLStore] for one in the application's database). It
	// stands for Presets and Runs when those are nil, and gives the Key
	// when that is nil. Nil keeps sessions in memory.
	Store Store
	// Presets stores named input values per tool and account. Nil means
	// Store, or when that is nil too, that the pages offer no presets.
	Presets Presets

	// Runs keeps the runs people start, so that the page showing a run can
	// be loaded again without running the tool again, and each account's
	// history. Nil means Store, or when that is nil too, in memory for the
	// process's life.
	Runs RunStore
	// Process names this process on the runs it starts, so that the runs
	// it abandons can be ended as interrupted (see [InterruptRuns]). It
	// should be the same for a process and the one that replaces it on
	// the same host and address. Empty means a random name.
	Process string
	// MaxRunDuration is the longest a run started from a form may last:
	// its context ends then. Zero means [DefaultMaxRunDuration].
	MaxRunDuration time.Duration

	// SanitizeHTML, when set, turns the text of a text/html output into
	// markup safe to show, or reports false to have it shown as escaped
	// source. Nil shows every text/html output as escaped source. See
	// [InlineHTML] for a strict one.
	SanitizeHTML func(html string) (safe string, ok bool)
	// EntityURL returns the address of an entity shown in the outputs, or
	// "" for none. Nil links an entity to the form of a read tool that
	// takes it as its only required input (album.summarize for an album),
	// filled in, and shows it as plain text when there is no such tool.
	EntityURL func(ref tool.EntityRef) string

	// Audit, when set, is the audit trail the page /audit lists for the
	// accounts that hold AuditPermission, with a link to it on the list of
	// tools. Nil means no such page.
	Audit audit.Store
	// AuditPermission is the permission an account needs to see the audit
	// trail. Empty means "view the audit trail".
	AuditPermission string

	// Tasks, when set, runs the tools that may run as tasks
	// ([tool.Tool.Task] optional or required) as its tasks: submitting
	// such a tool's form starts a task and opens its page, which shows
	// its status and progress, asks its questions, cancels it and shows
	// its outputs when it ends; /tasks lists the account's own tasks.
	// Only a signed-in account (not a guest) runs and sees tasks, and
	// only its own. Nil runs every tool in the request.
	Tasks *task.Manager

	// Secrets, when set, serves the pages where a person enters the
	// sensitive inputs that their MCP client's or model's call left out
	// (see [secrets]): /secrets/{id}, shown only to the account that made
	// the call, once signed in.
	Secrets *secrets.Desk
}

// server is the explorer's HTTP handler.
type server struct {
	reg      *tool.Registry
	opts     Options
	logger   *slog.Logger
	prefix   string
	mux      *http.ServeMux
	sessions *sessions
	origins  *http.CrossOriginProtection
	presets  *presetTools
	runs     RunStore
	failures *ratelimit.Failures
	process  string
}

// New returns the explorer of reg, an HTTP handler of its pages. opts may
// be nil.
func New(reg *tool.Registry, opts *Options) http.Handler {
	e := &server{reg: reg}
	if opts != nil {
		e.opts = *opts
	}
	e.logger = e.opts.Logger
	if e.logger == nil {
		e.logger = reg.Logger()
	}
	e.prefix = e.opts.Prefix
	if e.prefix == "" {
		e.prefix = "/"
	}
	if !strings.HasSuffix(e.prefix, "/") {
		e.prefix += "/"
	}
	if !strings.HasPrefix(e.prefix, "/") {
		e.prefix = "/" + e.prefix
	}
	if e.opts.Title == "" {
		e.opts.Title = "Tool Explorer"
	}
	if e.opts.AppName == "" {
		e.opts.AppName = "APP"
	}
	if e.opts.PasswordLabel == "" {
		e.opts.PasswordLabel = "Password"
	}
	if e.opts.CookieName == "" {
		e.opts.CookieName = "toolapi_session"
	}
	if e.opts.SessionLifetime <= 0 {
		e.opts.SessionLifetime = 12 * time.Hour
	}
	key := e.opts.Key
	if len(key) == 0 && e.opts.Store != nil {
		k, err := e.opts.Store.SessionKey(context.Background())
		if err != nil {
			e.logger.Error("explorer: the store's session key is unavailable; this instance uses its own", "error", err.Error())
		}
		key = k
	}
	if len(key) == 0 {
		key = make([]byte, 32)
		rand.Read(key)
	}
	e.sessions = newSessions(key, e.opts.SessionLifetime)
	e.runs = e.opts.Runs
	if e.opts.Store != nil {
		e.sessions.store = e.opts.Store
		if e.opts.Presets == nil {
			e.opts.Presets = e.opts.Store
		}
		if e.runs == nil {
			e.runs = e.opts.Store
		}
	}
	if e.runs == nil {
		e.runs = newMemRuns()
	}
	e.failures = e.opts.SignInFailures
	if e.failures == nil {
		e.failures = ratelimit.NewFailures(nil)
	}
	e.process = e.opts.Process
	if e.process == "" {
		e.process = randomID()[:22]
	}
	e.origins = http.NewCrossOriginProtection()
	e.presets = newPresetTools(reg)
	reg.OnChange(e.presets.reset)

	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", e.serveList)
	mux.HandleFunc("GET /tools/{id}", e.serveTool)
	mux.HandleFunc("POST /tools/{id}", e.postTool)
	mux.HandleFunc("GET /signin", e.serveSignIn)
	mux.HandleFunc("POST /signin", e.postSignIn)
	mux.HandleFunc("POST /signout", e.postSignOut)
	mux.HandleFunc("GET /entities/{type}", e.serveEntities)
	mux.HandleFunc("GET /audit", e.serveAudit)
	mux.HandleFunc("GET /tasks", e.serveTasks)
	mux.HandleFunc("GET /tasks/{id}", e.serveTask)
	mux.HandleFunc("POST /tasks/{id}", e.postTask)
	mux.HandleFunc("GET /tasks/{id}/status", e.serveTaskStatus)
	mux.HandleFunc("GET /overflow/{id}", e.serveOverflow)
	mux.HandleFunc("GET /secrets/{id}", e.serveSecret)
	mux.HandleFunc("POST /secrets/{id}", e.postSecret)
	mux.HandleFunc("GET /approvals", e.serveApprovals)
	mux.HandleFunc("POST /approvals/{id}", e.postApproval)
	mux.HandleFunc("POST /approvals/standing", e.postGrant)
	mux.HandleFunc("POST /approvals/standing/{id}", e.postRevoke)
	mux.HandleFunc("GET /assets/{file}", serveAsset)
	mux.HandleFunc("/", e.serveNotFound)
	e.mux = mux
	return e
}

// ServeHTTP serves the explorer's pages.
func (e *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", contentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "same-origin")
	if !e.hostAllowed(r) {
		http.Error(w, "Forbidden: invalid Host header", http.StatusForbidden)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		if err := e.origins.Check(r); err != nil {
			e.forbidden(w, r, "This form came from another site.")
			return
		}
	}
	if !strings.HasPrefix(r.URL.Path, "/assets/") {
		var ok bool
		if r, ok = e.withVisit(w, r); !ok {
			return
		}
		if r, ok = e.narrow(w, r); !ok {
			return
		}
	}
	e.mux.ServeHTTP(w, r)
}

// contentSecurityPolicy allows the explorer's own style sheet and script
// and images from itself or data: URLs, and nothing inline.
const contentSecurityPolicy = "default-src 'self'; img-src 'self' data:; script-src 'self'; style-src 'self'; " +
	"object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// path returns the URL path of an explorer page, under the prefix.
func (e *server) path(p string) string {
	return e.prefix + strings.TrimPrefix(p, "/")
}
