package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolapi/toolapi/tool"
)

// The storage tests run on SQLite always and on PostgreSQL when
// TOOLAPI_TEST_POSTGRES holds a server's URL (scripts/postgres.sh starts
// one and prints it). On CI (CI=true) a missing URL fails the tests: the
// PostgreSQL half must not be skipped quietly there.
const postgresEnv = "TOOLAPI_TEST_POSTGRES"

// eachDB runs test once per database, each time on a new, seeded store.
func eachDB(t *testing.T, test func(t *testing.T, s *Store)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) { test(t, newSQLiteStore(t)) })
	t.Run("postgres", func(t *testing.T) { test(t, newPostgresStore(t)) })
}

// eachDSN is eachDB for tests that open the database themselves.
func eachDSN(t *testing.T, test func(t *testing.T, dsn string)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) { test(t, filepath.Join(t.TempDir(), "album.db")) })
	t.Run("postgres", func(t *testing.T) { test(t, postgresSchema(t)) })
}

func newSQLiteStore(t testing.TB) *Store {
	t.Helper()
	return mustOpen(t, filepath.Join(t.TempDir(), "album.db"))
}

func newPostgresStore(t testing.TB) *Store {
	t.Helper()
	return mustOpen(t, postgresSchema(t))
}

func mustOpen(t testing.TB, dsn string) *Store {
	t.Helper()
	s, err := OpenStore(context.Background(), dsn)
	if err != nil {
		t.Fatalf("OpenStore: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// postgresSchema returns the URL of a new, empty schema on the test
// server, dropped when the test ends, so tests never see each other's
// data.
func postgresSchema(t testing.TB) string {
	t.Helper()
	base := os.Getenv(postgresEnv)
	if base == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not set on CI: run eval \"$(scripts/postgres.sh)\" before the tests", postgresEnv)
		}
		t.Skipf("%s is not set; eval \"$(scripts/postgres.sh)\" starts a server", postgresEnv)
	}
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	schema := "test_" + strings.ToLower(rand.Text()[:12])
	if _, err := admin.Exec(`CREATE SCHEMA ` + schema); err != nil {
		t.Fatalf("creating schema: %v", err)
	}
	t.Cleanup(func() {
		db, err := sql.Open("pgx", base)
		if err != nil {
			t.Error(err)
			return
		}
		defer db.Close()
		if _, err := db.Exec(`DROP SCHEMA ` + schema + ` CASCADE`); err != nil {
			t.Errorf("dropping schema: %v", err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// counts returns the number of rows of each table.
func counts(t testing.TB, s *Store) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, table := range []string{"users", "albums", "tracks", "images", "notifications", "config"} {
		var n int
		if err := s.DB().QueryRow(`SELECT COUNT(*) FROM ` + table).Scan(&n); err != nil {
			t.Fatalf("counting %s: %v", table, err)
		}
		out[table] = n
	}
	return out
}

func mustAlbum(t testing.TB, s *Store, title string) *Album {
	t.Helper()
	a, err := s.AlbumByTitle(context.Background(), title)
	if err != nil || a == nil {
		t.Fatalf("album %q: %v, %v", title, a, err)
	}
	return a
}

func mustUser(t testing.TB, s *Store, name string) *User {
	t.Helper()
	u, err := s.User(context.Background(), name)
	if err != nil {
		t.Fatalf("user %q: %v", name, err)
	}
	return u
}

func TestSeed(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		want := map[string]int{"users": 4, "albums": 4, "tracks": 9, "images": 8, "notifications": 0, "config": 2}
		if diff := cmp.Diff(want, counts(t, s)); diff != "" {
			t.Fatalf("rows after the first open (-want +got):\n%s", diff)
		}
		for range 2 {
			seeded, err := s.Seed(ctx)
			if err != nil || seeded {
				t.Errorf("Seed again = %v, %v; want false, nil", seeded, err)
			}
		}
		if err := s.migrate(ctx); err != nil {
			t.Errorf("migrate again: %v", err)
		}
		if diff := cmp.Diff(want, counts(t, s)); diff != "" {
			t.Errorf("rows after seeding again (-want +got):\n%s", diff)
		}
		var names []string
		users, err := s.Users(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range users {
			names = append(names, fmt.Sprintf("%s:%s:%v", u.Name, u.Role, u.IsBlocked))
		}
		if diff := cmp.Diff([]string{"admin:admin:false", "anonymous:anonymous:false", "editor:editor:false", "mallory:editor:true"}, names); diff != "" {
			t.Errorf("seeded users (-want +got):\n%s", diff)
		}
	})
}

// Several processes starting on one new database at once seed it once.
func TestSeedConcurrentOpen(t *testing.T) {
	eachDSN(t, func(t *testing.T, dsn string) {
		var wg sync.WaitGroup
		errs := make(chan error, 4)
		for range 4 {
			wg.Go(func() {
				s, err := OpenStore(context.Background(), dsn)
				if err != nil {
					errs <- err
					return
				}
				s.Close()
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Errorf("OpenStore: %v", err)
		}
		s := mustOpen(t, dsn)
		if got := counts(t, s); got["albums"] != 4 || got["users"] != 4 {
			t.Errorf("after 4 concurrent opens: %v; want the seed once", got)
		}
	})
}

func TestStoreCRUD(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		ann, err := s.CreateUser(ctx, "ann", roleEditor, false)
		if err != nil {
			t.Fatal(err)
		}
		if got := mustUser(t, s, "ann"); got.ID != ann.ID || got.Role != roleEditor || got.IsBlocked {
			t.Errorf("User(ann) = %+v, want %+v", got, ann)
		}
		if _, err := s.CreateUser(ctx, "ann", roleAdmin, false); err == nil {
			t.Error("a second user named ann was created")
		}
		if _, err := s.User(ctx, "nobody"); !errors.Is(err, errNoUser) {
			t.Errorf("User(nobody) error = %v, want errNoUser", err)
		}

		a, err := s.CreateAlbum(ctx, ann, "Quiet Rooms", 2023, false)
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.Album(ctx, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(a, got); diff != "" {
			t.Errorf("Album (-created +loaded):\n%s", diff)
		}
		if none, err := s.Album(ctx, a.ID+1000); none != nil || err != nil {
			t.Errorf("Album(missing) = %v, %v; want nil, nil", none, err)
		}

		for i, title := range []string{"One", "Two", "Three"} {
			tr, err := s.AddTrack(ctx, a, title, time.Duration(i+1)*time.Minute+500*time.Millisecond)
			if err != nil {
				t.Fatal(err)
			}
			if tr.Position != i+1 {
				t.Errorf("track %q at position %d, want %d", title, tr.Position, i+1)
			}
			loaded, err := s.Track(ctx, tr.ID)
			if err != nil || loaded == nil {
				t.Fatalf("Track(%d) = %v, %v", tr.ID, loaded, err)
			}
			if loaded.Title != title || loaded.Length != time.Duration(i+1)*time.Minute || loaded.Album.ID != a.ID || loaded.Album.Owner != "ann" {
				t.Errorf("Track(%d) = %+v", tr.ID, loaded)
			}
		}
		tracks, err := s.Tracks(ctx, a)
		if err != nil || len(tracks) != 3 || tracks[2].Title != "Three" {
			t.Errorf("Tracks = %v, %v", tracks, err)
		}

		created := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
		if err := s.AddImage(ctx, a, "Zebra crossing", "Black & white", "Stripes on a road", "https://example.com/z.png", created); err != nil {
			t.Fatal(err)
		}
		imgs, err := s.Images(ctx, a)
		if err != nil || len(imgs) != 1 {
			t.Fatalf("Images = %v, %v", imgs, err)
		}
		if img := imgs[0]; img.Title != "Zebra crossing" || !img.Created.Equal(created) || img.URL() != "https://example.com/z.png" ||
			img.StoragePath() != fmt.Sprintf("images/%d/%d.png", a.ID, img.id) {
			t.Errorf("image = %+v (url %s, path %s)", img, img.URL(), img.StoragePath())
		}

		// The draft is visible to its owner and to those who see all, and
		// found by its alt text, case-insensitively.
		for _, tc := range []struct {
			v    viewer
			want int
		}{{viewer{userID: ann.ID}, 1}, {viewer{all: true}, 1}, {viewer{}, 0}, {viewer{userID: mustUser(t, s, "editor").ID}, 0}} {
			found, err := s.SearchImages(ctx, tc.v, "STRIPES")
			if err != nil {
				t.Fatal(err)
			}
			if len(found) != tc.want {
				t.Errorf("SearchImages(%+v) found %d, want %d", tc.v, len(found), tc.want)
			}
		}
		count, err := s.Publish(ctx, a, true)
		if err != nil || count != 3 {
			t.Errorf("Publish = %d, %v; want 3", count, err)
		}
		if found, _ := s.SearchImages(ctx, viewer{}, "zebra"); len(found) != 1 {
			t.Errorf("published image found %d times by anyone, want 1", len(found))
		}
		notes, err := s.Notifications(ctx, a)
		if err != nil || len(notes) != 1 || !strings.Contains(notes[0], "Quiet Rooms") {
			t.Errorf("Notifications = %q, %v", notes, err)
		}
		year := 2023
		listed, err := s.Albums(ctx, viewer{}, &year)
		if err != nil || len(listed) != 1 || listed[0].Title != "Quiet Rooms" || listed[0].TrackCount != 3 {
			t.Errorf("Albums(2023) = %+v, %v", listed, err)
		}
		found, err := s.SearchAlbums(ctx, viewer{}, "quiet", 10)
		if err != nil || len(found) != 1 || found[0].ID != a.ID {
			t.Errorf("SearchAlbums(quiet) = %v, %v", found, err)
		}
		// LIKE's wildcards in a word match only themselves.
		for _, w := range []string{"%", "_", `\`} {
			if found, err := s.SearchImages(ctx, viewer{all: true}, w); err != nil || len(found) != 0 {
				t.Errorf("SearchImages(%q) = %d images, %v; want none", w, len(found), err)
			}
		}
	})
}

func TestConfigStore(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		var site Site
		if ok, err := s.Config(ctx, "site", &site); !ok || err != nil || site != seedSite {
			t.Errorf("Config(site) = %+v, %v, %v; want the seed", site, ok, err)
		}
		var missing map[string]any
		if ok, err := s.Config(ctx, "nothing", &missing); ok || err != nil {
			t.Errorf("Config(nothing) = %v, %v; want false, nil", ok, err)
		}
		err := s.UpdateConfig(ctx, "other", func(stored []byte) ([]byte, error) {
			if stored != nil {
				t.Errorf("stored = %s, want nil", stored)
			}
			return []byte(`{"a":1}`), nil
		})
		if err != nil {
			t.Fatal(err)
		}
		boom := errors.New("boom")
		err = s.UpdateConfig(ctx, "other", func(stored []byte) ([]byte, error) { return nil, boom })
		if !errors.Is(err, boom) {
			t.Errorf("UpdateConfig error = %v, want boom", err)
		}
		var got map[string]any
		if _, err := s.Config(ctx, "other", &got); err != nil || got["a"] != 1.0 {
			t.Errorf("Config(other) = %v, %v; want the first update only", got, err)
		}
	})
}

func TestTokens(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		first, err := s.IssueToken(ctx, "editor")
		if err != nil {
			t.Fatal(err)
		}
		u, err := s.UserByToken(ctx, first)
		if err != nil || u.Name != "editor" {
			t.Fatalf("UserByToken(first) = %v, %v", u, err)
		}
		var stored string
		if err := s.DB().QueryRow(`SELECT token_hash FROM users WHERE name = 'editor'`).Scan(&stored); err != nil {
			t.Fatal(err)
		}
		if stored == first || strings.Contains(stored, first) {
			t.Error("the token is stored as is")
		}
		second, err := s.IssueToken(ctx, "editor")
		if err != nil || second == first {
			t.Fatalf("second token = %q, %v", second, err)
		}
		if _, err := s.UserByToken(ctx, first); !errors.Is(err, errNoUser) {
			t.Errorf("the replaced token still works: %v", err)
		}
		for _, bad := range []string{"", "alb_nope", second + "x"} {
			if _, err := s.UserByToken(ctx, bad); !errors.Is(err, errNoUser) {
				t.Errorf("UserByToken(%q) error = %v, want errNoUser", bad, err)
			}
		}
		if _, err := s.IssueToken(ctx, "nobody"); !errors.Is(err, errNoUser) {
			t.Errorf("IssueToken(nobody) error = %v, want errNoUser", err)
		}
	})
}

// newTestApp returns the application over s, exporting into a temporary
// folder and logging into the returned buffer.
func newTestApp(t testing.TB, s *Store) (*App, *lockedBuffer) {
	t.Helper()
	logs := new(lockedBuffer)
	app, err := NewApp(s, filepath.Join(t.TempDir(), "exports"), slog.New(slog.NewTextHandler(logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(app.Registry.List(nil)); n != 13 {
		t.Fatalf("registry holds %d tools, want 13; log:\n%s", n, logs)
	}
	return app, logs
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// runAs runs a tool through the registry for the named user.
func runAs(t testing.TB, app *App, user, id string, args map[string]any) *tool.Result {
	t.Helper()
	// A person confirms the runs that ask, as the CLI's --yes does.
	ctx := tool.WithConfirmer(context.Background(), tool.Confirmed)
	if user != "" {
		ctx = tool.WithAccount(ctx, mustUser(t, app.Store, user))
	}
	res, err := app.Registry.Run(ctx, id, args)
	if err != nil {
		t.Fatalf("Run(%s): %v", id, err)
	}
	return res
}

func albumID(t testing.TB, s *Store, title string) string {
	return fmt.Sprint(mustAlbum(t, s, title).ID)
}

// A failed write leaves the database as it was: every write tool, failing
// at its last step before commit, changes no row.
func TestWritesRollBack(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		app, logs := newTestApp(t, s)
		draft := albumID(t, s, "Night Studies")
		writes := []struct {
			user, id string
			args     map[string]any
		}{
			{"editor", "album.publish", map[string]any{"album": draft, "notify": true}},
			{"editor", "album.add_track", map[string]any{"album": draft, "title": "Encore", "length": "PT1M"}},
			{"admin", "site.update_info", map[string]any{"values": map[string]any{"slogan": "Changed"}}},
		}
		before := counts(t, s)
		var site Site
		s.Config(context.Background(), "site", &site)
		s.beforeCommit = func(context.Context) error { return errors.New("disk full at commit") }
		for _, w := range writes {
			res := runAs(t, app, w.user, w.id, w.args)
			if res.Success || res.Failure != tool.FailureRuntime {
				t.Errorf("%s with a failing commit = %+v, want a runtime failure", w.id, res)
			}
			if strings.Contains(res.Message, "disk full") {
				t.Errorf("%s: the service's error reached the caller: %q", w.id, res.Message)
			}
		}
		if !strings.Contains(logs.String(), "disk full at commit") {
			t.Errorf("the error was not logged; log:\n%s", logs)
		}
		if diff := cmp.Diff(before, counts(t, s)); diff != "" {
			t.Errorf("rows changed by failed writes (-before +after):\n%s", diff)
		}
		if a := mustAlbum(t, s, "Night Studies"); a.Published {
			t.Error("the failed publish published the album")
		}
		var after Site
		s.Config(context.Background(), "site", &after)
		if after != site {
			t.Errorf("the failed update changed the site config to %+v", after)
		}

		s.beforeCommit = nil
		for _, w := range writes {
			if res := runAs(t, app, w.user, w.id, w.args); !res.Success {
				t.Errorf("%s = %+v, want success", w.id, res)
			}
		}
		got := counts(t, s)
		if got["tracks"] != before["tracks"]+1 || got["notifications"] != before["notifications"]+1 {
			t.Errorf("rows after the writes succeed = %v (before %v)", got, before)
		}
	})
}

// Writes to one album from 16 goroutines at once lose nothing: every track
// is stored, each at its own position.
func TestConcurrentAddTrack(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		app, logs := newTestApp(t, s)
		a := mustAlbum(t, s, "Blue Hours")
		before, err := s.Tracks(context.Background(), a)
		if err != nil {
			t.Fatal(err)
		}
		const writers = 16
		var wg sync.WaitGroup
		results := make([]*tool.Result, writers)
		for i := range writers {
			wg.Go(func() {
				results[i] = runAs(t, app, "editor", "album.add_track",
					map[string]any{"album": fmt.Sprint(a.ID), "title": fmt.Sprintf("Take %d", i)})
			})
		}
		wg.Wait()
		for i, res := range results {
			if !res.Success {
				t.Errorf("writer %d: %+v", i, res)
			}
		}
		after, err := s.Tracks(context.Background(), a)
		if err != nil {
			t.Fatal(err)
		}
		if len(after) != len(before)+writers {
			t.Fatalf("%d tracks after %d concurrent adds to %d, want %d; log:\n%s",
				len(after), writers, len(before), len(before)+writers, logs)
		}
		var titles []string
		for i, tr := range after {
			if tr.Position != i+1 {
				t.Errorf("track %d at position %d", i+1, tr.Position)
			}
			if i >= len(before) {
				titles = append(titles, tr.Title)
			}
		}
		slices.Sort(titles)
		titles = slices.Compact(titles)
		if len(titles) != writers {
			t.Errorf("%d distinct new titles, want %d", len(titles), writers)
		}
	})
}

func TestSQLiteWAL(t *testing.T) {
	s := newSQLiteStore(t)
	var mode string
	if err := s.DB().QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode = %q, %v; want wal", mode, err)
	}
}
