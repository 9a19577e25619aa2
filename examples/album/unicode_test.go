package main

import (
	"context"
	"testing"

	"github.com/toolapi/toolapi/tool"
)

// TestSearchFoldsEveryLetter checks that a search folds letters beyond
// ASCII the same way on both databases.
func TestSearchFoldsEveryLetter(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		album := mustAlbum(t, s, "Blue Hours").ID
		if _, err := s.DB().ExecContext(ctx, `INSERT INTO images (album_id, title, caption, alt, url, created) VALUES ($1, $2, '', '', 'https://images.example.com/ete.jpg', 0)`, album, "Été à Paris"); err != nil {
			t.Fatal(err)
		}
		admin := mustUser(t, s, "admin")
		for _, word := range []string{"Été", "été", "ÉTÉ À"} {
			imgs, err := s.SearchImages(tool.WithAccount(ctx, admin), viewerFrom(tool.WithAccount(ctx, admin)), word)
			if err != nil {
				t.Fatal(err)
			}
			if len(imgs) != 1 {
				t.Errorf("search %q found %d images, want 1", word, len(imgs))
			}
		}
	})
}
