package main

import (
	"archive/tar"
	"archive/zip"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/toolapi/toolapi/tool"
)

// An Archiver writes archives of albums, their tracks and the metadata of
// their images, into a folder the operator chooses (--archives) and
// callers cannot. An archive is written whole under a temporary name and
// renamed once complete, so the folder never holds half an archive.
type Archiver struct {
	store *Store
	dir   string
}

// maxArchiveAlbums is the most albums one archive takes.
const maxArchiveAlbums = 100

// Archive writes the albums into one archive file, with a progress report
// per image. It always runs as a background task: its caller gets the
// task at once and collects the archive's address when it is written.
//
//   - albums: The albums to put in the archive.
//   - format: The archive's format: zip or tar.
//
//tool:method id=album.archive label="Archive albums" op=write destructive=false permission="export translations" task=required
//tool:entity albums op=view notblank count=1..100
//tool:input format choice=zip|tar default=zip
//tool:output file "The archive written." type=uri
//tool:output album_count "How many albums the archive holds."
//tool:output image_count "How many images' metadata the archive holds."
func (a *Archiver) Archive(ctx context.Context, albums []*Album, format string) (file string, albumCount, imageCount int, err error) {
	if len(albums) > maxArchiveAlbums {
		return "", 0, 0, tool.InputErrorf("albums", "must hold at most %d albums", maxArchiveAlbums)
	}
	var w archiveWriter
	ext := ".zip"
	switch format {
	case "zip", "":
	case "tar":
		ext = ".tar"
	default:
		return "", 0, 0, tool.InputErrorf("format", "must be zip or tar")
	}
	if err := os.MkdirAll(a.dir, 0o755); err != nil {
		return "", 0, 0, err
	}
	name := fmt.Sprintf("albums-%s-%s%s", time.Now().UTC().Format("20060102-150405"), rand.Text()[:8], ext)
	final := filepath.Join(a.dir, name)
	f, err := os.CreateTemp(a.dir, ".archive-*")
	if err != nil {
		return "", 0, 0, err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if ext == ".tar" {
		w = &tarArchive{tw: tar.NewWriter(f)}
	} else {
		w = &zipArchive{zw: zip.NewWriter(f)}
	}
	type entry struct {
		album  *Album
		tracks []*Track
		images []Image
	}
	entries := make([]entry, len(albums))
	total := 0
	for i, al := range albums {
		tracks, err := a.store.Tracks(ctx, al)
		if err != nil {
			return "", 0, 0, err
		}
		images, err := a.store.Images(ctx, al)
		if err != nil {
			return "", 0, 0, err
		}
		entries[i] = entry{al, tracks, images}
		total += len(images)
	}
	done := 0
	tool.Progress(ctx, 0, float64(total), "starting")
	for _, e := range entries {
		dir := fmt.Sprintf("album-%d/", e.album.ID)
		meta := archivedAlbum{ID: e.album.ID, Title: e.album.Title, Year: e.album.Year, Owner: e.album.Owner, Published: e.album.Published}
		for _, t := range e.tracks {
			meta.Tracks = append(meta.Tracks, archivedTrack{Position: t.Position, Title: t.Title, Seconds: t.Length.Seconds()})
		}
		if err := w.add(dir+"album.json", meta); err != nil {
			return "", 0, 0, err
		}
		for _, im := range e.images {
			if err := ctx.Err(); err != nil {
				return "", 0, 0, err
			}
			img := archivedImage{Title: im.Title, Caption: im.Caption, Alt: im.Alt, URL: im.URL(), Created: im.Created.UTC()}
			if err := w.add(fmt.Sprintf("%simages/%d.json", dir, im.id), img); err != nil {
				return "", 0, 0, err
			}
			done++
			tool.Progress(ctx, float64(done), float64(total), fmt.Sprintf("%s: %s", e.album.Title, im.Title))
		}
	}
	if err := w.close(); err != nil {
		return "", 0, 0, err
	}
	if err := f.Sync(); err != nil {
		return "", 0, 0, err
	}
	if err := f.Close(); err != nil {
		return "", 0, 0, err
	}
	if err := os.Rename(f.Name(), final); err != nil {
		return "", 0, 0, err
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(final)}).String(), len(albums), total, nil
}

// What an archive holds of an album, a track and an image.
type (
	archivedAlbum struct {
		ID        int64           `json:"id"`
		Title     string          `json:"title"`
		Year      int             `json:"year"`
		Owner     string          `json:"owner"`
		Published bool            `json:"published"`
		Tracks    []archivedTrack `json:"tracks"`
	}
	archivedTrack struct {
		Position int     `json:"position"`
		Title    string  `json:"title"`
		Seconds  float64 `json:"seconds"`
	}
	archivedImage struct {
		Title   string    `json:"title"`
		Caption string    `json:"caption"`
		Alt     string    `json:"alt"`
		URL     string    `json:"url"`
		Created time.Time `json:"created"`
	}
)

// An archiveWriter adds JSON files to an archive.
type archiveWriter interface {
	add(name string, v any) error
	close() error
}

type zipArchive struct{ zw *zip.Writer }

func (z *zipArchive) add(name string, v any) error {
	w, err := z.zw.Create(name)
	if err != nil {
		return err
	}
	return writeIndented(w, v)
}

func (z *zipArchive) close() error { return z.zw.Close() }

type tarArchive struct{ tw *tar.Writer }

func (t *tarArchive) add(name string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	data = append(data, '\n')
	if err := t.tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(data)), ModTime: time.Now(), Typeflag: tar.TypeReg}); err != nil {
		return err
	}
	_, err = t.tw.Write(data)
	return err
}

func (t *tarArchive) close() error { return t.tw.Close() }

func writeIndented(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
