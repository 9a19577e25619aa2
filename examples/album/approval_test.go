package main

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/toolapi/toolapi/task"
	"github.com/toolapi/toolapi/tool"
)

// TestTakedownApproval walks album.takedown through the command line: an
// editor's takedown of a published album waits for an administrator other
// than the caller, who lists, approves, edits or refuses it; a draft goes
// at once. Who may not approve is told nothing waits for them.
func TestTakedownApproval(t *testing.T) {
	db := filepath.Join(t.TempDir(), "album.db")
	// The command line makes the database; a second administrator joins.
	if code, _, errOut := runTaskCLI(t, db, "tool", "list", "--user", "admin"); code != 0 {
		t.Fatalf("tool list: %s", errOut)
	}
	store := mustOpen(t, db)
	if _, err := store.CreateUser(t.Context(), "chief", roleAdmin, false); err != nil {
		t.Fatal(err)
	}
	blue := mustAlbum(t, store, "Blue Hours")
	harbour := mustAlbum(t, store, "Harbour Lights")

	code, out, errOut := runTaskCLI(t, db, "tool", "run", "album.takedown", "--yes", "--user", "editor",
		"--input", "album="+strconv.FormatInt(blue.ID, 10), "--input", "reason=The label withdrew the rights.")
	id := strings.TrimSpace(out)
	if code != 0 || len(id) != 26 || !strings.Contains(errOut, `waits for the approval of an account with the permission "approve takedowns"`) {
		t.Fatalf("run album.takedown: exit %d, %q, %s", code, out, errOut)
	}
	if !hasAlbum(t, store, "Blue Hours") {
		t.Fatal("taken down before any approval")
	}
	code, out, _ = runTaskCLI(t, db, "tool", "task", "show", id, "--user", "editor")
	if code != 0 || !strings.Contains(out, "(awaiting approval)") || !strings.Contains(out, "Approval: pending") || !strings.Contains(out, `Reason:   "Blue Hours" is published.`) {
		t.Errorf("task show of a call awaiting approval: exit %d, %s", code, out)
	}

	// Only administrators other than the caller see it.
	code, out, _ = runTaskCLI(t, db, "tool", "approvals", "list", "--user", "editor")
	if code != 0 || !strings.Contains(out, "No calls wait") {
		t.Errorf("approvals list of the editor: exit %d, %s", code, out)
	}
	code, out, _ = runTaskCLI(t, db, "tool", "approvals", "list", "--user", "admin", "--json")
	var pending []*task.Pending
	if code != 0 || json.Unmarshal([]byte(out), &pending) != nil || len(pending) != 1 || pending[0].Task.ID != id || pending[0].Account != "editor" {
		t.Fatalf("approvals list of the admin: exit %d, %s", code, out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"approve", id, "--user", "editor"}, "nothing of that ID waits for the approval of account \"editor\""},
		{[]string{"approve", "NOSUCHTASK", "--user", "admin"}, "nothing of that ID waits"},
		{[]string{"approve", id, "--user", "admin", "--args", "[1]"}, "--args [1] is no JSON object"},
		{[]string{"approve", id, "--user", "admin", "--args", `{"album":"` + strconv.FormatInt(blue.ID, 10) + `","reason":""}`}, "the inputs are refused: Invalid input for Takedown: reason:"},
		{[]string{"refuse", id, "--user", "admin", "--reason", strings.Repeat("x", task.MaxNote+1)}, "must be at most 500 characters"},
		{[]string{"grant", "album.takedown", "--user", "admin"}, "--account: required"},
		{[]string{"grant", "album.takedown", "--account", "anonymous", "--user", "admin"}, `"anonymous" may not run album.takedown`},
		{[]string{"grant", "album.takedown", "--account", "admin", "--user", "admin"}, "may not approve its own calls"},
		{[]string{"grant", "album.delete", "--account", "editor", "--user", "admin"}, "may not approve calls of the tool"},
		{[]string{"frobnicate"}, `unknown subcommand "frobnicate"`},
	} {
		code, _, errOut := runTaskCLI(t, db, append([]string{"tool", "approvals"}, c.args...)...)
		if code != 1 || !strings.Contains(errOut, c.want) {
			t.Errorf("approvals %q: exit %d, %s; want %q", c.args, code, errOut, c.want)
		}
	}
	code, out, errOut = runTaskCLI(t, db, "tool", "approvals", "approve", id, "--user", "admin", "--note", "Rights confirmed.")
	if code != 0 || !strings.Contains(out, "is approved") {
		t.Fatalf("approvals approve: exit %d, %s %s", code, out, errOut)
	}
	code, _, errOut = runTaskCLI(t, db, "tool", "approvals", "approve", id, "--user", "chief")
	if code != 1 || !strings.Contains(errOut, "does not wait for approval") {
		t.Errorf("a second approval: exit %d, %s", code, errOut)
	}

	// The administrator's own takedown waits for the other one.
	code, out, _ = runTaskCLI(t, db, "tool", "run", "album.takedown", "--yes", "--user", "admin",
		"--input", "album="+strconv.FormatInt(harbour.ID, 10), "--input", "reason=Duplicate of a reissue.")
	own := strings.TrimSpace(out)
	if code != 0 || len(own) != 26 {
		t.Fatalf("the admin's takedown: exit %d, %s", code, out)
	}
	code, _, errOut = runTaskCLI(t, db, "tool", "approvals", "approve", own, "--user", "admin")
	if code != 1 || !strings.Contains(errOut, "may not approve its own calls") {
		t.Errorf("approving one's own call: exit %d, %s", code, errOut)
	}
	code, out, errOut = runTaskCLI(t, db, "tool", "approvals", "refuse", own, "--user", "chief", "--reason", "Keep it: the reissue is not out yet.")
	if code != 0 || !strings.Contains(out, "is refused") {
		t.Fatalf("approvals refuse: exit %d, %s %s", code, out, errOut)
	}

	// The workers run what was approved, and nothing else.
	app, err := NewApp(store, filepath.Join(t.TempDir(), "exports"), nil)
	if err != nil {
		t.Fatal(err)
	}
	m := startTaskManager(t, store, app.Registry)
	ctx := tool.WithAccount(t.Context(), mustUser(t, store, "editor"))
	if tk := waitEnd(t, ctx, m, id); tk.Status != task.Completed || tk.Approval.DecidedBy != "admin" || tk.Approval.Note != "Rights confirmed." {
		t.Fatalf("the approved takedown: %+v approval %+v result %+v", tk, tk.Approval, tk.Result)
	}
	if hasAlbum(t, store, "Blue Hours") {
		t.Error("approved, yet Blue Hours is still there")
	}
	if tk := waitEnd(t, tool.WithAccount(t.Context(), mustUser(t, store, "admin")), m, own); tk.Status != task.Failed ||
		tk.Result.Message != "Takedown was refused by chief: Keep it: the reissue is not out yet." {
		t.Errorf("the refused takedown: %+v result %+v", tk, tk.Result)
	}
	if !hasAlbum(t, store, "Harbour Lights") {
		t.Error("refused, yet Harbour Lights is gone")
	}

	// A draft goes at once: run waits for its task and reports it.
	code, out, errOut = runTaskCLI(t, db, "tool", "run", "album.takedown", "--yes", "--user", "editor", "--json",
		"--input", "album="+strconv.FormatInt(mustAlbum(t, store, "Night Studies").ID, 10), "--input", "reason=Abandoned.")
	if code != 0 || !strings.Contains(out, `"success": true`) {
		t.Errorf("the takedown of a draft: exit %d, %s %s", code, out, errOut)
	}
}
