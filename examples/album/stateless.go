package main

import (
	"context"
	"net/http"

	"github.com/toolapi/toolapi/mcpserver"
	"github.com/toolapi/toolapi/tool"
)

// serveMCPStateless makes the application's MCP server (see [App.MCP])
// serve streamable HTTP without sessions, as `serve --stateless` asks:
// every request stands alone, so several serve processes sharing one
// PostgreSQL database can answer the same clients behind any load
// balancer. Tokens and anonymous access work as with sessions. Without
// sessions the server sends no list-changed notifications, and it asks the
// client (sampling, elicitation, confirmation) only on protocol versions
// that carry the answers from one request to the next (see
// [mcpserver.Options.Stateless]).
//
// It must be called before [App.MCP] is.
func (a *App) serveMCPStateless() {
	a.mcpOnce.Do(func() {
		tokens := mcpserver.Bearer(func(ctx context.Context, token string) (tool.Account, error) {
			return a.Store.UserByToken(ctx, token)
		})
		a.mcp = mcpserver.New(a.Registry, &mcpserver.Options{
			Name:      "album",
			Title:     "Album demo",
			Logger:    a.Logger,
			Stateless: true,
			Authenticate: func(r *http.Request) (tool.Account, error) {
				acct, err := tokens(r)
				if acct != nil || err != nil {
					return acct, err
				}
				return a.Anonymous(r.Context())
			},
		})
	})
}
