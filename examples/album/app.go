package main

//go:generate go run github.com/toolapi/toolapi/cmd/toolgen -strict

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strconv"
	"time"

	"github.com/toolapi/toolapi/audit"
	"github.com/toolapi/toolapi/entity"
	"github.com/toolapi/toolapi/idempotency"
	"github.com/toolapi/toolapi/tool"
)

// An App is the album application: its store, its services and the
// registry their tools are in.
type App struct {
	Store    *Store
	Registry *tool.Registry
	Logger   *slog.Logger

	manager  *Manager
	lister   *Lister
	exporter *Exporter
	site     *SiteSettings
	archiver *Archiver
	indexer  *Reindexer

	// Stateless makes the MCP server of [App.Service] serve streamable
	// HTTP without sessions, as `serve --stateless` does: every request
	// stands alone, so several serve processes sharing one PostgreSQL
	// database can answer the same clients behind any load balancer.
	Stateless bool

	// TaskStaleAfter is how long a running task may go without its
	// worker's heartbeat before it is failed as interrupted (its process
	// died); zero means the task package's default, one minute.
	TaskStaleAfter time.Duration

	// Trail is the audit trail [App.UseAuditTrail] installed, nil before:
	// admins see it in the explorer.
	Trail *audit.SQLStore
	// trail is the middleware writing Trail, closed with the service.
	trail *audit.Trail
}

// NewApp builds the application over store, writing translation exports
// under exportDir and archives of albums under exportDir/archives (see
// [App.SetArchiveDir]). logger may be nil.
func NewApp(store *Store, exportDir string, logger *slog.Logger) (*App, error) {
	if logger == nil {
		logger = slog.Default()
	}
	// The cursors of paged tools (album.search) are signed with the key
	// of the MCP request states, kept in the database, so that a cursor
	// one process gave is good at every other.
	key, err := store.StateKey(context.Background())
	if err != nil {
		return nil, fmt.Errorf("reading the state key: %w", err)
	}
	a := &App{
		Store:    store,
		Registry: tool.NewRegistry(&tool.Options{Logger: logger, Adjust: idempotency.AddInput, CursorKey: key}),
		Logger:   logger,
		manager:  &Manager{store: store},
		lister:   &Lister{store: store},
		exporter: &Exporter{store: store, dir: exportDir},
		site:     &SiteSettings{store: store},
		archiver: &Archiver{store: store, dir: filepath.Join(exportDir, "archives")},
		indexer:  &Reindexer{store: store},
	}
	for _, et := range a.entityTypes() {
		if err := a.Registry.AddEntityType(et); err != nil {
			return nil, err
		}
	}
	if err := RegisterTools(a.Registry, a.archiver, a.exporter, a.lister, a.manager, a.indexer, a.site); err != nil {
		return nil, fmt.Errorf("registering tools: %w", err)
	}
	return a, nil
}

// SetArchiveDir makes the album archives be written under dir.
func (a *App) SetArchiveDir(dir string) { a.archiver.dir = dir }

// entityTypes returns the application's entity types: albums, and tracks,
// whose access follows their album's.
func (a *App) entityTypes() []*tool.EntityType {
	albums := entity.New(entity.Type[*Album]{
		ID:    "album",
		Label: "Album",
		Load: func(ctx context.Context, id string) (*Album, error) {
			n, ok := parseID(id)
			if !ok {
				return nil, entity.NotFound("album", id)
			}
			return a.Store.Album(ctx, n)
		},
		Access: func(_ context.Context, acct tool.Account, al *Album, op string) (bool, error) {
			return mayAlbum(acct, al, op), nil
		},
		IDOf:    func(al *Album) string { return strconv.FormatInt(al.ID, 10) },
		LabelOf: func(al *Album) string { return al.Title },
		Search: func(ctx context.Context, acct tool.Account, query string, limit int) ([]*Album, error) {
			return a.Store.SearchAlbums(ctx, viewerFrom(tool.WithAccount(ctx, acct)), query, limit)
		},
	})
	tracks := entity.New(entity.Type[*Track]{
		ID:    "track",
		Label: "Track",
		Load: func(ctx context.Context, id string) (*Track, error) {
			n, ok := parseID(id)
			if !ok {
				return nil, entity.NotFound("track", id)
			}
			return a.Store.Track(ctx, n)
		},
		Access: func(_ context.Context, acct tool.Account, t *Track, op string) (bool, error) {
			return mayAlbum(acct, t.Album, op), nil
		},
		IDOf:    func(t *Track) string { return strconv.FormatInt(t.ID, 10) },
		LabelOf: func(t *Track) string { return t.Title },
	})
	return []*tool.EntityType{albums, tracks}
}
