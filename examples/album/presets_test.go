package main

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolapi/toolapi/explorer"
)

// TestPresets checks the explorer's presets as the album keeps them, in
// its database.
func TestPresets(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		ps := s.Explorer()
		at := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
		save := func(owner, toolID, name, values string) {
			t.Helper()
			if err := ps.SavePreset(ctx, owner, &explorer.Preset{Tool: toolID, Name: name, Values: []byte(values), Updated: at}); err != nil {
				t.Fatalf("SavePreset(%s, %s, %s): %v", owner, toolID, name, err)
			}
		}
		save("editor", "album.search", "rain", `{"word":"rain"}`)
		save("editor", "album.search", "harbour", `{"word":"harbour"}`)
		save("editor", "album.list", "recent", `{"year":2024}`)
		save("admin", "album.search", "rain", `{"word":"RAIN"}`)
		at = at.Add(time.Hour)
		save("editor", "album.search", "rain", `{"word":"drizzle"}`) // replaces

		got, err := ps.Presets(ctx, "editor", "album.search")
		if err != nil {
			t.Fatal(err)
		}
		want := []explorer.Preset{
			{Tool: "album.search", Name: "harbour", Values: []byte(`{"word":"harbour"}`), Updated: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)},
			{Tool: "album.search", Name: "rain", Values: []byte(`{"word":"drizzle"}`), Updated: time.Date(2025, 3, 1, 13, 0, 0, 0, time.UTC)},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("editor's presets of album.search (-want +got):\n%s", diff)
		}
		p, err := ps.Preset(ctx, "admin", "album.search", "rain")
		if err != nil || string(p.Values) != `{"word":"RAIN"}` {
			t.Errorf("admin's rain = %+v, %v", p, err)
		}
		if _, err := ps.Preset(ctx, "anonymous", "album.search", "rain"); !errors.Is(err, explorer.ErrNoPreset) {
			t.Errorf("another owner's preset: %v, want ErrNoPreset", err)
		}
		if err := ps.DeletePreset(ctx, "editor", "album.search", "rain"); err != nil {
			t.Fatal(err)
		}
		if err := ps.DeletePreset(ctx, "editor", "album.search", "rain"); err != nil {
			t.Errorf("deleting a deleted preset: %v", err)
		}
		if _, err := ps.Preset(ctx, "editor", "album.search", "rain"); !errors.Is(err, explorer.ErrNoPreset) {
			t.Errorf("a deleted preset: %v", err)
		}
		if p, err := ps.Preset(ctx, "admin", "album.search", "rain"); err != nil || p == nil {
			t.Errorf("deleting editor's preset touched admin's: %v", err)
		}
	})
}

// TestPresetsSavedBefore opens a database whose explorer_presets table
// the album made before the explorer kept sessions and runs, holding a
// preset: the store keeps the table and the preset fills the same
// request.
func TestPresetsSavedBefore(t *testing.T) {
	eachDSN(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		old, err := openStore(dsn)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{
			// The table as the album created it.
			`CREATE TABLE explorer_presets (
				owner TEXT NOT NULL,
				tool TEXT NOT NULL,
				name TEXT NOT NULL,
				input_values TEXT NOT NULL,
				updated BIGINT NOT NULL,
				PRIMARY KEY (owner, tool, name)
			)`,
			`INSERT INTO explorer_presets (owner, tool, name, input_values, updated) VALUES ('editor', 'album.search', 'rain', '{"word":"rain"}', 1740830400)`,
		} {
			if _, err := old.DB().ExecContext(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		old.Close()

		s := mustOpen(t, dsn)
		got, err := s.Explorer().Presets(ctx, "editor", "album.search")
		if err != nil {
			t.Fatal(err)
		}
		want := []explorer.Preset{{Tool: "album.search", Name: "rain", Values: []byte(`{"word":"rain"}`), Updated: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("the preset saved before (-want +got):\n%s", diff)
		}
	})
}
