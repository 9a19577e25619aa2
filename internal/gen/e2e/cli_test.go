package e2e

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolapi/toolapi/tool"
	"github.com/toolapi/toolapi/toolcli"
)

// cli runs the tool command as an application mounts it, for the accounts
// "editor" (may update albums and access content) and "reader" (may only
// access content), and returns its exit status and the JSON it printed.
func cli(t *testing.T, r *tool.Registry, args ...string) (int, map[string]any) {
	t.Helper()
	accounts := map[string]tool.Account{
		"editor": &tool.User{ID: "editor", Permissions: []string{"update albums", "view albums", "access content"}},
		"reader": &tool.User{ID: "reader", Permissions: []string{"access content"}},
	}
	var stdout, stderr bytes.Buffer
	code := toolcli.Run(context.Background(), r, args, &stdout, &stderr, &toolcli.Options{
		Name: "e2e tool",
		Accounts: func(ctx context.Context, name string) (tool.Account, error) {
			if a, ok := accounts[name]; ok {
				return a, nil
			}
			return nil, toolcli.ErrUnknownUser
		},
	})
	var out map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("tool %q: stdout is not JSON (%v):\n%s\nstderr:\n%s", args, err, stdout.Bytes(), stderr.Bytes())
	}
	return code, out
}

// TestCLITypedValuesArrive runs a generated tool through the command line
// caller, with values typed as a person types them, and checks the Go
// values the method receives.
func TestCLITypedValuesArrive(t *testing.T) {
	s := &Scheduler{}
	r := newRegistry(t, s, &Site{}, &Lister{})
	code, out := cli(t, r, "run", "e2e.schedule", "--json", "--yes", "--user", "editor",
		"--input", "album=a1", "--input", "mood=lively", "--input", "at=2024-05-01T10:00:00+02:00", "--input", "priority=2")
	if code != 0 {
		t.Fatalf("exit %d: %v", code, out)
	}
	want := map[string]any{"success": true, "message": "Schedule completed.", "outputs": map[string]any{"result": true}}
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
	if len(s.Got) != 1 {
		t.Fatalf("method ran %d times", len(s.Got))
	}
	got := s.Got[0]
	if got.Album != albums["a1"] {
		t.Errorf("album = %v, want the loaded entity", got.Album)
	}
	if got.Mood != Lively {
		t.Errorf("mood = %q, want the constant Lively", got.Mood)
	}
	if want := time.Date(2024, 5, 1, 8, 0, 0, 0, time.UTC); !got.At.Equal(want) || got.At.Location() != time.UTC {
		t.Errorf("at = %v (%v), want %v in UTC", got.At, got.At.Location(), want)
	}
	if !got.Notify {
		t.Error("notify = false, want its default true")
	}
	if got.Limit != nil {
		t.Errorf("limit = %d, want nil for an absent optional pointer", *got.Limit)
	}
	if got.Priority != High {
		t.Errorf("priority = %d, want the constant High", got.Priority)
	}
	if got.Tags != nil {
		t.Errorf("tags = %q, want none", got.Tags)
	}

	// Every input set: text coerced to integers and booleans, a repeated
	// --input as a list, and a JSON object merged in.
	code, out = cli(t, r, "run", "e2e.schedule", "--json", "--yes", "--user", "editor",
		"--input", "album=a1", "--input", "mood=calm", "--input", "at=2024-05-01", "--input", "priority=1",
		"--input", "notify=false", "--input", "limit=5", "--input", "tags=x", "--input", `{"tags":["y","z"]}`)
	if code != 0 {
		t.Fatalf("exit %d: %v", code, out)
	}
	got = s.Got[1]
	if got.Mood != Calm || got.Notify || got.Limit == nil || *got.Limit != 5 || got.Priority != Low {
		t.Errorf("received %+v", got)
	}
	if want := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC); !got.At.Equal(want) || got.At.Location() != time.UTC {
		t.Errorf("at = %v, want %v", got.At, want)
	}
	if diff := cmp.Diff([]string{"y", "z"}, got.Tags); diff != "" {
		t.Errorf("tags (-want +got):\n%s", diff)
	}
}

// TestCLIFailures checks that the failures of a generated tool reach the
// command line as their categories, without calling the method.
func TestCLIFailures(t *testing.T) {
	s := &Scheduler{}
	r := newRegistry(t, s, &Site{}, &Lister{})
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"not a constant", []string{"--user", "editor", "--input", "album=a1", "--input", "mood=grumpy", "--input", "at=2024-05-01", "--input", "priority=2"}, "invalid_input"},
		{"no update op", []string{"--user", "reader", "--input", "album=a1", "--input", "mood=calm", "--input", "at=2024-05-01", "--input", "priority=2"}, "access_denied"},
		{"unknown user", []string{"--user", "nobody", "--input", "album=a1"}, "user_not_found"},
	} {
		code, out := cli(t, r, append([]string{"run", "e2e.schedule", "--json"}, tc.args...)...)
		if code != 1 || out["success"] != false || out["error_type"] != tc.want {
			t.Errorf("%s: exit %d, %v; want exit 1 and %s", tc.name, code, out, tc.want)
		}
	}
	if len(s.Got) != 0 {
		t.Errorf("the method ran on failed runs: %+v", s.Got)
	}
}

// TestCLIBytes sends bytes as base64 through the command line and checks
// the bytes the method receives, the base64 it publishes, and the input
// error of a value that is not base64.
func TestCLIBytes(t *testing.T) {
	s := &Scheduler{}
	r := newRegistry(t, s, &Site{}, &Lister{})
	image := []byte{0x89, 'P', 'N', 'G', 0, 0xff}
	b64 := base64.StdEncoding.EncodeToString
	code, out := cli(t, r, "run", "e2e.thumbnail", "--json", "--user", "reader",
		"--input", "image="+b64(image), "--input", "frames="+b64([]byte("one")), "--input", "frames="+b64([]byte("two")))
	if code != 0 {
		t.Fatalf("exit %d: %v", code, out)
	}
	if diff := cmp.Diff([][]byte{image, []byte("one"), []byte("two")}, s.Images); diff != "" {
		t.Errorf("bytes received (-want +got):\n%s", diff)
	}
	want := map[string]any{"result": b64(append([]byte("thumb:"), image...))}
	if diff := cmp.Diff(want, out["outputs"]); diff != "" {
		t.Errorf("outputs (-want +got):\n%s", diff)
	}

	s.Images = nil
	for _, tc := range []struct {
		args []string
		path string
	}{
		{[]string{"--input", "image=not base64!", "--input", "frames=" + b64([]byte("x"))}, "image"},
		{[]string{"--input", "image=" + b64(image), "--input", "frames=" + b64([]byte("x")), "--input", "frames=AAA"}, "frames[1]"},
	} {
		code, out := cli(t, r, append([]string{"run", "e2e.thumbnail", "--json", "--user", "reader"}, tc.args...)...)
		want := map[string]any{
			"success": false, "message": out["message"], "error_type": "invalid_input",
			"violations": []any{map[string]any{"path": tc.path, "rule": "contentEncoding", "message": "must be base64 (standard alphabet, padded)", "detail": "base64"}},
		}
		if diff := cmp.Diff(want, out); code != 1 || diff != "" {
			t.Errorf("%q: exit %d (-want +got):\n%s", tc.args, code, diff)
		}
	}
	if s.Images != nil {
		t.Errorf("the method ran with bytes that are not base64: %q", s.Images)
	}
}

// TestCLIResource checks a tool.Resource result as the command line
// prints it.
func TestCLIResource(t *testing.T) {
	r := newRegistry(t, &Scheduler{}, &Site{}, &Lister{})
	code, out := cli(t, r, "run", "e2e.notes", "--json", "--user", "editor", "--input", "album=a1")
	if code != 0 {
		t.Fatalf("exit %d: %v", code, out)
	}
	want := map[string]any{"notes": map[string]any{"uri": "album://a1/notes", "mime_type": "text/plain", "text": "Recorded live."}}
	if diff := cmp.Diff(want, out["outputs"]); diff != "" {
		t.Errorf("outputs (-want +got):\n%s", diff)
	}
	tl, _ := r.Tool("e2e.notes")
	if diff := cmp.Diff(tool.ResourceDefinition("notes", "The notes."), tl.Outputs[0]); diff != "" {
		t.Errorf("output definition (-want +got):\n%s", diff)
	}
}
