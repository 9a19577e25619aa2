package task_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	_ "modernc.org/sqlite"

	"github.com/toolapi/toolapi/task"
	"github.com/toolapi/toolapi/tool"
)

func Example() {
	dir, _ := os.MkdirTemp("", "tasks")
	defer os.RemoveAll(dir)
	db, err := sql.Open("sqlite", filepath.Join(dir, "app.db")+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer db.Close()
	ctx := context.Background()
	if err := task.Migrate(ctx, db); err != nil {
		fmt.Println(err)
		return
	}

	reg := tool.NewRegistry(nil)
	reg.Add(&tool.Tool{
		ID: "album.export", Label: "Export", Description: "Exports an album.", Permission: "export",
		Task:    tool.TaskOptional,
		Inputs:  []*tool.Definition{{Name: "album", Type: "string", Required: true}},
		Outputs: []*tool.Definition{{Name: "photos", Type: "integer", Required: true}},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			tool.Progress(ctx, 12, 12, "photos exported")
			return tool.Succeeded("Exported "+in.String("album")+".", map[string]any{"photos": 12}), nil
		},
	})
	users := map[string]tool.Account{"ada": &tool.User{ID: "ada", Permissions: []string{"export"}}}
	m, err := task.New(reg, db, &task.Options{
		Account: func(ctx context.Context, id string) (tool.Account, error) { return users[id], nil },
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := m.Start(ctx); err != nil {
		fmt.Println(err)
		return
	}
	defer m.Stop(ctx)

	ada := tool.WithAccount(ctx, users["ada"])
	t, err := m.Create(ada, "album.export", json.RawMessage(`{"album":"summer"}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(t.Status)
	t, err = m.Wait(ada, t.ID)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(t.Status, t.Result.Message, t.Result.Outputs["photos"], t.Progress.Message)

	// A call a run would refuse is refused before a task exists.
	_, err = m.Create(ada, "album.export", json.RawMessage(`{}`))
	var refused *task.RefusedError
	if errors.As(err, &refused) {
		fmt.Println(refused.Result.Failure, refused.Result.Violations[0].Path)
	}
	// Another account's task is not found.
	bob := tool.WithAccount(ctx, &tool.User{ID: "bob"})
	_, err = m.Get(bob, t.ID)
	fmt.Println(errors.Is(err, task.ErrNotFound))
	// Output:
	// working
	// completed Exported summer. 12 photos exported
	// input album
	// true
}
