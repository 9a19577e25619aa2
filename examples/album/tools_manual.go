package main

// This file registers the tools that the //tool: directives of the
// services describe, written by hand. It stands in for the file toolgen
// generates (tools_gen.go) and is to be replaced by it: the definitions
// here follow the directives and doc comments of manager.go, site.go and
// export.go, and each handler calls its method with typed arguments.

import (
	"context"
	"time"

	"github.com/toolapi/toolapi/tool"
)

// registerTools adds the tools of the services to reg. The entity types
// album and track must be added first.
func registerTools(reg *tool.Registry, m *Manager, l *Lister, e *Exporter, s *SiteSettings) error {
	return reg.Add(
		albumSearchTool(m),
		albumListTool(l),
		albumPublishTool(m),
		albumAddTrackTool(m),
		albumSummarizeTool(m),
		translationExportTool(e),
		siteInfoTool(s),
		siteUpdateInfoTool(s),
	)
}

// imageDefinition defines the published members of an Image.
func imageDefinition() *tool.Definition {
	return &tool.Definition{
		Type: "map",
		Properties: []*tool.Definition{
			{Name: "title", Type: "string", Description: "Title names the picture.", Required: true},
			{Name: "caption", Type: "string", Description: "Caption is shown under the picture.", Required: true,
				Constraints: tool.Constraints{Media: "text/html"}},
			{Name: "alt", Type: "string", Description: "Alt describes the picture for people who cannot see it.", Required: true},
			{Name: "created", Type: "datetime_iso8601", Description: "Created is when the picture was added.", Required: true},
			{Name: "album", Type: "entity:album", Description: "Album is the album the picture belongs to.", Required: true, Nullable: true},
			{Name: "url", Type: "uri", Description: "URL returns the address the picture is served from.", Required: true},
		},
	}
}

func publishImage(img Image) map[string]any {
	return map[string]any{
		"title":   img.Title,
		"caption": img.Caption,
		"alt":     img.Alt,
		"created": img.Created,
		"album":   img.Album,
		"url":     img.URL(),
	}
}

func publishImages(imgs []Image) []any {
	out := make([]any, len(imgs))
	for i, img := range imgs {
		out[i] = publishImage(img)
	}
	return out
}

func albumSearchTool(m *Manager) *tool.Tool {
	return &tool.Tool{
		ID:          "album.search",
		Label:       "Search",
		Description: "Finds images whose title, caption, or alt text contains a word.",
		Operation:   tool.OpRead,
		Permission:  "access content",
		Inputs: []*tool.Definition{
			{Name: "word", Type: "string", Description: "A single word or phrase, matched case-insensitively.", Required: true},
		},
		Outputs: []*tool.Definition{
			{Name: "result", Type: "list", Description: "The images that matched, newest first.", Required: true,
				Items: imageDefinition()},
		},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			r, err := m.Search(ctx, in.At(0).(string))
			if err != nil {
				return nil, err
			}
			return tool.Succeeded("", map[string]any{"result": publishImages(r)}), nil
		},
	}
}

func albumListTool(l *Lister) *tool.Tool {
	return &tool.Tool{
		ID:          "album.list",
		Label:       "List albums",
		Description: "Lists the albums the caller may see.",
		Operation:   tool.OpRead,
		Permission:  "access content",
		Inputs: []*tool.Definition{
			{Name: "year", Type: "integer", Description: "Only albums released in this year; every year when left out.",
				Constraints: tool.Constraints{Range: &tool.Range{Min: tool.Ptr(1900.0), Max: tool.Ptr(2100.0)}}},
		},
		Outputs: []*tool.Definition{
			{Name: "albums", Type: "list", Description: "The albums, newest first.", Required: true,
				Items: &tool.Definition{Type: "map", Properties: []*tool.Definition{
					{Name: "album", Type: "entity:album", Description: "Album is the album listed.", Required: true, Nullable: true},
					{Name: "title", Type: "string", Description: "Title is the album's title.", Required: true},
					{Name: "year", Type: "integer", Description: "Year is the year the album was released.", Required: true},
					{Name: "published", Type: "boolean", Description: "Published says whether everyone can see the album.", Required: true},
					{Name: "track_count", Type: "integer", Description: "TrackCount is how many tracks the album has.", Required: true},
				}}},
		},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			var year *int
			if v, ok := in.At(0).(int64); ok {
				y := int(v)
				year = &y
			}
			r, err := l.Invoke(ctx, year)
			if err != nil {
				return nil, err
			}
			out := make([]any, len(r))
			for i, x := range r {
				out[i] = map[string]any{
					"album":       x.Album,
					"title":       x.Title,
					"year":        x.Year,
					"published":   x.Published,
					"track_count": x.TrackCount,
				}
			}
			return tool.Succeeded("", map[string]any{"albums": out}), nil
		},
	}
}

func albumPublishTool(m *Manager) *tool.Tool {
	return &tool.Tool{
		ID:          "album.publish",
		Label:       "Publish",
		Description: "Publishes an album and returns the number of tracks made visible.",
		Operation:   tool.OpWrite,
		Destructive: false,
		Permission:  "edit albums",
		Inputs: []*tool.Definition{
			{Name: "album", Type: "entity:album", Description: "The album to publish.", Required: true, EntityOp: "update"},
			{Name: "notify", Type: "boolean", Description: "Whether to tell the album's followers.", Default: true},
		},
		Outputs: []*tool.Definition{
			{Name: "track_count", Type: "integer", Description: "The number of published tracks.", Required: true},
		},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			r, err := m.Publish(ctx, in.At(0).(*Album), in.At(1).(bool))
			if err != nil {
				return nil, err
			}
			return tool.Succeeded("", map[string]any{"track_count": r}), nil
		},
	}
}

func albumAddTrackTool(m *Manager) *tool.Tool {
	return &tool.Tool{
		ID:          "album.add_track",
		Label:       "Add track",
		Description: "Adds a track to the end of an album.",
		Operation:   tool.OpWrite,
		Destructive: false,
		Permission:  "edit albums",
		Inputs: []*tool.Definition{
			{Name: "album", Type: "entity:album", Description: "The album to add the track to.", Required: true, EntityOp: "update"},
			{Name: "title", Type: "string", Description: "The track's title.", Required: true, Examples: []any{"So What"},
				Constraints: tool.Constraints{NotBlank: true, Length: &tool.Bounds{Min: tool.Ptr(1), Max: tool.Ptr(200)}}},
			{Name: "length", Type: "duration", Description: "How long the track plays, such as PT3M20S; unknown when left out."},
		},
		Outputs: []*tool.Definition{
			{Name: "track", Type: "entity:track", Description: "The track added.", Required: true, Nullable: true},
		},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			var length *time.Duration
			if v, ok := in.At(2).(time.Duration); ok {
				length = &v
			}
			r, err := m.AddTrack(ctx, in.At(0).(*Album), in.At(1).(string), length)
			if err != nil {
				return nil, err
			}
			return tool.Succeeded("", map[string]any{"track": r}), nil
		},
	}
}

func albumSummarizeTool(m *Manager) *tool.Tool {
	return &tool.Tool{
		ID:          "album.summarize",
		Label:       "Summarize",
		Description: "Describes an album: its title, its tracks and its images.",
		Operation:   tool.OpRead,
		Permission:  "access content",
		Inputs: []*tool.Definition{
			{Name: "album", Type: "entity:album", Description: "The album to describe.", Required: true, EntityOp: "view"},
		},
		Outputs: []*tool.Definition{
			{Name: "title", Type: "string", Description: "The album's title.", Required: true},
			{Name: "owner", Type: "string", Description: "The name of the user who owns the album.", Required: true},
			{Name: "track_count", Type: "integer", Description: "How many tracks the album has.", Required: true},
			{Name: "length", Type: "duration", Description: "How long the tracks play together.", Required: true},
			{Name: "images", Type: "list", Description: "The album's images, in the order they were added.", Required: true,
				Items: imageDefinition()},
		},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			title, owner, trackCount, length, images, err := m.Summarize(ctx, in.At(0).(*Album))
			if err != nil {
				return nil, err
			}
			return tool.Succeeded("", map[string]any{
				"title":       title,
				"owner":       owner,
				"track_count": trackCount,
				"length":      length,
				"images":      publishImages(images),
			}), nil
		},
	}
}

func translationExportTool(e *Exporter) *tool.Tool {
	return &tool.Tool{
		ID:          "translation.export",
		Label:       "Export translations",
		Description: "Exports the strings of albums for translation into a language, to files in the exporter's directory, which callers cannot choose. Each file is read back and checked after it is written.",
		Operation:   tool.OpWrite,
		Destructive: false,
		Permission:  "export translations",
		Inputs: []*tool.Definition{
			{Name: "albums", Type: "list", Description: "The albums to export.", Required: true, EntityOp: "view",
				Constraints: tool.Constraints{NotBlank: true},
				Items:       &tool.Definition{Type: "entity:album"}},
			{Name: "langcode", Type: "string", Description: "The language the strings are to be translated into, as an ISO 639 code.",
				Required: true, Examples: []any{"de"}, Constraints: tool.Constraints{Pattern: "^[a-z]{2,3}$"}},
		},
		Outputs: []*tool.Definition{
			{Name: "files", Type: "list", Description: "The files written.", Required: true, Items: &tool.Definition{Type: "uri"}},
			{Name: "string_count", Type: "integer", Description: "How many strings were exported.", Required: true},
			{Name: "problems", Type: "list", Description: "What the check of the written files found wrong, one line each.",
				Required: true, Items: &tool.Definition{Type: "string"}},
		},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			return e.ExportForTool(ctx, tool.ListOf[*Album](in.At(0)), in.At(1).(string))
		},
	}
}

// siteDefinition defines the config object site, from the Site struct.
func siteDefinition(name, description string) *tool.Definition {
	return &tool.Definition{
		Name: name, Type: "map", Description: description, Config: "site",
		Properties: []*tool.Definition{
			{Name: "name", Type: "string", Description: "Name is the site's name."},
			{Name: "slogan", Type: "string", Description: "Slogan is a short line shown under the name."},
			{Name: "mail", Type: "string", Description: "Mail is the address the site sends mail from."},
			{Name: "page_size", Type: "integer", Description: "PageSize is how many albums a page of a listing shows."},
		},
	}
}

func publishSite(s Site) map[string]any {
	m := map[string]any{}
	if s.Name != "" {
		m["name"] = s.Name
	}
	if s.Slogan != "" {
		m["slogan"] = s.Slogan
	}
	if s.Mail != "" {
		m["mail"] = s.Mail
	}
	if s.PageSize != 0 {
		m["page_size"] = s.PageSize
	}
	return m
}

func siteInfoTool(s *SiteSettings) *tool.Tool {
	out := siteDefinition("site", "The site's settings.")
	out.Required = true
	return &tool.Tool{
		ID:          "site.info",
		Label:       "Info",
		Description: "Returns the site's name, slogan and contact address.",
		Operation:   tool.OpRead,
		Permission:  "access content",
		Outputs:     []*tool.Definition{out},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			r, err := s.Info(ctx)
			if err != nil {
				return nil, err
			}
			return tool.Succeeded("", map[string]any{"site": publishSite(r)}), nil
		},
	}
}

func siteUpdateInfoTool(s *SiteSettings) *tool.Tool {
	in := siteDefinition("values", "The settings to change, by name.")
	in.Required = true
	in.Constraints.NotBlank = true
	out := siteDefinition("site", "The site's settings as stored afterwards.")
	out.Required = true
	return &tool.Tool{
		ID:          "site.update_info",
		Label:       "Update info",
		Description: "Changes some of the site's settings. Settings left out keep their stored values, so an update never wipes what it does not name.",
		Operation:   tool.OpWrite,
		Destructive: false,
		Permission:  "administer site configuration",
		Inputs:      []*tool.Definition{in},
		Outputs:     []*tool.Definition{out},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			values, _ := in.At(0).(map[string]any)
			r, err := s.UpdateInfo(ctx, values)
			if err != nil {
				return nil, err
			}
			return tool.Succeeded("", map[string]any{"site": publishSite(r)}), nil
		},
	}
}
