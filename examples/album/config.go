package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
)

// Config reads the stored configuration object name into v, reporting
// whether one is stored.
func (s *Store) Config(ctx context.Context, name string, v any) (bool, error) {
	var raw string
	err := s.db.QueryRowContext(ctx, `SELECT value FROM config WHERE name = $1`, name).Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, json.Unmarshal([]byte(raw), v)
}

// UpdateConfig changes the configuration object name in one transaction:
// change receives the stored JSON (nil when none is stored) and returns
// what to store. Concurrent updates of one object queue, so none is lost.
func (s *Store) UpdateConfig(ctx context.Context, name string, change func(stored []byte) ([]byte, error)) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		var raw sql.NullString
		err := tx.QueryRowContext(ctx, `SELECT value FROM config WHERE name = $1`+s.forUpdate(), name).Scan(&raw)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		var stored []byte
		if raw.Valid {
			stored = []byte(raw.String)
		}
		next, err := change(stored)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO config (name, value) VALUES ($1, $2)
			ON CONFLICT (name) DO UPDATE SET value = excluded.value`, name, string(next))
		return err
	})
}
