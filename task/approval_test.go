package task

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolapi/toolapi/audit"
	"github.com/toolapi/toolapi/tool"
)

// approvalFixture is a task manager with a tool whose calls another
// account approves: "album.takedown", run by holders of "export" and
// approved by holders of "approve takedowns" (eve; root holds both).
type approvalFixture struct {
	*fixture
	acc   *accounts
	trail *audit.SQLStore
	mu    sync.Mutex
	ran   []string // the albums taken down, in order
}

func newApprovalFixture(t *testing.T, db *sql.DB, ttl time.Duration) *approvalFixture {
	t.Helper()
	af := &approvalFixture{acc: &accounts{perms: map[string][]string{
		"ada": {"export"}, "bob": {"export"}, "carl": {}, "eve": {"approve takedowns"}, "root": {"export", "approve takedowns"},
	}}}
	trail, err := audit.NewSQLStore(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := trail.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	af.trail = trail
	af.fixture = newFixture(t, db, &Options{Key: testKey, PollInterval: 20 * time.Millisecond, Account: af.acc.account, Audit: trail, ApprovalTTL: ttl})
	err = af.reg.Add(&tool.Tool{
		ID: "album.takedown", Label: "Takedown", Description: "Takes an album down.", Permission: "export",
		Task: tool.TaskRequired, Approver: "approve takedowns",
		Inputs: []*tool.Definition{{Name: "album", Type: "string", Required: true, Constraints: tool.Constraints{NotBlank: true}}},
		Handler: func(_ context.Context, in *tool.Values) (*tool.Result, error) {
			af.mu.Lock()
			af.ran = append(af.ran, in.String("album"))
			af.mu.Unlock()
			return tool.Succeeded("Taken down.", nil), nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return af
}

func (af *approvalFixture) runs() []string {
	af.mu.Lock()
	defer af.mu.Unlock()
	return append([]string(nil), af.ran...)
}

func (af *approvalFixture) create(t *testing.T, who, album string) *Task {
	t.Helper()
	tk, err := af.m.Create(af.as(t, who), "album.takedown", json.RawMessage(`{"album":"`+album+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

func (af *approvalFixture) as(t *testing.T, who string) context.Context {
	t.Helper()
	acct, err := af.acc.account(context.Background(), who)
	if err != nil {
		t.Fatal(err)
	}
	return as(acct)
}

// TestApproval: a call of a tool with an approver waits, as a task, for
// another account holding the approver permission; it runs once, with the
// inputs approved, after the approval, and never after a refusal. Who may
// not approve gets "no such task"; nobody approves their own call.
func TestApproval(t *testing.T) {
	each(t, func(t *testing.T, db *sql.DB) {
		af := newApprovalFixture(t, db, 0)
		af.start(t)
		ada, eve := af.as(t, "ada"), af.as(t, "eve")

		tk := af.create(t, "ada", "a1")
		if tk.Status != Working || tk.StatusMessage != AwaitingApproval {
			t.Fatalf("a new call: %+v, want working and %q", tk, AwaitingApproval)
		}
		got, err := af.m.Get(ada, tk.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Approval == nil || got.Approval.Status != "pending" || got.Approval.Permission != "approve takedowns" || string(got.Approval.Args) != `{"album":"a1"}` {
			t.Fatalf("the caller's view of the approval: %+v", got.Approval)
		}

		// Run directly, outside a task: refused.
		res, err := af.reg.RunJSON(ada, "album.takedown", []byte(`{"album":"a1"}`))
		if err != nil || res.Success || res.Failure != tool.FailureAccess {
			t.Fatalf("a direct run: %+v, %v; want an access failure", res, err)
		}

		// Who sees it waiting.
		for who, want := range map[string]int{"eve": 1, "root": 1, "bob": 0, "ada": 0} {
			ps, err := af.m.Approvals(af.as(t, who))
			if err != nil {
				t.Fatal(err)
			}
			if len(ps) != want {
				t.Errorf("%s sees %d calls to approve, want %d", who, len(ps), want)
			}
		}
		// Who may not approve.
		if _, err := af.m.Approve(af.as(t, "bob"), tk.ID, nil); !errors.Is(err, ErrNotFound) {
			t.Errorf("approved by bob, who may not: %v; want no such task", err)
		}
		if _, err := af.m.Approve(ada, tk.ID, nil); !errors.Is(err, ErrNotFound) {
			t.Errorf("approved by its caller: %v; want no such task", err)
		}
		own := af.create(t, "root", "r1")
		if _, err := af.m.Approve(af.as(t, "root"), own.ID, nil); !errors.Is(err, ErrOwnCall) {
			t.Errorf("root approving its own call: %v; want ErrOwnCall", err)
		}
		if _, err := af.m.Approve(eve, "NOSUCHTASK", nil); !errors.Is(err, ErrNotFound) {
			t.Errorf("an unknown task: %v", err)
		}
		if runs := af.runs(); len(runs) != 0 {
			t.Fatalf("ran %v before any approval", runs)
		}

		// Approved: runs once.
		if _, err := af.m.Approve(eve, tk.ID, &ApproveOptions{Note: "fine"}); err != nil {
			t.Fatal(err)
		}
		if got := wait(t, af.m, ada, tk.ID); got.Status != Completed || got.Approval.DecidedBy != "eve" || got.Approval.Status != "approved" {
			t.Fatalf("approved: %+v approval %+v", got, got.Approval)
		}
		if _, err := af.m.Approve(af.as(t, "root"), tk.ID, nil); !errors.Is(err, ErrNotAwaiting) {
			t.Errorf("a second approval: %v; want ErrNotAwaiting", err)
		}

		// Edited by the approver: checked again, and runs as edited.
		ed := af.create(t, "ada", "a2")
		var re *RefusedError
		if _, err := af.m.Approve(eve, ed.ID, &ApproveOptions{Args: json.RawMessage(`{"album":""}`)}); !errors.As(err, &re) || re.Result.Failure != tool.FailureInput {
			t.Fatalf("edited into bad inputs: %v; want an input failure", err)
		}
		if _, err := af.m.Approve(eve, ed.ID, &ApproveOptions{Args: json.RawMessage(`{"album":"a3"}`)}); err != nil {
			t.Fatal(err)
		}
		got = wait(t, af.m, ada, ed.ID)
		if got.Status != Completed || string(got.Approval.Original) != `{"album":"a2"}` || string(got.Approval.Args) != `{"album":"a3"}` {
			t.Fatalf("edited: %+v approval %+v", got, got.Approval)
		}

		// Refused: never runs.
		rf := af.create(t, "ada", "a4")
		if _, err := af.m.Refuse(eve, rf.ID, "not today"); err != nil {
			t.Fatal(err)
		}
		got = wait(t, af.m, ada, rf.ID)
		if got.Status != Failed || got.Result.Failure != tool.FailureAccess || got.Result.Message != "Takedown was refused by eve: not today" || got.Internal() {
			t.Fatalf("refused: %+v result %+v", got, got.Result)
		}
		if _, err := af.m.Approve(eve, rf.ID, nil); !errors.Is(err, ErrNotAwaiting) {
			t.Errorf("approving a refused call: %v", err)
		}
		// Cancelled by its caller while it waits: no longer to approve.
		cn := af.create(t, "ada", "a5")
		if _, err := af.m.Cancel(ada, cn.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := af.m.Approve(eve, cn.ID, nil); !errors.Is(err, ErrNotAwaiting) {
			t.Errorf("approving a cancelled call: %v", err)
		}
		if _, err := af.m.Refuse(eve, cn.ID, string(make([]byte, MaxNote+1))); !errors.Is(err, ErrBadApproval) {
			t.Errorf("a reason too long: %v", err)
		}

		if runs := af.runs(); len(runs) != 2 || runs[0] != "a1" || runs[1] != "a3" {
			t.Errorf("ran %v, want [a1 a3]", runs)
		}

		// The trail: awaiting, approved by eve with the edited inputs'
		// hash, refused by eve.
		recs, err := af.trail.List(context.Background(), &audit.Filter{Tool: "album.takedown", Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		steps := map[string][]audit.Record{}
		for _, r := range recs {
			steps[r.TaskID] = append(steps[r.TaskID], r)
		}
		find := func(id string, o audit.Outcome) *audit.Record {
			for i, r := range steps[id] {
				if r.Outcome == o {
					return &steps[id][i]
				}
			}
			t.Fatalf("no %s record for task %s in %+v", o, id, steps[id])
			return nil
		}
		asked, approved := find(ed.ID, audit.TaskAwaitsApproval), find(ed.ID, audit.TaskApproved)
		if approved.Approver != "eve" || approved.Account != "ada" || approved.InputsSHA256 == asked.InputsSHA256 || approved.InputsSHA256 == "" {
			t.Errorf("the records of an edited approval: asked %+v approved %+v", asked, approved)
		}
		if r := find(rf.ID, audit.TaskRefused); r.Approver != "eve" || r.Failure != tool.FailureAccess {
			t.Errorf("the record of a refusal: %+v", r)
		}
	})
}

// TestApprovalBindsInputs: a task whose stored inputs were changed after
// the approval does not run: the approval binds the inputs' hash.
func TestApprovalBindsInputs(t *testing.T) {
	each(t, func(t *testing.T, db *sql.DB) {
		af := newApprovalFixture(t, db, 0)
		ada, eve := af.as(t, "ada"), af.as(t, "eve")
		tk := af.create(t, "ada", "a1")
		if _, err := af.m.Approve(eve, tk.ID, nil); err != nil {
			t.Fatal(err)
		}
		// Not started yet: change the inputs in the database.
		if _, err := db.Exec(`UPDATE toolapi_tasks SET args = '{"album":"everything"}' WHERE id = $1`, tk.ID); err != nil {
			t.Fatal(err)
		}
		af.start(t)
		got := wait(t, af.m, ada, tk.ID)
		if got.Status != Failed || got.Result.Failure != tool.FailureAccess {
			t.Fatalf("changed inputs: %+v result %+v; want an access failure", got, got.Result)
		}
		if runs := af.runs(); len(runs) != 0 {
			t.Errorf("ran %v", runs)
		}
	})
}

// TestApprovalExpires: a call not approved in time fails and can no longer
// be approved.
func TestApprovalExpires(t *testing.T) {
	each(t, func(t *testing.T, db *sql.DB) {
		af := newApprovalFixture(t, db, time.Millisecond)
		ada, eve := af.as(t, "ada"), af.as(t, "eve")
		tk := af.create(t, "ada", "a1")
		time.Sleep(5 * time.Millisecond)
		if _, err := af.m.Approve(eve, tk.ID, nil); !errors.Is(err, ErrApprovalExpired) {
			t.Fatalf("approving late: %v; want ErrApprovalExpired", err)
		}
		got, err := af.m.Get(ada, tk.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != Failed || got.Approval.Status != "expired" || got.Result.Message != "Takedown was not approved in time, so it did not run." {
			t.Fatalf("expired: %+v approval %+v result %+v", got, got.Approval, got.Result)
		}
	})
}

// TestStandingApproval: a standing approval lets an account's calls run at
// once, for any inputs or exactly some, until revoked; grants that would
// approve nothing, or one's own calls, are refused.
func TestStandingApproval(t *testing.T) {
	each(t, func(t *testing.T, db *sql.DB) {
		af := newApprovalFixture(t, db, 0)
		af.start(t)
		ada, eve := af.as(t, "ada"), af.as(t, "eve")

		s, err := af.m.Grant(eve, &Grant{Tool: "album.takedown", Account: "ada", For: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		tk := af.create(t, "ada", "a1")
		got := wait(t, af.m, ada, tk.ID)
		if got.Status != Completed || got.Approval == nil || got.Approval.Standing != s.ID || got.Approval.DecidedBy != "eve" {
			t.Fatalf("under a standing approval: %+v approval %+v", got, got.Approval)
		}
		// bob has none.
		if tk := af.create(t, "bob", "b1"); tk.StatusMessage != AwaitingApproval {
			t.Errorf("bob's call: %+v; want it waiting", tk)
		}
		list, err := af.m.StandingApprovals(ada)
		if err != nil || len(list) != 1 || list[0].ID != s.ID {
			t.Fatalf("ada's standing approvals: %+v, %v", list, err)
		}
		if _, err := af.m.Revoke(af.as(t, "bob"), s.ID); !errors.Is(err, ErrNotFound) {
			t.Errorf("revoked by bob: %v; want no such approval", err)
		}
		if _, err := af.m.Revoke(af.as(t, "root"), s.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := af.m.Revoke(eve, s.ID); !errors.Is(err, ErrNotAwaiting) {
			t.Errorf("revoked twice: %v", err)
		}
		if tk := af.create(t, "ada", "a2"); tk.StatusMessage != AwaitingApproval {
			t.Errorf("after the revocation: %+v; want it waiting", tk)
		}

		// Exact inputs only.
		if _, err := af.m.Grant(eve, &Grant{Tool: "album.takedown", Account: "ada", Args: json.RawMessage(`{"album":"a9"}`)}); err != nil {
			t.Fatal(err)
		}
		if tk := af.create(t, "ada", "a8"); tk.StatusMessage != AwaitingApproval {
			t.Errorf("other inputs than granted: %+v; want it waiting", tk)
		}
		if tk := af.create(t, "ada", "a9"); wait(t, af.m, ada, tk.ID).Status != Completed {
			t.Errorf("the inputs granted did not run")
		}
		// The granter loses the permission: the grant covers nothing.
		af.acc.set("eve")
		if tk := af.create(t, "ada", "a9"); tk.StatusMessage != AwaitingApproval {
			t.Errorf("granted by who may no longer approve: %+v; want it waiting", tk)
		}
		af.acc.set("eve", "approve takedowns")

		// Refused grants.
		var re *RefusedError
		for _, c := range []struct {
			who  string
			g    Grant
			want error
		}{
			{"bob", Grant{Tool: "album.takedown", Account: "ada"}, ErrMayNotApprove},
			{"root", Grant{Tool: "album.takedown", Account: "root"}, ErrOwnCall},
			{"eve", Grant{Tool: "album.takedown", Account: "carl"}, ErrBadApproval},
			{"eve", Grant{Tool: "album.takedown", Account: "nobody"}, ErrBadApproval},
			{"eve", Grant{Tool: "album.takedown", Account: "ada", For: MaxStanding + time.Hour}, ErrBadApproval},
			{"eve", Grant{Tool: "album.export", Account: "ada"}, ErrMayNotApprove},
			{"eve", Grant{Tool: "album.nosuch", Account: "ada"}, tool.ErrNotFound},
		} {
			if _, err := af.m.Grant(af.as(t, c.who), &c.g); !errors.Is(err, c.want) {
				t.Errorf("%s grants %+v: %v; want %v", c.who, c.g, err, c.want)
			}
		}
		if _, err := af.m.Grant(eve, &Grant{Tool: "album.takedown", Account: "ada", Args: json.RawMessage(`{"album":""}`)}); !errors.As(err, &re) {
			t.Errorf("a grant of bad inputs: %v; want the refusal a run gives", err)
		}
		recs, err := af.trail.List(context.Background(), &audit.Filter{Tool: "album.takedown", Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		var granted, revoked int
		for _, r := range recs {
			switch r.Outcome {
			case audit.ApprovalGranted:
				granted++
			case audit.ApprovalRevoked:
				revoked++
				if r.Approver != "root" || r.TaskID != s.ID {
					t.Errorf("the revocation's record: %+v", r)
				}
			}
		}
		if granted != 2 || revoked != 1 {
			t.Errorf("%d grants and %d revocations in the trail, want 2 and 1", granted, revoked)
		}
	})
}

// TestTooManyPending: an account may have at most MaxPendingApprovals
// calls waiting for approval.
func TestTooManyPending(t *testing.T) {
	db := openSQLite(t)
	if err := Migrate(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	af := newApprovalFixture(t, db, 0)
	for range MaxPendingApprovals {
		af.create(t, "ada", "a")
	}
	var re *RefusedError
	if _, err := af.m.Create(af.as(t, "ada"), "album.takedown", json.RawMessage(`{"album":"a"}`)); !errors.As(err, &re) || re.Result.Failure != tool.FailureAccess {
		t.Fatalf("one call too many: %v; want a refusal", err)
	}
	if tk := af.create(t, "bob", "b"); tk.StatusMessage != AwaitingApproval {
		t.Errorf("another account's call: %+v", tk)
	}
}

// TestApprovalTools: approvals.list and approvals.decide let an approver
// see and decide the calls waiting for it through the run path; who may
// not approve is refused by permission, an unknown or own call is an input
// error naming task_id.
func TestApprovalTools(t *testing.T) {
	db := openSQLite(t)
	if err := Migrate(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	af := newApprovalFixture(t, db, 0)
	if err := af.reg.Add(af.m.ApprovalTools("approve takedowns")...); err != nil {
		t.Fatal(err)
	}
	af.start(t)
	tk := af.create(t, "ada", "a1")
	own := af.create(t, "root", "r1")
	eve := af.as(t, "eve")

	res, err := af.reg.Run(eve, "approvals.list", nil)
	if err != nil || !res.Success {
		t.Fatalf("approvals.list: %+v, %v", res, err)
	}
	calls, _ := res.Outputs["calls"].([]any)
	if len(calls) != 2 {
		t.Fatalf("approvals.list gives %d calls, want 2: %+v", len(calls), res.Outputs)
	}
	if res, _ := af.reg.Run(af.as(t, "bob"), "approvals.list", nil); res.Success || res.Failure != tool.FailureAccess {
		t.Errorf("approvals.list as bob: %+v", res)
	}
	for _, c := range []struct {
		who, id, decision, rule string
	}{
		{"eve", "NOSUCHTASK", "approve", "no call of that ID waits for your approval"},
		{"root", own.ID, "approve", "the call is yours"},
		{"eve", tk.ID, "maybe", ""},
	} {
		res, _ := af.reg.Run(af.as(t, c.who), "approvals.decide", map[string]any{"task_id": c.id, "decision": c.decision})
		if res.Success || res.Failure != tool.FailureInput || len(res.Violations) != 1 ||
			(c.rule != "" && (res.Violations[0].Path != "task_id" || !strings.HasPrefix(res.Violations[0].Message, c.rule))) {
			t.Errorf("approvals.decide %s by %s: %+v", c.decision, c.who, res)
		}
	}
	res, _ = af.reg.Run(eve, "approvals.decide", map[string]any{"task_id": tk.ID, "decision": "approve", "note": "ok"})
	if !res.Success || res.Outputs["status"] != string(Working) {
		t.Fatalf("approvals.decide approve: %+v", res)
	}
	if got := wait(t, af.m, af.as(t, "ada"), tk.ID); got.Status != Completed || got.Approval.DecidedBy != "eve" {
		t.Errorf("approved through the tool: %+v", got)
	}
	res, _ = af.reg.Run(eve, "approvals.decide", map[string]any{"task_id": own.ID, "decision": "refuse", "note": "no"})
	if !res.Success || res.Outputs["status"] != string(Failed) {
		t.Errorf("approvals.decide refuse: %+v", res)
	}
}

// TestApproveSensitive: a call with a sensitive input is approved when its
// inputs come back as they were stored (as a form sends them), refused
// for an edit, and runs with its secret.
func TestApproveSensitive(t *testing.T) {
	each(t, func(t *testing.T, db *sql.DB) {
		af := newApprovalFixture(t, db, 0)
		var got string
		if err := af.reg.Add(&tool.Tool{
			ID: "album.sync", Label: "Sync", Description: "Syncs with a token.", Permission: "export",
			Task: tool.TaskRequired, Approver: "approve takedowns",
			Inputs: []*tool.Definition{{Name: "album", Type: "string", Required: true}, {Name: "token", Type: "string", Required: true, Sensitive: true}},
			Handler: func(_ context.Context, in *tool.Values) (*tool.Result, error) {
				got = in.String("token")
				return tool.Succeeded("Synced.", nil), nil
			},
		}); err != nil {
			t.Fatal(err)
		}
		af.start(t)
		ada, eve := af.as(t, "ada"), af.as(t, "eve")
		tk, err := af.m.Create(ada, "album.sync", json.RawMessage(`{"album":"a1","token":"s3cret"}`))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := af.m.Approve(eve, tk.ID, &ApproveOptions{Args: json.RawMessage(`{"album":"a2"}`)}); !errors.Is(err, ErrBadApproval) {
			t.Errorf("an edit of a call with a secret: %v", err)
		}
		if _, err := af.m.Approve(eve, tk.ID, &ApproveOptions{Args: json.RawMessage(` {"album":"a1"} `)}); err != nil {
			t.Fatalf("the inputs sent back as stored: %v", err)
		}
		if done := wait(t, af.m, ada, tk.ID); done.Status != Completed || got != "s3cret" || done.Approval.Original != nil {
			t.Errorf("approved: %+v, token %q, approval %+v", done, got, done.Approval)
		}
	})
}

// TestStandingApprovalsBounded: an account holds at most
// MaxStandingPerTool standing approvals of one tool in force; one more is
// refused naming the account, and a revocation makes room.
func TestStandingApprovalsBounded(t *testing.T) {
	each(t, func(t *testing.T, db *sql.DB) {
		af := newApprovalFixture(t, db, 0)
		af.start(t)
		eve := af.as(t, "eve")
		var last *Standing
		for i := range MaxStandingPerTool {
			s, err := af.m.Grant(eve, &Grant{Tool: "album.takedown", Account: "ada", Args: json.RawMessage(fmt.Sprintf(`{"album":"a%d"}`, i))})
			if err != nil {
				t.Fatalf("grant %d: %v", i, err)
			}
			last = s
		}
		_, err := af.m.Grant(eve, &Grant{Tool: "album.takedown", Account: "ada"})
		var bad *BadApprovalError
		if !errors.As(err, &bad) || bad.Field != "account" {
			t.Fatalf("grant %d: %v, want a BadApprovalError on account", MaxStandingPerTool+1, err)
		}
		// Another account still may be granted one.
		if _, err := af.m.Grant(eve, &Grant{Tool: "album.takedown", Account: "bob"}); err != nil {
			t.Fatalf("bob's grant: %v", err)
		}
		if _, err := af.m.Revoke(eve, last.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := af.m.Grant(eve, &Grant{Tool: "album.takedown", Account: "ada"}); err != nil {
			t.Fatalf("after a revocation: %v", err)
		}
	})
}
