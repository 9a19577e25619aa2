// Package task runs calls of tools as durable tasks: a call is checked and
// stored at once, runs in the background on a worker of any process that
// shares the database, and its caller watches it, answers its questions,
// cancels it and collects its outcome later, from any caller (MCP, the
// command line, the explorer, function calling).
//
//	if err := task.Migrate(ctx, db); err != nil { ... } // River's tables and the tasks'
//	m, err := task.New(reg, db, &task.Options{Account: app.Account, Key: key})
//	if err != nil { ... }
//	if err := m.Start(ctx); err != nil { ... } // run tasks in this process too
//	defer m.Stop(ctx)
//
//	t, err := m.Create(tool.WithAccount(ctx, acct), "album.export", args)
//	// var re *task.RefusedError: errors.As(err, &re) gives the run's failure
//	t, err = m.Wait(ctx, t.ID) // until it ends or asks something
//	if t.Status == task.InputRequired {
//		err = m.Answer(ctx, t.ID, &tool.Elicitation{Action: "accept"})
//	}
//
// # What a task is
//
// A task runs a tool whose [tool.Tool.Task] mode is optional or required,
// through the registry's own run path ([tool.Registry.RunJSON]): the same
// middleware (audit, telemetry), the same checks, the same [tool.Result].
// [Manager.Create] checks the arguments, the account's permission and
// access and asks the [tool.Confirmer] in its context, exactly as a run
// does, before anything is stored; a refusal is the [*RefusedError] of the
// Result a run would have given. When the task starts, its account is
// found again ([Options.Account]) and the run path checks it again:
// permissions may have changed while the task waited.
//
// While it runs, [tool.Progress] is stored with the task (at most once per
// [Options.ProgressEvery]); a confirmation the creating context could not
// ask, a [tool.Elicit], or a [tool.Ask] of several questions for a person,
// makes the task wait for input: its Questions are stored, each under a
// key, and once [Manager.AnswerKey] (or [Manager.Answer], for the first
// still unanswered) has answered every one, on any process, the task
// resumes. A task waits at most until it expires.
//
// Every task belongs to the account that created it: another account's
// task is not found ([ErrNotFound]), as an ID that never existed, unless
// that account holds the [Options.Viewers] permission.
//
// # Storage
//
// Tasks are kept in the table toolapi_tasks of the application's database
// (SQLite through modernc.org/sqlite, or PostgreSQL through pgx's
// database/sql driver), beside the tables of River
// (github.com/riverqueue/river), the queue that hands them to workers. The
// inputs are stored as canonical JSON; a call with sensitive inputs is
// stored whole only encrypted with [Options.Key] (AES-256-GCM), beside its
// inputs without the sensitive ones.
//
// A task is deleted when its time to live has passed ([tool.Tool.TaskTTL],
// else [Options.TTL]): counted from its end, or, while it has not ended,
// from its creation (a task still running then is cancelled).
//
// # Faults
//
// A task runs at most once: its worker claims it in the database before it
// runs, and its job is never retried. A worker writes a heartbeat while its
// task runs; when its process dies, the sweep of another (or the next)
// process marks the task failed, with the status message "interrupted",
// once the heartbeat is older than [Options.StaleAfter]. No task is left
// working forever.
package task
