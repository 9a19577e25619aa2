package oauth

import "github.com/toolapi/toolapi/tool"

// maxAgent is the most bytes of the agent a token names that an account
// keeps: the issuer's clients choose their IDs.
const maxAgent = 200

// AgentOf returns the agent a token says acts for its subject: the
// subject of its act claim (RFC 8693 delegation) when it has one, else
// its client (client_id, or azp). It is "" when the token names neither,
// and at most 200 bytes.
func AgentOf(t *Token) string {
	agent := t.ClientID
	if act, ok := t.Claims["act"].(map[string]any); ok {
		if sub, ok := act["sub"].(string); ok && sub != "" {
			agent = sub
		}
	}
	if len(agent) > maxAgent {
		agent = agent[:maxAgent]
	}
	return agent
}

// WithAgent returns acct as a [tool.Agented] account acting through the
// agent t names ([AgentOf]), so that the audit trail names both; acct
// itself when t names none. An [Options.Account] function uses it to
// keep the agent of the accounts it returns.
func WithAgent(acct tool.Account, t *Token) tool.Account {
	agent := AgentOf(t)
	if agent == "" || acct == nil {
		return acct
	}
	return &agentAccount{Account: acct, agent: agent}
}

// An agentAccount is an account acting through an agent.
type agentAccount struct {
	tool.Account
	agent string
}

func (a *agentAccount) Agent() string { return a.agent }
