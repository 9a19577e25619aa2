package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestViewerToolset checks that the album's viewer toolset holds its read
// tools and that a command narrowed to it refuses a write tool as unknown,
// running nothing.
func TestViewerToolset(t *testing.T) {
	dsn := filepath.Join(t.TempDir(), "album.db")
	code, out, errOut := runAlbum(t, dsn, "tool", "list", "--groups", "viewer", "--user", "editor", "--format", "json")
	if code != 0 {
		t.Fatalf("tool list --groups viewer: exit %d\n%s", code, errOut)
	}
	for _, id := range []string{"album.search", "album.list", "album.summarize", "site.info"} {
		if !strings.Contains(out, `"id": "`+id+`"`) {
			t.Errorf("the viewer toolset lacks %s", id)
		}
	}
	for _, id := range []string{"album.publish", "album.add_track", "album.delete"} {
		if strings.Contains(out, `"id": "`+id+`"`) {
			t.Errorf("the viewer toolset holds %s", id)
		}
	}
	code, out, _ = runAlbum(t, dsn, "tool", "run", "album.add_track", "--groups", "viewer", "--user", "editor",
		"--input", "album=1", "--input", "title=Narrowed", "--json")
	if code != 1 || !strings.Contains(out, `"error_type": "tool_not_found"`) {
		t.Errorf("run album.add_track --groups viewer: exit %d\n%s", code, out)
	}
	summary := func() string {
		t.Helper()
		code, out, errOut := runAlbum(t, dsn, "tool", "run", "album.summarize", "--input", "album=1", "--user", "editor", "--json")
		if code != 0 {
			t.Fatalf("album.summarize: exit %d\n%s%s", code, out, errOut)
		}
		return out
	}
	before := summary()
	if !strings.Contains(before, `"track_count": 3`) {
		t.Fatalf("album 1 does not start with 3 tracks:\n%s", before)
	}
	// Without the narrowing the same command adds it.
	if code, out, errOut := runAlbum(t, dsn, "tool", "run", "album.add_track", "--user", "editor",
		"--input", "album=1", "--input", "title=Narrowed", "--json"); code != 0 {
		t.Fatalf("run album.add_track: exit %d\n%s%s", code, out, errOut)
	}
	// One track more: the one added now, none by the narrowed run.
	if after := summary(); !strings.Contains(after, `"track_count": 4`) {
		t.Errorf("album 1 after one add, want 4 tracks:\n%s", after)
	}
}
