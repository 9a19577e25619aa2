// Package e2e holds services whose tools toolgen generates, for the
// end-to-end tests of the generated code: they run through a real
// tool.Registry and record the typed values their methods receive.
package e2e

//go:generate go run github.com/toolapi/toolapi/cmd/toolgen .

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/toolapi/toolapi/tool"
)

// An Album is a record in the catalogue.
//
//tool:entitytype album
type Album struct {
	ID    string
	Title string
}

// Mood is how a track feels.
type Mood string

// The moods.
const (
	Calm   Mood = "calm"
	Lively Mood = "lively"
)

// Priority orders work.
type Priority int

// The priorities.
const (
	Low  Priority = 1
	High Priority = 2
)

// An Image is a picture of an album.
type Image struct {
	title, url string
	// Caption is shown under the picture.
	Caption *string `tool:",omitnull,media=text/html"`
}

// Title names the picture.
//
//tool:property
func (i Image) Title() string { return i.title }

// URL is where the picture is served from.
//
//tool:property type=uri
func (i Image) URL() string { return i.url }

// StoragePath is where the file lies on disk; it is not published.
func (i Image) StoragePath() string { return "/var/images/" + i.title }

// A Cover is an album with its images.
type Cover struct {
	// Album is the album itself.
	Album *Album `tool:"album"`
	// Images are the album's images.
	Images []Image `tool:"images"`
}

// A Received records the typed values a method got.
type Received struct {
	Album    *Album
	Mood     Mood
	At       time.Time
	Notify   bool
	Limit    *int
	Priority Priority
	Tags     []string
}

// Scheduler schedules albums.
type Scheduler struct {
	Got []Received
	// Filters records the filters Filter received.
	Filters []Filter
	// Images records the bytes Thumbnail and Attach received.
	Images [][]byte
	// AccessChecked records the bytes CanAttach received.
	AccessChecked [][]byte
}

// Schedule schedules an album's release.
//
//   - album: The album to release.
//   - mood: How the release should feel.
//   - at: When to release it.
//   - notify: Whether to tell subscribers.
//   - limit: How many copies; none means no limit.
//
// Returns whether the release was scheduled.
//
//tool:method id=e2e.schedule
//tool:entity album op=update
//tool:input notify default=true
func (s *Scheduler) Schedule(ctx context.Context, album *Album, mood Mood, at time.Time, notify bool, limit *int, priority Priority, tags ...string) (bool, error) {
	s.Got = append(s.Got, Received{Album: album, Mood: mood, At: at, Notify: notify, Limit: limit, Priority: priority, Tags: tags})
	return true, nil
}

// Search finds images whose title contains a word.
//
//   - word: A word to look for.
//
// Returns the images that matched.
//
//tool:method id=e2e.search op=read permission="access content"
func (s *Scheduler) Search(ctx context.Context, word string) ([]Image, error) {
	caption := "The <b>front</b>"
	all := []Image{{title: "front", url: "https://example.com/front.jpg", Caption: &caption}, {title: "back", url: "https://example.com/back.jpg"}}
	var out []Image
	for _, img := range all {
		if strings.Contains(img.title, word) {
			out = append(out, img)
		}
	}
	return out, nil
}

// Cover returns an album with its images.
//
//tool:method id=e2e.cover op=read
//tool:entity album op=view
func (s *Scheduler) Cover(ctx context.Context, album *Album) (Cover, error) {
	return Cover{Album: album, Images: []Image{{title: "front", url: "https://example.com/front.jpg"}}}, nil
}

// Thumbnail makes a thumbnail of an image.
//
//   - image: The image.
//   - frames: Further frames of it.
//
// Returns the thumbnail.
//
//tool:method id=e2e.thumbnail op=transform permission="access content"
//tool:input image media=image/png
//tool:output media=image/png
func (s *Scheduler) Thumbnail(ctx context.Context, image []byte, frames [][]byte) ([]byte, error) {
	s.Images = append(s.Images, image)
	s.Images = append(s.Images, frames...)
	return append([]byte("thumb:"), image...), nil
}

// Notes returns an album's liner notes.
//
// Returns the notes.
//
//tool:method id=e2e.notes op=read
//tool:entity album op=view
//tool:output notes
func (s *Scheduler) Notes(ctx context.Context, album *Album) (tool.Resource, error) {
	return tool.Resource{URI: "album://" + album.ID + "/notes", MediaType: "text/plain", Text: "Recorded live."}, nil
}

// Stats counts an album's tracks.
//
//   - title: The album's title.
//   - track_count: How many tracks it has.
//
//tool:method id=e2e.stats op=read permission="access content"
//tool:entity album op=view
func (s *Scheduler) Stats(ctx context.Context, album *Album) (title string, trackCount int, err error) {
	return album.Title, 12, nil
}

// ErrStorageFull is the service's own error: the storage ran out of
// room. It knows nothing of toolapi; the registry's MapError gives it a
// meaning for callers.
var ErrStorageFull = errors.New("storage full")

// Merge moves tracks into an album, at most room of them.
//
//   - album: The album the tracks move into.
//   - tracks: The titles of the tracks to move.
//   - room: How many tracks the storage has room for.
//
//tool:method id=e2e.merge permission="access content"
//tool:entity album op=view
func (s *Scheduler) Merge(ctx context.Context, album *Album, tracks []string, room int) (moved int, left []string, err error) {
	for i, t := range tracks {
		if i == room {
			return moved, tracks[i:], fmt.Errorf("moving %q into %s: %w", t, album.ID, ErrStorageFull)
		}
		moved++
	}
	return moved, []string{}, nil
}

// Paging says which part of a list to give; each field has a default.
type Paging struct {
	// Limit caps the items given.
	Limit int `tool:"limit,default=20,range=1..100"`
	// Cursor is where the previous page ended.
	Cursor string `json:"cursor,omitempty"`
}

// A Window is a page of a list in an order; every field is optional.
type Window struct {
	// Paging says which part to give.
	Paging Paging `json:"paging"`
	// Sort orders the list.
	Sort string `json:"sort,omitempty" tool:",default=newest"`
}

// Page gives the limit and order a window reads as.
//
//   - window: The part of the list to give.
//
//tool:method id=e2e.page op=read permission="access content"
func (s *Scheduler) Page(ctx context.Context, window Window) (string, error) {
	return fmt.Sprintf("%d %s %q", window.Paging.Limit, window.Sort, window.Paging.Cursor), nil
}

// Reserve reserves room for an album's files.
//
//   - files: How many files.
//   - bytes: How many bytes in all.
//   - slot: Which storage slot.
//
// Returns the bytes reserved.
//
//tool:method id=e2e.reserve permission="access content"
func (s *Scheduler) Reserve(ctx context.Context, files uint, bytes uint64, slot uintptr) (uint64, error) {
	return bytes + uint64(files)*0 + uint64(slot)*0, nil
}

// Export writes an album's files.
//
//tool:method id=e2e.export permission="export"
//tool:output files "The written files." type=uri multiple
//tool:output string_count "How many strings were exported." type=integer
func (s *Scheduler) Export(ctx context.Context, langcode string) tool.Result {
	outputs := map[string]any{"files": []any{"file:///tmp/" + langcode + ".po"}, "string_count": 3}
	if langcode == "xx" {
		return *tool.Failed("The export wrote files that failed the post-write check.", outputs)
	}
	return *tool.Succeeded(fmt.Sprintf("Exported %d strings.", 3), outputs)
}

// Rename renames an album, if the account owns it.
//
//tool:method id=e2e.rename access=CanRename
func (s *Scheduler) Rename(ctx context.Context, title string) error {
	if title == "" {
		return &tool.InputError{Input: "title", Message: "must not be empty"}
	}
	if title == "boom" {
		return errors.New("database is down at 10.0.0.7")
	}
	return nil
}

// Attach attaches a file to an album, if the account may attach it.
//
//tool:method id=e2e.attach access=CanAttach
func (s *Scheduler) Attach(ctx context.Context, file []byte) error {
	s.Images = append(s.Images, file)
	return nil
}

// CanAttach reports whether the account may attach file: only files of
// at most 4 bytes, and only with the "attach" permission.
func (s *Scheduler) CanAttach(ctx context.Context, file []byte) (bool, error) {
	s.AccessChecked = append(s.AccessChecked, file)
	return len(file) <= 4 && tool.AccountFrom(ctx).HasPermission("attach"), nil
}

// CanRename reports whether the account may rename to title, and says
// why not when it may not.
func (s *Scheduler) CanRename(ctx context.Context, title string) (bool, error) {
	if !tool.AccountFrom(ctx).HasPermission("rename") {
		return false, tool.Refuse("renaming needs the rename permission")
	}
	return true, nil
}

// Settings are the site's settings.
//
//tool:config e2e.site
type Settings struct {
	// Name is the site's name.
	Name string `json:"name"`
	// PageSize is how many items a page shows.
	PageSize int `json:"page_size,omitempty"`
}

// Site holds the site's settings.
type Site struct {
	Current Settings
}

// Info returns the site's settings.
//
//tool:method id=e2e.site_info op=read permission="access content"
//tool:output site config=e2e.site
func (s *Site) Info(ctx context.Context) (Settings, error) { return s.Current, nil }

// UpdateInfo changes the site's settings.
//
//tool:method id=e2e.update_info permission="administer site"
//tool:input values config=e2e.site
func (s *Site) UpdateInfo(ctx context.Context, values Settings) error {
	s.Current = values
	return nil
}

// Lister lists albums from a year.
//
//tool:method id=e2e.list op=read permission="access content"
//tool:output albums
type Lister struct {
	Years []*int
}

// Invoke lists albums from a year.
//
//   - year: The year; none means every year.
//
// Returns the albums.
func (l *Lister) Invoke(ctx context.Context, year *int) ([]struct {
	Title string `json:"title"`
	Year  int    `json:"year"`
}, error) {
	l.Years = append(l.Years, year)
	return []struct {
		Title string `json:"title"`
		Year  int    `json:"year"`
	}{{Title: "Blue", Year: 1971}}, nil
}

// A Filter selects images; its tags give each property its input options.
type Filter struct {
	// Word is matched in titles.
	Word string `tool:"word,notblank"`
	// Limit caps the images returned.
	Limit int `tool:"limit,default=10,range=1..100"`
	// Order sorts them.
	Order string `json:"order,omitempty" tool:",default=newest,choice=newest|oldest"`
}

// Filter records the filter it is given.
//
//tool:method id=e2e.filter op=read permission="access content"
func (s *Scheduler) Filter(ctx context.Context, filter Filter) error {
	s.Filters = append(s.Filters, filter)
	return nil
}
