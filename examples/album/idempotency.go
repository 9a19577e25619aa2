package main

import (
	"context"
	"fmt"

	"github.com/toolapi/toolapi/idempotency"
)

// IdempotencyKeys returns the idempotency keys of the store: the table
// idempotency_keys of its database, created when missing.
func (s *Store) IdempotencyKeys(ctx context.Context) (*idempotency.SQLStore, error) {
	keys, err := idempotency.NewSQLStore(s.db, nil)
	if err != nil {
		return nil, err
	}
	if err := s.schemaLocked(ctx, keys.Migrate); err != nil {
		return nil, err
	}
	return keys, nil
}

// UseIdempotencyKeys makes the runs of the application's write tools
// (adding tracks, publishing, deleting) safe to repeat: each takes an
// optional idempotency_key (--idempotency-key on the command line), and a
// repeat with the same key and inputs answers the first run's result
// without running. Keys are kept in the store's database, which the
// processes serving one album share. Install it after the audit trail, so
// that the trail records repeats too.
func (a *App) UseIdempotencyKeys(ctx context.Context) error {
	keys, err := a.Store.IdempotencyKeys(ctx)
	if err != nil {
		return fmt.Errorf("opening the idempotency keys: %w", err)
	}
	a.Registry.Use(idempotency.Middleware(keys, &idempotency.Options{Logger: a.Logger}))
	return nil
}
