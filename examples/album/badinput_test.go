package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolapi/toolapi/tool"
)

// leak matches what must never reach a caller: SQL, driver errors, Go
// source positions and stack traces.
var leak = regexp.MustCompile(`(?i)\bselect\b|\binsert\b|\bupdate \w+ set\b|\bfrom \w+ \w+ join\b|sqlstate|sqlite|pgx|\bsql\b|goroutine|\.go:\d+|panic|constraint`)

func TestBadInput(t *testing.T) {
	s := newSQLiteStore(t)
	app, _ := newTestApp(t, s)
	draft := albumID(t, s, "Night Studies")
	adminDraft := albumID(t, s, "Winter Sketches")
	tests := []struct {
		name, user, tool string
		args             map[string]any
		failure          tool.Failure
		violations       []tool.Violation // for input failures
		message          string           // a part of the message
	}{
		{"missing entity", "editor", "album.summarize", map[string]any{"album": "999"},
			tool.FailureInput, []tool.Violation{{Path: "album", Rule: tool.RuleEntityNotFound, Detail: "album", Value: "999", Message: `no album has the ID "999"`}}, "album"},
		{"ID not a number", "editor", "album.summarize", map[string]any{"album": "abc"},
			tool.FailureInput, []tool.Violation{{Path: "album", Rule: tool.RuleEntityNotFound, Detail: "album", Value: "abc", Message: `no album has the ID "abc"`}}, "album"},
		{"ID with a leading zero", "editor", "album.summarize", map[string]any{"album": "0" + draft},
			tool.FailureInput, []tool.Violation{{Path: "album", Rule: tool.RuleEntityNotFound, Detail: "album", Value: "0" + draft, Message: `no album has the ID "0` + draft + `"`}}, "album"},
		{"ID as a JSON number", "editor", "album.summarize", map[string]any{"album": 1},
			tool.FailureInput, nil, "album"},
		{"ID missing", "editor", "album.summarize", map[string]any{},
			tool.FailureInput, []tool.Violation{{Path: "album", Rule: tool.RuleRequired, Message: "is required"}}, "album"},
		{"missing entity in a list", "editor", "translation.export", map[string]any{"albums": []any{draft, "999"}, "langcode": "de"},
			tool.FailureInput, []tool.Violation{{Path: "albums[1]", Rule: tool.RuleEntityNotFound, Detail: "album", Value: "999", Message: `no album has the ID "999"`}}, "albums[1]"},
		{"empty list", "editor", "translation.export", map[string]any{"albums": []any{}, "langcode": "de"},
			tool.FailureInput, []tool.Violation{{Path: "albums", Rule: tool.RuleMinItems, Limit: tool.Ptr(1.0), Message: "must not be empty"}}, "albums"},
		{"path in a langcode", "editor", "translation.export", map[string]any{"albums": []any{draft}, "langcode": "../etc"},
			tool.FailureInput, nil, "langcode"},
		{"denied op", "editor", "album.publish", map[string]any{"album": adminDraft},
			tool.FailureAccess, nil, "album " + adminDraft},
		{"denied op on a list item", "editor", "translation.export", map[string]any{"albums": []any{draft, adminDraft}, "langcode": "de"},
			tool.FailureAccess, nil, "albums[1]"},
		{"blank title", "editor", "album.add_track", map[string]any{"album": draft, "title": ""},
			tool.FailureInput, []tool.Violation{{Path: "title", Rule: tool.RuleMinLength, Limit: tool.Ptr(1.0), Message: "must not be blank"}}, "title"},
		{"title of spaces", "editor", "album.add_track", map[string]any{"album": draft, "title": "   "},
			tool.FailureInput, []tool.Violation{{Path: "title", Rule: tool.RuleHandler, Message: "must not be blank"}}, "title"},
		{"negative length", "editor", "album.add_track", map[string]any{"album": draft, "title": "Coda", "length": "-PT5M"},
			tool.FailureInput, nil, "length"},
		{"length not a duration", "editor", "album.add_track", map[string]any{"album": draft, "title": "Coda", "length": "soon"},
			tool.FailureInput, nil, "length"},
		{"unknown input", "editor", "album.summarize", map[string]any{"album": draft, "verbose": true},
			tool.FailureInput, []tool.Violation{{Path: "verbose", Rule: tool.RuleAdditionalProperties, Detail: "input", Message: "is not an input of this tool"}}, "verbose"},
		{"year out of range", "editor", "album.list", map[string]any{"year": 1200},
			tool.FailureInput, nil, "year"},
		{"config: empty update", "admin", "site.update_info", map[string]any{"values": map[string]any{}},
			tool.FailureInput, []tool.Violation{{Path: "values", Rule: tool.RuleMinProperties, Limit: tool.Ptr(1.0), Message: "must not be empty"}}, "values"},
		{"config: wrong type", "admin", "site.update_info", map[string]any{"values": map[string]any{"page_size": "ten"}},
			tool.FailureInput, []tool.Violation{{Path: "values.page_size", Rule: tool.RuleType, Detail: "integer", Message: "must be an integer"}}, "values.page_size"},
		{"config: unknown key", "admin", "site.update_info", map[string]any{"values": map[string]any{"colour": "red"}},
			tool.FailureInput, nil, "values.colour"},
		{"config: blank name", "admin", "site.update_info", map[string]any{"values": map[string]any{"name": " "}},
			tool.FailureInput, []tool.Violation{{Path: "values.name", Rule: tool.RuleHandler, Message: "must not be blank"}}, "values.name"},
		{"config: bad address", "admin", "site.update_info", map[string]any{"values": map[string]any{"mail": "not an address"}},
			tool.FailureInput, nil, "values.mail"},
		{"config: page size out of range", "admin", "site.update_info", map[string]any{"values": map[string]any{"page_size": 1000}},
			tool.FailureInput, nil, "values.page_size"},
		{"blocked user", "mallory", "album.search", map[string]any{"word": "blue"},
			tool.FailureAccess, nil, "blocked"},
		{"blocked user, own entity", "mallory", "album.summarize", map[string]any{"album": draft},
			tool.FailureAccess, nil, "blocked"},
		{"no permission", "anonymous", "site.update_info", map[string]any{"values": map[string]any{"slogan": "x"}},
			tool.FailureAccess, nil, "administer site configuration"},
		{"blank search word", "editor", "album.search", map[string]any{"word": "  "},
			tool.FailureInput, []tool.Violation{{Path: "word", Rule: tool.RuleHandler, Message: "must contain a letter or digit"}}, "word"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := counts(t, s)
			res := runAs(t, app, tt.user, tt.tool, tt.args)
			if res.Success || res.Failure != tt.failure {
				t.Fatalf("result = %+v, want a %s failure", res, tt.failure)
			}
			if tt.violations != nil {
				if diff := cmp.Diff(tt.violations, res.Violations); diff != "" {
					t.Errorf("violations (-want +got):\n%s", diff)
				}
			}
			if tt.failure == tool.FailureInput && len(res.Violations) == 0 {
				t.Error("an input failure without violations")
			}
			if !strings.Contains(res.Message, tt.message) {
				t.Errorf("message %q does not name %q", res.Message, tt.message)
			}
			for _, text := range append([]string{res.Message}, violationStrings(res)...) {
				if m := leak.FindString(text); m != "" {
					t.Errorf("message %q leaks %q", text, m)
				}
			}
			if diff := cmp.Diff(before, counts(t, s)); diff != "" {
				t.Errorf("a failed run changed rows (-before +after):\n%s", diff)
			}
		})
	}
}

func violationStrings(res *tool.Result) []string {
	var out []string
	for _, v := range res.Violations {
		out = append(out, v.String())
	}
	return out
}

// When the database fails, callers learn that the run failed and nothing
// of the driver's error; the log has it.
func TestStoreFailureIsHidden(t *testing.T) {
	s := newSQLiteStore(t)
	app, logs := newTestApp(t, s)
	draft := albumID(t, s, "Night Studies")
	if _, err := s.DB().Exec(`DROP TABLE notifications`); err != nil {
		t.Fatal(err)
	}
	res := runAs(t, app, "editor", "album.publish", map[string]any{"album": draft, "notify": true})
	if res.Success || res.Failure != tool.FailureRuntime || res.Message != "Publish failed." {
		t.Errorf("result = %+v, want a runtime failure saying only that Publish failed", res)
	}
	if !strings.Contains(logs.String(), "notifications") {
		t.Errorf("the driver's error is not in the log:\n%s", logs)
	}
	if a := mustAlbum(t, s, "Night Studies"); a.Published {
		t.Error("the failed publish published the album")
	}

	s.Close()
	for _, id := range []string{"album.search", "album.summarize", "site.info"} {
		res := app.runClosed(t, id, map[string]any{"word": "blue", "album": draft})
		if res.Success || res.Failure == tool.FailureInput {
			t.Errorf("%s on a closed database = %+v, want a runtime failure", id, res)
		}
		if m := leak.FindString(res.Message); m != "" {
			t.Errorf("%s: message %q leaks %q", id, res.Message, m)
		}
	}
}

// runClosed runs a tool for a user built in memory (the database is gone),
// passing only the arguments the tool takes.
func (a *App) runClosed(t *testing.T, id string, args map[string]any) *tool.Result {
	t.Helper()
	tl, _ := a.Registry.Tool(id)
	in := map[string]any{}
	for _, d := range tl.Inputs {
		if v, ok := args[d.Name]; ok {
			in[d.Name] = v
		}
	}
	ctx := tool.WithAccount(t.Context(), &User{ID: 2, Name: "editor", Role: roleEditor})
	res, err := a.Registry.Run(ctx, id, in)
	if err != nil {
		t.Fatal(err)
	}
	return res
}
