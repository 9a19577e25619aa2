package main

import (
	"context"
	"fmt"

	"github.com/toolapi/toolapi/tool"
)

// indexedTables are the album's tables whose indexes a re-index rebuilds,
// in order; constant names, never input.
var indexedTables = []string{"users", "albums", "tracks", "images", "notifications", "config"}

// A Reindexer rebuilds the site's database indexes.
type Reindexer struct {
	store *Store
}

// Reindex rebuilds the indexes of the site's tables and refreshes the
// statistics the database plans its queries with, table by table, with a
// progress report per table. It may run as a background task: on a large
// site it takes a while, and the caller may collect its outcome later.
//
//tool:method id=site.reindex label="Re-index the site" op=write destructive=false permission="administer site configuration" task=optional
//tool:output table_count "How many tables were re-indexed."
func (r *Reindexer) Reindex(ctx context.Context) (tableCount int, err error) {
	total := float64(len(indexedTables))
	for i, table := range indexedTables {
		if err := ctx.Err(); err != nil {
			return i, err
		}
		tool.Progress(ctx, float64(i), total, "re-indexing "+table)
		if err := r.store.reindex(ctx, table); err != nil {
			return i, fmt.Errorf("re-indexing %s: %w", table, err)
		}
	}
	tool.Progress(ctx, total, total, "done")
	return len(indexedTables), nil
}

// reindex rebuilds the indexes of table and refreshes its statistics.
// table is one of [indexedTables].
func (s *Store) reindex(ctx context.Context, table string) error {
	stmt := "REINDEX " + table // SQLite's
	if s.postgres {
		stmt = "REINDEX TABLE " + table
	}
	if _, err := s.db.ExecContext(ctx, stmt); err != nil {
		return err
	}
	_, err := s.db.ExecContext(ctx, "ANALYZE "+table)
	return err
}
