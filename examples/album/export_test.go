package main

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/toolapi/toolapi/tool"
)

func TestExport(t *testing.T) {
	s := newSQLiteStore(t)
	app, _ := newTestApp(t, s)
	blue := albumID(t, s, "Blue Hours")
	res := runAs(t, app, "editor", "translation.export", map[string]any{"albums": []any{blue, blue}, "langcode": "de"})
	if !res.Success {
		t.Fatalf("export = %+v", res)
	}
	// Title, 3 tracks, 3 images with title and alt, 2 with a caption.
	if got := res.Outputs["string_count"]; got != int64(12) {
		t.Errorf("string_count = %#v, want 12", got)
	}
	if res.Message != "Exported 12 strings to 1 file." {
		t.Errorf("message = %q", res.Message)
	}
	files := res.Outputs["files"].([]any)
	if len(files) != 1 {
		t.Fatalf("files = %v, want one (the album was named twice)", files)
	}
	path := filePath(t, files[0].(string))
	if want := filepath.Join(app.exporter.dir, "de", "album-"+blue+".po"); path != want {
		t.Errorf("file %s, want %s", path, want)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`"Language: de\n`,
		"msgctxt \"album:" + blue + ":title\"\nmsgid \"Blue Hours\"\nmsgstr \"\"",
		`msgid "The first ferry leaving the <em>north pier</em>."`,
		`msgid "Morning Ferry"`,
	} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the file lacks %q:\n%s", want, data)
		}
	}
	if problems := res.Outputs["problems"].([]any); len(problems) != 0 {
		t.Errorf("problems = %v", problems)
	}
}

// A file that fails the check after writing makes the run fail, and the
// failure still carries the outputs: the files were written.
func TestExportCheckFailureCarriesOutputs(t *testing.T) {
	s := newSQLiteStore(t)
	app, _ := newTestApp(t, s)
	harbour := albumID(t, s, "Harbour Lights")
	blue := albumID(t, s, "Blue Hours")
	res := runAs(t, app, "admin", "translation.export", map[string]any{"albums": []any{blue, harbour}, "langcode": "fr"})
	if res.Success || res.Failure != tool.FailureRuntime {
		t.Fatalf("export = %+v, want a runtime failure", res)
	}
	if res.Message != "The export wrote 2 files, but the check after writing found 1 problem." {
		t.Errorf("message = %q", res.Message)
	}
	files, _ := res.Outputs["files"].([]any)
	if len(files) != 2 {
		t.Fatalf("outputs = %v, want both files", res.Outputs)
	}
	for _, f := range files {
		if _, err := os.Stat(filePath(t, f.(string))); err != nil {
			t.Errorf("file %s: %v", f, err)
		}
	}
	if got := res.Outputs["string_count"]; got != int64(12+10) {
		t.Errorf("string_count = %#v, want 22", got)
	}
	problems, _ := res.Outputs["problems"].([]any)
	if len(problems) != 1 || !strings.HasPrefix(problems[0].(string), "album-"+harbour+".po: image:") ||
		!strings.HasSuffix(problems[0].(string), ":alt is blank") {
		t.Errorf("problems = %q, want the blank alt text of Harbour Lights", problems)
	}
}

func filePath(t *testing.T, uri string) string {
	t.Helper()
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		t.Fatalf("file URI %q: %v", uri, err)
	}
	return filepath.FromSlash(u.Path)
}

func TestCheckPO(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.po")
	entries := []poEntry{{"a:1", "Quote \" and \\ and\nnewline"}, {"a:2", "Tab\there"}, {"a:3", ""}}
	if err := writePO(path, "nl", entries); err != nil {
		t.Fatal(err)
	}
	problems, err := checkPO(path, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) != 1 || problems[0] != "a:3 is blank" {
		t.Errorf("problems = %q", problems)
	}
	problems, _ = checkPO(path, 4)
	if len(problems) != 2 || problems[1] != "3 strings read back, 4 written" {
		t.Errorf("problems with a wrong count = %q", problems)
	}
}

// notify defaults to true: publishing without it records a notification,
// publishing with false records none.
func TestPublishNotify(t *testing.T) {
	s := newSQLiteStore(t)
	app, _ := newTestApp(t, s)
	for _, tc := range []struct {
		args map[string]any
		want int
	}{
		{map[string]any{"notify": false}, 0},
		{map[string]any{}, 1},
		{map[string]any{"notify": nil}, 2},
	} {
		tc.args["album"] = albumID(t, s, "Night Studies")
		res := runAs(t, app, "editor", "album.publish", tc.args)
		if !res.Success || res.Outputs["track_count"] != int64(2) {
			t.Fatalf("publish %v = %+v", tc.args, res)
		}
		notes, err := s.Notifications(t.Context(), mustAlbum(t, s, "Night Studies"))
		if err != nil || len(notes) != tc.want {
			t.Errorf("after publish %v: %d notifications, want %d (%v)", tc.args, len(notes), tc.want, err)
		}
	}
}

// TestConcurrentExports runs exports of one album at once: each writes its
// own temporary file, so none fails and none reads another's half-written
// file.
func TestConcurrentExports(t *testing.T) {
	s := newSQLiteStore(t)
	app, logs := newTestApp(t, s)
	blue := albumID(t, s, "Blue Hours")
	var wg sync.WaitGroup
	failed := make(chan string, 64)
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 4 {
				res := runAs(t, app, "editor", "translation.export", map[string]any{"albums": []any{blue}, "langcode": "de"})
				if !res.Success {
					failed <- res.Message
				}
			}
		}()
	}
	wg.Wait()
	close(failed)
	for msg := range failed {
		t.Errorf("an export failed: %s\nlog:\n%s", msg, logs)
	}
}
