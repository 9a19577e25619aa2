package toolapp

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/toolapi/toolapi/explorer"
)

// newPresetStore returns an explorer store on a new SQLite database that
// holds ada's presets of notes.slow, saved as the explorer saves them.
func newPresetStore(t *testing.T, presets map[string]string) *explorer.SQLStore {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "explorer.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	s, err := explorer.NewSQLStore(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	for name, values := range presets {
		p := &explorer.Preset{Tool: "notes.slow", Name: name, Values: []byte(values), Updated: time.Now()}
		if err := s.SavePreset(context.Background(), "ada", p); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// "tool run --preset" runs the explorer's presets: those of
// Explorer.Presets, else of Explorer.Store.
func TestToolRunPreset(t *testing.T) {
	store := newPresetStore(t, map[string]string{"quick": `{"steps":2,"pause_ms":0}`, "once": `{"steps":1,"pause_ms":0}`})
	presets := newPresetStore(t, map[string]string{"quick": `{"steps":3,"pause_ms":0}`})
	tests := []struct {
		name     string
		explorer *explorer.Options
		args     []string
		code     int
		stdout   string // a part of it
	}{
		{name: "the store's", explorer: &explorer.Options{Store: store},
			args: []string{"--preset", "quick"}, stdout: `"steps": 2`},
		{name: "an input replaces the preset's", explorer: &explorer.Options{Store: store},
			args: []string{"--preset", "quick", "--input", "steps=4"}, stdout: `"steps": 4`},
		{name: "Presets before Store", explorer: &explorer.Options{Store: store, Presets: presets},
			args: []string{"--preset", "quick"}, stdout: `"steps": 3`},
		{name: "unknown preset", explorer: &explorer.Options{Store: store},
			args: []string{"--preset", "slowly"}, code: 1,
			stdout: `"message": "--preset \"slowly\": account \"ada\" has no preset of notes.slow named \"slowly\"; its presets: \"once\", \"quick\""`},
		{name: "no explorer options", explorer: nil,
			args: []string{"--preset", "quick"}, code: 1, stdout: "presets are not configured"},
		{name: "an explorer without presets", explorer: &explorer.Options{Title: "Notes"},
			args: []string{"--preset", "quick"}, code: 1, stdout: "presets are not configured"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newTestApp(t)
			open := func(ctx context.Context) (*App, error) {
				app, err := a.open(ctx)
				app.Explorer = tt.explorer
				return app, err
			}
			var out, errOut strings.Builder
			args := append([]string{"tool", "run", "notes.slow", "--user", "ada", "--json"}, tt.args...)
			code := Run(t.Context(), open, args, &Options{Name: "notes", Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut})
			if code != tt.code || !strings.Contains(out.String(), tt.stdout) {
				t.Errorf("%q: exit status %d, want %d; stdout does not contain %q?\n%s\nstderr:\n%s", args, code, tt.code, tt.stdout, out.String(), errOut.String())
			}
		})
	}
}
