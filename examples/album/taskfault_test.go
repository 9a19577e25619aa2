package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/toolapi/toolapi/internal/testenv"
	"github.com/toolapi/toolapi/task"
	"github.com/toolapi/toolapi/task/tasktest"
	"github.com/toolapi/toolapi/tool"
)

// addImages gives album 1 n more images, so that archiving it takes a
// while.
func addImages(t *testing.T, s *Store, n int) {
	t.Helper()
	err := s.write(t.Context(), func(tx *sql.Tx) error {
		for i := range n {
			if _, err := tx.ExecContext(t.Context(), `INSERT INTO images (album_id, title, caption, alt, url, created) VALUES ($1, $2, $3, $4, $5, $6)`,
				1, fmt.Sprintf("Picture %d", i), "A caption long enough to take some room in the archive.", "alt", fmt.Sprintf("https://example.com/%d.jpg", i), time.Now().Unix()); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// startAlbumServe starts `album serve` on the SQLite file db and returns
// the process, whose output goes to out.
func startAlbumServe(t *testing.T, bin, db, archives string, out *lockedBuffer) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(bin, "--db", db, "--archives", archives, "--task-stale", "2s", "serve", "--addr", freeAddr(t))
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return cmd
}

// TestKillNineWhileTasksRun kills a real album server with SIGKILL while
// archive tasks run, and starts it again: every task then ends either
// completed, exactly once (one archive each), or failed as interrupted (an
// archive is a write and is not run again); none is lost or left working.
func TestKillNineWhileTasksRun(t *testing.T) {
	testenv.NeedFull(t)
	bin := buildAlbum(t)
	dir := t.TempDir()
	db, archives := filepath.Join(dir, "album.db"), filepath.Join(dir, "archives")
	store := mustOpen(t, db)
	addImages(t, store, 30000)
	app, err := NewApp(store, filepath.Join(dir, "exports"), nil)
	if err != nil {
		t.Fatal(err)
	}
	// A Manager of the test's own creates and watches the tasks; it runs
	// none (it is not started): the server does.
	m := tasktest.New(t, app.Registry, store.TaskDB(), &task.Options{
		Account: func(ctx context.Context, id string) (tool.Account, error) { return store.Account(ctx, id) },
	})
	editor, err := store.Account(t.Context(), "editor")
	if err != nil {
		t.Fatal(err)
	}
	ctx := tool.WithAccount(t.Context(), editor)
	const n = 12
	ids := make([]string, n)
	for i := range ids {
		tk, err := m.Create(ctx, "album.archive", json.RawMessage(`{"albums":["1"]}`))
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = tk.ID
	}

	var out1 lockedBuffer
	srv := startAlbumServe(t, bin, db, archives, &out1)
	// Kill it once a task has reported progress: it runs.
	deadline := time.Now().Add(60 * time.Second)
	for running := false; !running; {
		if time.Now().After(deadline) {
			t.Fatalf("no task ran within a minute; server output:\n%s", out1.String())
		}
		for _, id := range ids {
			tk, err := m.Get(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if tk.Status == task.Working && tk.Progress != nil {
				running = true
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := srv.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	srv.Wait()

	var out2 lockedBuffer
	srv2 := startAlbumServe(t, bin, db, archives, &out2)
	defer func() {
		srv2.Process.Signal(os.Interrupt)
		srv2.Wait()
	}()
	var tasks []*task.Task
	deadline = time.Now().Add(2 * time.Minute)
	for {
		tasks = tasks[:0]
		working := 0
		for _, id := range ids {
			tk, err := m.Get(ctx, id)
			if err != nil {
				t.Fatalf("task %s after the restart: %v", id, err) // lost
			}
			tasks = append(tasks, tk)
			if !tk.Status.Finished() {
				working++
			}
		}
		if working == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d tasks still not ended two minutes after the restart; server output:\n%s", working, out2.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	completed, interrupted := 0, 0
	for _, tk := range tasks {
		switch {
		case tk.Status == task.Completed:
			completed++
			file, _ := tk.Result.Outputs["file"].(string)
			u, err := url.Parse(file)
			if err != nil {
				t.Errorf("task %s: archive %q", tk.ID, file)
				continue
			}
			if _, err := os.Stat(u.Path); err != nil {
				t.Errorf("task %s completed, but its archive: %v", tk.ID, err)
			}
		case tk.Status == task.Failed && tk.StatusMessage == "interrupted":
			interrupted++
		default:
			t.Errorf("task %s: %s (%q), want completed or failed as interrupted", tk.ID, tk.Status, tk.StatusMessage)
		}
	}
	entries, err := os.ReadDir(archives)
	if err != nil {
		t.Fatal(err)
	}
	archivesWritten := 0
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".zip") {
			archivesWritten++
		}
	}
	t.Logf("%d tasks: %d completed, %d interrupted; %d archives written", n, completed, interrupted, archivesWritten)
	if strings.Contains(out2.String(), "level=ERROR") {
		t.Errorf("the restarted server logged errors:\n%s", out2.String())
	}
	if interrupted == 0 {
		t.Error("no task was interrupted, though one ran when the server was killed")
	}
	if archivesWritten != completed {
		t.Errorf("%d archives written for %d completed tasks: a task ran twice or not at all", archivesWritten, completed)
	}
}

// TestReplicasShareTasks runs two instances of the album on one
// PostgreSQL database, each with its own task manager and workers, as two
// replicas do: a task started on A is watched, answered and cancelled on B,
// and each task runs exactly once between them (the runs are counted in
// the database).
func TestReplicasShareTasks(t *testing.T) {
	testenv.NeedFull(t)
	_, schema := testenv.PostgresSchema(t, "album_tasks_")
	u, err := url.Parse(os.Getenv(testenv.PostgresEnv))
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	dsn := u.String()

	type replica struct {
		store *Store
		m     *task.Manager
	}
	open := func() *replica {
		store := mustOpen(t, dsn)
		app, err := NewApp(store, t.TempDir(), nil)
		if err != nil {
			t.Fatal(err)
		}
		// A tool of the test's own: it asks for a name, then counts its
		// run in the database.
		err = app.Registry.Add(&tool.Tool{
			ID: "test.rename", Label: "Rename", Description: "Asks for a name and counts its run.", Permission: permAccessContent,
			Task: tool.TaskRequired, Destructive: new(bool),
			Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
				e, err := tool.Elicit(ctx, "New name?", &jsonschema.Schema{Type: "object",
					Properties: map[string]*jsonschema.Schema{"name": {Type: "string"}}, Required: []string{"name"}})
				if err != nil {
					return nil, err
				}
				if e.Action != "accept" {
					return tool.Failed("Not renamed.", nil), nil
				}
				name, _ := e.Content["name"].(string)
				if _, err := store.DB().ExecContext(ctx, `INSERT INTO test_runs (name) VALUES ($1)`, name); err != nil {
					return nil, err
				}
				return tool.Succeeded("Renamed to "+name+".", nil), nil
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		m := tasktest.Start(t, app.Registry, store.TaskDB(), &task.Options{
			Account:      func(ctx context.Context, id string) (tool.Account, error) { return store.Account(ctx, id) },
			PollInterval: 50 * time.Millisecond,
		})
		return &replica{store, m}
	}
	a := open()
	if _, err := a.store.DB().Exec(`CREATE TABLE test_runs (name TEXT NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	b := open()
	editor, err := a.store.Account(t.Context(), "editor")
	if err != nil {
		t.Fatal(err)
	}
	ctx := tool.WithAccount(t.Context(), editor)

	const n = 8
	var answered, cancelled []string
	for i := range n {
		tk, err := a.m.Create(ctx, "test.rename", nil)
		if err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 {
			answered = append(answered, tk.ID)
		} else {
			cancelled = append(cancelled, tk.ID)
		}
	}
	// B watches each until it asks, and answers or cancels it.
	for i, id := range append(append([]string{}, answered...), cancelled...) {
		wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		tk, err := b.m.Wait(wctx, id)
		cancel()
		if err != nil || tk.Status != task.InputRequired {
			t.Fatalf("task %s watched on B: %+v, %v", id, tk, err)
		}
		if i < len(answered) {
			err = b.m.Answer(ctx, id, &tool.Elicitation{Action: "accept", Content: map[string]any{"name": id}})
		} else {
			_, err = b.m.Cancel(ctx, id)
		}
		if err != nil {
			t.Fatalf("task %s answered or cancelled on B: %v", id, err)
		}
	}
	for _, id := range answered {
		wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		tk, err := b.m.Wait(wctx, id)
		cancel()
		if err != nil || tk.Status != task.Completed {
			t.Errorf("answered task %s on B: %+v, %v", id, tk, err)
		}
	}
	for _, id := range cancelled {
		tk, err := a.m.Get(ctx, id)
		if err != nil || tk.Status != task.Cancelled {
			t.Errorf("cancelled task %s seen on A: %+v, %v", id, tk, err)
		}
		// Cancelling again, on A, says it has ended.
		if _, err := a.m.Cancel(ctx, id); !errors.Is(err, task.ErrFinished) {
			t.Errorf("cancelling %s again: %v", id, err)
		}
	}
	// Each answered task ran exactly once, and no cancelled one ran.
	rows, err := a.store.DB().Query(`SELECT name, count(*) FROM test_runs GROUP BY name`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	runs := map[string]int{}
	for rows.Next() {
		var name string
		var c int
		if err := rows.Scan(&name, &c); err != nil {
			t.Fatal(err)
		}
		runs[name] = c
	}
	for _, id := range answered {
		if runs[id] != 1 {
			t.Errorf("task %s ran %d times, want once", id, runs[id])
		}
		delete(runs, id)
	}
	if len(runs) > 0 {
		t.Errorf("runs of tasks that were cancelled or unknown: %v", runs)
	}
}
