package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/toolapi/toolapi/explorer"
	"github.com/toolapi/toolapi/mcpserver"
	"github.com/toolapi/toolapi/tool"
)

// MCP returns the application's MCP server, built on first use. HTTP
// requests authenticate with a bearer token (see the tokens command); a
// request without one runs as the seeded user anonymous.
func (a *App) MCP() *mcpserver.Server {
	a.mcpOnce.Do(func() {
		tokens := mcpserver.Bearer(func(ctx context.Context, token string) (tool.Account, error) {
			return a.Store.UserByToken(ctx, token)
		})
		opts := &mcpserver.Options{
			Name:      "album",
			Title:     "Album demo",
			Logger:    a.Logger,
			Stateless: a.Stateless,
			Authenticate: func(r *http.Request) (tool.Account, error) {
				acct, err := tokens(r)
				if acct != nil || err != nil {
					return acct, err
				}
				return a.Anonymous(r.Context())
			},
		}
		if a.Stateless {
			// Processes behind one load balancer must read each other's
			// request state: they share the key through the database.
			key, err := a.Store.StateKey(context.Background())
			if err != nil {
				a.Logger.Error("MCP request-state key unavailable; each process uses its own", "error", err.Error())
			}
			opts.StateKey = key
		}
		a.mcp = mcpserver.New(a.Registry, opts)
	})
	return a.mcp
}

// newMux returns the site's HTTP handler: MCP over streamable HTTP at
// /mcp, a health check at /healthz and the tool explorer at /.
func newMux(app *App) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/mcp", app.MCP().Handler())
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		if err := app.Store.DB().PingContext(r.Context()); err != nil {
			app.Logger.Error("health check", "error", err.Error())
			http.Error(w, "database unavailable", http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, "ok\n")
	})
	mux.Handle("/", app.Explorer())
	return mux
}

// Explorer returns the tool explorer of the application. People sign in
// with a user's name and API token (see the tokens command); visitors who
// have not signed in browse as the seeded user anonymous, and may start a
// session as that user. Presets are stored in the database.
func (a *App) Explorer() http.Handler {
	return explorer.New(a.Registry, &explorer.Options{
		Title:   "Album demo",
		AppName: "album",
		Logger:  a.Logger,
		Authenticate: func(ctx context.Context, name, token string) (tool.Account, error) {
			u, err := a.Store.UserByToken(ctx, token)
			if err != nil {
				return nil, err
			}
			if u.Name != name {
				return nil, errNoUser
			}
			return u, nil
		},
		PasswordLabel: "API token",
		SignInNote: "Sign in with a user's name and API token: \"album tokens NAME\" (or \"album serve --print-tokens\") " +
			"issues one. The seeded users are editor, admin and mallory (blocked).",
		Anonymous: a.Anonymous,
		Account: func(ctx context.Context, name string) (tool.Account, error) {
			return a.Store.User(ctx, name)
		},
		Presets:      PresetStore{store: a.Store},
		SanitizeHTML: explorer.InlineHTML,
	})
}

// serveOptions let tests watch a server's life.
type serveOptions struct {
	// ready, when set, receives the address the server listens on.
	ready func(addr string)
	// shuttingDown, when set, is called once shutdown has begun.
	shuttingDown func()
}

func serveCommand(ctx context.Context, g *globals, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("album serve", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:8080", "the address to listen on")
	printTok := fs.Bool("print-tokens", false, "issue and print API tokens for the seeded users")
	if err := parse(fs, g, args, stderr); err != nil {
		return err
	}
	app, err := open(ctx, g, stderr)
	if err != nil {
		return err
	}
	defer app.Store.Close()
	if *printTok {
		if err := printTokens(ctx, app.Store, nil, stdout); err != nil {
			return err
		}
	}
	return serve(ctx, app, *addr, stdout, nil)
}

// shutdownGrace is how long a shutdown waits for requests in flight
// before it closes their connections (MCP event streams stay open until
// then).
const shutdownGrace = 10 * time.Second

// serve serves app on addr until ctx is done, then shuts down: it stops
// accepting connections and lets every request in flight, and so every
// write, finish.
func serve(ctx context.Context, app *App, addr string, stdout io.Writer, opts *serveOptions) error {
	if opts == nil {
		opts = &serveOptions{}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           newMux(app),
		ReadHeaderTimeout: 10 * time.Second,
	}
	url := "http://" + ln.Addr().String()
	fmt.Fprintf(stdout, "Serving the album demo on %s (MCP at %s/mcp) with the %s database.\n", url, url, app.Store.Dialect())
	if opts.ready != nil {
		opts.ready(ln.Addr().String())
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	fmt.Fprintln(stdout, "Shutting down: finishing the requests in flight.")
	var once sync.Once
	srv.RegisterOnShutdown(func() {
		if opts.shuttingDown != nil {
			once.Do(opts.shuttingDown)
		}
	})
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	err = srv.Shutdown(sctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = srv.Close()
	}
	if serr := <-served; serr != nil && !errors.Is(serr, http.ErrServerClosed) {
		return serr
	}
	return err
}
