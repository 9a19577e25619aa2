// Package toolapp runs an application built on toolapi: one call gives
// it the standard commands, so its main holds only what is its own.
//
//	func main() {
//		reg := tool.NewRegistry(nil)
//		if err := RegisterTools(reg, &Notes{}); err != nil {
//			log.Fatal(err)
//		}
//		accounts := toolapp.NewStaticAccounts(nil, &tool.User{ID: "ada", Permissions: []string{"edit notes"}})
//		toolapp.Main(func(context.Context) (*toolapp.App, error) {
//			return &toolapp.App{Registry: reg, Accounts: accounts}, nil
//		}, &toolapp.Options{Name: "notes", Title: "Notes"})
//	}
//
// The application then answers:
//
//	notes tool list|search|info|run|export ...   the tool command line (package toolcli)
//	notes mcp [--user NAME] [--groups G,...] [--read-only]  MCP over standard input and output (package mcpserver)
//	notes serve [--addr A] [--stateless] [--grace D]  MCP at /mcp, the explorer at /, GET /healthz and /readyz
//	notes tokens [NAME...]                       issue API tokens
//
// # Accounts
//
// One [Accounts] store is behind every door: --user names an account on
// the command line, a bearer token names one on /mcp, and people sign in
// to the explorer with an account's name and token. A caller who gives
// neither is the store's anonymous account. Stores keep only a hash of
// each token ([HashToken]). [StaticAccounts] is a ready store in memory;
// an application with a database implements the three methods of
// [Accounts] over its own table, and [TokenIssuer] to get the tokens
// command.
//
// # Serving
//
// serve (and [Serve], for programs and tests) runs an [http.Server] with
// explicit limits, each an [Options] field with a documented default: a
// header timeout, a deadline for each request's body that is lifted once
// the body is read (so MCP event streams run as long as they need; there
// is no overall write timeout), an idle timeout for kept-alive
// connections, a header size limit and body size limits on /mcp and the
// explorer. SIGINT and SIGTERM start a graceful shutdown: no new
// connections, MCP's event streams and pending questions end, and the
// requests in flight finish within the grace period (serve --grace); with
// [Options.Drain] it first goes on serving while /readyz answers 503.
//
// serve listens before it opens the App: while the [Opener] reports
// [ErrUnavailable] (the database is down or starting) it tries again with
// a bounded backoff, /healthz answering 200 and everything else 503. Once
// open it sizes the pool of [App.DB] ([Options.Pool]). GET /healthz says
// the process answers and touches nothing; GET /readyz pings the database
// within [ReadyTimeout].
//
// serve and mcp turn OpenTelemetry on when the standard OTEL_* variables
// ask for an exporter (see [telemetry.FromEnv]): a span and metrics per
// run and a span per MCP request, flushed when the command ends. Without
// them nothing is installed.
//
// An application whose tools need a database named by a flag declares the
// flag in [Options.Flags] and opens the database in its [Opener], which
// the runner calls once the flags are parsed; [App.Close] releases it.
package toolapp
