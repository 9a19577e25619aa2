package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolapi/toolapi/task"
	"github.com/toolapi/toolapi/task/tasktest"
	"github.com/toolapi/toolapi/tool"
)

// runTaskCLI runs the album command line in this process and returns its
// exit status, standard output and standard error.
func runTaskCLI(t *testing.T, db string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	dir := filepath.Dir(db)
	all := append([]string{"--db", db, "--exports", filepath.Join(dir, "exports"), "--archives", filepath.Join(dir, "archives")}, args...)
	code := run(t.Context(), all, strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// archiveNames returns the names of the files in the archive at the file
// URI uri.
func archiveNames(t *testing.T, uri string) []string {
	t.Helper()
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		t.Fatalf("archive address %q: %v", uri, err)
	}
	var names []string
	if strings.HasSuffix(u.Path, ".zip") {
		zr, err := zip.OpenReader(u.Path)
		if err != nil {
			t.Fatal(err)
		}
		defer zr.Close()
		for _, f := range zr.File {
			names = append(names, f.Name)
		}
		return names
	}
	f, err := os.Open(u.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return names
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, h.Name)
	}
}

// TestArchiveThroughCLI runs album.archive, whose calls are all tasks,
// from the command line: run waits for the task with progress per image
// and reports its outcome as a run's; the archive holds each album's
// metadata and one file per image.
func TestArchiveThroughCLI(t *testing.T) {
	db := filepath.Join(t.TempDir(), "album.db")
	for _, format := range []string{"zip", "tar"} {
		code, out, errOut := runTaskCLI(t, db, "tool", "run", "album.archive", "--user", "editor",
			"--input", "albums=1", "--input", "albums=3", "--input", "format="+format, "--json")
		if code != 0 {
			t.Fatalf("%s archive: exit %d\n%s\n%s", format, code, out, errOut)
		}
		var res struct {
			Success bool
			Outputs struct {
				File       string  `json:"file"`
				AlbumCount int     `json:"album_count"`
				ImageCount float64 `json:"image_count"`
			}
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil || !res.Success || res.Outputs.AlbumCount != 2 || res.Outputs.ImageCount < 1 {
			t.Fatalf("%s archive = %s (%v)", format, out, err)
		}
		names := archiveNames(t, res.Outputs.File)
		images := 0
		for _, n := range names {
			if strings.Contains(n, "/images/") {
				images++
			}
		}
		if !strings.Contains(strings.Join(names, " "), "album-1/album.json") || !strings.Contains(strings.Join(names, " "), "album-3/album.json") ||
			images != int(res.Outputs.ImageCount) {
			t.Errorf("%s archive holds %q, want both albums' metadata and %v images", format, names, res.Outputs.ImageCount)
		}
		want := fmt.Sprintf("progress: %[1]g/%[1]g", res.Outputs.ImageCount)
		if !strings.Contains(errOut, "Task ") || !strings.Contains(errOut, want) {
			t.Errorf("%s archive: standard error shows no task and progress %q:\n%s", format, want, errOut)
		}
	}
	// Bad input is refused before any task exists.
	code, _, errOut := runTaskCLI(t, db, "tool", "run", "album.archive", "--user", "editor", "--input", "albums=1", "--input", "format=rar")
	if code != 1 || !strings.Contains(errOut, "format") {
		t.Errorf("format=rar: exit %d, %s", code, errOut)
	}
	code, out, _ := runTaskCLI(t, db, "tool", "task", "list", "--user", "editor", "--json")
	var page task.Page
	if code != 0 || json.Unmarshal([]byte(out), &page) != nil || len(page.Tasks) != 2 {
		t.Errorf("editor's tasks after two archives and a refusal: exit %d, %s", code, out)
	}
	// Anonymous may not archive: the tool is not even found.
	code, _, errOut = runTaskCLI(t, db, "tool", "run", "album.archive", "--input", "albums=1")
	if code != 1 || !strings.Contains(errOut, "not found") {
		t.Errorf("anonymous archive: exit %d, %s", code, errOut)
	}
}

// TestTaskCommands drives the task commands on a detached task, and each
// bad use of them gets its own clear error.
func TestTaskCommands(t *testing.T) {
	db := filepath.Join(t.TempDir(), "album.db")
	code, out, errOut := runTaskCLI(t, db, "tool", "run", "album.archive", "--user", "editor", "--input", "albums=1", "--detach")
	id := strings.TrimSpace(out)
	if code != 0 || len(id) != 26 || !strings.Contains(errOut, "task wait "+id) {
		t.Fatalf("run --detach: exit %d, %q, %s", code, out, errOut)
	}
	// No server runs: the task waits for a worker.
	code, out, _ = runTaskCLI(t, db, "tool", "task", "show", id, "--user", "editor")
	if code != 0 || !strings.Contains(out, "Status:   working") || !strings.Contains(out, "album.archive") {
		t.Errorf("task show: exit %d, %s", code, out)
	}
	code, out, _ = runTaskCLI(t, db, "tool", "task", "list", "--user", "editor")
	if code != 0 || !strings.Contains(out, id) {
		t.Errorf("task list: exit %d, %s", code, out)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"show", "NOSUCHTASK", "--user", "editor"}, `task "NOSUCHTASK" not found for account "editor"`},
		// Another account's task is not found either, in the same words.
		{[]string{"show", id, "--user", "admin"}, `task "` + id + `" not found for account "admin"`},
		{[]string{"cancel", id, "--user", "admin"}, `task "` + id + `" not found for account "admin"`},
		{[]string{"answer", id, "--user", "editor"}, `task "` + id + `" is not waiting for an answer`},
		{[]string{"list", "--user", "editor", "--limit", "1000"}, "--limit 1000: must be between 1 and 200"},
		{[]string{"list", "--user", "editor", "--cursor", "bogus"}, "--cursor: not a cursor"},
		{[]string{"answer", id, "--user", "editor", "--decline", "--cancel"}, "give one of them"},
		{[]string{"frobnicate"}, `unknown subcommand "frobnicate"`},
		{[]string{"show", "--user", "editor"}, "want one task ID"},
	}
	for _, c := range cases {
		code, _, errOut := runTaskCLI(t, db, append([]string{"tool", "task"}, c.args...)...)
		if code != 1 || !strings.Contains(errOut, c.want) {
			t.Errorf("task %q: exit %d, %s; want %q", c.args, code, errOut, c.want)
		}
	}
	code, out, errOut = runTaskCLI(t, db, "tool", "task", "cancel", id, "--user", "editor")
	if code != 0 || !strings.Contains(out, "cancelled") {
		t.Fatalf("task cancel: exit %d, %s %s", code, out, errOut)
	}
	code, _, errOut = runTaskCLI(t, db, "tool", "task", "cancel", id, "--user", "editor")
	if code != 1 || !strings.Contains(errOut, "has already ended (cancelled)") {
		t.Errorf("cancelling a cancelled task: exit %d, %s", code, errOut)
	}
	// wait on an ended task exits as the run would have: failed.
	code, out, _ = runTaskCLI(t, db, "tool", "task", "wait", id, "--user", "editor", "--json")
	if code != 1 || !strings.Contains(out, `"success": false`) {
		t.Errorf("task wait on a cancelled task: exit %d, %s", code, out)
	}
	code, _, errOut = runTaskCLI(t, db, "tool", "run", "album.list", "--detach")
	if code != 1 || !strings.Contains(errOut, "album.list does not run as a task") {
		t.Errorf("run --detach of a tool that is no task: exit %d, %s", code, errOut)
	}
}

// TestReindex runs site.reindex, which may run as a task, both ways: as
// a run, and as a task through the registry, whose progress and outcome
// are kept with the task.
func TestReindex(t *testing.T) {
	db := filepath.Join(t.TempDir(), "album.db")
	code, out, errOut := runTaskCLI(t, db, "tool", "run", "site.reindex", "--user", "admin", "--json")
	if code != 0 || !strings.Contains(out, `"table_count": 6`) || !strings.Contains(errOut, "progress: 6/6 done") {
		t.Fatalf("site.reindex as a run: exit %d, %s %s", code, out, errOut)
	}
	code, _, errOut = runTaskCLI(t, db, "tool", "run", "site.reindex", "--user", "editor", "--detach")
	if code != 1 || !strings.Contains(errOut, "not found") {
		t.Errorf("an editor re-indexing: exit %d, %s", code, errOut)
	}

	app, m := newTaskApp(t, db)
	admin, err := app.Store.Account(t.Context(), "admin")
	if err != nil {
		t.Fatal(err)
	}
	ctx := tool.WithAccount(t.Context(), admin)
	tk, err := m.Create(ctx, "site.reindex", nil)
	if err != nil {
		t.Fatal(err)
	}
	tk = waitEnd(t, ctx, m, tk.ID)
	if tk.Status != task.Completed || tk.Progress == nil || tk.Progress.Done != 6 || tk.Progress.Total != 6 ||
		fmt.Sprint(tk.Result.Outputs["table_count"]) != "6" {
		t.Errorf("site.reindex as a task = %+v, progress %+v, result %+v", tk, tk.Progress, tk.Result)
	}
}

// TestArchiveThroughRegistry creates an archive task through the task
// manager, as MCP and the explorer do: the account's access to each album
// is checked before the task exists, and the outcome lists the archive.
func TestArchiveThroughRegistry(t *testing.T) {
	db := filepath.Join(t.TempDir(), "album.db")
	app, m := newTaskApp(t, db)
	editor, err := app.Store.Account(t.Context(), "editor")
	if err != nil {
		t.Fatal(err)
	}
	ctx := tool.WithAccount(t.Context(), editor)
	// Album 4 is admin's draft: the editor may not see it. The task is
	// refused before it is created, as a run would be refused, and writes
	// nothing.
	_, err = m.Create(ctx, "album.archive", json.RawMessage(`{"albums":["4"]}`))
	var re *task.RefusedError
	if !errors.As(err, &re) || re.Result.Success || re.Result.Failure != tool.FailureAccess {
		t.Fatalf("archiving another's draft: %v, want an access refusal before the task exists", err)
	}
	run, _ := app.Registry.RunJSON(ctx, "album.archive", []byte(`{"albums":["4"]}`))
	if re.Result.Message != run.Message {
		t.Errorf("refusal %q, want the run's %q", re.Result.Message, run.Message)
	}
	if page, err := m.List(ctx, nil); err != nil || len(page.Tasks) != 0 {
		t.Errorf("tasks after a refusal: %+v, %v; want none", page, err)
	}
	if files, _ := os.ReadDir(app.archiver.dir); len(files) != 0 {
		t.Errorf("archiving another's draft wrote %v", files)
	}
	tk, err := m.Create(ctx, "album.archive", json.RawMessage(`{"albums":["1","2"],"format":"tar"}`))
	if err != nil {
		t.Fatal(err)
	}
	tk = waitEnd(t, ctx, m, tk.ID)
	if tk.Status != task.Completed {
		t.Fatalf("archive task = %+v (%+v)", tk, tk.Result)
	}
	file, _ := tk.Result.Outputs["file"].(string)
	if names := archiveNames(t, file); len(names) < 2 || tk.Progress == nil || tk.Progress.Done != tk.Progress.Total ||
		float64(len(names)-2) != tk.Progress.Total {
		t.Errorf("archive %s holds %q; progress %+v", file, names, tk.Progress)
	}
}

// newTaskApp opens the album on the SQLite file db with a task manager
// running its tasks in this process, stopped when the test ends.
func newTaskApp(t *testing.T, db string) (*App, *task.Manager) {
	t.Helper()
	store := mustOpen(t, db)
	app, err := NewApp(store, filepath.Join(t.TempDir(), "exports"), nil)
	if err != nil {
		t.Fatal(err)
	}
	return app, startTaskManager(t, store, app.Registry)
}

// startTaskManager returns a started task manager of reg's tools in
// store's database, each task's account found among its users; it is
// stopped when the test ends.
func startTaskManager(t *testing.T, store *Store, reg *tool.Registry) *task.Manager {
	t.Helper()
	return tasktest.Start(t, reg, store.TaskDB(), &task.Options{
		Account:      func(ctx context.Context, id string) (tool.Account, error) { return store.Account(ctx, id) },
		PollInterval: 50 * time.Millisecond,
	})
}

// waitEnd waits for the task id to end.
func waitEnd(t *testing.T, ctx context.Context, m *task.Manager, id string) *task.Task {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	tk, err := m.Wait(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if !tk.Status.Finished() {
		t.Fatalf("task %s did not end: %+v", id, tk)
	}
	return tk
}
