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
// that every process sharing the database shares it. Processes starting
// together may each make one: the first stored wins and every one reads
// it back.
func (s *Store) StateKey(ctx context.Context) ([]byte, error) {
	const name = "mcp.state_key"
	fresh := make([]byte, 32)
	if _, err := rand.Read(fresh); err != nil {
		return nil, err
	}
	value, err := json.Marshal(fresh)
	if err != nil {
		return nil, err
	}
	if _, err := s.db.ExecContext(ctx, `INSERT INTO config (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`, name, string(value)); err != nil {
		return nil, err
	}
	var key []byte
	if _, err := s.Config(ctx, name, &key); err != nil {
		return nil, err
	}
	if len(key) != 32 {
		return nil, errors.New("the stored MCP state key is not 32 bytes")
	}
	return key, nil
}
