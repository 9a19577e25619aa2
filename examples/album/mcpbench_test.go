package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The plain SDK server of BenchmarkMCPSearch: album.search written by hand
// as a typed tool of the MCP Go SDK, with the SDK's bearer-token
// middleware, over the same store.

type plainSearchIn struct {
	Word string `json:"word" jsonschema:"A single word or phrase, matched case-insensitively."`
}

type plainSearchOut struct {
	Result []plainImage `json:"result" jsonschema:"The images that matched, newest first."`
}

type plainImage struct {
	Title   string        `json:"title"`
	Caption string        `json:"caption"`
	Alt     string        `json:"alt"`
	Created time.Time     `json:"created"`
	Album   *plainAlbumID `json:"album"`
	URL     string        `json:"url"`
}

type plainAlbumID struct {
	EntityType string `json:"entity_type"`
	ID         string `json:"id"`
	Label      string `json:"label"`
}

// plainSearchServer returns the streamable HTTP handler of a plain SDK
// server whose album.search runs the same query on s as the album's tool.
func plainSearchServer(s *Store) http.Handler {
	srv := mcp.NewServer(&mcp.Implementation{Name: "plain-album", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "album.search", Description: "Finds images whose title, caption, or alt text contains a word."},
		func(ctx context.Context, req *mcp.CallToolRequest, in plainSearchIn) (*mcp.CallToolResult, plainSearchOut, error) {
			u, _ := req.Extra.TokenInfo.Extra["user"].(*User)
			if u == nil || u.Blocked() || !u.HasPermission(permAccessContent) {
				return nil, plainSearchOut{}, errors.New("access denied")
			}
			word := strings.TrimSpace(in.Word)
			if word == "" {
				return nil, plainSearchOut{}, errors.New("word: must contain a letter or digit")
			}
			v := viewer{all: u.HasPermission(permEditAnyAlbum), userID: u.ID}
			images, err := s.SearchImages(ctx, v, word)
			if err != nil {
				return nil, plainSearchOut{}, errors.New("search failed")
			}
			out := plainSearchOut{Result: make([]plainImage, len(images))}
			for i, img := range images {
				out.Result[i] = plainImage{Title: img.Title, Caption: img.Caption, Alt: img.Alt, Created: img.Created, URL: img.URL(),
					Album: &plainAlbumID{EntityType: "album", ID: strconv.FormatInt(img.Album.ID, 10), Label: img.Album.Title}}
			}
			return nil, out, nil
		})
	verify := func(ctx context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		u, err := s.UserByToken(ctx, token)
		if err != nil {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: u.Name, Expiration: time.Now().Add(time.Hour), Extra: map[string]any{"user": u}}, nil
	}
	return auth.RequireBearerToken(verify, nil)(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
}

// BenchmarkMCPSearch measures tools/call throughput over loopback HTTP of
// the album's album.search, served by the application's own handler
// (toolapi: token look-up, registry, validation, publishing), beside
// plainSearchServer, a plain SDK server with album.search written by hand
// as a typed tool doing the same query, both on one SQLite store: the
// seeded one, where the query takes little of a call's time, and one with
// 10,000 images more, where it takes most. Both find the same images for
// the editor's token, checked first. Each iteration calls both, taking
// turns to go first; with clients=8, each makes 8 concurrent calls on 8
// sessions. It reports both rates and their ratio (toolapi over the plain
// server; above 1 is faster).
//
//	go test ./examples/album -run '^$' -bench BenchmarkMCPSearch -count 6
func BenchmarkMCPSearch(b *testing.B) {
	for _, size := range []struct {
		name  string
		extra int // images added to the seeded ones
		cases []searchCase
	}{
		{"seeded", 0, []searchCase{{"door", 1, 1}, {"door", 1, 8}}},
		{"10k", 10_000, []searchCase{{"door", 1, 1}, {"northharbour", 100, 1}, {"door", 1, 8}}},
	} {
		b.Run("images="+size.name, func(b *testing.B) {
			s := newSQLiteStore(b)
			seedImages(b, s, size.extra)
			app, logs := newTestApp(b, s)
			token, err := s.IssueToken(context.Background(), "editor")
			if err != nil {
				b.Fatal(err)
			}
			ours := httptest.NewServer(newMux(app))
			b.Cleanup(ours.Close)
			theirs := httptest.NewServer(plainSearchServer(s))
			b.Cleanup(theirs.Close)
			for _, c := range size.cases {
				benchmarkMCPSearch(b, c, ours.URL, theirs.URL, token, logs)
			}
		})
	}
}

// A searchCase is a search of BenchmarkMCPSearch: a word, how many images
// it matches, and how many clients call at once.
type searchCase struct {
	word    string
	matches int
	clients int
}

// benchmarkMCPSearch runs one searchCase against the toolapi server at
// ours and the plain one at theirs.
func benchmarkMCPSearch(b *testing.B, c searchCase, ours, theirs, token string, logs *lockedBuffer) {
	b.Run(fmt.Sprintf("matches=%d/clients=%d", c.matches, c.clients), func(b *testing.B) {
		connect := func(base string) []*mcp.ClientSession {
			out := make([]*mcp.ClientSession, c.clients)
			for i := range out {
				cl := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
				cs, err := cl.Connect(context.Background(), &mcp.StreamableClientTransport{
					Endpoint: base + "/mcp", HTTPClient: &http.Client{Transport: bearer{token}}, MaxRetries: -1, DisableStandaloneSSE: true,
				}, nil)
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { cs.Close() })
				out[i] = cs
			}
			return out
		}
		oursCS, theirsCS := connect(ours), connect(theirs)
		// A client writes the protocol version into the _meta of the
		// params it sends: each call gets params of its own.
		params := func() *mcp.CallToolParams {
			return &mcp.CallToolParams{Name: "album.search", Arguments: map[string]any{"word": c.word}}
		}

		// Both answer the same.
		ro, err := oursCS[0].CallTool(context.Background(), params())
		if err != nil || ro.IsError {
			b.Fatalf("toolapi: %v %v; log:\n%s", err, ro, logs)
		}
		rt, err := theirsCS[0].CallTool(context.Background(), params())
		if err != nil || rt.IsError {
			b.Fatalf("plain: %v %v", err, rt)
		}
		// The client decodes both into maps, whose JSON has sorted keys.
		if o, t := mustJSON(b, ro.StructuredContent), mustJSON(b, rt.StructuredContent); o != t {
			b.Fatalf("the servers answer differently:\ntoolapi %s\nplain   %s", o, t)
		}
		if n := strings.Count(mustJSON(b, ro.StructuredContent), `"entity_type"`); n != c.matches {
			b.Fatalf("%d images found, want %d", n, c.matches)
		}

		// round makes one call per session, concurrently, and
		// returns how long they took together.
		round := func(sessions []*mcp.ClientSession) time.Duration {
			t0 := time.Now()
			var wg sync.WaitGroup
			for _, cs := range sessions {
				wg.Go(func() {
					res, err := cs.CallTool(context.Background(), params())
					if err != nil || res.IsError {
						b.Errorf("call: %v %v", err, res)
					}
				})
			}
			wg.Wait()
			return time.Since(t0)
		}
		var oursTime, theirsTime time.Duration
		n := 0
		for b.Loop() {
			if n%2 == 0 {
				oursTime += round(oursCS)
				theirsTime += round(theirsCS)
			} else {
				theirsTime += round(theirsCS)
				oursTime += round(oursCS)
			}
			n++
		}
		calls := float64(n * c.clients)
		oursRate, theirsRate := calls/oursTime.Seconds(), calls/theirsTime.Seconds()
		b.ReportMetric(oursRate, "toolapi-calls/s")
		b.ReportMetric(theirsRate, "sdk-calls/s")
		b.ReportMetric(oursRate/theirsRate, "ratio")
	})
}
