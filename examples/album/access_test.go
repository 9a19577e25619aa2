package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/toolapi/toolapi/task"
	"github.com/toolapi/toolapi/tool"
	"github.com/toolapi/toolapi/toolcli"
)

// The seeded albums by whose they are: editor owns Blue Hours (published)
// and Night Studies (a draft); admin owns Harbour Lights (published, with
// an image lacking alt text) and Winter Sketches (a draft). mallory is a
// blocked editor.
var matrixUsers = []string{"anonymous", "editor", "admin", "mallory"}

// Outcomes of a run in the matrix.
const (
	ok      = "ok"
	hidden  = "hidden" // the account's permissions do not reach the tool: access from Go, not found on the CLI
	denied  = "access"
	failed  = "runtime" // allowed, but the tool failed (export's check)
	blocked = "blocked" // the account is blocked: access, or user_blocked on the CLI
)

type matrixCase struct {
	tool  string
	album string // the album the run is about, by title; "" for none
	args  func(albumID string) map[string]any
	// want is the outcome for anonymous, editor, admin and mallory.
	want [4]string
}

func noArgs(string) map[string]any { return map[string]any{} }

func albumArg(id string) map[string]any { return map[string]any{"album": id} }

var accessMatrix = []matrixCase{
	{"album.search", "", func(string) map[string]any { return map[string]any{"word": "blue"} }, [4]string{ok, ok, ok, blocked}},
	{"album.list", "", noArgs, [4]string{ok, ok, ok, blocked}},
	{"site.info", "", noArgs, [4]string{ok, ok, ok, blocked}},
	{"site.update_info", "", func(string) map[string]any {
		return map[string]any{"values": map[string]any{"slogan": "Changed"}}
	}, [4]string{hidden, hidden, ok, blocked}},

	{"album.summarize", "Blue Hours", albumArg, [4]string{ok, ok, ok, blocked}},
	{"album.summarize", "Night Studies", albumArg, [4]string{denied, ok, ok, blocked}},
	{"album.summarize", "Harbour Lights", albumArg, [4]string{ok, ok, ok, blocked}},
	{"album.summarize", "Winter Sketches", albumArg, [4]string{denied, denied, ok, blocked}},

	{"album.publish", "Night Studies", albumArg, [4]string{hidden, ok, ok, blocked}},
	{"album.publish", "Winter Sketches", albumArg, [4]string{hidden, denied, ok, blocked}},
	{"album.publish", "Harbour Lights", albumArg, [4]string{hidden, denied, ok, blocked}},

	{"album.add_track", "Blue Hours", func(id string) map[string]any {
		return map[string]any{"album": id, "title": "Encore"}
	}, [4]string{hidden, ok, ok, blocked}},
	{"album.add_track", "Harbour Lights", func(id string) map[string]any {
		return map[string]any{"album": id, "title": "Encore"}
	}, [4]string{hidden, denied, ok, blocked}},

	{"album.protect", "Night Studies", func(id string) map[string]any {
		return map[string]any{"album": id, "passphrase": "open sesame"}
	}, [4]string{hidden, ok, ok, blocked}},
	{"album.protect", "Winter Sketches", func(id string) map[string]any {
		return map[string]any{"album": id, "passphrase": "open sesame"}
	}, [4]string{hidden, denied, ok, blocked}},

	// A deleted album is gone for the next account: the one case deletes
	// only at admin's run.
	{"album.delete", "Harbour Lights", albumArg, [4]string{hidden, denied, ok, blocked}},

	// A draft's takedown needs no approval (TestTakedownApproval walks a
	// published album's); it deletes at admin's run.
	{"album.takedown", "Winter Sketches", func(id string) map[string]any {
		return map[string]any{"album": id, "reason": "Abandoned."}
	}, [4]string{hidden, denied, ok, blocked}},

	{"translation.export", "Night Studies", exportArgs, [4]string{hidden, ok, ok, blocked}},
	{"translation.export", "Blue Hours", exportArgs, [4]string{hidden, ok, ok, blocked}},
	{"translation.export", "Harbour Lights", exportArgs, [4]string{hidden, failed, failed, blocked}},
	{"translation.export", "Winter Sketches", exportArgs, [4]string{hidden, denied, ok, blocked}},

	// Tasks: through the registry they run as a run does; the CLI runs
	// them as tasks and reports the task's outcome.
	{"album.archive", "Blue Hours", archiveArgs, [4]string{hidden, ok, ok, blocked}},
	{"album.archive", "Winter Sketches", archiveArgs, [4]string{hidden, denied, ok, blocked}},
	{"site.reindex", "", noArgs, [4]string{hidden, hidden, ok, blocked}},
}

func archiveArgs(id string) map[string]any { return map[string]any{"albums": []any{id}} }

func exportArgs(id string) map[string]any {
	return map[string]any{"albums": []any{id}, "langcode": "de"}
}

// Every demo tool is in the matrix.
func TestAccessMatrixCoversEveryTool(t *testing.T) {
	app, _ := newTestApp(t, newSQLiteStore(t))
	covered := map[string]bool{}
	for _, c := range accessMatrix {
		covered[c.tool] = true
	}
	for _, tl := range app.Registry.List(nil) {
		if !covered[tl.ID] {
			t.Errorf("tool %s is not in the access matrix", tl.ID)
		}
	}
}

// TestAccessMatrix runs every demo tool for every seeded kind of account,
// on albums of their own and of others, through the registry.
func TestAccessMatrix(t *testing.T) {
	eachDSN(t, func(t *testing.T, dsn string) {
		for _, c := range accessMatrix {
			// Each case starts from the seed: a publish must not open a
			// draft to the next case.
			s := mustOpen(t, postgresOrFresh(t, dsn))
			app, logs := newTestApp(t, s)
			id := ""
			if c.album != "" {
				id = albumID(t, s, c.album)
			}
			for i, user := range matrixUsers {
				res := runAs(t, app, user, c.tool, c.args(id))
				got := registryOutcome(res)
				if got != c.want[i] {
					t.Errorf("%s on %q as %s: %s (%q), want %s; log:\n%s", c.tool, c.album, user, got, res.Message, c.want[i], logs)
				}
			}
		}
	})
}

// postgresOrFresh returns a new database like dsn: a new SQLite file, or
// a new PostgreSQL schema.
func postgresOrFresh(t *testing.T, dsn string) string {
	if isPostgres(dsn) {
		return postgresSchema(t)
	}
	return t.TempDir() + "/album.db"
}

func registryOutcome(res *tool.Result) string {
	switch {
	case res.Success:
		return ok
	case res.Failure == tool.FailureAccess && bytes.Contains([]byte(res.Message), []byte("blocked")):
		return blocked
	case res.Failure == tool.FailureAccess && bytes.Contains([]byte(res.Message), []byte("it needs the permission")):
		return hidden
	case res.Failure == tool.FailureAccess:
		return denied
	case res.Failure == tool.FailureRuntime:
		return failed
	}
	return "input failure: " + res.Message
}

// TestAccessMatrixCLI runs the matrix through the CLI, as `album tool run
// ID --user NAME --json` does.
func TestAccessMatrixCLI(t *testing.T) {
	for _, c := range accessMatrix {
		s := newSQLiteStore(t)
		app, logs := newTestApp(t, s)
		var m *task.Manager
		id := ""
		if c.album != "" {
			id = albumID(t, s, c.album)
		}
		input, err := json.Marshal(c.args(id))
		if err != nil {
			t.Fatal(err)
		}
		for i, user := range matrixUsers {
			var stdout, stderr bytes.Buffer
			opts := &toolcli.Options{Name: "album tool", Accounts: app.cliAccount}
			if tl, _ := app.Registry.Tool(c.tool); tl.Task != tool.TaskNever {
				if m == nil {
					m = startTaskManager(t, s, app.Registry)
				}
				opts.Tasks = m
			}
			code := toolcli.Run(context.Background(), app.Registry,
				[]string{"run", c.tool, "--json", "--yes", "--user", user, "--input", string(input)},
				&stdout, &stderr, opts)
			var out struct {
				Success   bool   `json:"success"`
				Message   string `json:"message"`
				ErrorType string `json:"error_type"`
			}
			if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
				t.Fatalf("%s as %s: output %q: %v (stderr %q)", c.tool, user, stdout.String(), err, stderr.String())
			}
			got := map[string]string{"": ok, "access_denied": denied, "tool_not_found": hidden, "user_blocked": blocked, "execution_failed": failed}[out.ErrorType]
			if got == "" {
				got = out.ErrorType
			}
			if (code == 0) != out.Success {
				t.Errorf("%s as %s: exit %d with success %v", c.tool, user, code, out.Success)
			}
			if got != c.want[i] {
				t.Errorf("%s on %q as %s: %s (%q), want %s; log:\n%s", c.tool, c.album, user, got, out.Message, c.want[i], logs)
			}
		}
	}
}

// The rules behind the matrix, one account and album at a time.
func TestMayAlbum(t *testing.T) {
	editor := &User{ID: 2, Name: "editor", Role: roleEditor}
	other := &User{ID: 5, Name: "ed2", Role: roleEditor}
	admin := &User{ID: 3, Name: "admin", Role: roleAdmin}
	anon := &User{ID: 1, Name: "anonymous", Role: roleAnonymous}
	blockedEditor := &User{ID: 2, Name: "editor", Role: roleEditor, IsBlocked: true}
	granted := &User{ID: 6, Name: "curator", Role: roleAnonymous, Extra: []string{permEditAnyAlbum}}
	own := &Album{ID: 1, OwnerID: 2}
	ownPublished := &Album{ID: 2, OwnerID: 2, Published: true}
	tests := []struct {
		acct tool.Account
		a    *Album
		op   string
		want bool
	}{
		{editor, own, "view", true},
		{editor, own, "update", true},
		{editor, own, "delete", true},
		{editor, own, "archive", false},
		{other, own, "view", false},
		{other, ownPublished, "view", true},
		{other, ownPublished, "update", false},
		{anon, ownPublished, "view", true},
		{anon, own, "view", false},
		{anon, ownPublished, "update", false},
		{admin, own, "view", true},
		{admin, own, "delete", true},
		{granted, own, "update", true},
		{blockedEditor, own, "view", false},
		{blockedEditor, ownPublished, "view", false},
		{tool.Anonymous, ownPublished, "view", false}, // holds no permission at all
		{nil, ownPublished, "view", false},
	}
	for _, tt := range tests {
		if got := mayAlbum(tt.acct, tt.a, tt.op); got != tt.want {
			t.Errorf("mayAlbum(%v, %+v, %s) = %v, want %v", tt.acct, tt.a, tt.op, got, tt.want)
		}
	}
}

func TestPermissions(t *testing.T) {
	perms := []string{permAccessContent, permEditAlbums, permEditAnyAlbum, permExport, permAdminSite, "anything else"}
	want := map[string][]bool{
		roleAnonymous: {true, false, false, false, false, false},
		roleEditor:    {true, true, false, true, false, false},
		roleAdmin:     {true, true, true, true, true, true},
	}
	for role, w := range want {
		u := &User{Name: role, Role: role}
		b := &User{Name: role, Role: role, IsBlocked: true}
		for i, p := range perms {
			if got := u.HasPermission(p); got != w[i] {
				t.Errorf("%s has %q = %v, want %v", role, p, got, w[i])
			}
			if b.HasPermission(p) {
				t.Errorf("blocked %s has %q", role, p)
			}
		}
	}
	if u := (&User{Role: roleAnonymous, Extra: []string{permExport}}); !u.HasPermission(permExport) {
		t.Error("an extra grant is not held")
	}
	if got := fmt.Sprint((&User{Name: "x"}).AccountID()); got != "x" {
		t.Errorf("AccountID = %q", got)
	}
}
