package tooltest

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolapi/toolapi/mcpserver"
	"github.com/toolapi/toolapi/tool"
)

// SessionOptions configure [MCPSession]; nil means none of them.
type SessionOptions struct {
	// Server configures the MCP server of the registry (naming, hints,
	// stateless mode). Nil means [mcpserver.New]'s defaults.
	Server *mcpserver.Options
	// Client configures the client: handlers for elicitation, sampling,
	// progress and log notifications. Nil means the SDK's defaults.
	Client *mcp.ClientOptions
}

// MCPSession serves the tools of reg to an MCP client for acct (nil means
// [tool.Anonymous]) over in-memory transports (see
// [mcp.NewInMemoryTransports]) and returns the client's session, connected
// and initialized. The session is closed when the test ends. A failure to
// connect fails the test at once.
func MCPSession(t TB, reg *tool.Registry, acct tool.Account, opts *SessionOptions) *mcp.ClientSession {
	t.Helper()
	if acct == nil {
		acct = tool.Anonymous
	}
	if opts == nil {
		opts = &SessionOptions{}
	}
	serverSide, clientSide := mcp.NewInMemoryTransports()
	ss, err := mcpserver.New(reg, opts.Server).Connect(t.Context(), serverSide, acct)
	if err != nil {
		t.Fatalf("serving MCP: %v", err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "tooltest", Version: "1"}, opts.Client)
	cs, err := client.Connect(t.Context(), clientSide, nil)
	if err != nil {
		ss.Close()
		t.Fatalf("connecting an MCP client: %v", err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}
