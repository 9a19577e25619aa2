package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMain lets tests run the program itself: the test binary, started
// with ALBUM_RUN_MAIN=1, is the album command.
func TestMain(m *testing.M) {
	if os.Getenv("ALBUM_RUN_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// albumCommand returns the album command with args, on the SQLite file db.
func albumCommand(t *testing.T, db string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(t.Context(), os.Args[0], append([]string{"--db", db}, args...)...)
	cmd.Env = append(os.Environ(), "ALBUM_RUN_MAIN=1")
	return cmd
}

// TestMCPStdio runs `album mcp --user editor` as an MCP client starts it.
func TestMCPStdio(t *testing.T) {
	db := filepath.Join(t.TempDir(), "album.db")
	cmd := albumCommand(t, db, "mcp", "--user", "editor")
	cmd.Stderr = new(strings.Builder)
	c := mcp.NewClient(&mcp.Implementation{Name: "album-test", Version: "1"}, nil)
	cs, err := c.Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v; stderr:\n%s", err, cmd.Stderr)
	}
	defer cs.Close()
	if got := toolNames(t, cs); !slices.Contains(got, "album__publish") || slices.Contains(got, "site__update_info") {
		t.Errorf("editor's tools over stdio = %v", got)
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "album.add_track",
		Arguments: map[string]any{"album": "1", "title": "Over stdio", "length": "PT1M5S"}})
	if err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(res.StructuredContent)
	if res.IsError || !strings.Contains(string(out), `"label":"Over stdio"`) {
		t.Errorf("add_track over stdio = %s (error %v)", out, res.IsError)
	}
	res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "album.publish", Arguments: map[string]any{"album": "4"}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError {
		t.Error("editor published admin's draft over stdio")
	}
	if err := cs.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	s := mustOpen(t, db)
	tracks, err := s.Tracks(t.Context(), mustAlbum(t, s, "Blue Hours"))
	if err != nil || len(tracks) != 4 || tracks[3].Title != "Over stdio" {
		t.Errorf("tracks after the stdio session = %v, %v", tracks, err)
	}
}

// TestToolCommand runs `album tool run` as a user types it.
func TestToolCommand(t *testing.T) {
	db := filepath.Join(t.TempDir(), "album.db")
	out, err := albumCommand(t, db, "tool", "run", "album.summarize", "--input", "album=3", "--json").Output()
	if err != nil {
		t.Fatalf("album tool run: %v", err)
	}
	var res struct {
		Success bool
		Outputs map[string]any
	}
	if err := json.Unmarshal(out, &res); err != nil || !res.Success || res.Outputs["title"] != "Harbour Lights" ||
		res.Outputs["length"] != "PT16M51S" {
		t.Errorf("album.summarize = %s (%v)", out, err)
	}
	cmd := albumCommand(t, db, "tool", "run", "album.publish", "--input", "album=4", "--user", "editor", "--json", "--yes")
	out, err = cmd.Output()
	if code := cmd.ProcessState.ExitCode(); code != 1 || !strings.Contains(string(out), `"error_type": "access_denied"`) {
		t.Errorf("publishing another's draft: exit %d, %s (%v)", code, out, err)
	}
	out, _ = albumCommand(t, db, "tool", "run", "album.search", "--input", "word=x", "--user", "nobody", "--json").Output()
	if !strings.Contains(string(out), `"error_type": "user_not_found"`) {
		t.Errorf("an unknown user: %s", out)
	}
}

// The published members of an Image are those it marks, never its
// StoragePath.
func TestSearchPublishesMarkedMembers(t *testing.T) {
	s := newSQLiteStore(t)
	app, _ := newTestApp(t, s)
	res := runAs(t, app, "editor", "album.search", map[string]any{"word": "RAIN"})
	if !res.Success {
		t.Fatal(res)
	}
	images := res.Outputs["result"].([]any)
	var titles []string
	for _, img := range images {
		m := img.(map[string]any)
		var keys []string
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if !slices.Equal(keys, []string{"album", "alt", "caption", "created", "title", "url"}) {
			t.Errorf("image keys = %v", keys)
		}
		titles = append(titles, m["title"].(string))
	}
	// Newest first; "rain" in the caption of one and the alt text of the
	// other, both of editor's draft, which anonymous cannot see.
	if !slices.Equal(titles, []string{"Studio window", "Wet street"}) {
		t.Errorf("titles = %v", titles)
	}
	if res := runAs(t, app, "anonymous", "album.search", map[string]any{"word": "rain"}); len(res.Outputs["result"].([]any)) != 0 {
		t.Errorf("anonymous found images of a draft: %v", res.Outputs)
	}
}
