package tool

import "context"

// Channels through which runs reach a registry, for [Caller.Channel].
const (
	ChannelCLI      = "cli"
	ChannelMCP      = "mcp"
	ChannelExplorer = "explorer"
	ChannelFuncall  = "funcall"
	ChannelAdapter  = "adapter"
)

// A Caller says who and what put a run to the registry, beside the account
// it runs for: the channel, the agent or client acting for the account,
// and the IDs that tie the run to its request. Middleware that records
// runs (an audit trail) reads it with [CallerFrom]. Every field may be
// empty.
type Caller struct {
	// Channel is how the run came: one of the Channel constants, or the
	// name of an adapter.
	Channel string
	// Client names the program that sent the run: the MCP client's name
	// and version from its initialize request, say.
	Client string
	// Agent names the agent acting for the account, when the credentials
	// say so: an OAuth token's act claim or client (see [AgentOf]).
	Agent string
	// TraceID is the trace the run belongs to, when the caller traces.
	TraceID string
	// CallID identifies the call in its protocol: a function call's ID,
	// an MCP request's ID.
	CallID string
}

type callerKey struct{}

// WithCaller returns a context whose runs were put by c. Fields of c left
// empty keep those of the Caller ctx already carries.
func WithCaller(ctx context.Context, c Caller) context.Context {
	prev := CallerFrom(ctx)
	for _, f := range []struct {
		to   *string
		from string
	}{
		{&c.Channel, prev.Channel}, {&c.Client, prev.Client}, {&c.Agent, prev.Agent},
		{&c.TraceID, prev.TraceID}, {&c.CallID, prev.CallID},
	} {
		if *f.to == "" {
			*f.to = f.from
		}
	}
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerFrom returns the Caller ctx carries, with its Agent taken from the
// account ctx carries ([AgentOf]) when the caller set none; the zero
// Caller when there is none.
func CallerFrom(ctx context.Context) Caller {
	c, _ := ctx.Value(callerKey{}).(Caller)
	if c.Agent == "" {
		c.Agent = AgentOf(AccountFrom(ctx))
	}
	return c
}

// An Agented account acts through an agent: an OAuth access token issued
// to a client, or delegated to an actor.
type Agented interface {
	Account
	// Agent names the agent ("client-id", or the actor's subject).
	Agent() string
}

// AgentOf returns the agent acct acts through, when it is [Agented]; else "".
func AgentOf(acct Account) string {
	if a, ok := acct.(Agented); ok {
		return a.Agent()
	}
	return ""
}
