package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/toolapi/toolapi/toolapp"
)

const help = `DB is the path of an SQLite file (created and seeded when missing) or a
postgres:// URL. Without --db, $ALBUM_DB, else %s.
Translation exports are written under DIR (default: "exports" beside the
SQLite file, or in the cache folder for PostgreSQL).`

// flags are the album's own flags, which every command takes.
type flags struct {
	db      string
	exports string

	// store is the store the opener opened, for the album's own commands.
	store *Store
}

func (f *flags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.db, "db", f.db, "the `DB`: an SQLite file or a postgres:// URL")
	fs.StringVar(&f.exports, "exports", f.exports, "the `DIR` of translation exports")
}

// options returns the options of the album's command line.
func (f *flags) options() *toolapp.Options {
	return &toolapp.Options{
		Name:     "album",
		Title:    "Album demo",
		Help:     fmt.Sprintf(help, defaultDB()),
		Flags:    f.register,
		Commands: []*toolapp.Command{f.auditCommand()},
	}
}

// run runs the command line args and returns the exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	f := &flags{db: defaultDB()}
	opts := f.options()
	opts.Stdin, opts.Stdout, opts.Stderr = stdin, stdout, stderr
	return toolapp.Run(ctx, f.open(stderr), args, opts)
}

// open returns the opener of the application: it opens the store --db
// names and builds the application on it, logging to stderr, with the
// audit trail (see [App.UseAuditTrail]) installed.
func (f *flags) open(stderr io.Writer) toolapp.Opener {
	return func(ctx context.Context) (*toolapp.App, error) {
		store, err := OpenStore(ctx, f.db)
		if err != nil {
			return nil, fmt.Errorf("opening %s: %w", maskDSN(f.db), err)
		}
		app, err := NewApp(store, f.exportDir(), slog.New(slog.NewTextHandler(stderr, nil)))
		if err == nil {
			err = app.UseAuditTrail(ctx)
		}
		if err != nil {
			store.Close()
			return nil, err
		}
		f.store = store
		return app.Service(), nil
	}
}

// defaultDB returns the database used without --db: $ALBUM_DB, else
// album.db in the user's cache folder (in the working folder when there
// is none).
func defaultDB() string {
	if v := os.Getenv("ALBUM_DB"); v != "" {
		return v
	}
	if dir, err := os.UserCacheDir(); err == nil {
		return filepath.Join(dir, "toolapi-album", "album.db")
	}
	return "album.db"
}

func (f *flags) exportDir() string {
	if f.exports != "" {
		return f.exports
	}
	if !isPostgres(f.db) {
		return filepath.Join(filepath.Dir(f.db), "exports")
	}
	if dir, err := os.UserCacheDir(); err == nil {
		return filepath.Join(dir, "toolapi-album", "exports")
	}
	return "exports"
}
