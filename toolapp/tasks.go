package toolapp

import (
	"context"
	"fmt"
	"time"

	"github.com/toolapi/toolapi/task"
	"github.com/toolapi/toolapi/tool"
)

// taskSetupTimeout bounds the creation of the tables of tasks and of the
// task manager when a command opens its App.
const taskSetupTimeout = 30 * time.Second

// hasTaskTools reports whether a tool of reg may run as a task.
func hasTaskTools(reg *tool.Registry) bool {
	for _, t := range reg.List(nil) {
		if t.Task != tool.TaskNever {
			return true
		}
	}
	return false
}

// setUpTasks gives app its task manager when it has none, a database and
// a tool that may run as a task: it creates the tables of tasks and of
// their queue in app.TaskDB, else app.DB (task.Migrate, which any number of processes may
// run at once) and makes the Manager with app.TaskOptions, each task's
// account found again through app.Accounts when the task starts.
func (app *App) setUpTasks(ctx context.Context) error {
	if app.Tasks != nil || app.DB == nil || !hasTaskTools(app.Registry) {
		return nil
	}
	db := app.DB
	if app.TaskDB != nil {
		db = app.TaskDB
	}
	var o task.Options
	if app.TaskOptions != nil {
		o = *app.TaskOptions
	}
	if o.Account == nil {
		o.Account = app.taskAccount
	}
	ctx, cancel := context.WithTimeout(ctx, taskSetupTimeout)
	defer cancel()
	var err error
	if o.Dialect != "" {
		err = task.MigrateDialect(ctx, db, o.Dialect)
	} else {
		err = task.Migrate(ctx, db)
	}
	if err != nil {
		return fmt.Errorf("creating the tables of tasks: %w", unavailableIfDown(ctx, app, err))
	}
	m, err := task.New(app.Registry, db, &o)
	if err != nil {
		return fmt.Errorf("the task manager: %w", err)
	}
	app.Tasks = m
	if app.ApprovalTools != "" {
		if err := app.Registry.Add(m.ApprovalTools(app.ApprovalTools)...); err != nil {
			return fmt.Errorf("the approval tools: %w", err)
		}
	}
	return nil
}

// unavailableIfDown wraps err with [ErrUnavailable] when app's database
// does not answer a ping: the tables could not be made because the
// database is out of reach, so serve keeps trying.
func unavailableIfDown(ctx context.Context, app *App, err error) error {
	if perr := app.DB.PingContext(ctx); perr != nil {
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	return err
}

// taskAccount returns the account a task runs for, as it stands now: the
// anonymous account when id is its ID, else the account of that name in
// app.Accounts.
func (app *App) taskAccount(ctx context.Context, id string) (tool.Account, error) {
	anon, err := app.anonymous(ctx)
	if err != nil {
		return nil, unavailable(err)
	}
	if anon.AccountID() == id {
		return anon, nil
	}
	acct, err := app.account(ctx, id)
	return acct, unavailable(err)
}

// startTasks runs app's tasks in this process, when it has a task
// manager; the function it returns stops them, waiting for those running
// until ctx ends (they then fail as interrupted).
func startTasks(ctx context.Context, app *App) (stop func(ctx context.Context), err error) {
	if app.Tasks == nil {
		return func(context.Context) {}, nil
	}
	if err := app.Tasks.Start(context.WithoutCancel(ctx)); err != nil {
		return nil, err
	}
	return func(ctx context.Context) {
		if err := app.Tasks.Stop(ctx); err != nil {
			app.Registry.Logger().Error("stopping the task workers", "error", err.Error())
		}
	}, nil
}
