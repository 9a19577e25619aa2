package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/toolapi/toolapi/explorer"
)

// PresetStore keeps the tool explorer's presets, the input values a user
// saved under a name, in the explorer_presets table: one row per user,
// tool and name, the values as JSON text.
type PresetStore struct {
	store *Store
}

// Presets returns the owner's presets of a tool, by name.
func (p PresetStore) Presets(ctx context.Context, owner, toolID string) ([]explorer.Preset, error) {
	rows, err := p.store.db.QueryContext(ctx, `SELECT tool, name, input_values, updated FROM explorer_presets
		WHERE owner = $1 AND tool = $2 ORDER BY name`, owner, toolID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []explorer.Preset
	for rows.Next() {
		pr, err := scanPreset(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, *pr)
	}
	return out, rows.Err()
}

// Preset returns the owner's preset of a tool with the given name, or an
// error wrapping explorer.ErrNoPreset.
func (p PresetStore) Preset(ctx context.Context, owner, toolID, name string) (*explorer.Preset, error) {
	pr, err := scanPreset(p.store.db.QueryRowContext(ctx, `SELECT tool, name, input_values, updated FROM explorer_presets
		WHERE owner = $1 AND tool = $2 AND name = $3`, owner, toolID, name))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("preset %q of %s: %w", name, toolID, explorer.ErrNoPreset)
	}
	return pr, err
}

func scanPreset(sc interface{ Scan(...any) error }) (*explorer.Preset, error) {
	var pr explorer.Preset
	var values string
	var updated int64
	if err := sc.Scan(&pr.Tool, &pr.Name, &values, &updated); err != nil {
		return nil, err
	}
	pr.Values = []byte(values)
	pr.Updated = time.Unix(updated, 0).UTC()
	return &pr, nil
}

// SavePreset stores pr for the owner, replacing the preset of the same
// tool and name.
func (p PresetStore) SavePreset(ctx context.Context, owner string, pr *explorer.Preset) error {
	return p.store.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO explorer_presets (owner, tool, name, input_values, updated)
			VALUES ($1, $2, $3, $4, $5)
			ON CONFLICT (owner, tool, name) DO UPDATE SET input_values = excluded.input_values, updated = excluded.updated`,
			owner, pr.Tool, pr.Name, string(pr.Values), pr.Updated.Unix())
		return err
	})
}

// DeletePreset deletes the owner's preset of a tool with the given name,
// if there is one.
func (p PresetStore) DeletePreset(ctx context.Context, owner, toolID, name string) error {
	return p.store.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM explorer_presets WHERE owner = $1 AND tool = $2 AND name = $3`, owner, toolID, name)
		return err
	})
}
