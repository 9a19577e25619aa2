package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// An Album is a set of tracks and the images shown with them, owned by
// the user who made it. Only published albums are visible to everyone.
//
//tool:entitytype album
type Album struct {
	ID        int64
	OwnerID   int64
	Owner     string // the owner's name
	Title     string
	Year      int
	Published bool
}

// A Track is one piece of music on an album.
//
//tool:entitytype track
type Track struct {
	ID       int64
	Position int // 1 for the album's first track
	Title    string
	Length   time.Duration
	// Album is the album the track is on.
	Album *Album
}

// An Image is a picture shown with an album.
type Image struct {
	// Title names the picture.
	Title string `tool:"title"`
	// Caption is shown under the picture.
	Caption string `tool:"caption,media=text/html"`
	// Alt describes the picture for people who cannot see it.
	Alt string `tool:"alt"`
	// Created is when the picture was added.
	Created time.Time `tool:"created"`
	// Album is the album the picture belongs to.
	Album *Album `tool:"album"`

	id  int64
	url string
}

// URL returns the address the picture is served from.
//
//tool:property type=uri
func (i Image) URL() string { return i.url }

// StoragePath returns where the picture's file sits on the server's disk.
// It is for the server alone and is not published.
func (i Image) StoragePath() string {
	return fmt.Sprintf("images/%d/%d%s", i.Album.ID, i.id, pathExt(i.url))
}

func pathExt(url string) string {
	if i := strings.LastIndexByte(url, '.'); i > strings.LastIndexByte(url, '/') {
		return url[i:]
	}
	return ""
}

// A Listing is one album in a list of albums.
type Listing struct {
	// Album is the album listed.
	Album *Album `tool:"album"`
	// Title is the album's title.
	Title string `tool:"title"`
	// Year is the year the album was released.
	Year int `tool:"year"`
	// Published says whether everyone can see the album.
	Published bool `tool:"published"`
	// TrackCount is how many tracks the album has.
	TrackCount int `tool:"track_count"`
}

const albumColumns = `a.id, a.owner_id, u.name, a.title, a.year, a.published`

func scanAlbum(sc interface{ Scan(...any) error }, a *Album) error {
	return sc.Scan(&a.ID, &a.OwnerID, &a.Owner, &a.Title, &a.Year, &a.Published)
}

// parseID parses an entity ID; ok is false when id cannot be one.
func parseID(id string) (int64, bool) {
	n, err := strconv.ParseInt(id, 10, 64)
	return n, err == nil && n > 0 && strconv.FormatInt(n, 10) == id
}

// Album returns the album with the given ID, or nil when there is none.
func (s *Store) Album(ctx context.Context, id int64) (*Album, error) {
	a := new(Album)
	err := scanAlbum(s.db.QueryRowContext(ctx, `SELECT `+albumColumns+`
		FROM albums a JOIN users u ON u.id = a.owner_id WHERE a.id = $1`, id), a)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return a, err
}

// AlbumByTitle returns the first album with the given title, or nil.
func (s *Store) AlbumByTitle(ctx context.Context, title string) (*Album, error) {
	a := new(Album)
	err := scanAlbum(s.db.QueryRowContext(ctx, `SELECT `+albumColumns+`
		FROM albums a JOIN users u ON u.id = a.owner_id WHERE a.title = $1 ORDER BY a.id LIMIT 1`, title), a)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return a, err
}

// A viewer is who asks to see albums: the ID of the user (0 for none) and
// whether they may see every album, published or not.
type viewer struct {
	userID int64
	all    bool
}

// visible returns the SQL condition on albums a that v may see, and its
// arguments numbered from $n.
func (v viewer) visible(n int) (string, []any) {
	if v.all {
		return "TRUE", nil
	}
	return fmt.Sprintf("(a.published OR a.owner_id = $%d)", n), []any{v.userID}
}

// Albums returns the albums v may see, of one year when year is not nil,
// newest first.
func (s *Store) Albums(ctx context.Context, v viewer, year *int) ([]Listing, error) {
	cond, args := v.visible(1)
	if year != nil {
		cond += fmt.Sprintf(" AND a.year = $%d", len(args)+1)
		args = append(args, *year)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+albumColumns+`,
		(SELECT COUNT(*) FROM tracks t WHERE t.album_id = a.id)
		FROM albums a JOIN users u ON u.id = a.owner_id
		WHERE `+cond+` ORDER BY a.year DESC, a.id DESC`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Listing{}
	for rows.Next() {
		a := new(Album)
		var count int
		if err := rows.Scan(&a.ID, &a.OwnerID, &a.Owner, &a.Title, &a.Year, &a.Published, &count); err != nil {
			return nil, err
		}
		out = append(out, Listing{Album: a, Title: a.Title, Year: a.Year, Published: a.Published, TrackCount: count})
	}
	return out, rows.Err()
}

// SearchAlbums returns up to limit albums v may see whose title contains
// query, case-insensitively.
func (s *Store) SearchAlbums(ctx context.Context, v viewer, query string, limit int) ([]*Album, error) {
	cond, args := v.visible(3)
	rows, err := s.db.QueryContext(ctx, `SELECT `+albumColumns+`
		FROM albums a JOIN users u ON u.id = a.owner_id
		WHERE LOWER(a.title) LIKE $1 ESCAPE '\' AND `+cond+`
		ORDER BY a.title, a.id LIMIT $2`, append([]any{likePattern(query), limit}, args...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*Album
	for rows.Next() {
		a := new(Album)
		if err := scanAlbum(rows, a); err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// likePattern returns the LIKE pattern matching strings that contain word,
// case-insensitively (the column must be lowered too).
func likePattern(word string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return "%" + r.Replace(strings.ToLower(word)) + "%"
}

// searchImagesSQL finds images by a word; {{visible}} is the viewer's
// condition, numbered from $2.
const searchImagesSQL = `SELECT i.id, i.title, i.caption, i.alt, i.url, i.created, ` + albumColumns + `
	FROM images i JOIN albums a ON a.id = i.album_id JOIN users u ON u.id = a.owner_id
	WHERE (LOWER(i.title) LIKE $1 ESCAPE '\' OR LOWER(i.caption) LIKE $1 ESCAPE '\' OR LOWER(i.alt) LIKE $1 ESCAPE '\')
	AND {{visible}}
	ORDER BY i.created DESC, i.id DESC`

// SearchImages returns the images v may see whose title, caption or alt
// text contains word, case-insensitively, newest first.
func (s *Store) SearchImages(ctx context.Context, v viewer, word string) ([]Image, error) {
	cond, args := v.visible(2)
	rows, err := s.db.QueryContext(ctx, strings.Replace(searchImagesSQL, "{{visible}}", cond, 1),
		append([]any{likePattern(word)}, args...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Image{}
	for rows.Next() {
		var img Image
		var created int64
		a := new(Album)
		if err := rows.Scan(&img.id, &img.Title, &img.Caption, &img.Alt, &img.url, &created,
			&a.ID, &a.OwnerID, &a.Owner, &a.Title, &a.Year, &a.Published); err != nil {
			return nil, err
		}
		img.Created = time.Unix(created, 0).UTC()
		img.Album = a
		out = append(out, img)
	}
	return out, rows.Err()
}

// Images returns the images of album a in the order they were added.
func (s *Store) Images(ctx context.Context, a *Album) ([]Image, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, title, caption, alt, url, created
		FROM images WHERE album_id = $1 ORDER BY created, id`, a.ID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Image{}
	for rows.Next() {
		img := Image{Album: a}
		var created int64
		if err := rows.Scan(&img.id, &img.Title, &img.Caption, &img.Alt, &img.url, &created); err != nil {
			return nil, err
		}
		img.Created = time.Unix(created, 0).UTC()
		out = append(out, img)
	}
	return out, rows.Err()
}

// AddImage adds an image to album a.
func (s *Store) AddImage(ctx context.Context, a *Album, title, caption, alt, url string, created time.Time) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO images (album_id, title, caption, alt, url, created)
			VALUES ($1, $2, $3, $4, $5, $6)`, a.ID, title, caption, alt, url, created.Unix())
		return err
	})
}

// Tracks returns the tracks of album a in order.
func (s *Store) Tracks(ctx context.Context, a *Album) ([]*Track, error) {
	return tracks(ctx, s.db, a)
}

func tracks(ctx context.Context, q querier, a *Album) ([]*Track, error) {
	rows, err := q.QueryContext(ctx, `SELECT id, position, title, seconds FROM tracks
		WHERE album_id = $1 ORDER BY position`, a.ID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*Track
	for rows.Next() {
		t := &Track{Album: a}
		var seconds int64
		if err := rows.Scan(&t.ID, &t.Position, &t.Title, &seconds); err != nil {
			return nil, err
		}
		t.Length = time.Duration(seconds) * time.Second
		out = append(out, t)
	}
	return out, rows.Err()
}

// Track returns the track with the given ID, its album loaded, or nil.
func (s *Store) Track(ctx context.Context, id int64) (*Track, error) {
	t := &Track{Album: new(Album)}
	var seconds int64
	a := t.Album
	err := s.db.QueryRowContext(ctx, `SELECT t.id, t.position, t.title, t.seconds, `+albumColumns+`
		FROM tracks t JOIN albums a ON a.id = t.album_id JOIN users u ON u.id = a.owner_id
		WHERE t.id = $1`, id).Scan(&t.ID, &t.Position, &t.Title, &seconds,
		&a.ID, &a.OwnerID, &a.Owner, &a.Title, &a.Year, &a.Published)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	t.Length = time.Duration(seconds) * time.Second
	return t, err
}

// lockAlbum locks album id for the rest of tx, so writes to one album
// queue instead of racing, and reports whether it still exists.
func (s *Store) lockAlbum(ctx context.Context, tx *sql.Tx, id int64) error {
	var got int64
	err := tx.QueryRowContext(ctx, `SELECT id FROM albums WHERE id = $1`+s.forUpdate(), id).Scan(&got)
	if errors.Is(err, sql.ErrNoRows) {
		return errAlbumGone
	}
	return err
}

// errAlbumGone is returned by writes to an album deleted meanwhile.
var errAlbumGone = errors.New("the album no longer exists")

// AddTrack appends a track to album a and returns it.
func (s *Store) AddTrack(ctx context.Context, a *Album, title string, length time.Duration) (*Track, error) {
	t := &Track{Title: title, Length: length.Truncate(time.Second), Album: a}
	err := s.write(ctx, func(tx *sql.Tx) error {
		if err := s.lockAlbum(ctx, tx, a.ID); err != nil {
			return err
		}
		if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(position), 0) + 1 FROM tracks WHERE album_id = $1`,
			a.ID).Scan(&t.Position); err != nil {
			return err
		}
		var err error
		t.ID, err = insertID(ctx, tx, `INSERT INTO tracks (album_id, position, title, seconds) VALUES ($1, $2, $3, $4)`,
			a.ID, t.Position, t.Title, int64(t.Length/time.Second))
		return err
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}

// Publish makes album a visible to everyone and, when notify is set,
// records a notification for its followers. It returns the number of
// tracks on the album.
func (s *Store) Publish(ctx context.Context, a *Album, notify bool) (int, error) {
	var count int
	err := s.write(ctx, func(tx *sql.Tx) error {
		if err := s.lockAlbum(ctx, tx, a.ID); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE albums SET published = TRUE WHERE id = $1`, a.ID); err != nil {
			return err
		}
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM tracks WHERE album_id = $1`, a.ID).Scan(&count); err != nil {
			return err
		}
		if notify {
			msg := fmt.Sprintf("%s published %q with %d tracks.", a.Owner, a.Title, count)
			if _, err := tx.ExecContext(ctx, `INSERT INTO notifications (album_id, message, created) VALUES ($1, $2, $3)`,
				a.ID, msg, time.Now().Unix()); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	a.Published = true
	return count, nil
}

// DeleteAlbum deletes album a with its tracks, images and notifications
// in one transaction, and returns the number of tracks deleted.
func (s *Store) DeleteAlbum(ctx context.Context, a *Album) (int, error) {
	var tracks int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		if err := s.lockAlbum(ctx, tx, a.ID); err != nil {
			return err
		}
		for _, table := range []string{"notifications", "images", "album_passphrases"} {
			if _, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE album_id = $1`, a.ID); err != nil {
				return err
			}
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM tracks WHERE album_id = $1`, a.ID)
		if err != nil {
			return err
		}
		if tracks, err = res.RowsAffected(); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM albums WHERE id = $1`, a.ID)
		return err
	})
	return int(tracks), err
}

// Notifications returns the messages recorded for album a, oldest first.
func (s *Store) Notifications(ctx context.Context, a *Album) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT message FROM notifications WHERE album_id = $1 ORDER BY id`, a.ID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var m string
		if err := rows.Scan(&m); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// CreateAlbum adds an album owned by owner.
func (s *Store) CreateAlbum(ctx context.Context, owner *User, title string, year int, published bool) (*Album, error) {
	a := &Album{OwnerID: owner.ID, Owner: owner.Name, Title: title, Year: year, Published: published}
	err := s.write(ctx, func(tx *sql.Tx) error {
		var err error
		a.ID, err = insertID(ctx, tx, `INSERT INTO albums (owner_id, title, year, published) VALUES ($1, $2, $3, $4)`,
			owner.ID, title, year, published)
		return err
	})
	if err != nil {
		return nil, err
	}
	return a, nil
}
