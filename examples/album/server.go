package main

import (
	"context"
	"errors"
	"time"

	"github.com/toolapi/toolapi/explorer"
	"github.com/toolapi/toolapi/mcpserver"
	"github.com/toolapi/toolapi/task"
	"github.com/toolapi/toolapi/toolapp"
)

// Service returns what the standard commands serve (see package toolapp):
// the registry, the users of the store as accounts, the database (whose
// pool serve sizes and which /readyz pings), and the explorer's sessions,
// presets and runs, kept in the database so that every serve process on
// it shares them, and the audit trail for admins once [App.UseAuditTrail]
// installed it.
// MCP over HTTP authenticates with a bearer token (see the tokens
// command); a request without one runs as the seeded user anonymous.
// People sign in to the explorer with a user's name and API token. Closing
// the service closes the store.
func (a *App) Service() *toolapp.App {
	service := &toolapp.App{
		Registry: a.Registry,
		Accounts: a.Store,
		// serve sizes its pool and /readyz pings it.
		// The used request states of MCP calls are shared through the
		// database, so that a confirmed call runs once across processes.
		DB:    a.Store.DB(),
		Audit: a.Trail,
		// Processes behind one load balancer must read each other's
		// request state: they share the key through the database.
		StateKey: a.Store.StateKey,
		MCP:      &mcpserver.Options{Logger: a.Logger, Stateless: a.Stateless},
		Explorer: &explorer.Options{
			Logger: a.Logger,
			SignInNote: "Sign in with a user's name and API token: \"album tokens NAME\" (or \"album serve --print-tokens\") " +
				"issues one. The seeded users are editor, admin and mallory (blocked).",
			Store:        a.Store.Explorer(),
			SanitizeHTML: explorer.InlineHTML,
		},
		// Tasks (album.archive, site.reindex) are kept in the database;
		// every serve process on it runs them, and finds each task's
		// account again among the users when the task starts.
		TaskDB:      a.Store.TaskDB(),
		TaskOptions: &task.Options{StaleAfter: a.TaskStaleAfter},
		// Administrators see and decide the takedowns that wait for them
		// from any caller, not only from the explorer and the CLI.
		ApprovalTools: permApproveTakedowns,
		Close:         a.close,
	}
	if a.Trail != nil {
		// Admins (who hold every permission) see the audit trail, which
		// records the steps of tasks too.
		service.Explorer.Audit = a.Trail
		service.TaskOptions.Audit = a.Trail
	}
	return service
}

// closeTimeout bounds how long closing the service writes what the audit
// trail holds.
const closeTimeout = 5 * time.Second

// close writes what the audit trail holds (refusals counted but not
// written, runs still under way as interrupted) and closes the store.
func (a *App) close() error {
	var err error
	if a.trail != nil {
		ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
		err = a.trail.Close(ctx)
		cancel()
	}
	return errors.Join(err, a.Store.Close())
}
