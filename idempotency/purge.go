package idempotency

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"sync"
	"time"
)

// purger deletes expired keys at most every purgeEvery, in the background.
type purger struct {
	mu   sync.Mutex
	last time.Time
}

func (p *purger) maybe(ctx context.Context, store Store, now time.Time, log *slog.Logger) {
	p.mu.Lock()
	if now.Sub(p.last) < purgeEvery {
		p.mu.Unlock()
		return
	}
	p.last = now
	p.mu.Unlock()
	go func() {
		if err := store.Purge(ctx, now); err != nil {
			log.Error("expired idempotency keys cannot be deleted", "error", err.Error())
		}
	}()
}

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }
