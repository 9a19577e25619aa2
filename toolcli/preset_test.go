package toolcli_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolapi/toolapi/toolcli"
)

// presetStore is a [toolcli.Presets] in memory: values by owner, tool and
// name. A preset named "broken" cannot be read.
type presetStore map[string]map[string]map[string]string

func (s presetStore) PresetValues(_ context.Context, owner, toolID, name string) (json.RawMessage, error) {
	if name == "broken" {
		return nil, errors.New("the preset table is locked")
	}
	v, ok := s[owner][toolID][name]
	if !ok {
		return nil, fmt.Errorf("preset %q of %s: %w", name, toolID, toolcli.ErrNoPreset)
	}
	return json.RawMessage(v), nil
}

func (s presetStore) PresetNames(_ context.Context, owner, toolID string) ([]string, error) {
	var names []string
	for n := range s[owner][toolID] {
		names = append(names, n)
	}
	slices.Sort(names)
	return names, nil
}

func TestRunPreset(t *testing.T) {
	reg := newRegistry(t)
	presets := presetStore{
		"anonymous": {"demo.echo": {
			"greet":    `{"word":"hi","tags":["red"],"settings":{"limit":5}}`,
			"no words": `{}`,
		}},
		"admin": {"demo.echo": {"greet": `{"word":"hello, admin"}`}},
	}
	opts := &toolcli.Options{Name: "app tool", Accounts: lookUp, Presets: presets}
	tests := []struct {
		name string
		args []string
		want result
	}{
		{
			name: "the preset's values",
			args: []string{"demo.echo", "--preset", "greet"},
			want: result{Success: true, Message: "Echo completed.", Outputs: map[string]any{"word": "hi", "tags": []any{"red"}, "limit": 5.0}},
		},
		{
			name: "an input replaces the preset's",
			args: []string{"demo.echo", "--preset", "greet", "--input", "word=yo"},
			want: result{Success: true, Message: "Echo completed.", Outputs: map[string]any{"word": "yo", "tags": []any{"red"}, "limit": 5.0}},
		},
		{
			name: "a list input replaces the preset's list",
			args: []string{"demo.echo", "--preset", "greet", "--input", "tags=blue", "--input", "tags=green"},
			want: result{Success: true, Message: "Echo completed.", Outputs: map[string]any{"word": "hi", "tags": []any{"blue", "green"}, "limit": 5.0}},
		},
		{
			name: "a dotted input merges into the preset's map",
			args: []string{"demo.echo", "--preset", "greet", "--input", "settings.labels=x"},
			want: result{Success: true, Message: "Echo completed.", Outputs: map[string]any{"word": "hi", "tags": []any{"red"}, "limit": 5.0, "labels": []any{"x"}}},
		},
		{
			name: "a JSON input merges too",
			args: []string{"demo.echo", "--preset", "greet", "--input", `{"settings":{"limit":9}}`},
			want: result{Success: true, Message: "Echo completed.", Outputs: map[string]any{"word": "hi", "tags": []any{"red"}, "limit": 9.0}},
		},
		{
			name: "inputs fill what the preset leaves out",
			args: []string{"demo.echo", "--preset", "no words", "--input", "word=typed"},
			want: result{Success: true, Message: "Echo completed.", Outputs: map[string]any{"word": "typed"}},
		},
		{
			name: "the account's own preset",
			args: []string{"demo.echo", "--preset", "greet", "--user", "admin"},
			want: result{Success: true, Message: "Echo completed.", Outputs: map[string]any{"word": "hello, admin"}},
		},
		{
			name: "by the tool's name",
			args: []string{"demo__echo", "--preset", "greet"},
			want: result{Success: true, Message: "Echo completed.", Outputs: map[string]any{"word": "hi", "tags": []any{"red"}, "limit": 5.0}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := runJSON(t, reg, opts, tt.args...)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("run %q (-want +got):\n%s", tt.args, diff)
			}
		})
	}
}

// The values of a preset are checked by the run path as typed values are:
// they get the same violations.
func TestRunPresetChecked(t *testing.T) {
	reg := newRegistry(t)
	opts := &toolcli.Options{Name: "app tool", Presets: presetStore{"anonymous": {"demo.echo": {
		"pink":    `{"word":"hi","tags":["pink"]}`,
		"untyped": `{"word":"hi","settings":{"limit":"5"}}`,
		"nothing": `{}`,
	}}}}
	tests := []struct {
		preset string
		typed  []string // the same values as --input
		paths  []string
	}{
		{preset: "pink", typed: []string{"--input", `{"word":"hi","tags":["pink"]}`}, paths: []string{"tags[0]"}},
		{preset: "untyped", typed: []string{"--input", `{"word":"hi","settings":{"limit":"5"}}`}, paths: []string{"settings.limit"}},
		{preset: "nothing", typed: nil, paths: []string{"word"}},
	}
	for _, tt := range tests {
		t.Run(tt.preset, func(t *testing.T) {
			got := runJSON(t, reg, opts, "demo.echo", "--preset", tt.preset)
			typed := runJSON(t, reg, opts, append([]string{"demo.echo"}, tt.typed...)...)
			if got.ErrorType != "invalid_input" {
				t.Fatalf("error_type %q, want invalid_input: %+v", got.ErrorType, got)
			}
			var paths []string
			for _, v := range got.Violations {
				paths = append(paths, v.Path)
			}
			if diff := cmp.Diff(tt.paths, paths); diff != "" {
				t.Errorf("violation paths (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(typed, got); diff != "" {
				t.Errorf("preset's result differs from the typed values' (-typed +preset):\n%s", diff)
			}
		})
	}
}

func TestRunPresetFailures(t *testing.T) {
	reg := newRegistry(t)
	presets := presetStore{"anonymous": {"demo.echo": {
		"greet":   `{"word":"hi"}`,
		"pink":    `{"word":"hi","tags":["pink"]}`,
		"damaged": `["not", "an", "object"]`,
	}}}
	tests := []struct {
		name       string
		opts       *toolcli.Options
		args       []string
		errorType  string
		message    string // the whole message, when set
		messageHas string
		hasNot     string
	}{
		{
			name: "unknown preset", args: []string{"demo.echo", "--preset", "nope"}, errorType: "invalid_option",
			message: `--preset "nope": account "anonymous" has no preset of demo.echo named "nope"; its presets: "damaged", "greet", "pink"`,
		},
		{
			name: "an account without presets", args: []string{"demo.echo", "--preset", "greet", "--user", "admin"}, errorType: "invalid_option",
			message: `--preset "greet": account "admin" has no preset of demo.echo named "greet"; it has none`,
		},
		{
			name: "another tool's preset", args: []string{"demo.sum", "--preset", "greet"}, errorType: "invalid_option",
			messageHas: `has no preset of demo.sum named "greet"`,
		},
		{
			name: "no presets configured", opts: &toolcli.Options{}, args: []string{"demo.echo", "--preset", "greet"}, errorType: "invalid_option",
			message: `--preset "greet": presets are not configured in this application`,
		},
		{
			name: "unknown tool", args: []string{"demo.nope", "--preset", "greet"}, errorType: "tool_not_found", messageHas: "demo.nope",
		},
		{
			name: "the store fails", args: []string{"demo.echo", "--preset", "broken"}, errorType: "execution_failed",
			messageHas: "could not be loaded", hasNot: "locked",
		},
		{
			name: "damaged values", args: []string{"demo.echo", "--preset", "damaged"}, errorType: "execution_failed", messageHas: "damaged",
		},
		{
			name: "a blocked account reads no preset", args: []string{"demo.echo", "--preset", "greet", "--user", "mallory"}, errorType: "user_blocked",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := tt.opts
			if opts == nil {
				opts = &toolcli.Options{Name: "app tool", Accounts: lookUp, Presets: presets}
			}
			got := runJSON(t, reg, opts, tt.args...)
			if got.Success || got.ErrorType != tt.errorType {
				t.Errorf("success %v, error_type %q, want %q (message %q)", got.Success, got.ErrorType, tt.errorType, got.Message)
			}
			if tt.message != "" && got.Message != tt.message {
				t.Errorf("message\n%q, want\n%q", got.Message, tt.message)
			}
			if !strings.Contains(got.Message, tt.messageHas) {
				t.Errorf("message %q does not contain %q", got.Message, tt.messageHas)
			}
			if tt.hasNot != "" && strings.Contains(got.Message, tt.hasNot) {
				t.Errorf("message %q contains %q", got.Message, tt.hasNot)
			}
		})
	}
}
