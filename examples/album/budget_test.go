package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	sjs "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/toolapi/toolapi/tool"
)

// TestSearchPagesOverMCP pages through album.search (budget=20items) over
// the album's streamable HTTP endpoint with the go-sdk client: each page
// holds at most 20 images and validates against the advertised output
// schema, every image the editor may see is seen exactly once, and the
// editor's cursor is refused for the admin, for other inputs and changed,
// each an input failure of cursor with the rule cursor_invalid.
func TestSearchPagesOverMCP(t *testing.T) {
	s := newSQLiteStore(t)
	app, logs := newTestApp(t, s)
	ctx := t.Context()
	al, err := s.Album(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 47 {
		if err := s.AddImage(ctx, al, fmt.Sprintf("Rain %02d", i), "Drops.", "Rain on a window", "https://example.com/rain.png",
			time.Date(2020, 1, 1, 0, 0, i/3, 0, time.UTC)); err != nil { // created times tie in threes
			t.Fatal(err)
		}
	}
	editorToken, err := s.IssueToken(ctx, "editor")
	if err != nil {
		t.Fatal(err)
	}
	adminToken, err := s.IssueToken(ctx, "admin")
	if err != nil {
		t.Fatal(err)
	}
	editorAcct, err := s.UserByToken(ctx, editorToken)
	if err != nil {
		t.Fatal(err)
	}
	all, err := app.manager.Search(tool.WithAccount(ctx, editorAcct), "rain")
	if err != nil || len(all) < 47 {
		t.Fatalf("direct search: %d images, %v", len(all), err)
	}
	endpoint := serveApp(t, app) + "/mcp"
	connect := func(token string) *mcp.ClientSession {
		hdr := http.Header{"Authorization": {"Bearer " + token}}
		c := mcp.NewClient(&mcp.Implementation{Name: "pager", Version: "1"}, nil)
		cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint,
			HTTPClient: &http.Client{Transport: headerAdder{hdr, http.DefaultTransport}}, MaxRetries: -1}, nil)
		if err != nil {
			t.Fatalf("connecting: %v\n%s", err, logs)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	editor := connect(editorToken)
	tools, err := editor.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var search *mcp.Tool
	for _, mt := range tools.Tools {
		if mt.Name == "album__search" {
			search = mt
		}
	}
	in, _ := json.Marshal(search.InputSchema)
	if !strings.Contains(string(in), `"cursor"`) {
		t.Fatalf("the input schema has no cursor: %s", in)
	}
	out := compileSchema(t, search.OutputSchema)

	seen := map[string]int{}
	cursor, pages := "", 0
	for {
		args := map[string]any{"word": "rain"}
		if cursor != "" {
			args["cursor"] = cursor
		}
		res, err := editor.CallTool(ctx, &mcp.CallToolParams{Name: "album__search", Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("page %d: %v %+v", pages, err, res)
		}
		var doc any
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &doc)
		if err := out.Validate(doc); err != nil {
			t.Fatalf("page %d fails the output schema: %v", pages, err)
		}
		var page struct {
			Result []map[string]any
			Next   string `json:"next_cursor"`
		}
		json.Unmarshal(b, &page)
		if len(page.Result) > 20 {
			t.Errorf("page %d holds %d images", pages, len(page.Result))
		}
		pages++
		for _, img := range page.Result {
			seen[img["title"].(string)+"|"+img["created"].(string)]++
		}
		if page.Next == "" {
			break
		}
		cursor = page.Next
		if pages > 100 {
			t.Fatal("endless paging")
		}
	}
	if want := (len(all) + 19) / 20; pages != want {
		t.Errorf("%d pages; want %d for %d images", pages, want, len(all))
	}
	for _, img := range all {
		key := img.Title + "|" + img.Created.Format(time.RFC3339)
		if seen[key] != 1 {
			t.Errorf("image %q seen %d times", key, seen[key])
		}
		delete(seen, key)
	}
	if len(seen) > 0 {
		t.Errorf("images seen that the search does not give: %v", seen)
	}

	first, err := editor.CallTool(ctx, &mcp.CallToolParams{Name: "album__search", Arguments: map[string]any{"word": "rain"}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(first.StructuredContent)
	var page struct {
		Next string `json:"next_cursor"`
	}
	json.Unmarshal(b, &page)
	admin := connect(adminToken)
	for name, c := range map[string]struct {
		cs   *mcp.ClientSession
		args map[string]any
	}{
		"another account": {admin, map[string]any{"word": "rain", "cursor": page.Next}},
		"another word":    {editor, map[string]any{"word": "drops", "cursor": page.Next}},
		"changed":         {editor, map[string]any{"word": "rain", "cursor": changed(page.Next)}},
	} {
		res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: "album__search", Arguments: c.args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		meta, _ := json.Marshal(res.Meta)
		if !res.IsError || res.StructuredContent != nil || !strings.Contains(string(meta), `"cursor_invalid"`) {
			t.Errorf("%s: isError %v, _meta %s; want the cursor refused", name, res.IsError, meta)
		}
	}
}

// compileSchema compiles a schema as a client received it with an
// independent validator.
func compileSchema(t *testing.T, schema any) *sjs.Schema {
	t.Helper()
	b, _ := json.Marshal(schema)
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	c := sjs.NewCompiler()
	if err := c.AddResource("schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("schema.json")
	if err != nil {
		t.Fatalf("the advertised schema does not compile: %v", err)
	}
	return sch
}

// changed returns cursor with the lowest bit of its last character
// flipped: bits that a lenient base64 decoder would drop.
func changed(cursor string) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	return cursor[:len(cursor)-1] + string(alphabet[strings.IndexByte(alphabet, cursor[len(cursor)-1])^1])
}

// TestSearchCursorAcrossProcesses checks that a cursor one application
// gave is good at another sharing its database (both sign with the
// stored state key), as replicas behind one address need, and that an
// application over another database refuses it.
func TestSearchCursorAcrossProcesses(t *testing.T) {
	s := newSQLiteStore(t)
	first, _ := newTestApp(t, s)
	second, _ := newTestApp(t, s)
	elsewhere, _ := newTestApp(t, newSQLiteStore(t))
	ctx := t.Context()
	al, err := s.Album(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 25 {
		if err := s.AddImage(ctx, al, fmt.Sprintf("Rain %02d", i), "", "", "https://example.com/rain.png", time.Date(2020, 1, 1, 0, 0, i, 0, time.UTC)); err != nil {
			t.Fatal(err)
		}
	}
	tok, err := s.IssueToken(ctx, "editor")
	if err != nil {
		t.Fatal(err)
	}
	editor, err := s.UserByToken(ctx, tok)
	if err != nil {
		t.Fatal(err)
	}
	actx := tool.WithAccount(ctx, editor)
	res, err := first.Registry.Run(actx, "album.search", map[string]any{"word": "rain"})
	if err != nil || !res.Success {
		t.Fatalf("first page: %v %+v", err, res)
	}
	cursor, _ := res.Outputs[tool.NextCursorOutput].(string)
	if cursor == "" {
		t.Fatalf("no cursor after %d images", len(res.Outputs["result"].([]any)))
	}
	next, err := second.Registry.Run(actx, "album.search", map[string]any{"word": "rain", "cursor": cursor})
	if err != nil || !next.Success || len(next.Outputs["result"].([]any)) == 0 {
		t.Errorf("the other process refused the cursor: %v %+v", err, next)
	}
	other, err := elsewhere.Registry.Run(actx, "album.search", map[string]any{"word": "rain", "cursor": cursor})
	if err != nil || other.Failure != tool.FailureInput || other.Violations[0].Rule != tool.RuleCursorInvalid {
		t.Errorf("an application over another database took the cursor: %v %+v", err, other)
	}
}
