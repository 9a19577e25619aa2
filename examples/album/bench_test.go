package main

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/toolapi/toolapi/tool"
)

// benchPlaces name what the benchmark's images show; a word matches the
// images of one place, a hundredth of them.
var benchPlaces = func() []string {
	var out []string
	for _, a := range []string{"harbour", "market", "forest", "station", "bridge", "garden", "tower", "river", "square", "valley"} {
		for _, b := range []string{"north", "south", "east", "west", "old", "new", "upper", "lower", "little", "great"} {
			out = append(out, b+a)
		}
	}
	return out
}()

// seedImages adds n images, spread over the seeded albums that the user
// editor may see, in one transaction.
func seedImages(tb testing.TB, s *Store, n int) {
	tb.Helper()
	ctx := context.Background()
	var ids []int64
	rows, err := s.DB().Query(`SELECT a.id FROM albums a JOIN users u ON u.id = a.owner_id
		WHERE a.published OR u.name = 'editor' ORDER BY a.id`)
	if err != nil {
		tb.Fatal(err)
	}
	for rows.Next() {
		var id int64
		rows.Scan(&id)
		ids = append(ids, id)
	}
	rows.Close()
	start := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	err = s.write(ctx, func(tx *sql.Tx) error {
		for i := range n {
			place := benchPlaces[i%len(benchPlaces)]
			if _, err := tx.ExecContext(ctx, `INSERT INTO images (album_id, title, caption, alt, url, created) VALUES ($1, $2, $3, $4, $5, $6)`,
				ids[i%len(ids)], fmt.Sprintf("Photo %d of %s", i, strings.ToUpper(place[:1])+place[1:]),
				"Taken on a walk, early in the morning.", "A view of "+place,
				fmt.Sprintf("https://images.example.com/bench/%d.jpg", i), start.Add(time.Duration(i)*time.Minute).Unix()); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// directSearch runs album.search's query with database/sql alone, scanning
// the rows into the same Go values the service returns.
func directSearch(ctx context.Context, db *sql.DB, v viewer, word string) ([]Image, error) {
	cond, args := v.visible(2)
	rows, err := db.QueryContext(ctx, strings.Replace(searchImagesSQL, "{{visible}}", cond, 1), append([]any{likePattern(word)}, args...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Image
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

// BenchmarkSearch times album.search over 10,000 images on SQLite through
// the registry (JSON arguments in, published outputs out, as every caller
// runs it) beside the same query run directly with database/sql, for a
// word matching 100 images and one matching 1,000. Both run in every
// iteration, taking turns to go first, so both see the same machine; the
// overhead-% metric is the tool path's extra time over the direct query.
//
//	go test ./examples/album -run '^$' -bench BenchmarkSearch -count 6
func BenchmarkSearch(b *testing.B) {
	const images = 10_000
	s := newSQLiteStore(b)
	seedImages(b, s, images)
	app, logs := newTestApp(b, s)
	ctx := tool.WithAccount(context.Background(), mustUser(b, s, "editor"))
	v := viewerFrom(ctx)
	for _, c := range []struct {
		word    string
		matches int
	}{{"northharbour", 100}, {"market", 1000}} {
		b.Run(fmt.Sprintf("matches=%d", c.matches), func(b *testing.B) {
			args := []byte(`{"word":"` + c.word + `"}`)
			direct, err := directSearch(ctx, s.DB(), v, c.word)
			if err != nil {
				b.Fatal(err)
			}
			res, err := app.Registry.RunJSON(ctx, "album.search", args)
			if err != nil || !res.Success {
				b.Fatalf("album.search = %+v, %v; log:\n%s", res, err, logs)
			}
			if got := len(res.Outputs["result"].([]any)); got != len(direct) || got != c.matches {
				b.Fatalf("the tool found %d images, the query %d; want %d", got, len(direct), c.matches)
			}
			var directTime, toolTime time.Duration
			n := 0
			runDirect := func() {
				t0 := time.Now()
				if _, err := directSearch(ctx, s.DB(), v, c.word); err != nil {
					b.Fatal(err)
				}
				directTime += time.Since(t0)
			}
			runTool := func() {
				t0 := time.Now()
				if res, err := app.Registry.RunJSON(ctx, "album.search", args); err != nil || !res.Success {
					b.Fatal(res, err)
				}
				toolTime += time.Since(t0)
			}
			for b.Loop() {
				// Each goes first every other time, so neither pays
				// more often for what the other leaves behind (garbage).
				if n%2 == 0 {
					runDirect()
					runTool()
				} else {
					runTool()
					runDirect()
				}
				n++
			}
			b.ReportMetric(float64(directTime.Nanoseconds())/float64(n), "direct-ns/op")
			b.ReportMetric(float64(toolTime.Nanoseconds())/float64(n), "tool-ns/op")
			b.ReportMetric(100*(float64(toolTime)/float64(directTime)-1), "overhead-%")
		})
	}
}
