package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolapi/toolapi/explorer"
	"github.com/toolapi/toolapi/tool"
)

// explorerPresets returns the presets the album's explorer keeps, where
// the tool command finds them: its Presets, else its Store.
func explorerPresets(t *testing.T, o *explorer.Options) explorer.Presets {
	t.Helper()
	switch {
	case o == nil:
		t.Fatal("the album serves no explorer options")
	case o.Presets != nil:
		return o.Presets
	case o.Store != nil:
		return o.Store
	}
	t.Fatal("the album's explorer keeps no presets")
	return nil
}

// A preset saved in the explorer runs from the command line:
// "album tool run TOOL --preset NAME", its values checked and run by the
// run path, --input values replacing its own.
func TestToolRunPreset(t *testing.T) {
	eachDSN(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := mustOpen(t, dsn)
		app, err := NewApp(s, t.TempDir(), slog.New(slog.NewTextHandler(io.Discard, nil)))
		if err != nil {
			t.Fatal(err)
		}
		svc := app.Service()
		presets := explorerPresets(t, svc.Explorer)
		editor, err := s.Account(ctx, "editor")
		if err != nil {
			t.Fatal(err)
		}
		// As the explorer saves one: the values the form holds, checked
		// and made canonical by the registry's validation.
		values, vs, err := svc.Registry.Validate(tool.WithAccount(ctx, editor), "album.add_track",
			map[string]any{"album": tool.Text("1"), "title": tool.Text("Intro"), "length": tool.Text("PT1M5S")})
		if err != nil || len(vs) > 0 {
			t.Fatalf("Validate: %v %v", vs, err)
		}
		save := func(owner, name string, values json.RawMessage) {
			t.Helper()
			p := &explorer.Preset{Tool: "album.add_track", Name: name, Values: values, Updated: time.Now().UTC()}
			if err := presets.SavePreset(ctx, owner, p); err != nil {
				t.Fatalf("SavePreset: %v", err)
			}
		}
		save("editor", "intro", values)
		save("editor", "too long", json.RawMessage(`{"album":"1","title":"Endless","length":"P2D"}`))
		save("admin", "admin's", values)
		s.Close()

		cli := func(args ...string) (int, map[string]any) {
			t.Helper()
			var out, errOut bytes.Buffer
			code := run(ctx, append([]string{"--db", dsn, "tool", "run"}, args...), strings.NewReader(""), &out, &errOut)
			var res map[string]any
			if err := json.Unmarshal(out.Bytes(), &res); err != nil {
				t.Fatalf("album tool run %q: %v\nstdout: %s\nstderr: %s", args, err, out.String(), errOut.String())
			}
			return code, res
		}
		// The label of the track entity a run outputs.
		track := func(res map[string]any) any {
			outputs, _ := res["outputs"].(map[string]any)
			tr, _ := outputs["track"].(map[string]any)
			return map[string]any{"entity_type": tr["entity_type"], "label": tr["label"]}
		}

		code, res := cli("album.add_track", "--preset", "intro", "--user", "editor", "--json")
		if code != 0 || res["success"] != true {
			t.Fatalf("--preset intro: exit status %d, %v", code, res)
		}
		if diff := cmp.Diff(map[string]any{"entity_type": "track", "label": "Intro"}, track(res)); diff != "" {
			t.Errorf("the track added by --preset intro (-want +got):\n%s\n%v", diff, res)
		}
		// By the tool's name, with an input replacing the preset's.
		code, res = cli("album__add_track", "--preset", "intro", "--input", "title=Outro", "--user", "editor", "--json")
		if diff := cmp.Diff(map[string]any{"entity_type": "track", "label": "Outro"}, track(res)); code != 0 || diff != "" {
			t.Errorf("--preset intro --input title=Outro: exit status %d (-want +got):\n%s\n%v", code, diff, res)
		}
		// Stored values that break a rule are refused as typed ones are.
		_, typed := cli("album.add_track", "--input", `{"album":"1","title":"Endless","length":"P2D"}`, "--user", "editor", "--json")
		code, res = cli("album.add_track", "--preset", "too long", "--user", "editor", "--json")
		if code != 1 || res["error_type"] != "invalid_input" {
			t.Errorf("--preset \"too long\": exit status %d, %v", code, res)
		}
		if diff := cmp.Diff(typed, res); diff != "" {
			t.Errorf("the bad preset's failure differs from the typed values' (-typed +preset):\n%s", diff)
		}
		// Presets are the account's own.
		code, res = cli("album.add_track", "--preset", "admin's", "--user", "editor", "--json")
		wantMsg := `--preset "admin's": account "editor" has no preset of album.add_track named "admin's"; its presets: "intro", "too long"`
		if code != 1 || res["error_type"] != "invalid_option" || res["message"] != wantMsg {
			t.Errorf("another account's preset: exit status %d, %v; want the message %q", code, res, wantMsg)
		}

		s = mustOpen(t, dsn)
		tracks, err := s.Tracks(ctx, mustAlbum(t, s, "Blue Hours"))
		if err != nil {
			t.Fatal(err)
		}
		type added struct {
			Title  string
			Length time.Duration
		}
		var got []added
		for _, tr := range tracks[max(len(tracks)-2, 0):] {
			got = append(got, added{tr.Title, tr.Length})
		}
		want := []added{{"Intro", 65 * time.Second}, {"Outro", 65 * time.Second}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("the album's last tracks after the runs (-want +got):\n%s", diff)
		}
	})
}
