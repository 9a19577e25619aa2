package toolapp

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/toolapi/toolapi/audit"
	"github.com/toolapi/toolapi/explorer"
	"github.com/toolapi/toolapi/mcpserver"
	"github.com/toolapi/toolapi/oauth"
	"github.com/toolapi/toolapi/secrets"
	"github.com/toolapi/toolapi/task"
	"github.com/toolapi/toolapi/telemetry"
	"github.com/toolapi/toolapi/tool"
	"github.com/toolapi/toolapi/toolcli"
)

// An App is what the standard commands serve: a registry of tools and
// the accounts that may run them. Registry is required; every other field
// may be left zero.
type App struct {
	// Registry holds the tools.
	Registry *tool.Registry
	// Accounts finds the accounts of --user, of bearer tokens on /mcp and
	// of the explorer's sign-in. Nil means every caller is
	// [tool.Anonymous] and nobody can sign in.
	Accounts Accounts
	// DB is the application's database, when it has one (SQLite or
	// PostgreSQL). serve sizes its pool of connections (see
	// [Options.Pool]) and GET /readyz pings it. The MCP servers of serve
	// and mcp keep in it the request states of multi round-trip calls that
	// were used, in a table ([mcpserver.DefaultStateTable]) created on
	// start, so that the processes serving one endpoint run a confirmed
	// call once between them, with sessions or without (see
	// [mcpserver.SQLStateStore]). Nil means no database to size or ping,
	// and used states are left to MCP.UsedStates (each process's memory by
	// default), as they are when MCP.UsedStates is set.
	DB *sql.DB
	// Health reports whether the application can serve, for GET /readyz,
	// besides the ping of DB (a check of another service, say). Nil means
	// ready once DB answers.
	Health func(ctx context.Context) error
	// StateKey returns the key with which the MCP servers of processes
	// serving one endpoint sign the request state of their multi
	// round-trip calls (see [mcpserver.Options.StateKey]), with sessions
	// or without: a 2026-07-28 client's answer may reach another process
	// than its question. It is asked once, by serve. Nil means each
	// process makes its own random key.
	StateKey func(ctx context.Context) ([]byte, error)
	// MCP holds options of the MCP server beyond those the runner sets.
	// Zero fields are filled in: Name and Title from [Options], and
	// Authenticate from Accounts (a bearer token names an account; a
	// request without one is anonymous). Nil means none beyond those.
	MCP *mcpserver.Options
	// NoMCPApps leaves the tools without MCP Apps. False gives each tool
	// the app explorer.Apps builds from its definitions (see
	// [mcpserver.Options.Apps]) unless MCP.Apps sets another builder.
	NoMCPApps bool
	// NoSecretPages leaves out the collection of secret inputs out of band.
	// False gives serve one [secrets.Desk] when people can sign in to the
	// explorer (Accounts or Explorer.Authenticate set): an MCP client's
	// call that leaves out a required sensitive input of type string, of a
	// tool that never runs as a task, gets a link to the explorer's page
	// where its person enters it (see [mcpserver.Options.Secrets]), and
	// the tools' input schemas on MCP ask models to leave such inputs out.
	// The anonymous account's calls must carry the value. True: such a
	// call fails for the missing input.
	NoSecretPages bool
	// Secrets, when set, is the desk serve collects secret inputs with,
	// instead of one of its own: set it to share it with the application's
	// function calling in the same process
	// ([github.com/toolapi/toolapi/funcall.Toolset.WithSecrets]),
	// made with the address people open the explorer at.
	Secrets *secrets.Desk
	// Explorer holds options of the tool explorer beyond those the runner
	// sets. Zero fields are filled in: Title and AppName from [Options],
	// and from Accounts the sign-in (an account's name and API token), the
	// anonymous visitor and the lookup of a signed-in account on each
	// request. Nil means none beyond those. Its presets (Presets, else
	// Store) are also those that "tool run --preset" runs.
	Explorer *explorer.Options
	// OAuth, when set, makes /mcp an OAuth 2.1 resource server: bearer
	// tokens are the access tokens of its issuer, checked by it (see
	// package oauth), instead of the API tokens of Accounts; serve
	// publishes its protected resource metadata and names it in every
	// 401 and 403. The explorer's sign-in still uses Accounts. Nil means
	// API tokens.
	OAuth *oauth.ResourceServer
	// Tasks keeps and runs the calls of tools whose Task mode is optional
	// or required as durable tasks (see package task): serve and mcp run
	// them in their process, and the tool command starts, watches,
	// answers and cancels them. Nil means that, when DB is set and a tool
	// may run as a task, the command makes one on DB once the App is open:
	// it creates the tables of tasks and of their queue there
	// ([task.Migrate]), configured by TaskOptions, and finds each task's
	// account again through Accounts when the task starts. Without DB
	// there are no tasks.
	Tasks *task.Manager
	// TaskDB is the database the task manager keeps its tasks in, when it
	// must be another handle than DB on the same database: an SQLite
	// database that DB opens with immediate transactions (_txlock=immediate)
	// needs one without them for the task queue, whose background
	// transactions would otherwise wait on every write. Nil means DB.
	TaskDB *sql.DB
	// TaskOptions configure the task manager the commands make (see
	// Tasks); its Account, when nil, is filled in from Accounts. Nil means
	// the defaults of [task.Options].
	TaskOptions *task.Options
	// ApprovalTools, when set, is the permission of the tools
	// approvals.list and approvals.decide ([task.Manager.ApprovalTools]),
	// which the command adds to Registry once it has made the task
	// manager: every caller then sees and decides the calls waiting for
	// an approval. Empty adds none.
	ApprovalTools string
	// Audit is the application's audit trail, which "audit verify"
	// checks (see [VerifyAudit]). Nil means none: the command fails.
	Audit *audit.SQLStore
	// Close releases what the App holds once the command ends. Nil means
	// nothing to release.
	Close func() error
}

// An Opener builds the App a command runs, once the command line's flags
// are parsed (so that it can open the database a flag names). An error
// wrapping [ErrUnavailable] says that what the App needs cannot be reached
// yet (the database is down or starting): serve then keeps trying (see
// [Options.StartTimeout]). Any other error ends the command at once.
type Opener func(ctx context.Context) (*App, error)

// ErrUnavailable is wrapped by an [Opener]'s error when a service the App
// needs cannot be reached for now, so that trying again later may work:
// the database refuses connections or is starting up, say. A wrong
// password or a missing database is not such an error.
var ErrUnavailable = errors.New("unavailable for now")

// Options configure [Run] and [Main]; see each field for its zero value.
type Options struct {
	// Name is the command's name in usage and messages ("notes"). Empty
	// means the base name of the program.
	Name string
	// Title names the application on the explorer's pages, to MCP clients
	// and when serve starts ("Notes"). Empty means Name.
	Title string
	// Help is printed after the usage's list of commands and flags: what
	// the flags of Flags mean in more words, say. Empty means nothing.
	Help string
	// Flags adds the application's own flags, which every command but
	// tool takes before or after the command's name (--db, say). The
	// [Opener] reads what they were set to. Nil means none.
	Flags func(fs *flag.FlagSet)
	// Commands are the application's own commands, besides the standard
	// ones. Nil means none.
	Commands []*Command

	// Stdin, Stdout and Stderr are where commands read and write. Nil
	// means the process's own.
	Stdin          io.Reader
	Stdout, Stderr io.Writer

	// Addr is the address serve listens on without --addr. Empty means
	// "127.0.0.1:8080".
	Addr string
	// Stateless serves MCP without sessions (see
	// [mcpserver.Options.Stateless]) even without serve --stateless.
	Stateless bool
	// TrustedProxies are the reverse proxies and load balancers in front
	// of serve, by address or network (serve --trusted-proxy): on their
	// connections, the client address that limits count per address is
	// read from X-Forwarded-For or Forwarded (see
	// [ratelimit.ClientAddress]). Nil trusts none: the address is the
	// connection's peer, and the headers are ignored.
	TrustedProxies []netip.Prefix
	// PublicHosts are the host names (or host:port) under which serve is
	// reached besides loopback hosts (serve --public-host), for /mcp and
	// the explorer alike: a reverse proxy on the same machine forwards
	// them to a loopback address, where any other host is refused against
	// DNS rebinding. With them set, any other host is refused everywhere.
	// Nil allows any host, except on loopback addresses.
	PublicHosts []string
	// PublicURL is the address at which people open the explorer (serve
	// --public-url), such as "https://photos.example.com", for the links
	// the server sends them: the page where a person enters the secret
	// inputs their assistant's call left out ([App.NoSecretPages]). Empty
	// means http:// and the address serve listens on.
	PublicURL string

	// ReadHeaderTimeout bounds the reading of a request's headers. Zero
	// means 10 seconds.
	ReadHeaderTimeout time.Duration
	// BodyTimeout bounds the reading of a request's body, counted from the
	// end of its headers: a client that sends it slower is cut off. Once
	// the body is read the deadline is lifted, so a response may stream
	// (MCP's event streams) as long as it needs. Zero means 30 seconds.
	BodyTimeout time.Duration
	// IdleTimeout closes a kept-alive connection that waits that long for
	// its next request. It never cuts a response in progress. Zero means 2
	// minutes.
	IdleTimeout time.Duration
	// MaxHeaderBytes bounds the size of a request's headers. Zero means
	// 64 KiB.
	MaxHeaderBytes int
	// MaxMCPBody bounds the body of a request to /mcp; a larger one is
	// refused 413. Zero means 4 MiB.
	MaxMCPBody int64
	// MaxFormBody bounds the body of a request to the explorer (its forms);
	// a larger one is refused 413. Zero means 1 MiB.
	MaxFormBody int64
	// ShutdownTimeout is how long serve, once told to stop, waits for the
	// requests in flight before it closes their connections (serve --grace
	// sets it). Zero means 10 seconds.
	ShutdownTimeout time.Duration
	// OnShutdown, when set, is called once when serve begins to shut down,
	// while the requests in flight finish.
	OnShutdown func()
	// Drain is how long serve, once told to stop, goes on serving while
	// GET /readyz answers 503, before it shuts down (serve --drain), so
	// that a load balancer checking /readyz stops sending it requests
	// first. Zero means no such wait.
	Drain time.Duration
	// StartTimeout is how long serve keeps trying to open the App while
	// its [Opener] reports [ErrUnavailable]; it listens meanwhile, GET
	// /readyz answering 503. Zero means 5 minutes.
	StartTimeout time.Duration

	// Pool is the most connections serve keeps open to [App.DB], idle
	// ones included (serve --db-pool). Zero means sized from the machine
	// and the database: 8 per GOMAXPROCS, at least 16 and at most 128,
	// and on PostgreSQL at most its max_connections, less the connections
	// it reserves, divided by Replicas.
	Pool int
	// Replicas is how many serve processes are expected to share one
	// PostgreSQL database, for the default Pool. Zero means 3.
	Replicas int

	// process names this process on the explorer's runs (see
	// [explorer.Options.Process]); serve sets it.
	process string
	// url is the address serve listens on, as http://HOST:PORT.
	url string
	// secrets collects secret inputs out of band (see secretDesk).
	secrets *secrets.Desk
	// telemetry records the MCP requests of serve and mcp when the OTEL_*
	// variables turn it on (see [runner.startTelemetry]); nil when off.
	telemetry *telemetry.Telemetry
	// doors is what /mcp and the explorer share under [Handler].
	doors *doors
}

// A Command is a command of the application's own, run as "NAME COMMAND
// [ARGS]". One named like a standard command replaces it.
type Command struct {
	// Name is the word that runs it ("audit").
	Name string
	// Usage spells its flags and arguments for the usage ("[--limit N]").
	Usage string
	// Summary says what it does, in a line or two.
	Summary string
	// Flags adds its flags; the application's flags (see [Options.Flags])
	// are added as well. Nil means none of its own.
	Flags func(fs *flag.FlagSet)
	// Run runs it with the words left after the flags, writing to stdout.
	// An error is printed as "NAME COMMAND: error" and exits with status 1.
	Run func(ctx context.Context, app *App, args []string, stdout io.Writer) error
}

// Main runs the application with the process's command line and exits
// with the status [Run] returns. The first SIGINT or SIGTERM cancels the
// command's context: serve then shuts down gracefully. A second one ends
// the process at once.
func Main(open Opener, opts *Options) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop() // the next signal is the default action: exit
	}()
	code := Run(ctx, open, os.Args[1:], opts)
	stop()
	os.Exit(code)
}

// Run runs the command whose words are args and returns the exit status:
// 0 on success, 1 on a failure, 2 on a usage error. opts may be nil.
//
// The commands are:
//
//	tool list|search|info|run|export|task ...  the tool command line (see [toolcli.Run])
//	mcp [--user NAME] [--groups G,...] [--read-only]  MCP over standard input and output, for one account
//	serve [--addr A] [--stateless] [--grace D]  MCP at /mcp, the explorer at /, GET /healthz and /readyz (see [Serve])
//	tokens [NAME...]                      issue API tokens (with a [TokenIssuer] store)
//	audit verify                          check the audit trail's hash chain (see [VerifyAudit])
//	help                                  the usage
//
// plus [Options.Commands]. open is called once per command, but not for
// help or a usage error.
func Run(ctx context.Context, open Opener, args []string, opts *Options) int {
	r := &runner{ctx: ctx, open: open}
	if opts != nil {
		r.opts = *opts
	}
	if r.opts.Name == "" {
		r.opts.Name = filepath.Base(os.Args[0])
	}
	if r.opts.Title == "" {
		r.opts.Title = r.opts.Name
	}
	if r.opts.Stdin == nil {
		r.opts.Stdin = os.Stdin
	}
	if r.opts.Stdout == nil {
		r.opts.Stdout = os.Stdout
	}
	if r.opts.Stderr == nil {
		r.opts.Stderr = os.Stderr
	}
	return r.run(args)
}

// runner runs one command line.
type runner struct {
	ctx    context.Context
	open   Opener
	opts   Options
	global *flag.FlagSet // the application's flags
}

func (r *runner) run(args []string) int {
	o := &r.opts
	r.global = flag.NewFlagSet(o.Name, flag.ContinueOnError)
	r.global.SetOutput(o.Stderr)
	r.global.Usage = func() { r.usage(o.Stderr) }
	if o.Flags != nil {
		o.Flags(r.global)
	}
	if err := r.global.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	args = r.global.Args()
	if len(args) == 0 {
		r.usage(o.Stderr)
		return 2
	}
	name, args := args[0], args[1:]
	var err error
	switch c := r.command(name); {
	case c != nil:
		err = r.custom(c, args)
	case name == "help" || name == "-h" || name == "--help":
		r.usage(o.Stdout)
		return 0
	case name == "tool":
		return r.tool(args)
	case name == "mcp":
		err = r.mcp(args)
	case name == "serve":
		err = r.serve(args)
	case name == "tokens":
		err = r.tokens(args)
	case name == "audit":
		err = r.audit(args)
	default:
		fmt.Fprintf(o.Stderr, "%s: unknown command %q\n", o.Name, name)
		r.usage(o.Stderr)
		return 2
	}
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		return 2
	}
	fmt.Fprintf(o.Stderr, "%s %s: %v\n", o.Name, name, err)
	return 1
}

// errUsage reports a command line that was wrong; the flag package has
// said why.
var errUsage = errors.New("usage")

func (r *runner) command(name string) *Command {
	for _, c := range r.opts.Commands {
		if c.Name == name {
			return c
		}
	}
	return nil
}

func (r *runner) usage(w io.Writer) {
	o := &r.opts
	var b strings.Builder
	flags := ""
	r.global.VisitAll(func(f *flag.Flag) {
		name, _ := flag.UnquoteUsage(f)
		flags += " [--" + f.Name
		if name != "" {
			flags += " " + name
		}
		flags += "]"
	})
	fmt.Fprintf(&b, "Usage:\n  %s%s COMMAND [ARGS]\n\nCommands:\n", o.Name, flags)
	write := func(synopsis, summary string) {
		fmt.Fprintf(&b, "  %s\n", synopsis)
		for l := range strings.SplitSeq(summary, "\n") {
			fmt.Fprintf(&b, "        %s\n", l)
		}
	}
	line := func(synopsis, summary string) { // a standard command's
		if name, _, _ := strings.Cut(synopsis, " "); r.command(name) == nil {
			write(synopsis, summary)
		}
	}
	line("serve [--addr "+r.addr()+"] [--stateless] [--grace D] [--print-tokens]", "serve MCP at /mcp and the tool explorer at /\n(--stateless: MCP without sessions, for several processes behind one address,\nthe sturdiest for anonymous access; --grace: how long a shutdown waits)")
	line("tool list|search|info|run|export|task ...", "list, describe and run the tools, and follow their tasks ("+o.Name+" tool help)")
	line("mcp [--user NAME] [--groups G,...] [--read-only]", "serve MCP over standard input and output for one account")
	line("audit verify", "check the audit trail's hash chain and name its first broken link")
	line("tokens [NAME...]", "issue new API tokens (for every account when none is named)\nand print them; each replaces the account's earlier token")
	for _, c := range o.Commands {
		write(strings.TrimSpace(c.Name+" "+c.Usage), c.Summary)
	}
	if flags != "" {
		b.WriteString("\nFlags:\n")
		r.global.SetOutput(&b)
		r.global.PrintDefaults()
		r.global.SetOutput(o.Stderr)
	}
	if o.Help != "" {
		b.WriteString("\n" + strings.TrimRight(o.Help, "\n") + "\n")
	}
	io.WriteString(w, b.String())
}

func (r *runner) addr() string {
	if r.opts.Addr != "" {
		return r.opts.Addr
	}
	return "127.0.0.1:8080"
}

// flagSet returns the flag set of command name, holding the
// application's flags besides those add adds.
func (r *runner) flagSet(name string, add func(fs *flag.FlagSet)) *flag.FlagSet {
	fs := flag.NewFlagSet(r.opts.Name+" "+name, flag.ContinueOnError)
	fs.SetOutput(r.opts.Stderr)
	if add != nil {
		add(fs)
	}
	r.global.VisitAll(func(f *flag.Flag) {
		if fs.Lookup(f.Name) == nil {
			fs.Var(f.Value, f.Name, f.Usage)
		}
	})
	return fs
}

// parse parses a command's flags.
func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	return nil
}

// openApp builds the App, and returns the function that releases it.
func (r *runner) openApp() (*App, func(), error) {
	app, err := r.open(r.ctx)
	if err != nil {
		return nil, nil, err
	}
	if app == nil || app.Registry == nil {
		if app != nil && app.Close != nil {
			app.Close()
		}
		return nil, nil, errors.New("the application has no registry")
	}
	if err := app.setUpTasks(r.ctx); err != nil {
		if app.Close != nil {
			app.Close()
		}
		return nil, nil, err
	}
	release := func() {
		if app.Close != nil {
			if err := app.Close(); err != nil {
				fmt.Fprintf(r.opts.Stderr, "%s: closing: %v\n", r.opts.Name, err)
			}
		}
	}
	return app, release, nil
}

// anonymous returns the account of callers who give no name or token.
func (app *App) anonymous(ctx context.Context) (tool.Account, error) {
	if app.Accounts == nil {
		return tool.Anonymous, nil
	}
	acct, err := app.Accounts.Anonymous(ctx)
	if err == nil && acct == nil {
		acct = tool.Anonymous
	}
	return acct, err
}

// account returns the account named name.
func (app *App) account(ctx context.Context, name string) (tool.Account, error) {
	if app.Accounts == nil {
		return nil, fmt.Errorf("%w: %q", ErrUnknownAccount, name)
	}
	acct, err := app.Accounts.Account(ctx, name)
	if err == nil && acct == nil {
		err = fmt.Errorf("%w: %q", ErrUnknownAccount, name)
	}
	return acct, err
}

func (r *runner) tool(args []string) int {
	o := &r.opts
	app, release, err := r.openApp()
	if err != nil {
		fmt.Fprintf(o.Stderr, "%s tool: %v\n", o.Name, err)
		return 1
	}
	defer release()
	anon, err := app.anonymous(r.ctx)
	if err != nil {
		fmt.Fprintf(o.Stderr, "%s tool: the anonymous account: %v\n", o.Name, err)
		return 1
	}
	return toolcli.Run(r.ctx, app.Registry, args, o.Stdout, o.Stderr, &toolcli.Options{
		Name: o.Name + " tool",
		Accounts: func(ctx context.Context, name string) (tool.Account, error) {
			acct, err := app.account(ctx, name)
			if errors.Is(err, ErrUnknownAccount) {
				return nil, fmt.Errorf("%w: %w", toolcli.ErrUnknownUser, err)
			}
			return acct, err
		},
		DefaultAccount: anon,
		Stdin:          o.Stdin,
		Presets:        app.presets(),
		Tasks:          app.Tasks,
		RunTasks:       true,
	})
}

// presets returns the explorer's presets for the tool command: those of
// app.Explorer.Presets, else of its Store, else nil (none).
func (app *App) presets() toolcli.Presets {
	if app.Explorer == nil {
		return nil
	}
	p := app.Explorer.Presets
	if p == nil && app.Explorer.Store != nil {
		p = app.Explorer.Store
	}
	if p == nil {
		return nil
	}
	return explorerPresets{p}
}

// explorerPresets gives the tool command the presets of the explorer.
type explorerPresets struct{ p explorer.Presets }

func (e explorerPresets) PresetValues(ctx context.Context, owner, toolID, name string) (json.RawMessage, error) {
	p, err := e.p.Preset(ctx, owner, toolID, name)
	if errors.Is(err, explorer.ErrNoPreset) {
		return nil, fmt.Errorf("%w: %w", toolcli.ErrNoPreset, err)
	}
	if err != nil {
		return nil, err
	}
	return p.Values, nil
}

func (e explorerPresets) PresetNames(ctx context.Context, owner, toolID string) ([]string, error) {
	ps, err := e.p.Presets(ctx, owner, toolID)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.Name
	}
	return names, nil
}

func (r *runner) mcp(args []string) error {
	var user, groups string
	var readOnly bool
	fs := r.flagSet("mcp", func(fs *flag.FlagSet) {
		fs.StringVar(&user, "user", "", "the `name` of the account the tools run for (default: anonymous)")
		fs.StringVar(&groups, "groups", "", "reach only the tools of these comma-separated `toolsets`")
		fs.BoolVar(&readOnly, "read-only", false, "reach only the tools that read")
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
	var acct tool.Account
	if user == "" {
		acct, err = app.anonymous(r.ctx)
		if err != nil {
			return fmt.Errorf("the anonymous account: %w", err)
		}
	} else if acct, err = app.account(r.ctx, user); err != nil {
		return fmt.Errorf("account %q: %w", user, err)
	}
	ctx := r.ctx
	if groups != "" || readOnly {
		n := tool.Narrowing{ReadOnly: readOnly}
		if groups != "" {
			n.Groups = tool.ParseGroups(groups)
		}
		if ctx, err = app.Registry.Narrow(ctx, n); err != nil {
			return fmt.Errorf("--groups: %w", err)
		}
	}
	stopTasks, err := startTasks(r.ctx, app)
	if err != nil {
		return err
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), DefaultShutdownTimeout)
		defer cancel()
		stopTasks(ctx)
	}()
	opts := r.opts
	opts.telemetry = tel
	err = newMCPServer(app, &opts, false).RunStdio(ctx, acct)
	if r.ctx.Err() != nil {
		return nil // interrupted: a clean end
	}
	return err
}

func (r *runner) custom(c *Command, args []string) error {
	fs := r.flagSet(c.Name, c.Flags)
	if err := parse(fs, args); err != nil {
		return err
	}
	app, release, err := r.openApp()
	if err != nil {
		return err
	}
	defer release()
	return c.Run(r.ctx, app, fs.Args(), r.opts.Stdout)
}

func (r *runner) tokens(args []string) error {
	fs := r.flagSet("tokens", nil)
	if err := parse(fs, args); err != nil {
		return err
	}
	app, release, err := r.openApp()
	if err != nil {
		return err
	}
	defer release()
	if _, ok := app.Accounts.(*StaticAccounts); ok {
		// A server started apart from this command would refuse them.
		fmt.Fprintf(r.opts.Stderr, "%s tokens: the accounts are kept in memory (toolapp.NewStaticAccounts), so these tokens hold only in this process: a server started apart refuses them. Run %q for tokens that the server it starts accepts.\n", r.opts.Name, r.opts.Name+" serve --print-tokens")
	}
	return printTokens(r.ctx, app, fs.Args(), r.opts.Stdout)
}

// printTokens issues a token for each named account (every token holder
// when none is named) and prints them with an example of use.
func printTokens(ctx context.Context, app *App, names []string, w io.Writer) error {
	issuer, ok := app.Accounts.(TokenIssuer)
	if !ok {
		return errors.New("the application's accounts cannot issue tokens")
	}
	if len(names) == 0 {
		var err error
		if names, err = issuer.TokenHolders(ctx); err != nil {
			return err
		}
	}
	var b strings.Builder
	b.WriteString("API tokens (shown once; each replaces the account's earlier token):\n")
	for _, name := range names {
		token, err := issuer.IssueToken(ctx, name)
		if errors.Is(err, ErrUnknownAccount) {
			return fmt.Errorf("no account is named %q", name)
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "  %-10s %s\n", name, token)
	}
	b.WriteString("Send one as an HTTP header: Authorization: Bearer TOKEN\n")
	if _, ok := app.Accounts.(*StaticAccounts); ok {
		b.WriteString("These tokens are kept in memory: they hold until this process ends.\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
