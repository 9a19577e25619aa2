package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"
)

// The seeded accounts. Each gets an API token only when one is issued (see
// the tokens command), as tokens are stored hashed.
var seedUsers = []struct {
	name, role string
	blocked    bool
}{
	{"anonymous", roleAnonymous, false},
	{"editor", roleEditor, false},
	{"admin", roleAdmin, false},
	{"mallory", roleEditor, true},
}

type seedAlbum struct {
	owner     string
	title     string
	year      int
	published bool
	tracks    []seedTrack
	images    []seedImage
}

type seedTrack struct {
	title   string
	seconds int64
}

type seedImage struct {
	title, caption, alt, file string
	created                   string
}

var seedAlbums = []seedAlbum{
	{
		owner: "editor", title: "Blue Hours", year: 1959, published: true,
		tracks: []seedTrack{{"Morning Ferry", 312}, {"Harbour Blues", 405}, {"Last Light", 368}},
		images: []seedImage{
			{"Ferry at dawn", "The first ferry leaving the <em>north pier</em>.", "A ferry on calm water under a pale sky", "ferry.jpg", "2024-03-01T07:30:00Z"},
			{"Quartet on stage", "Recording night, <strong>take four</strong>.", "Four musicians on a small stage", "quartet.jpg", "2024-03-02T21:10:00Z"},
			{"Blue door", "", "A blue wooden door in a white wall", "door.jpg", "2024-03-05T12:00:00Z"},
		},
	},
	{
		owner: "editor", title: "Night Studies", year: 2024, published: false,
		tracks: []seedTrack{{"Streetlamp", 251}, {"Rain on Tin", 299}},
		images: []seedImage{
			{"Wet street", "Rain on the cobbles after midnight.", "A wet street reflecting lamps", "street.jpg", "2024-11-20T23:45:00Z"},
			{"Studio window", "", "A window with rain drops, city lights behind", "window.jpg", "2024-11-21T01:15:00Z"},
		},
	},
	{
		owner: "admin", title: "Harbour Lights", year: 2021, published: true,
		tracks: []seedTrack{{"Lighthouse", 280}, {"Fog Signal", 341}, {"Harbour Lights", 390}},
		images: []seedImage{
			{"Lighthouse", "The lighthouse at the harbour mouth.", "A white lighthouse at dusk", "lighthouse.jpg", "2023-06-10T20:30:00Z"},
			{"Cranes", "Container cranes over the harbour.", "", "cranes.jpg", "2023-06-11T06:00:00Z"},
		},
	},
	{
		owner: "admin", title: "Winter Sketches", year: 2025, published: false,
		tracks: []seedTrack{{"First Snow", 222}},
		images: []seedImage{
			{"Snow on the pier", "", "A pier covered in fresh snow", "snow.jpg", "2025-01-12T09:00:00Z"},
		},
	},
}

var seedSite = Site{
	Name:     "Album demo",
	Slogan:   "Photos and the music they go with",
	Mail:     "site@example.com",
	PageSize: 20,
}

// seedMarker is the config entry that records that the demo data was
// seeded; its presence makes Seed do nothing.
const seedMarker = "album.seeded"

// Seed fills an empty database with the demo's users, albums, tracks,
// images and site settings, reporting whether it did. It does everything
// or nothing, once: later calls, from this process or another sharing the
// database, find the marker and change nothing.
func (s *Store) Seed(ctx context.Context) (bool, error) {
	seeded := false
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO config (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`,
			seedMarker, `true`)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return err
		}
		seeded = true
		ids := map[string]int64{}
		for _, u := range seedUsers {
			id, err := insertID(ctx, tx, `INSERT INTO users (name, role, blocked) VALUES ($1, $2, $3)`, u.name, u.role, u.blocked)
			if err != nil {
				return err
			}
			ids[u.name] = id
		}
		for _, a := range seedAlbums {
			albumID, err := insertID(ctx, tx, `INSERT INTO albums (owner_id, title, year, published) VALUES ($1, $2, $3, $4)`,
				ids[a.owner], a.title, a.year, a.published)
			if err != nil {
				return err
			}
			for i, t := range a.tracks {
				if _, err := tx.ExecContext(ctx, `INSERT INTO tracks (album_id, position, title, seconds) VALUES ($1, $2, $3, $4)`,
					albumID, i+1, t.title, t.seconds); err != nil {
					return err
				}
			}
			for _, img := range a.images {
				created, err := time.Parse(time.RFC3339, img.created)
				if err != nil {
					return err
				}
				if _, err := tx.ExecContext(ctx, `INSERT INTO images (album_id, title, caption, alt, url, created) VALUES ($1, $2, $3, $4, $5, $6)`,
					albumID, img.title, img.caption, img.alt, "https://images.example.com/albums/"+img.file, created.Unix()); err != nil {
					return err
				}
			}
		}
		site, err := json.Marshal(seedSite)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO config (name, value) VALUES ($1, $2)`, "site", string(site))
		return err
	})
	return seeded, err
}
