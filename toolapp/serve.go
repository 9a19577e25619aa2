package toolapp

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/toolapi/toolapi/explorer"
	"github.com/toolapi/toolapi/mcpserver"
	"github.com/toolapi/toolapi/telemetry"
	"github.com/toolapi/toolapi/tool"
)

// The defaults of the limits in [Options].
const (
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultBodyTimeout       = 30 * time.Second
	DefaultIdleTimeout       = 2 * time.Minute
	DefaultMaxHeaderBytes    = 64 << 10
	DefaultMaxMCPBody        = 4 << 20
	DefaultMaxFormBody       = 1 << 20
	DefaultShutdownTimeout   = 10 * time.Second
)

// limits returns o with every zero limit set to its default.
func (o Options) limits() Options {
	set := func(d *time.Duration, def time.Duration) {
		if *d <= 0 {
			*d = def
		}
	}
	set(&o.ReadHeaderTimeout, DefaultReadHeaderTimeout)
	set(&o.BodyTimeout, DefaultBodyTimeout)
	set(&o.IdleTimeout, DefaultIdleTimeout)
	set(&o.ShutdownTimeout, DefaultShutdownTimeout)
	if o.MaxHeaderBytes <= 0 {
		o.MaxHeaderBytes = DefaultMaxHeaderBytes
	}
	if o.MaxMCPBody <= 0 {
		o.MaxMCPBody = DefaultMaxMCPBody
	}
	if o.MaxFormBody <= 0 {
		o.MaxFormBody = DefaultMaxFormBody
	}
	return o
}

func (r *runner) serve(args []string) error {
	addr := r.addr()
	var printTok bool
	stateless := r.opts.Stateless
	proxies, hosts := slices.Clone(r.opts.TrustedProxies), slices.Clone(r.opts.PublicHosts)
	grace := r.opts.limits().ShutdownTimeout
	fs := r.flagSet("serve", func(fs *flag.FlagSet) {
		fs.StringVar(&addr, "addr", addr, "the `address` to listen on")
		fs.DurationVar(&grace, "grace", grace, "how long a shutdown waits for the requests in flight (`duration`, such as 30s)")
		fs.BoolVar(&stateless, "stateless", stateless, "serve MCP without sessions, so that several processes can answer one address behind a load balancer")
		fs.BoolVar(&printTok, "print-tokens", false, "issue and print an API token for every account")
		addProxyFlags(fs, &proxies, &hosts)
	})
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(r.opts.Stderr, "%s: unexpected arguments %q\n", fs.Name(), fs.Args())
		return errUsage
	}
	app, release, err := r.openApp()
	if err != nil {
		return err
	}
	defer release()
	tel, stopTelemetry, err := r.startTelemetry(app)
	if err != nil {
		return err
	}
	defer stopTelemetry()
	if printTok {
		if err := printTokens(r.ctx, app, nil, r.opts.Stdout); err != nil {
			return err
		}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	if grace <= 0 {
		fmt.Fprintf(r.opts.Stderr, "%s: --grace %v: must be more than zero\n", fs.Name(), grace)
		return errUsage
	}
	opts := r.opts
	opts.Stateless = stateless
	opts.TrustedProxies, opts.PublicHosts = proxies, hosts
	opts.ShutdownTimeout = grace
	opts.telemetry = tel
	return Serve(r.ctx, ln, app, &opts)
}

// Serve serves app on ln until ctx is done, then shuts down gracefully:
// it stops accepting connections, ends MCP's event streams and the
// questions tools wait on (a confirmation not yet answered fails and its
// tool does not run), lets the requests in flight finish for up to
// [Options.ShutdownTimeout] (serve --grace), closing each MCP session as
// it goes idle, and then closes what is left. It serves
// [Handler] with the limits of opts (see [Options]), writes the address it
// serves on to [Options.Stdout] and returns nil after a shutdown that ctx
// asked for. opts may be nil.
func Serve(ctx context.Context, ln net.Listener, app *App, opts *Options) error {
	var o Options
	if opts != nil {
		o = *opts
	}
	o = o.limits()
	if o.Title == "" {
		o.Title = o.Name
	}
	stdout := o.Stdout
	if stdout == nil {
		stdout = io.Discard
	}
	h, mcpSrv := handler(app, &o)
	srv := newServer(h, &o)
	url := "http://" + ln.Addr().String()
	fmt.Fprintf(stdout, "Serving %s on %s (MCP at %s/mcp).\n", o.Title, url, url)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	fmt.Fprintln(stdout, "Shutting down: finishing the requests in flight.")
	if o.OnShutdown != nil {
		var once sync.Once
		srv.RegisterOnShutdown(func() { once.Do(o.OnShutdown) })
	}
	sctx, cancel := context.WithTimeout(context.Background(), o.ShutdownTimeout)
	defer cancel()
	// The MCP server ends its event streams and the questions its tools
	// wait on, and closes its sessions as they go idle, so that the HTTP
	// server's connections go idle within the grace period.
	mcpDone := make(chan struct{})
	go func() {
		defer close(mcpDone)
		mcpSrv.Shutdown(sctx)
	}()
	err := srv.Shutdown(sctx)
	<-mcpDone
	if errors.Is(err, context.DeadlineExceeded) {
		err = srv.Close()
	}
	if serr := <-served; serr != nil && !errors.Is(serr, http.ErrServerClosed) {
		return serr
	}
	return err
}

// newServer returns the HTTP server of h with the limits of o (already
// defaulted). No WriteTimeout: it would cut event streams; a body that
// arrives too slowly is cut by [withBodyDeadline] instead.
func newServer(h http.Handler, o *Options) *http.Server {
	return &http.Server{
		Handler:           withBodyDeadline(h, o.BodyTimeout),
		ReadHeaderTimeout: o.ReadHeaderTimeout,
		IdleTimeout:       o.IdleTimeout,
		MaxHeaderBytes:    o.MaxHeaderBytes,
	}
}

// withBodyDeadline gives the body of each request d to arrive, counted
// from the end of its headers. The server lifts the deadline once the body
// has been read to its end, as it starts watching the connection for the
// client going away, so a long response is not cut.
func withBodyDeadline(h http.Handler, d time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			// An error means a connection without deadlines: nothing to do.
			http.NewResponseController(w).SetReadDeadline(time.Now().Add(d))
		}
		h.ServeHTTP(w, r)
	})
}

// withMaxBody refuses a request whose body is larger than n bytes: 413
// at once when its Content-Length says so, else an error from the body's
// Read once n bytes have been read.
func withMaxBody(h http.Handler, n int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > n {
			http.Error(w, fmt.Sprintf("Request body too large: at most %d bytes", n), http.StatusRequestEntityTooLarge)
			return
		}
		if r.Body != nil && r.Body != http.NoBody {
			r.Body = http.MaxBytesReader(w, r.Body, n)
		}
		h.ServeHTTP(w, r)
	})
}

// Handler returns the HTTP handler of app: MCP over streamable HTTP at
// /mcp (with the protected resource metadata of [App.OAuth] when set), a
// health check at GET /healthz (200 "ok", or 503 when
// [App.Health] fails) and the tool explorer at /, with the body limits of
// opts. [Serve] serves it with the rest of the limits. opts may be nil.
func Handler(app *App, opts *Options) http.Handler {
	h, _ := handler(app, opts)
	return h
}

// handler returns [Handler] and the MCP server it serves at /mcp.
func handler(app *App, opts *Options) (http.Handler, *mcpserver.Server) {
	var o Options
	if opts != nil {
		o = *opts
	}
	o = o.limits()
	if o.Title == "" {
		o.Title = o.Name
	}
	logger := app.Registry.Logger()
	o.doors = newDoors(&o)
	mux := http.NewServeMux()
	mcpSrv := newMCPServer(app, &o, true)
	mux.Handle("/mcp", withMaxBody(mcpSrv.Handler(), o.MaxMCPBody))
	if app.OAuth != nil {
		mux.Handle(app.OAuth.MetadataPath(), app.OAuth.MetadataHandler())
	}
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		if app.Health != nil {
			if err := app.Health(r.Context()); err != nil {
				logger.Error("health check failed", "error", err.Error())
				http.Error(w, "unavailable", http.StatusServiceUnavailable)
				return
			}
		}
		io.WriteString(w, "ok\n")
	})
	mux.Handle("/", withMaxBody(explorer.New(app.Registry, explorerOptions(app, &o)), o.MaxFormBody))
	return mux, mcpSrv
}

// startTelemetry turns OpenTelemetry on for serve and mcp when the
// standard OTEL_* variables ask for an exporter (see [telemetry.FromEnv]):
// it records app's runs and returns the [telemetry.Telemetry] that
// [newMCPServer] records requests with, and the function that flushes and
// stops the exporters, which reports what it could not send to
// [Options.Stderr]. Otherwise it installs nothing and returns nil.
func (r *runner) startTelemetry(app *App) (*telemetry.Telemetry, func(), error) {
	tel, shutdown, err := telemetry.FromEnv(r.ctx, r.opts.Name)
	if err != nil || !tel.Enabled() {
		return nil, func() {}, err
	}
	app.Registry.Use(tel.Middleware())
	return tel, func() {
		ctx, cancel := context.WithTimeout(context.Background(), telemetryFlushTimeout)
		defer cancel()
		if err := shutdown(ctx); err != nil {
			fmt.Fprintf(r.opts.Stderr, "%s: flushing telemetry: %v\n", r.opts.Name, err)
		}
	}, nil
}

// telemetryFlushTimeout bounds how long a command, as it ends, waits for
// its telemetry to be sent.
const telemetryFlushTimeout = 5 * time.Second

// newMCPServer returns app's MCP server with the options [mcpOptions]
// returns, recording its requests with o's telemetry when that is on.
func newMCPServer(app *App, o *Options, http bool) *mcpserver.Server {
	srv := mcpserver.New(app.Registry, mcpOptions(app, o, http))
	if o.telemetry != nil {
		srv.MCPServer().AddReceivingMiddleware(o.telemetry.MCPMiddleware())
	}
	return srv
}

// mcpOptions returns the options of app's MCP server: app.MCP with the
// zero fields filled in from o and app.Accounts.
func mcpOptions(app *App, o *Options, http bool) *mcpserver.Options {
	var m mcpserver.Options
	if app.MCP != nil {
		m = *app.MCP
	}
	if m.Name == "" {
		m.Name = o.Name
	}
	if m.Title == "" {
		m.Title = o.Title
	}
	m.Stateless = m.Stateless || o.Stateless
	if m.UsedStates == nil && app.DB != nil {
		m.UsedStates = newUsedStates(app.DB, m.Logger, app.Registry)
	}
	if !http {
		return &m
	}
	o.doors.mcp(&m, app)
	if m.Authenticate == nil && app.OAuth != nil {
		m.Authenticate = app.OAuth.Authenticate
		if m.ResourceMetadataURL == "" {
			m.ResourceMetadataURL = app.OAuth.MetadataURL()
		}
		if m.StepUp == nil {
			m.StepUp = app.OAuth.StepUp
		}
	}
	if m.Authenticate == nil {
		if app.Accounts == nil {
			m.AllowAnonymous = true
		} else {
			m.Authenticate = authenticate(app)
		}
	}
	if m.Stateless && m.StateKey == nil && app.StateKey != nil {
		key, err := app.StateKey(context.Background())
		if err != nil {
			logger := m.Logger
			if logger == nil {
				logger = app.Registry.Logger()
			}
			logger.Error("MCP request-state key unavailable; this process uses its own", "error", err.Error())
		}
		m.StateKey = key
	}
	return &m
}

// authenticate returns the MCP authentication of app's accounts: a bearer
// token names an account, and a request without one is anonymous. A store
// that fails otherwise than by knowing no such account is unavailable
// (503), never a wrong token.
func authenticate(app *App) func(*http.Request) (tool.Account, error) {
	tokens := mcpserver.Bearer(func(ctx context.Context, token string) (tool.Account, error) {
		acct, err := app.Accounts.TokenAccount(ctx, token)
		return acct, unavailable(err)
	})
	return func(r *http.Request) (tool.Account, error) {
		acct, err := tokens(r)
		if acct != nil || err != nil {
			return acct, err
		}
		acct, err = app.anonymous(r.Context())
		return acct, unavailable(err)
	}
}

// explorerOptions returns the options of app's explorer: app.Explorer
// with the zero fields filled in from o and app.Accounts.
func explorerOptions(app *App, o *Options) *explorer.Options {
	var e explorer.Options
	if app.Explorer != nil {
		e = *app.Explorer
	}
	if e.Title == "" {
		e.Title = o.Title
	}
	if e.AppName == "" {
		e.AppName = o.Name
	}
	o.doors.explorer(&e)
	if app.Accounts == nil {
		return &e
	}
	if e.Authenticate == nil {
		e.Authenticate = func(ctx context.Context, name, token string) (tool.Account, error) {
			acct, err := app.Accounts.TokenAccount(ctx, token)
			if err != nil {
				return nil, unavailable(err)
			}
			if acct == nil || acct.AccountID() != name {
				return nil, ErrUnknownAccount
			}
			return acct, nil
		}
		if e.PasswordLabel == "" {
			e.PasswordLabel = "API token"
		}
	}
	if e.Anonymous == nil {
		e.Anonymous = app.anonymous
	}
	if e.Account == nil {
		e.Account = func(ctx context.Context, id string) (tool.Account, error) {
			acct, err := app.account(ctx, id)
			return acct, unavailable(err)
		}
	}
	return &e
}

// usedStates is the store of used request states in an application's
// database: a [mcpserver.SQLStateStore] whose table is created on start,
// or, when that fails (the database is out of reach), on the first use
// that finds the database back. Until then calls that bring a request
// state fail without running.
type usedStates struct {
	db *sql.DB

	mu    sync.Mutex
	store *mcpserver.SQLStateStore
}

// usedStatesSetup bounds the creation of the table of used states.
const usedStatesSetup = 10 * time.Second

func newUsedStates(db *sql.DB, logger *slog.Logger, reg *tool.Registry) *usedStates {
	u := &usedStates{db: db}
	ctx, cancel := context.WithTimeout(context.Background(), usedStatesSetup)
	defer cancel()
	if _, err := u.sqlStore(ctx); err != nil {
		if logger == nil {
			logger = reg.Logger()
		}
		logger.Error("the table of used MCP request states is not ready; calls that answer a question fail until it is", "error", err.Error())
	}
	return u
}

func (u *usedStates) sqlStore(ctx context.Context) (*mcpserver.SQLStateStore, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.store == nil {
		st, err := mcpserver.NewSQLStateStore(ctx, u.db, "", 0)
		if err != nil {
			return nil, err
		}
		u.store = st
	}
	return u.store, nil
}

// Use implements [mcpserver.StateStore].
func (u *usedStates) Use(ctx context.Context, account, nonce string, expires time.Time) (bool, error) {
	st, err := u.sqlStore(ctx)
	if err != nil {
		return false, err
	}
	return st.Use(ctx, account, nonce, expires)
}
