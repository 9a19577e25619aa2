package main

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/toolapi/toolapi/funcall"
)

// albumCalls holds arguments every album tool accepts from the admin, by
// tool ID.
var albumCalls = map[string]map[string]any{
	"album.search":       {"word": "blue"},
	"album.list":         {},
	"album.summarize":    {"album": "1"},
	"album.add_track":    {"album": "1", "title": "Declared", "length": "PT3M"},
	"album.publish":      {"album": "2", "notify": false},
	"album.delete":       {"album": "3"},
	"translation.export": {"albums": []any{"1"}, "langcode": "de"},
	"site.info":          {},
	"site.update_info":   {"values": map[string]any{"slogan": "Declared"}},
	"album.archive":      {"albums": []any{"1"}},
	"site.reindex":       {},
	"album.takedown":     {"album": "1", "reason": "Withdrawn."},
	"album.protect":      {"album": "2", "passphrase": "declared passphrase"},
}

// In every function-calling format the dispatcher runs the album tool
// each declared name stands for: the call in the API's own form succeeds
// with the message of that tool.
func TestFunctionCallingEveryFormat(t *testing.T) {
	s := newSQLiteStore(t)
	app, logs := newTestApp(t, s)
	set := funcall.New(app.Registry, mustUser(t, s, "admin"))
	for _, f := range funcall.Formats() {
		d, err := set.Declarations(f)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(d)
		var decls []struct {
			Name     string `json:"name"`
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		}
		if err := json.Unmarshal(b, &decls); err != nil {
			t.Fatal(err)
		}
		if len(decls) != len(albumCalls) {
			t.Fatalf("%s: %d declarations, want %d", f, len(decls), len(albumCalls))
		}
		for _, dc := range decls {
			name := dc.Name + dc.Function.Name
			id := set.ID(name)
			args, ok := albumCalls[id]
			if !ok {
				t.Fatalf("%s: %q names %q, which has no arguments here", f, name, id)
			}
			argJSON, _ := json.Marshal(args)
			call, _ := json.Marshal(map[string]any{"name": name, "arguments": string(argJSON)})
			resp := set.DispatchCall(context.Background(), f, call)
			if id == "album.delete" {
				// Nobody is there to confirm it: the tool that asks is
				// refused, and the album stays.
				if resp.Success || resp.ErrorType != funcall.AccessDenied {
					t.Errorf("%s %s without a confirmer: %+v", f, name, resp)
				}
				continue
			}
			if id == "album.takedown" {
				// A published album's takedown waits for an approval, as a
				// task: without tasks, it is refused.
				if resp.Success || resp.ErrorType != funcall.AccessDenied {
					t.Errorf("%s %s without tasks: %+v", f, name, resp)
				}
				continue
			}
			tl, _ := app.Registry.Tool(id)
			if !resp.Success || (resp.Message != tl.Label+" completed." && id != "translation.export") {
				t.Errorf("%s %s: %+v\nlog:\n%s", f, name, resp, logs)
			}
		}
	}
}
