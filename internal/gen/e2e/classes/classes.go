// Package classes holds a service whose input is a Go type that is the
// class of several entity types, for the end-to-end tests of the code
// toolgen generates for it.
package classes

//go:generate go run github.com/toolapi/toolapi/cmd/toolgen .

import "context"

// A Media is a photo or a video.
//
//tool:entitytype photo,video
type Media struct {
	ID, Kind, Title string
}

// A Gallery shows media.
type Gallery struct{}

// Show says what a medium is.
//
//   - media: The photo or video to show.
//
// Returns its kind and title.
//
//tool:method id=gallery.show op=read permission="see media"
//tool:entity media op=view
func (g *Gallery) Show(ctx context.Context, media *Media) (string, error) {
	return media.Kind + ": " + media.Title, nil
}
