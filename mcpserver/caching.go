package mcpserver

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultListTTL is how long a client may reuse a list it was given
// (tools/list, prompts/list, resources/list, resources/templates/list)
// when [Options.ListTTL] is zero.
const DefaultListTTL = time.Minute

// listTTL returns the ttlMs of list results: Options.ListTTL in whole
// milliseconds, DefaultListTTL when it is zero, and 0 (reuse nothing) when
// it is negative.
func (s *Server) listTTL() int {
	switch ttl := s.opts.ListTTL; {
	case ttl == 0:
		return int(DefaultListTTL.Milliseconds())
	case ttl < 0:
		return 0
	default:
		return int(ttl.Milliseconds())
	}
}

// cacheable returns the SDK's hook that settles the caching hints (ttlMs,
// cacheScope) of the results that carry them: every list gets the TTL of
// [Options.ListTTL]; then app, the application's own hook (the
// SetCacheable of Options.SDK), if any, has its say. Other results
// (server/discover, resources/read) keep what their handler gave. The
// scope is the protocol's default, public, unless a handler said
// otherwise: the receiving middleware marks the lists that depend on the
// account (tools/list always, resources/list with apps) private after
// this hook has run, so the application cannot make them public.
func (s *Server) cacheable(app func(context.Context, mcp.Request, *mcp.Cacheable)) func(context.Context, mcp.Request, *mcp.Cacheable) {
	ttl := s.listTTL()
	return func(ctx context.Context, req mcp.Request, c *mcp.Cacheable) {
		switch req.(type) {
		case *mcp.ListToolsRequest, *mcp.ListPromptsRequest, *mcp.ListResourcesRequest, *mcp.ListResourceTemplatesRequest:
			c.TTLMs = ttl
		}
		if app != nil {
			app(ctx, req, c)
		}
	}
}
