// Command album is the toolapi demo: a photo-album site whose services'
// methods are tools, served to people and agents over a CLI, MCP and the
// web, on SQLite or PostgreSQL.
//
//	album serve [--addr 127.0.0.1:8080] [--db PATH|postgres://...] [--print-tokens] [--stateless]
//	album tool list|search|info|run|export|task ...
//	album mcp [--user NAME] [--groups G,...] [--read-only]
//	album tokens [USER...]
//	album audit [--account ID] [--tool ID] [--limit N] [--format table|json]
//
// See docs/album.md.
package main

import (
	"os"

	"github.com/toolapi/toolapi/toolapp"
)

func main() {
	f := &flags{db: defaultDB()}
	toolapp.Main(f.open(os.Stderr), f.options())
}
