// Command album is the toolapi demo: a photo-album site whose services'
// methods are tools, served to people and agents over a CLI, MCP and the
// web, on SQLite or PostgreSQL.
//
//	album serve [--addr 127.0.0.1:8080] [--db PATH|postgres://...] [--print-tokens]
//	album tool list|search|info|run ...
//	album mcp [--user NAME]
//	album tokens [USER...]
//
// See docs/album.md.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
