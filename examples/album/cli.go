package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/toolapi/toolapi/toolapp"
)

const help = `DB is the path of an SQLite file (created and seeded when missing) or a
postgres:// URL. Without --db, $ALBUM_DB, else %s.
Translation exports are written under DIR (default: "exports" beside the
SQLite file, or in the cache folder for PostgreSQL). Archives of albums
(album.archive, a background task) are written under --archives.`

// flags are the album's own flags, which every command takes.
type flags struct {
	db       string
	exports  string
	archives string
	// taskStale is how long a task may go without its worker's heartbeat.
	taskStale time.Duration

	// store is the store the opener opened, for the album's own commands.
	store *Store
}

func (f *flags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.db, "db", f.db, "the `DB`: an SQLite file or a postgres:// URL")
	fs.StringVar(&f.exports, "exports", f.exports, "the `DIR` of translation exports")
	fs.DurationVar(&f.taskStale, "task-stale", f.taskStale, "how `long` a running task may go without its worker's heartbeat before it is failed as interrupted (default 1m)")
	fs.StringVar(&f.archives, "archives", f.archives, "the `DIR` album archives are written to (default: DIR of --exports/archives)")
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
// audit trail (see [App.UseAuditTrail]) and the idempotency keys (see
// [App.UseIdempotencyKeys]) installed.
func (f *flags) open(stderr io.Writer) toolapp.Opener {
	return func(ctx context.Context) (*toolapp.App, error) {
		store, err := OpenStore(ctx, f.db)
		if err != nil {
			err = fmt.Errorf("opening %s: %w", maskDSN(f.db), err)
			if unreachable(err) {
				// serve waits for the database and tries again.
				err = fmt.Errorf("%w: %w", toolapp.ErrUnavailable, err)
			}
			return nil, err
		}
		app, err := NewApp(store, f.exportDir(), slog.New(slog.NewTextHandler(stderr, nil)))
		if err == nil {
			if f.archives != "" {
				app.SetArchiveDir(f.archives)
			}
			app.TaskStaleAfter = f.taskStale
			err = app.UseAuditTrail(ctx)
		}
		if err == nil {
			err = app.UseIdempotencyKeys(ctx)
		}
		if err != nil {
			store.Close()
			return nil, err
		}
		f.store = store
		return app.Service(), nil
	}
}

// unreachable reports whether err says that the database cannot be
// reached for now, so that trying again later may work: the connection is
// refused, reset or times out, or PostgreSQL says it is starting, shutting
// down or out of connections. A refused password, a missing database or
// any other error of PostgreSQL's is not.
func unreachable(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case strings.HasPrefix(pe.Code, "08"), // connection exception
			strings.HasPrefix(pe.Code, "57P"), // shutting down, starting up
			pe.Code == "53300":                // too many connections
			return true
		}
		return false
	}
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)
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
