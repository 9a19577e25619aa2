package task

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5/stdlib"
)

// changesChannel is the PostgreSQL channel on which Managers sharing a
// database tell each other that a task changed (its ID as the payload).
const changesChannel = "toolapi_task_changes"

// listenRetry is how long the listener waits before it listens again
// after its connection failed.
const listenRetry = time.Second

// notify wakes whoever waits for a change of the task id: in this process
// at once, and, on PostgreSQL, in every process sharing the database (see
// listen), so that an answer, a cancellation or an approval given on one
// replica reaches the task running on another without waiting for its
// next poll. A failed notification is logged: the others then see the
// change at their next poll.
func (m *Manager) notify(ctx context.Context, id string) {
	m.signal(id)
	if m.dialect != Postgres {
		return
	}
	if _, err := m.db.ExecContext(context.WithoutCancel(ctx), `SELECT pg_notify($1, $2)`, changesChannel, id); err != nil {
		m.logger.Warn("telling other processes of a task's change failed", "task", id, "error", err.Error())
	}
}

// listen, on PostgreSQL, holds one connection of the Manager's database
// listening on changesChannel and wakes the waiters of each task named,
// until ctx ends; a failed connection is replaced after listenRetry.
func (m *Manager) listen(ctx context.Context) {
	defer close(m.listenDone)
	for ctx.Err() == nil {
		err := m.listenOnce(ctx)
		if ctx.Err() != nil {
			return
		}
		m.logger.Warn("listening for task changes failed; polling meanwhile", "error", err.Error())
		select {
		case <-ctx.Done():
			return
		case <-time.After(listenRetry):
		}
	}
}

// errNotPgx: the database's driver is not pgx's, which listen needs.
var errNotPgx = errors.New("the PostgreSQL driver is not github.com/jackc/pgx/v5/stdlib")

func (m *Manager) listenOnce(ctx context.Context) error {
	conn, err := m.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		c, ok := dc.(*stdlib.Conn)
		if !ok {
			return errNotPgx
		}
		pc := c.Conn()
		if _, err := pc.Exec(ctx, "LISTEN "+changesChannel); err != nil {
			return err
		}
		defer func() {
			// The connection goes back to the pool: stop listening on it.
			uctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			pc.Exec(uctx, "UNLISTEN "+changesChannel)
		}()
		for {
			n, err := pc.WaitForNotification(ctx)
			if err != nil {
				return err
			}
			m.signal(n.Payload)
		}
	})
}
