package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/toolapi/toolapi/tool"
)

// A Manager finds, publishes and fills albums.
type Manager struct {
	store *Store
}

// Search finds images whose title, caption, or alt text contains a word.
//
//   - word: A single word or phrase, matched case-insensitively.
//
// Returns the images that matched, newest first.
//
//tool:method id=album.search op=read permission="access content" group=viewer budget=20items
//tool:input word notblank length=1..200 example=rain
func (m *Manager) Search(ctx context.Context, word string) ([]Image, error) {
	word = strings.TrimSpace(word)
	if word == "" {
		return nil, tool.InputErrorf("word", "must contain a letter or digit")
	}
	return m.store.SearchImages(ctx, viewerFrom(ctx), word)
}

// Publish publishes an album and returns the number of tracks made visible.
//
//   - album: The album to publish.
//   - notify: Whether to tell the album's followers.
//
// Returns the number of published tracks.
//
//tool:method id=album.publish op=write destructive=false permission="edit albums"
//tool:entity album op=update
//tool:input notify default=true
//tool:output track_count
func (m *Manager) Publish(ctx context.Context, album *Album, notify bool) (int, error) {
	return m.store.Publish(ctx, album, notify)
}

// AddTrack adds a track to the end of an album.
//
//   - album: The album to add the track to.
//   - title: The track's title.
//   - length: How long the track plays, such as PT3M20S; unknown when left out.
//
// Returns the track added.
//
//tool:method id=album.add_track op=write destructive=false permission="edit albums"
//tool:entity album op=update
//tool:input title notblank length=1..200 example="So What"
//tool:output track
func (m *Manager) AddTrack(ctx context.Context, album *Album, title string, length *time.Duration) (*Track, error) {
	var d time.Duration
	if length != nil {
		d = *length
	}
	if d < 0 {
		return nil, tool.InputErrorf("length", "must not be negative")
	}
	if d > 24*time.Hour {
		return nil, tool.InputErrorf("length", "must be at most a day")
	}
	title = strings.TrimSpace(title)
	if title == "" {
		return nil, tool.InputErrorf("title", "must not be blank")
	}
	return m.store.AddTrack(ctx, album, title, d)
}

// Delete deletes an album with its tracks, images and notifications, all
// at once or, when anything fails, none of them.
//
//   - album: The album to delete.
//
// Returns the number of tracks deleted with the album.
//
//tool:method id=album.delete op=write confirm=DeleteNeedsConfirming permission="edit albums"
//tool:entity album op=delete
//tool:output track_count
func (m *Manager) Delete(ctx context.Context, album *Album) (int, error) {
	n, err := m.store.DeleteAlbum(ctx, album)
	if errors.Is(err, errAlbumGone) {
		return 0, tool.InputErrorf("album", "no longer exists: it was deleted meanwhile")
	}
	return n, err
}

// DeleteNeedsConfirming asks a person before an album that is published
// or still has tracks is deleted; an empty draft is deleted at once.
func (m *Manager) DeleteNeedsConfirming(ctx context.Context, album *Album) (string, error) {
	tracks, err := m.store.Tracks(ctx, album)
	if err != nil {
		return "", err
	}
	var has string
	switch len(tracks) {
	case 0:
	case 1:
		has = "has 1 track"
	default:
		has = fmt.Sprintf("has %d tracks", len(tracks))
	}
	switch {
	case album.Published && has != "":
		return fmt.Sprintf("%q is published and %s.", album.Title, has), nil
	case album.Published:
		return fmt.Sprintf("%q is published.", album.Title), nil
	case has != "":
		return fmt.Sprintf("%q %s.", album.Title, has), nil
	}
	return "", nil
}

// Takedown deletes an album as Delete does, with its tracks, images and
// notifications; a published album goes only once a site administrator
// other than the caller approves, and a draft at once.
//
//   - album: The album to take down.
//   - reason: Why it must go, for the approver to read.
//
// Returns the number of tracks deleted with the album.
//
//tool:method id=album.takedown op=write permission="edit albums" approver="approve takedowns" confirm=TakedownNeedsApproval
//tool:entity album op=delete
//tool:input reason notblank length=1..500 example="The label withdrew the rights."
//tool:output track_count
func (m *Manager) Takedown(ctx context.Context, album *Album, reason string) (int, error) {
	return m.Delete(ctx, album)
}

// TakedownNeedsApproval asks for an approval before a published album is
// taken down.
func (m *Manager) TakedownNeedsApproval(ctx context.Context, album *Album, reason string) (string, error) {
	if !album.Published {
		return "", nil
	}
	return fmt.Sprintf("%q is published. Reason given: %s", album.Title, reason), nil
}

// Summarize describes an album: its title, its tracks and its images.
//
//   - album: The album to describe.
//
//tool:method id=album.summarize op=read permission="access content" group=viewer
//tool:entity album op=view
//tool:output title "The album's title."
//tool:output owner "The name of the user who owns the album."
//tool:output track_count "How many tracks the album has."
//tool:output length "How long the tracks play together."
//tool:output images "The album's images, in the order they were added."
func (m *Manager) Summarize(ctx context.Context, album *Album) (title, owner string, trackCount int, length time.Duration, images []Image, err error) {
	tracks, err := m.store.Tracks(ctx, album)
	if err != nil {
		return "", "", 0, 0, nil, err
	}
	for _, t := range tracks {
		length += t.Length
	}
	images, err = m.store.Images(ctx, album)
	if err != nil {
		return "", "", 0, 0, nil, err
	}
	return album.Title, album.Owner, len(tracks), length, images, nil
}

// Lister lists albums.
//
//tool:method id=album.list label="List albums" op=read permission="access content" group=viewer
//tool:input year range=1900..2100
//tool:output albums
type Lister struct {
	store *Store
}

// Invoke lists the albums the caller may see.
//
//   - year: Only albums released in this year; every year when left out.
//
// Returns the albums, newest first.
func (l *Lister) Invoke(ctx context.Context, year *int) ([]Listing, error) {
	return l.store.Albums(ctx, viewerFrom(ctx), year)
}
