package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolapi/toolapi/tool"
	"github.com/toolapi/toolapi/toolcli"
)

const usage = `Usage:
  album [--db DB] [--exports DIR] COMMAND [ARGS]

Commands:
  serve [--addr 127.0.0.1:8080] [--print-tokens] [--stateless]
        serve the site: MCP at /mcp, the tool explorer at /
        (--stateless: MCP without sessions, for several processes on one database)
  tool list|search|info|run|export ...
        list, describe and run the tools (album tool help)
  mcp [--user NAME]
        serve MCP over standard input and output for one user
  tokens [USER...]
        issue new API tokens (every user but anonymous when none is named)
        and print them; each replaces the user's earlier token

DB is the path of an SQLite file (created and seeded when missing) or a
postgres:// URL. Without --db, $ALBUM_DB, else %s.
Translation exports are written under DIR (default: "exports" beside the
SQLite file, or in the cache folder for PostgreSQL).
`

// globals are the flags every command takes.
type globals struct {
	db        string
	exports   string
	stateless bool // serve only
}

func (g *globals) register(fs *flag.FlagSet) {
	fs.StringVar(&g.db, "db", g.db, "SQLite file or postgres:// URL")
	fs.StringVar(&g.exports, "exports", g.exports, "folder for translation exports")
	if fs.Name() == "album serve" {
		fs.BoolVar(&g.stateless, "stateless", g.stateless, "serve MCP without sessions, so that several serve processes on one database can sit behind a load balancer")
	}
}

// defaultDB returns the database used without --db: $ALBUM_DB, else
// album.db in the user's cache folder (in the working folder when there
// is none).
func defaultDB() string {
	if v := os.Getenv("ALBUM_DB"); v != "" {
		return v
	}
	if dir, err := os.UserCacheDir(); err == nil {
		return filepath.Join(dir, "toolapi-album", "album.db")
	}
	return "album.db"
}

func (g *globals) exportDir() string {
	if g.exports != "" {
		return g.exports
	}
	if !isPostgres(g.db) {
		return filepath.Join(filepath.Dir(g.db), "exports")
	}
	if dir, err := os.UserCacheDir(); err == nil {
		return filepath.Join(dir, "toolapi-album", "exports")
	}
	return "exports"
}

// run runs the command line args and returns the exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	g := &globals{db: defaultDB()}
	fs := flag.NewFlagSet("album", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprintf(stderr, usage, defaultDB()) }
	g.register(fs)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	args = fs.Args()
	if len(args) == 0 {
		fs.Usage()
		return 2
	}
	cmd, args := args[0], args[1:]
	var err error
	switch cmd {
	case "serve":
		err = serveCommand(ctx, g, args, stdout, stderr)
	case "tool":
		return toolCommand(ctx, g, args, stdin, stdout, stderr)
	case "mcp":
		err = mcpCommand(ctx, g, args, stderr)
	case "tokens":
		err = tokensCommand(ctx, g, args, stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprintf(stdout, usage, defaultDB())
		return 0
	default:
		fmt.Fprintf(stderr, "album: unknown command %q\n", cmd)
		fs.Usage()
		return 2
	}
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if errors.Is(err, errUsage) {
		return 2
	}
	if err != nil {
		fmt.Fprintf(stderr, "album %s: %v\n", cmd, err)
		return 1
	}
	return 0
}

// errUsage reports a command line that was wrong; the flag package has
// said why.
var errUsage = errors.New("usage")

// parse parses a command's flags, the global ones among them.
func parse(fs *flag.FlagSet, g *globals, args []string, stderr io.Writer) error {
	fs.SetOutput(stderr)
	g.register(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	return nil
}

// open opens the store and builds the application, logging to stderr.
func open(ctx context.Context, g *globals, stderr io.Writer) (*App, error) {
	store, err := OpenStore(ctx, g.db)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", describeDB(g.db), err)
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	app, err := NewApp(store, g.exportDir(), logger)
	if err != nil {
		store.Close()
		return nil, err
	}
	if g.stateless {
		app.Stateless = true
	}
	return app, nil
}

// describeDB names a database for messages without its password.
func describeDB(dsn string) string {
	if !isPostgres(dsn) {
		return dsn
	}
	if at := strings.LastIndexByte(dsn, '@'); at > 0 {
		if i := strings.Index(dsn, "://"); i > 0 && i+3 < at {
			return dsn[:i+3] + "…" + dsn[at:]
		}
	}
	return dsn
}

func toolCommand(ctx context.Context, g *globals, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	app, err := open(ctx, g, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "album tool: %v\n", err)
		return 1
	}
	defer app.Store.Close()
	anon, err := app.Anonymous(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "album tool: %v\n", err)
		return 1
	}
	return toolcli.Run(ctx, app.Registry, args, stdout, stderr, &toolcli.Options{
		Name:           "album tool",
		Accounts:       app.cliAccount,
		DefaultAccount: anon,
		Stdin:          stdin,
	})
}

// cliAccount returns the account --user names, for the CLI.
func (a *App) cliAccount(ctx context.Context, name string) (tool.Account, error) {
	u, err := a.Store.User(ctx, name)
	if errors.Is(err, errNoUser) {
		return nil, fmt.Errorf("%q: %w", name, toolcli.ErrUnknownUser)
	}
	if err != nil {
		return nil, err
	}
	return u, nil
}

func mcpCommand(ctx context.Context, g *globals, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("album mcp", flag.ContinueOnError)
	user := fs.String("user", "anonymous", "the user the tools run for")
	if err := parse(fs, g, args, stderr); err != nil {
		return err
	}
	app, err := open(ctx, g, stderr)
	if err != nil {
		return err
	}
	defer app.Store.Close()
	acct, err := app.Store.User(ctx, *user)
	if err != nil {
		return fmt.Errorf("user %q: %w", *user, err)
	}
	err = app.MCP().RunStdio(ctx, acct)
	if ctx.Err() != nil {
		return nil // interrupted: a clean end
	}
	return err
}

func tokensCommand(ctx context.Context, g *globals, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("album tokens", flag.ContinueOnError)
	if err := parse(fs, g, args, stderr); err != nil {
		return err
	}
	app, err := open(ctx, g, stderr)
	if err != nil {
		return err
	}
	defer app.Store.Close()
	return printTokens(ctx, app.Store, fs.Args(), stdout)
}

// printTokens issues a token for each named user (every user but
// anonymous when none is named) and prints them with an example of use.
func printTokens(ctx context.Context, s *Store, names []string, w io.Writer) error {
	if len(names) == 0 {
		users, err := s.Users(ctx)
		if err != nil {
			return err
		}
		for _, u := range users {
			if u.Role != roleAnonymous {
				names = append(names, u.Name)
			}
		}
	}
	fmt.Fprintln(w, "API tokens (shown once; each replaces the user's earlier token):")
	for _, name := range names {
		token, err := s.IssueToken(ctx, name)
		if errors.Is(err, errNoUser) {
			return fmt.Errorf("no user is named %q", name)
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "  %-10s %s\n", name, token)
	}
	fmt.Fprintln(w, "Send one as an HTTP header: Authorization: Bearer TOKEN")
	return nil
}
