package funcall_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolapi/toolapi/funcall"
	"github.com/toolapi/toolapi/tool"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// golden compares the indented JSON of v with testdata/name, or rewrites
// the file with -update.
func golden(t *testing.T, name string, v any) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./funcall -update writes it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got; go test ./funcall -update rewrites it):\n%s", path, diff)
	}
}

var editor = &tool.User{ID: "editor", Permissions: []string{"access content"}}

// longID is as long as an ID may be: its name has 64 characters.
const longID = "translation.export_each_document_of_the_site_as_xliff_for_agent"

func newRegistry(t *testing.T) *tool.Registry {
	t.Helper()
	reg := tool.NewRegistry(&tool.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	ok := func(ctx context.Context, in *tool.Values) (*tool.Result, error) { return nil, nil }
	err := reg.Add(
		&tool.Tool{
			ID: "album.search", Label: "Search", Description: "Finds albums whose title contains a word.",
			Operation: tool.OpRead, Permission: "access content",
			Inputs: []*tool.Definition{
				{Name: "word", Type: "string", Description: "A word.", Required: true, Constraints: tool.Constraints{NotBlank: true}},
				{Name: "limit", Type: "integer", Default: 10, Constraints: tool.Constraints{Range: &tool.Range{Min: tool.Ptr(1.0), Max: tool.Ptr(50.0)}}},
			},
			Outputs: []*tool.Definition{{Name: "result", Type: "list", Required: true, Items: &tool.Definition{Type: "string"}}},
			Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
				var out []any
				for _, title := range []string{"Blue Train", "Giant Steps", "Blue in Green"} {
					if strings.Contains(strings.ToLower(title), strings.ToLower(in.String("word"))) {
						out = append(out, title)
					}
				}
				if out == nil {
					out = []any{}
				}
				return tool.Succeeded("", map[string]any{"result": out}), nil
			},
		},
		&tool.Tool{
			ID: "album.delete", Label: "Delete", Description: "Deletes an album.", Operation: tool.OpWrite,
			Destructive: tool.Ptr(true), Permission: "access content",
			Inputs: []*tool.Definition{{Name: "id", Type: "integer", Required: true}},
			Access: func(ctx context.Context, in *tool.Values) (bool, error) { return in.Int("id") != 1, nil },
			Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
				if in.Int("id") == 13 {
					return nil, errors.New("disk full at /var/lib/albums")
				}
				return nil, nil
			},
		},
		&tool.Tool{
			ID: longID, Label: "Export", Description: "Exports every document for translation.",
			Operation: tool.OpRead, Permission: "access content", Handler: ok,
		},
		&tool.Tool{
			ID: "site.update", Label: "Update site", Description: "Updates the site.",
			Permission: "administer site", Handler: ok,
		},
	)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

var validName = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$`)

// A Toolset's names are their IDs' (tool.NameOf): the same for every
// account, whatever else the account may call.
func TestNames(t *testing.T) {
	reg := newRegistry(t)
	admin := &tool.User{ID: "admin", Permissions: []string{"access content", "administer site"}}
	names := map[string]string{}
	for _, acct := range []tool.Account{tool.Anonymous, editor, admin} {
		set := funcall.New(reg, acct)
		for _, tl := range reg.List(&tool.Filter{Account: acct}) {
			n := set.Name(tl.ID)
			if n != tool.NameOf(tl.ID) || !validName.MatchString(n) {
				t.Errorf("%s: %q is named %q, want %q", acct.AccountID(), tl.ID, n, tool.NameOf(tl.ID))
			}
			if set.ID(n) != tl.ID || set.ID(tl.ID) != tl.ID {
				t.Errorf("%s: neither %q nor %q lead back to %q", acct.AccountID(), n, tl.ID, tl.ID)
			}
			names[tl.ID] = n
		}
	}
	golden(t, "names.json", names)
}

func TestDeclarations(t *testing.T) {
	reg := newRegistry(t)
	set := funcall.New(reg, editor)
	golden(t, "openai.json", declared[funcall.OpenAITool](t, set, funcall.OpenAI))
	golden(t, "anthropic.json", declared[funcall.AnthropicTool](t, set, funcall.Anthropic))
	for _, d := range declared[funcall.OpenAITool](t, set, funcall.OpenAI) {
		if !validName.MatchString(d.Function.Name) {
			t.Errorf("OpenAI name %q is not valid", d.Function.Name)
		}
		if set.ID(d.Function.Name) == "" {
			t.Errorf("name %q maps back to no ID", d.Function.Name)
		}
	}
	if set.Name("site.update") != "" {
		t.Errorf("the editor may not call site.update, yet it is declared")
	}
	// A declaration's schema is a copy: changing it changes nothing else.
	decl := declared[funcall.AnthropicTool](t, set, funcall.Anthropic)
	decl[0].InputSchema.Description = "changed"
	if declared[funcall.AnthropicTool](t, set, funcall.Anthropic)[0].InputSchema.Description == "changed" {
		t.Errorf("declarations share their schemas")
	}
}

// declared returns set's declarations in format f, which are of type []T.
func declared[T any](t *testing.T, set *funcall.Toolset, f funcall.Format) []T {
	t.Helper()
	d, err := set.Declarations(f)
	if err != nil {
		t.Fatal(err)
	}
	return d.([]T)
}

func TestDispatch(t *testing.T) {
	reg := newRegistry(t)
	set := funcall.New(reg, editor)
	search := set.Name("album.search")
	tests := []struct {
		name, tool, args string
	}{
		{"success", search, `{"word":"blue"}`},
		{"success without outputs", "album__delete", `{"id":7}`},
		{"no arguments", search, ``},
		{"invalid input", search, `{"word":"","limit":500,"genre":"jazz"}`},
		{"arguments not an object", search, `["blue"]`},
		{"malformed arguments", search, `{"word":`},
		{"access denied", "album__delete", `{"id":1}`},
		{"execution failed", "album__delete", `{"id":13}`},
		{"not permitted", "site__update", `{}`},
		{"raw ID", "album.search", `{"word":"blue"}`},
		{"unknown", "album.nothing", `{}`},
	}
	got := map[string]*funcall.Response{}
	for _, tc := range tests {
		got[tc.name] = set.Dispatch(context.Background(), tc.tool, []byte(tc.args))
	}
	if got["success"].Success != true || got["no arguments"].ErrorType != funcall.InvalidInput {
		t.Errorf("success: %+v; no arguments: %+v", got["success"], got["no arguments"])
	}
	golden(t, "dispatch.json", got)
	if got["execution failed"].Message != "Delete failed." {
		t.Errorf("execution failed: message %q", got["execution failed"].Message)
	}
	b, _ := json.Marshal(got)
	if bytes.Contains(b, []byte("disk full")) {
		t.Errorf("a service error reached the model: %s", b)
	}
	if set.Dispatch(context.Background(), search, []byte(`{"word":"x"}`)).InputSchema != nil {
		t.Errorf("input_schema on success")
	}
}

// A call of a tool the account may not call is answered exactly as a call
// of a tool that does not exist, by its name or its ID, whether the account
// never could call it or lost the permission after the Toolset was made;
// the tool does not run.
func TestDispatchHiddenAsUnknown(t *testing.T) {
	reg := newRegistry(t)
	without := newRegistry(t)
	without.Remove("album.delete")
	without.Remove("site.update")
	fading := &tool.User{ID: "fading", Permissions: []string{"access content"}}
	set := funcall.New(reg, fading)
	fading.Permissions = nil // the account loses its permission
	absent := funcall.New(without, fading)
	for _, name := range []string{"site__update", "site.update", "album__delete", "album.delete"} {
		for _, f := range []funcall.Format{funcall.OpenAI, funcall.OpenAIStrict, funcall.Gemini} {
			got := set.DispatchFormat(context.Background(), f, name, []byte(`{"id":13}`))
			want := absent.DispatchFormat(context.Background(), f, name, []byte(`{"id":13}`))
			if diff := cmp.Diff(want, got); diff != "" || want.ErrorType != funcall.ToolNotFound {
				t.Errorf("%s in %s (-as for no such tool +got):\n%s", name, f, diff)
			}
		}
		call := []byte(`{"type":"tool_use","name":"` + name + `","input":{"id":13}}`)
		got, want := set.DispatchCall(context.Background(), funcall.Anthropic, call), absent.DispatchCall(context.Background(), funcall.Anthropic, call)
		if diff := cmp.Diff(want, got); diff != "" || want.ErrorType != funcall.ToolNotFound {
			t.Errorf("DispatchCall of %s (-as for no such tool +got):\n%s", name, diff)
		}
	}
}

// TestDispatchPanic checks that a tool that panics, in its handler or its
// access check, gives the model a failure that does not carry the panic.
func TestDispatchPanic(t *testing.T) {
	reg := tool.NewRegistry(&tool.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	anyone := func(context.Context, *tool.Values) (bool, error) { return true, nil }
	err := reg.Add(
		&tool.Tool{
			ID: "test.panic", Label: "Panic", Description: "Panics while it runs.", Operation: tool.OpRead, Access: anyone,
			Handler: func(context.Context, *tool.Values) (*tool.Result, error) { panic("secret internal state") },
		},
		&tool.Tool{
			ID: "test.guard", Label: "Guard", Description: "Panics while it checks access.", Operation: tool.OpRead,
			Access:  func(context.Context, *tool.Values) (bool, error) { panic("secret internal state") },
			Handler: func(context.Context, *tool.Values) (*tool.Result, error) { return nil, nil },
		},
	)
	if err != nil {
		t.Fatal(err)
	}
	set := funcall.New(reg, editor)
	for _, tc := range []struct{ name, message string }{
		{"test__panic", "Panic failed."},
		{"test__guard", "Guard failed."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := set.Dispatch(context.Background(), tc.name, nil)
			want := &funcall.Response{Message: tc.message, ErrorType: funcall.ExecutionFailed}
			if diff := cmp.Diff(want, resp); diff != "" {
				t.Errorf("response (-want +got):\n%s", diff)
			}
			b, err := json.Marshal(resp)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(b, []byte("secret")) {
				t.Errorf("the panic reached the model: %s", b)
			}
		})
	}
}
