package task

import (
	"context"
	"time"
)

// sweepLoop sweeps every Options.SweepEvery until ctx ends.
func (m *Manager) sweepLoop(ctx context.Context) {
	defer close(m.sweepDone)
	ticker := time.NewTicker(m.opts.SweepEvery)
	defer ticker.Stop()
	for {
		m.sweep(ctx)
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}

// sweep deletes the tasks whose time to live has passed (a task still
// running then is cancelled by its worker, which no longer finds it) and
// marks failed, as interrupted, the running tasks whose worker's heartbeat
// is older than Options.StaleAfter: their process died.
func (m *Manager) sweep(ctx context.Context) {
	now := time.Now().UnixNano()
	if _, err := m.db.ExecContext(ctx, `DELETE FROM toolapi_tasks WHERE expires_ns < $1`, now); err != nil {
		if ctx.Err() == nil {
			m.logger.Error("deleting expired tasks failed", "error", err.Error())
		}
		return
	}
	m.expireApprovals(ctx)
	// The approvals of deleted tasks, and the standing approvals no longer
	// in force (the audit trail keeps their grants and revocations).
	if _, err := m.db.ExecContext(ctx, `DELETE FROM toolapi_task_approvals WHERE NOT EXISTS (SELECT 1 FROM toolapi_tasks t WHERE t.id = task_id)`); err != nil && ctx.Err() == nil {
		m.logger.Error("deleting the approvals of deleted tasks failed", "error", err.Error())
	}
	if _, err := m.db.ExecContext(ctx, `DELETE FROM toolapi_standing_approvals WHERE expires_ns < $1 OR revoked_ns <> 0`, now); err != nil && ctx.Err() == nil {
		m.logger.Error("deleting standing approvals no longer in force failed", "error", err.Error())
	}
	res, _ := encodeResult(failed("The task was interrupted: the process that ran it stopped."))
	if _, err := m.db.ExecContext(ctx, `UPDATE toolapi_tasks SET status = 'failed', status_message = 'interrupted', result = $1,
		question = NULL, answer = NULL, updated_ns = $2, expires_ns = $2 + ttl_ns
		WHERE status IN ('working', 'input_required') AND started = 1 AND heartbeat_ns < $3`,
		string(res), now, now-int64(m.opts.StaleAfter)); err != nil {
		if ctx.Err() == nil {
			m.logger.Error("marking interrupted tasks failed", "error", err.Error())
		}
	}
}
