package main

import (
	"context"
	"crypto/rand"
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

// StateKey returns the secret key with which MCP servers sign the state
// they hand clients between requests, made and stored on first use, so
// that every process sharing the database shares it.
func (s *Store) StateKey(ctx context.Context) ([]byte, error) {
	var key []byte
	err := s.UpdateConfig(ctx, "mcp.state_key", func(stored []byte) ([]byte, error) {
		if stored != nil {
			return stored, json.Unmarshal(stored, &key)
		}
		key = make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return nil, err
		}
		return json.Marshal(key)
	})
	return key, err
}
