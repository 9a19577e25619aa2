package toolcli

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolapi/toolapi/tool"
)

func TestBuildArgs(t *testing.T) {
	inputs := []*tool.Definition{
		{Name: "word", Type: "string"},
		{Name: "tags", Type: "list", Items: &tool.Definition{Type: "string"}},
		{Name: "settings", Type: "map", Properties: []*tool.Definition{
			{Name: "limit", Type: "integer"},
			{Name: "labels", Type: "list", Items: &tool.Definition{Type: "string"}},
		}},
		{Name: "free", Type: "map", Values: &tool.Definition{Type: "list", Items: &tool.Definition{Type: "integer"}}},
	}
	tests := []struct {
		name   string
		flags  []string
		noDefs bool // the tool is unknown
		want   map[string]any
	}{
		{name: "none", flags: nil, want: map[string]any{}},
		{name: "text", flags: []string{"word=hi"}, want: map[string]any{"word": tool.Text("hi")}},
		{name: "empty value", flags: []string{"word="}, want: map[string]any{"word": tool.Text("")}},
		{name: "equals in the value", flags: []string{"word=a=b"}, want: map[string]any{"word": tool.Text("a=b")}},
		{
			name:  "repeated key builds a list",
			flags: []string{"tags=a", "tags=b", "tags=c"},
			want:  map[string]any{"tags": []any{tool.Text("a"), tool.Text("b"), tool.Text("c")}},
		},
		{
			name:   "repeated key of an unknown tool",
			flags:  []string{"x=a", "x=b"},
			noDefs: true,
			want:   map[string]any{"x": []any{tool.Text("a"), tool.Text("b")}},
		},
		{name: "one value of a list input", flags: []string{"tags=a"}, want: map[string]any{"tags": []any{tool.Text("a")}}},
		{name: "one value of an unknown tool", flags: []string{"tags=a"}, noDefs: true, want: map[string]any{"tags": tool.Text("a")}},
		{name: "one value of a non-list input", flags: []string{"word=a"}, want: map[string]any{"word": tool.Text("a")}},
		{
			name:  "dotted keys",
			flags: []string{"settings.limit=5", "settings.labels=x", "settings.labels=y"},
			want: map[string]any{"settings": map[string]any{
				"limit": tool.Text("5"), "labels": []any{tool.Text("x"), tool.Text("y")},
			}},
		},
		{name: "one value of a nested list", flags: []string{"settings.labels=x"}, want: map[string]any{"settings": map[string]any{"labels": []any{tool.Text("x")}}}},
		{name: "map of lists", flags: []string{"free.a=1"}, want: map[string]any{"free": map[string]any{"a": []any{tool.Text("1")}}}},
		{name: "deep unknown keys", flags: []string{"a.b.c=1"}, want: map[string]any{"a": map[string]any{"b": map[string]any{"c": tool.Text("1")}}}},
		{
			name:  "JSON is typed",
			flags: []string{`{"word":"hi","tags":["a"],"n":12,"f":1.5,"big":9007199254740993,"ok":true,"none":null}`},
			want: map[string]any{
				"word": "hi", "tags": []any{"a"}, "n": int64(12), "f": 1.5,
				"big": int64(9007199254740993), "ok": true, "none": nil,
			},
		},
		{name: "JSON with spaces first", flags: []string{`  {"word":"hi"}`}, want: map[string]any{"word": "hi"}},
		{
			name:  "JSON objects merge",
			flags: []string{`{"settings":{"limit":1},"word":"a"}`, `{"settings":{"labels":["x"]},"word":"b"}`},
			want:  map[string]any{"word": "b", "settings": map[string]any{"limit": int64(1), "labels": []any{"x"}}},
		},
		{
			name:  "text after JSON extends",
			flags: []string{`{"tags":["a"],"settings":{"limit":1}}`, "tags=b", "settings.labels=x"},
			want: map[string]any{
				"tags":     []any{"a", tool.Text("b")},
				"settings": map[string]any{"limit": int64(1), "labels": []any{tool.Text("x")}},
			},
		},
		{
			name:  "JSON after text replaces",
			flags: []string{"word=a", `{"word":"b"}`},
			want:  map[string]any{"word": "b"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defs := inputs
			if tt.noDefs {
				defs = nil
			}
			got, err := buildArgs(tt.flags, defs)
			if err != nil {
				t.Fatalf("buildArgs(%q): %v", tt.flags, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("buildArgs(%q) (-want +got):\n%s", tt.flags, diff)
			}
		})
	}
}

func TestBuildArgsErrors(t *testing.T) {
	tests := []struct {
		flags []string
		want  string
	}{
		{[]string{"word"}, `--input "word": want key=value or a JSON object`},
		{[]string{"=x"}, `--input "=x": the key "" has an empty part`},
		{[]string{"a..b=x"}, `--input "a..b=x": the key "a..b" has an empty part`},
		{[]string{"a.=x"}, `--input "a.=x": the key "a." has an empty part`},
		{[]string{"a=1", "a.b=2"}, `--input "a.b=2": a already has a value that is not an object`},
		{[]string{"a.b=1", "a=2"}, `--input "a=2": a is an object: set its keys (a.KEY=value)`},
		{[]string{`{"a":1`}, `--input {"a":1 is malformed JSON: the object is not closed`},
		{[]string{`{"a":1}}`}, `--input {"a":1}} is malformed JSON: text after the object: }`},
		{[]string{`{"a":1} {"b":2}`}, `--input {"a":1} {"b":2} is malformed JSON: text after the object: {"b":2}`},
		{[]string{`{a:1}`}, `--input {a:1} is malformed JSON: invalid character 'a' looking for beginning of object key string (at byte 2)`},
		{[]string{`{"a":1e400}`}, `--input {"a":1e400} is malformed JSON: number 1e400 is out of range`},
		{[]string{`{"a":"0123456789012345678901234567890123456789012345678901234567890123456789"`}, `--input {"a":"012345678901234567890123456789012345678901234567890123... is malformed JSON: the object is not closed`},
	}
	for _, tt := range tests {
		_, err := buildArgs(tt.flags, nil)
		var oe *optionError
		if !errors.As(err, &oe) {
			t.Errorf("buildArgs(%q) = %v, want an option error", tt.flags, err)
			continue
		}
		if err.Error() != tt.want {
			t.Errorf("buildArgs(%q):\n got %s\nwant %s", tt.flags, err, tt.want)
		}
	}
}

func TestParseFlags(t *testing.T) {
	tests := []struct {
		args  []string
		words []string
		input []string
		yes   bool
	}{
		{args: []string{"id", "--input", "a=1", "--yes"}, words: []string{"id"}, input: []string{"a=1"}, yes: true},
		{args: []string{"--yes", "--input=a=1", "id"}, words: []string{"id"}, input: []string{"a=1"}, yes: true},
		{args: []string{"-input", "-x", "id"}, words: []string{"id"}, input: []string{"-x"}},
		{args: []string{"--yes=false", "id"}, words: []string{"id"}},
		{args: []string{"--input", "a=1", "--", "--yes", "id"}, words: []string{"--yes", "id"}, input: []string{"a=1"}},
		{args: []string{"a", "-", "b"}, words: []string{"a", "-", "b"}},
	}
	for _, tt := range tests {
		c := &command{opts: &Options{Name: "app tool"}}
		fs := c.newFlagSet("run")
		var input inputFlags
		fs.Var(&input, "input", "")
		yes := fs.Bool("yes", false, "")
		words, err := parseFlags(fs, tt.args)
		if err != nil {
			t.Errorf("parseFlags(%q): %v", tt.args, err)
			continue
		}
		got := []any{words, []string(input), *yes}
		want := []any{tt.words, tt.input, tt.yes}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("parseFlags(%q) (-want +got):\n%s", tt.args, diff)
		}
	}
}
