package explorer

import (
	"context"
	"database/sql"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/toolapi/toolapi/audit"
	"github.com/toolapi/toolapi/tool"
)

// failingTrail is an audit trail that cannot be read.
type failingTrail struct{ audit.Store }

func (failingTrail) List(context.Context, *audit.Filter) ([]audit.Record, error) {
	return nil, errors.New("pq: relation audit_trail is locked")
}

// The audit page lists the trail for an account holding AuditPermission,
// filtered by account and tool; to anyone else it does not exist.
func TestAuditPage(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sql.DB) {
		trail, err := audit.NewSQLStore(db, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := trail.Migrate(context.Background()); err != nil {
			t.Fatal(err)
		}
		env := newTestEnv(t, &Options{Audit: trail, AuditPermission: "see drafts"})
		env.reg.Use(audit.Middleware(trail, nil))
		// alice may not run demo.secret: a refused run, recorded.
		res, err := env.reg.RunJSON(tool.WithAccount(context.Background(), testUsers["alice"]), "demo.secret", []byte(`{}`))
		if err != nil || res.Failure != tool.FailureAccess {
			t.Fatalf("alice's run of demo.secret: %+v %v, want refused", res, err)
		}
		if err := trail.Add(context.Background(), &audit.Record{
			Time: time.Date(2026, 11, 30, 9, 15, 0, 0, time.UTC), Account: "bob", Tool: "demo.wipe", Operation: "write",
			Outcome: audit.Succeeded, InputsSHA256: strings.Repeat("ab", 32), Duration: 12 * time.Millisecond,
			Channel: "mcp", Client: "claude-code/2.1", Agent: "research-bot",
		}); err != nil {
			t.Fatal(err)
		}

		bob := env.browser(t)
		bob.signIn("bob")
		if r := bob.get("/"); !strings.Contains(r.body, `href="/audit"`) {
			t.Errorf("the list offers bob no link to the audit trail:\n%s", r.body)
		}
		r := bob.get("/audit")
		for _, want := range []string{"demo.secret", "alice", "✗ failed (access)", "demo.wipe", "✓ succeeded", "12 ms", "30 Nov 2026 09:15:00", "abababababab…"} {
			if r.status != http.StatusOK || !strings.Contains(r.body, want) {
				t.Errorf("GET /audit as bob: %d, no %q:\n%s", r.status, want, r.body)
			}
		}
		if strings.Index(r.body, "demo.secret") > strings.Index(r.body, "demo.wipe") {
			t.Error("the audit page is not newest first")
		}
		if r := bob.get("/audit?account=bob"); strings.Contains(r.body, "demo.secret") || !strings.Contains(r.body, "demo.wipe") {
			t.Errorf("GET /audit?account=bob shows another account's run, or not bob's:\n%s", r.body)
		}
		if r := bob.get("/audit?tool=demo.secret"); !strings.Contains(r.body, "demo.secret") || strings.Contains(r.body, "<code>demo.wipe</code>") {
			t.Errorf("GET /audit?tool=demo.secret:\n%s", r.body)
		}
		if r := bob.get("/audit?agent=research-bot"); !strings.Contains(r.body, "<code>demo.wipe</code>") || strings.Contains(r.body, "<code>demo.secret</code>") ||
			!strings.Contains(r.body, "mcp claude-code/2.1") || !strings.Contains(r.body, `value="research-bot"`) {
			t.Errorf("GET /audit?agent=research-bot shows another agent's run, or not the agent's:\n%s", r.body)
		}
		if r := bob.get("/audit?account=nobody"); !strings.Contains(r.body, "No record matches.") {
			t.Errorf("GET /audit?account=nobody:\n%s", r.body)
		}

		alice := env.browser(t)
		alice.signIn("alice")
		if r := alice.get("/audit"); r.status != http.StatusNotFound || strings.Contains(r.body, "demo.secret") {
			t.Errorf("GET /audit as alice: %d, want 404 without the trail", r.status)
		}
		if r := alice.get("/"); strings.Contains(r.body, `href="/audit"`) {
			t.Error("the list offers alice a link to the audit trail")
		}
		if r := env.browser(t).get("/audit"); r.status != http.StatusNotFound {
			t.Errorf("GET /audit as anonymous: %d, want 404", r.status)
		}
	})
}

// A trail that cannot be read gives a page saying so, without the error.
func TestAuditPageUnreadable(t *testing.T) {
	env := newTestEnv(t, &Options{Audit: failingTrail{}, AuditPermission: "use demo"})
	b := env.browser(t)
	b.signIn("alice")
	r := b.get("/audit")
	if r.status != http.StatusServiceUnavailable || !strings.Contains(r.body, "cannot be read") || strings.Contains(r.body, "relation") {
		t.Errorf("GET /audit with an unreadable trail: %d\n%s", r.status, r.body)
	}
}

// Without Options.Audit there is no audit page.
func TestAuditPageOff(t *testing.T) {
	env := newTestEnv(t, nil)
	b := env.browser(t)
	b.signIn("bob")
	if r := b.get("/audit"); r.status != http.StatusNotFound {
		t.Errorf("GET /audit without a trail: %d, want 404", r.status)
	}
}
