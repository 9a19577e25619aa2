package oauth_test

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/toolapi/toolapi/tool"
)

// TestAgentOfToken checks that the account of a verified token names the
// token's agent: the subject of its act claim when it has one, else its
// client (client_id, else azp), bounded to 200 bytes.
func TestAgentOfToken(t *testing.T) {
	iss := newIssuer(t)
	rs := newResourceServer(t, iss.URL, nil)
	for _, tc := range []struct {
		name    string
		changes map[string]any
		agent   string
	}{
		{"client_id", nil, "agent"},
		{"azp", map[string]any{"client_id": nil, "azp": "desktop-app"}, "desktop-app"},
		{"act", map[string]any{"act": map[string]any{"sub": "research-bot"}}, "research-bot"},
		{"none", map[string]any{"client_id": nil}, ""},
		{"long", map[string]any{"client_id": strings.Repeat("c", 300)}, strings.Repeat("c", 200)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/mcp", nil)
			r.Header.Set("Authorization", "Bearer "+iss.sign(t, iss.claims(tc.changes)))
			acct, err := rs.Authenticate(r)
			if err != nil {
				t.Fatal(err)
			}
			if acct.AccountID() != "ada" || !acct.HasPermission("access content") {
				t.Errorf("account %q lost its identity or permissions", acct.AccountID())
			}
			if got := tool.AgentOf(acct); got != tc.agent {
				t.Errorf("agent %q, want %q", got, tc.agent)
			}
		})
	}
}
