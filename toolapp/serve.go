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
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolapi/toolapi/explorer"
	"github.com/toolapi/toolapi/mcpserver"
	"github.com/toolapi/toolapi/secrets"
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
	pool := poolFlag(max(r.opts.Pool, 0))
	drain := r.opts.Drain
	publicURL := r.opts.PublicURL
	fs := r.flagSet("serve", func(fs *flag.FlagSet) {
		fs.StringVar(&publicURL, "public-url", publicURL, "the `address` at which people open the explorer (https://photos.example.com), for the links sent to them; default: http:// and --addr")
		fs.StringVar(&addr, "addr", addr, "the `address` to listen on")
		fs.DurationVar(&grace, "grace", grace, "how long a shutdown waits for the requests in flight (`duration`, such as 30s)")
		fs.BoolVar(&stateless, "stateless", stateless, "serve MCP without sessions, so that several processes can answer one address behind a load balancer")
		fs.BoolVar(&printTok, "print-tokens", false, "issue and print an API token for every account")
		addProxyFlags(fs, &proxies, &hosts)
		fs.DurationVar(&drain, "drain", drain, "once told to stop, go on serving this `long` while /readyz answers 503, so that a load balancer stops sending requests first")
		fs.Var(&pool, "db-pool", "the most `N` connections to the database (default: 8 per CPU within 16..128, within the database's share per replica)")
	})
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(r.opts.Stderr, "%s: unexpected arguments %q\n", fs.Name(), fs.Args())
		return errUsage
	}
	if publicURL != "" {
		if u, err := url.Parse(publicURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			fmt.Fprintf(r.opts.Stderr, "%s: --public-url %q: must be an http or https address without query or fragment, such as https://photos.example.com\n", fs.Name(), publicURL)
			return errUsage
		}
	}
	if grace <= 0 {
		fmt.Fprintf(r.opts.Stderr, "%s: --grace %v: must be more than zero\n", fs.Name(), grace)
		return errUsage
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	opts := r.opts
	opts.Stateless = stateless
	opts.TrustedProxies, opts.PublicHosts = proxies, hosts
	opts.ShutdownTimeout = grace
	opts.Pool = int(pool)
	opts.Drain = max(drain, 0)
	opts.PublicURL = strings.TrimSuffix(publicURL, "/")
	s := newLiveServer(&opts)
	s.start(ln)
	// The server answers while the App opens: /healthz says it is alive,
	// /readyz and everything else that it is not ready yet.
	app, release, err := r.openWaiting(&opts, s.url)
	if err != nil {
		s.stop(nil)
		if r.ctx.Err() != nil {
			return nil // told to stop while starting: a clean end
		}
		return err
	}
	defer release()
	tel, stopTelemetry, err := r.startTelemetry(app)
	if err != nil {
		s.stop(nil)
		return err
	}
	defer stopTelemetry()
	s.o.telemetry = tel
	if err := s.ready(r.ctx, app); err != nil {
		s.stop(nil)
		return err
	}
	if printTok {
		if err := printTokens(r.ctx, app, nil, r.opts.Stdout); err != nil {
			s.stop(nil)
			return err
		}
	}
	s.announce()
	return s.wait(r.ctx)
}

// The bounds of the backoff with which serve retries opening its App
// while its database is unavailable.
const (
	startRetryFirst = 250 * time.Millisecond
	startRetryMost  = 10 * time.Second
)

// openWaiting opens the App, trying again while the opener reports
// [ErrUnavailable]: after 250ms, then twice as long each time up to 10s,
// for up to o.StartTimeout, logging each failure to [Options.Stderr] with
// the url it listens on.
func (r *runner) openWaiting(o *Options, url string) (*App, func(), error) {
	limit := o.StartTimeout
	if limit <= 0 {
		limit = DefaultStartTimeout
	}
	giveUp := time.Now().Add(limit)
	delay := startRetryFirst
	for attempt := 1; ; attempt++ {
		app, release, err := r.openApp()
		if err == nil {
			return app, release, nil
		}
		if !errors.Is(err, ErrUnavailable) || r.ctx.Err() != nil {
			return nil, nil, err
		}
		if time.Now().Add(delay).After(giveUp) {
			return nil, nil, fmt.Errorf("still unavailable after %s: %w", limit, err)
		}
		fmt.Fprintf(r.opts.Stderr, "%s serve: listening on %s, not ready (attempt %d): %v; trying again in %s\n", r.opts.Name, url, attempt, err, delay)
		select {
		case <-r.ctx.Done():
			return nil, nil, r.ctx.Err()
		case <-time.After(delay):
		}
		delay = min(2*delay, startRetryMost)
	}
}

// Serve serves app on ln until ctx is done, then shuts down gracefully:
// it stops accepting connections, ends MCP's event streams and the
// questions tools wait on (a confirmation not yet answered fails and its
// tool does not run), lets the requests in flight finish for up to
// [Options.ShutdownTimeout] (serve --grace), closing each MCP session as
// it goes idle, and then closes what is left. It serves [Handler] with the
// limits of opts (see [Options]), sizes the pool of [App.DB] (see
// [Options.Pool]), writes the address it serves on to [Options.Stdout]
// and returns nil after a shutdown that ctx asked for. opts may be nil.
func Serve(ctx context.Context, ln net.Listener, app *App, opts *Options) error {
	var o Options
	if opts != nil {
		o = *opts
	}
	s := newLiveServer(&o)
	s.listening(ln)
	if err := s.ready(ctx, app); err != nil {
		return err
	}
	s.start(ln)
	s.announce()
	return s.wait(ctx)
}

// A liveServer is an HTTP server started on a listener, answering that it
// is starting until [liveServer.ready] gives it the App's handler.
type liveServer struct {
	o      Options // defaulted
	srv    *http.Server
	h      atomic.Pointer[http.Handler]
	served chan error
	stdout io.Writer
	url    string            // once started
	app    *App              // once ready
	mcp    *mcpserver.Server // once ready
	// stopTasks stops the task workers of app, once ready.
	stopTasks func(ctx context.Context)
	// draining makes /readyz answer 503 while the server, told to stop,
	// goes on serving for [Options.Drain].
	draining atomic.Bool
}

// newLiveServer returns the server of opts, answering that it is starting.
func newLiveServer(opts *Options) *liveServer {
	s := &liveServer{o: opts.limits(), served: make(chan error, 1)}
	if s.o.Title == "" {
		s.o.Title = s.o.Name
	}
	s.stdout = s.o.Stdout
	if s.stdout == nil {
		s.stdout = io.Discard
	}
	var starting http.Handler = http.HandlerFunc(serveStarting)
	s.h.Store(&starting)
	s.srv = newServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.draining.Load() && r.URL.Path == "/readyz" {
			w.Header().Set("Retry-After", "5")
			http.Error(w, "shutting down", http.StatusServiceUnavailable)
			return
		}
		(*s.h.Load()).ServeHTTP(w, r)
	}), &s.o)
	return s
}

// start serves on ln.
func (s *liveServer) start(ln net.Listener) {
	s.listening(ln)
	go func() { s.served <- s.srv.Serve(ln) }()
}

// serveStarting answers while the App is not open yet: GET /healthz 200
// (the process is alive), anything else 503 with a Retry-After.
func serveStarting(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/healthz" && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
		io.WriteString(w, "ok\n")
		return
	}
	w.Header().Set("Retry-After", "5")
	http.Error(w, "starting: not ready yet", http.StatusServiceUnavailable)
}

// listening records the address of ln, and with it the name of this
// process on the explorer's runs: the host's name and the address, which
// the process that replaces this one on the same host takes over.
func (s *liveServer) listening(ln net.Listener) {
	s.url = "http://" + ln.Addr().String()
	s.o.url = s.url
	host, err := os.Hostname()
	if err != nil {
		host = "localhost"
	}
	s.o.process = host + " " + ln.Addr().String()
}

// ready sizes the pool of app's database, starts its task workers and
// serves app from now on. It first ends as interrupted the explorer's runs
// that a process of the same name left under way: that process is gone,
// since this one holds its address. An error says the task workers could
// not start.
func (s *liveServer) ready(ctx context.Context, app *App) error {
	if app.DB != nil {
		sizePool(app.DB, poolSize(ctx, app.DB, s.o.Pool, s.o.Replicas))
	}
	if err := app.setUpTasks(ctx); err != nil {
		return err
	}
	stopTasks, err := startTasks(ctx, app)
	if err != nil {
		return fmt.Errorf("starting the task workers: %w", err)
	}
	s.stopTasks = stopTasks
	s.app = app
	s.interruptRuns(ctx, "left by the previous process")
	h, mcpSrv := handler(app, &s.o)
	s.mcp = mcpSrv
	s.h.Store(&h)
	return nil
}

// interruptRunsTimeout bounds the ending of the explorer's abandoned runs.
const interruptRunsTimeout = 5 * time.Second

// interruptRuns ends as interrupted the explorer's runs under way of this
// process, logging how many there were (why says whose they were).
func (s *liveServer) interruptRuns(ctx context.Context, why string) {
	store := s.app.runStore()
	if store == nil || s.o.process == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), interruptRunsTimeout)
	defer cancel()
	logger := s.app.Registry.Logger()
	n, err := explorer.InterruptRuns(ctx, store, s.o.process)
	if err != nil {
		logger.Error("the explorer's runs under way cannot be ended as interrupted", "error", err.Error())
	} else if n > 0 {
		logger.Warn("explorer runs ended as interrupted: "+why, "runs", n)
	}
}

// runStore returns the store of the explorer's runs of app: Explorer.Runs,
// else Explorer.Store, else nil (runs kept in memory end with the process).
func (app *App) runStore() explorer.RunStore {
	switch {
	case app.Explorer == nil:
		return nil
	case app.Explorer.Runs != nil:
		return app.Explorer.Runs
	case app.Explorer.Store != nil:
		return app.Explorer.Store
	}
	return nil
}

// announce says on [Options.Stdout] that the server serves.
func (s *liveServer) announce() {
	fmt.Fprintf(s.stdout, "Serving %s on %s (MCP at %s/mcp).\n", s.o.Title, s.url, s.url)
}

// wait serves until ctx is done or the server fails, then stops.
func (s *liveServer) wait(ctx context.Context) error {
	select {
	case err := <-s.served:
		return err
	case <-ctx.Done():
	}
	if s.o.Drain > 0 {
		fmt.Fprintf(s.stdout, "Draining: /readyz answers 503 for %s before the shutdown.\n", s.o.Drain)
		s.draining.Store(true)
		select {
		case err := <-s.served:
			return err
		case <-time.After(s.o.Drain):
		}
	}
	return s.stop(s.o.OnShutdown)
}

// stop shuts the server down gracefully: it stops accepting connections,
// calls onShutdown (when not nil), lets the requests in flight finish for
// up to [Options.ShutdownTimeout], and then closes what is left.
func (s *liveServer) stop(onShutdown func()) error {
	if s.app != nil {
		fmt.Fprintln(s.stdout, "Shutting down: finishing the requests in flight.")
	}
	if onShutdown != nil {
		var once sync.Once
		s.srv.RegisterOnShutdown(func() { once.Do(onShutdown) })
	}
	sctx, cancel := context.WithTimeout(context.Background(), s.o.ShutdownTimeout)
	defer cancel()
	// The MCP server ends its event streams and the questions its tools
	// wait on, and closes its sessions as they go idle, so that the HTTP
	// server's connections go idle within the grace period.
	mcpDone := make(chan struct{})
	go func() {
		defer close(mcpDone)
		if s.mcp != nil {
			s.mcp.Shutdown(sctx)
		}
	}()
	// The task workers take no new task and are given the same grace
	// to finish those they run; those still running then fail as
	// interrupted (a task is never run twice), and no process leaves
	// one working.
	tasksDone := make(chan struct{})
	go func() {
		defer close(tasksDone)
		if s.stopTasks != nil {
			s.stopTasks(sctx)
		}
	}()
	err := s.srv.Shutdown(sctx)
	<-mcpDone
	<-tasksDone
	if errors.Is(err, context.DeadlineExceeded) {
		err = s.srv.Close()
	}
	if serr := <-s.served; serr != nil && !errors.Is(serr, http.ErrServerClosed) {
		return serr
	}
	if s.app != nil {
		// Runs still under way now are cut off by the end of the process.
		s.interruptRuns(context.Background(), "the server shut down before they ended")
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
// liveness check at GET /healthz (200 "ok" whenever it answers; it touches
// nothing), a readiness check at GET /readyz (200 "ok", or 503 when
// [App.DB] does not answer a ping within [ReadyTimeout] or [App.Health]
// fails) and the tool explorer at /, with the body limits of opts. [Serve] serves it with the rest of the limits. opts may be nil.
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
	o.secrets = secretDesk(app, &o)
	mux := http.NewServeMux()
	mcpSrv := newMCPServer(app, &o, true)
	mux.Handle("/mcp", withMaxBody(mcpSrv.Handler(), o.MaxMCPBody))
	if app.OAuth != nil {
		mux.Handle(app.OAuth.MetadataPath(), app.OAuth.MetadataHandler())
	}
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		// Alive: it answers. It touches nothing, so that a busy database
		// does not make a load balancer take the process out.
		io.WriteString(w, "ok\n")
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		if err := app.ready(r.Context()); err != nil {
			logger.Error("readiness check failed", "error", err.Error())
			w.Header().Set("Retry-After", "5")
			http.Error(w, "unavailable", http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, "ok\n")
	})
	mux.Handle("/", withMaxBody(explorer.New(app.Registry, explorerOptions(app, &o)), o.MaxFormBody))
	return mux, mcpSrv
}

// ready reports whether app can serve: its database answers a ping within
// [ReadyTimeout] and its Health check passes.
func (app *App) ready(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, ReadyTimeout)
	defer cancel()
	if app.DB != nil {
		if err := app.DB.PingContext(ctx); err != nil {
			return fmt.Errorf("database: %w", err)
		}
	}
	if app.Health != nil {
		return app.Health(ctx)
	}
	return nil
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
	if m.Apps == nil && !app.NoMCPApps {
		m.Apps = explorer.NewApps(app.Registry, &explorer.AppOptions{Logger: m.Logger})
	}
	if m.UsedStates == nil && app.DB != nil {
		m.UsedStates = newUsedStates(app.DB, m.Logger, app.Registry)
	}
	if m.Tasks == nil {
		m.Tasks = app.Tasks
	}
	if !http {
		return &m
	}
	if m.Secrets == nil {
		m.Secrets = o.secrets
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
	if m.StateKey == nil && app.StateKey != nil {
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
	if e.Process == "" {
		e.Process = o.process
	}
	if e.Tasks == nil {
		e.Tasks = app.Tasks
	}
	if e.Secrets == nil {
		e.Secrets = o.secrets
	}
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

// secretDesk returns the desk of the secret inputs that serve collects out
// of band: app's own, else one at o's public address whose shared account
// is app's anonymous one; nil when app has it off, nobody can sign in to
// the explorer (no Accounts, no Explorer.Authenticate), or no address is
// known (a Handler served elsewhere, without PublicURL).
func secretDesk(app *App, o *Options) *secrets.Desk {
	if app.NoSecretPages {
		return nil
	}
	if app.Secrets != nil {
		return app.Secrets
	}
	base := o.PublicURL
	if base == "" {
		base = o.url
	}
	signIn := app.Accounts != nil || app.Explorer != nil && app.Explorer.Authenticate != nil
	if app.NoSecretPages || base == "" || !signIn {
		// Nobody could sign in to the page.
		return nil
	}
	return secrets.New(base, &secrets.Options{Shared: func(ctx context.Context, acct tool.Account) bool {
		anon, err := app.anonymous(ctx)
		return err != nil || anon == nil || acct.AccountID() == anon.AccountID() || acct.AccountID() == tool.Anonymous.AccountID()
	}})
}
