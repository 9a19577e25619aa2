package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolapi/toolapi/tool"
)

var albums = map[string]*Album{"a1": {ID: "a1", Title: "Blue"}}

func newRegistry(t *testing.T, sched *Scheduler, site *Site, lister *Lister) *tool.Registry {
	t.Helper()
	return newRegistryWith(t, &tool.Options{Logger: discard()}, sched, site, lister)
}

func newRegistryWith(t *testing.T, opts *tool.Options, sched *Scheduler, site *Site, lister *Lister) *tool.Registry {
	t.Helper()
	r := tool.NewRegistry(opts)
	err := r.AddEntityType(&tool.EntityType{
		ID: "album", Label: "Album",
		Load: func(ctx context.Context, id string) (any, error) {
			if a, ok := albums[id]; ok {
				return a, nil
			}
			return nil, tool.ErrEntityNotFound
		},
		Access: func(ctx context.Context, acct tool.Account, e any, op string) (bool, error) {
			return acct.HasPermission(op + " albums"), nil
		},
		Describe: func(e any) (string, string, bool) {
			a, ok := e.(*Album)
			if !ok {
				return "", "", false
			}
			return a.ID, a.Title, true
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := RegisterTools(r, lister, sched, site); err != nil {
		t.Fatal(err)
	}
	return r
}

func as(perms ...string) context.Context {
	return tool.WithAccount(context.Background(), &tool.User{ID: "u", Permissions: perms})
}

func run(t *testing.T, r *tool.Registry, ctx context.Context, id, args string) *tool.Result {
	t.Helper()
	res, err := r.RunJSON(ctx, id, []byte(args))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func wire(t *testing.T, v any) any {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var x any
	if err := json.Unmarshal(data, &x); err != nil {
		t.Fatal(err)
	}
	return x
}

func TestTypedValuesArrive(t *testing.T) {
	s := &Scheduler{}
	r := newRegistry(t, s, &Site{}, &Lister{})
	res := run(t, r, as("update albums"), "e2e.schedule",
		`{"album":"a1","mood":"lively","at":"2024-05-01T10:00:00+02:00","priority":2}`)
	if !res.Success {
		t.Fatalf("run failed: %s %v", res.Message, res.Violations)
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
		t.Errorf("priority = %d, want High", got.Priority)
	}
	if got.Tags != nil {
		t.Errorf("tags = %q, want none", got.Tags)
	}
	if diff := cmp.Diff(map[string]any{"result": true}, res.Outputs); diff != "" {
		t.Errorf("outputs (-want +got):\n%s", diff)
	}
}

func TestTypedValuesSet(t *testing.T) {
	s := &Scheduler{}
	r := newRegistry(t, s, &Site{}, &Lister{})
	res := run(t, r, as("update albums"), "e2e.schedule",
		`{"album":"a1","mood":"calm","at":"2024-05-01T10:00:00Z","notify":false,"limit":5,"priority":1,"tags":["x","y"]}`)
	if !res.Success {
		t.Fatalf("run failed: %s %v", res.Message, res.Violations)
	}
	got := s.Got[0]
	if got.Mood != Calm || got.Notify || got.Limit == nil || *got.Limit != 5 || got.Priority != Low {
		t.Errorf("received %+v", got)
	}
	if diff := cmp.Diff([]string{"x", "y"}, got.Tags); diff != "" {
		t.Errorf("tags (-want +got):\n%s", diff)
	}
}

func TestInputAndAccessFailures(t *testing.T) {
	s := &Scheduler{}
	r := newRegistry(t, s, &Site{}, &Lister{})
	res := run(t, r, as("update albums"), "e2e.schedule", `{"album":"a1","mood":"grumpy","at":"2024-05-01T10:00:00Z","priority":2}`)
	if res.Success || res.Failure != tool.FailureInput {
		t.Errorf("a mood that is no constant: %+v", res)
	}
	res = run(t, r, as("view albums"), "e2e.schedule", `{"album":"a1","mood":"calm","at":"2024-05-01T10:00:00Z","priority":2}`)
	if res.Success || res.Failure != tool.FailureAccess {
		t.Errorf("without the update op: %+v", res)
	}
	if len(s.Got) != 0 {
		t.Errorf("the method ran on failed runs: %+v", s.Got)
	}
}

func TestValueObjects(t *testing.T) {
	r := newRegistry(t, &Scheduler{}, &Site{}, &Lister{})
	res := run(t, r, as("access content"), "e2e.search", `{"word":"o"}`)
	if !res.Success {
		t.Fatalf("run failed: %s %v", res.Message, res.Violations)
	}
	want := map[string]any{"result": []any{
		map[string]any{"title": "front", "url": "https://example.com/front.jpg", "caption": "The <b>front</b>"},
	}}
	if diff := cmp.Diff(want, wire(t, res.Outputs)); diff != "" {
		t.Errorf("outputs (-want +got):\n%s", diff)
	}
	res = run(t, r, as("view albums"), "e2e.cover", `{"album":"a1"}`)
	if !res.Success {
		t.Fatalf("cover failed: %s %v", res.Message, res.Violations)
	}
	want = map[string]any{"result": map[string]any{
		"album":  map[string]any{"entity_type": "album", "id": "a1", "label": "Blue"},
		"images": []any{map[string]any{"title": "front", "url": "https://example.com/front.jpg"}},
	}}
	if diff := cmp.Diff(want, wire(t, res.Outputs)); diff != "" {
		t.Errorf("cover outputs (-want +got):\n%s", diff)
	}
}

func TestNamedResults(t *testing.T) {
	r := newRegistry(t, &Scheduler{}, &Site{}, &Lister{})
	res := run(t, r, as("access content", "view albums"), "e2e.stats", `{"album":"a1"}`)
	if diff := cmp.Diff(map[string]any{"title": "Blue", "track_count": float64(12)}, wire(t, res.Outputs)); diff != "" {
		t.Errorf("outputs (-want +got):\n%s", diff)
	}
}

func TestResultWithFailure(t *testing.T) {
	r := newRegistry(t, &Scheduler{}, &Site{}, &Lister{})
	res := run(t, r, as("export"), "e2e.export", `{"langcode":"de"}`)
	if !res.Success || res.Message != "Exported 3 strings." {
		t.Errorf("success: %+v", res)
	}
	res = run(t, r, as("export"), "e2e.export", `{"langcode":"xx"}`)
	if res.Success || res.Failure != tool.FailureRuntime || res.Message != "The export wrote files that failed the post-write check." {
		t.Errorf("failure: %+v", res)
	}
	if diff := cmp.Diff(map[string]any{"files": []any{"file:///tmp/xx.po"}, "string_count": float64(3)}, wire(t, res.Outputs)); diff != "" {
		t.Errorf("a failure still carries its outputs (-want +got):\n%s", diff)
	}
}

func TestAccessMethodAndErrors(t *testing.T) {
	r := newRegistry(t, &Scheduler{}, &Site{}, &Lister{})
	if res := run(t, r, as(), "e2e.rename", `{"title":"x"}`); res.Success || res.Failure != tool.FailureAccess {
		t.Errorf("without rename: %+v", res)
	}
	if res := run(t, r, as("rename"), "e2e.rename", `{"title":"x"}`); !res.Success || res.Message != "Rename completed." {
		t.Errorf("with rename: %+v", res)
	}
	res := run(t, r, as("rename"), "e2e.rename", `{"title":""}`)
	if res.Success || res.Failure != tool.FailureInput {
		t.Errorf("an InputError: %+v", res)
	}
	res = run(t, r, as("rename"), "e2e.rename", `{"title":"boom"}`)
	if res.Success || res.Failure != tool.FailureRuntime {
		t.Errorf("a service error: %+v", res)
	}
	if data, _ := json.Marshal(res); strings.Contains(string(data), "10.0.0.7") {
		t.Errorf("service error text reached the caller: %s", data)
	}
}

func TestConfig(t *testing.T) {
	site := &Site{Current: Settings{Name: "Old"}}
	r := newRegistry(t, &Scheduler{}, site, &Lister{})
	res := run(t, r, as("administer site"), "e2e.update_info", `{"values":{"name":"New","page_size":20}}`)
	if !res.Success {
		t.Fatalf("update failed: %s %v", res.Message, res.Violations)
	}
	if site.Current != (Settings{Name: "New", PageSize: 20}) {
		t.Errorf("settings = %+v", site.Current)
	}
	res = run(t, r, as("access content"), "e2e.site_info", `{}`)
	if diff := cmp.Diff(map[string]any{"site": map[string]any{"name": "New", "page_size": float64(20)}}, wire(t, res.Outputs)); diff != "" {
		t.Errorf("outputs (-want +got):\n%s", diff)
	}
	tl, _ := r.Tool("e2e.update_info")
	if in := tl.Inputs[0]; in.Type != "map" || len(in.Properties) != 2 || in.Properties[0].Name != "name" || tl.Outputs != nil {
		t.Errorf("update_info definitions: input %+v, outputs %v; want the config object's map", in, tl.Outputs)
	}
}

func TestInvokable(t *testing.T) {
	l := &Lister{}
	r := newRegistry(t, &Scheduler{}, &Site{}, l)
	res := run(t, r, as("access content"), "e2e.list", `{}`)
	if !res.Success {
		t.Fatalf("list failed: %s %v", res.Message, res.Violations)
	}
	res2 := run(t, r, as("access content"), "e2e.list", `{"year":1971}`)
	if diff := cmp.Diff(map[string]any{"albums": []any{map[string]any{"title": "Blue", "year": float64(1971)}}}, wire(t, res2.Outputs)); diff != "" {
		t.Errorf("outputs (-want +got):\n%s", diff)
	}
	if len(l.Years) != 2 || l.Years[0] != nil || l.Years[1] == nil || *l.Years[1] != 1971 {
		t.Errorf("years received: %v", l.Years)
	}
	tl, _ := r.Tool("e2e.list")
	if tl.Label != "Lister" {
		t.Errorf("label = %q, want the type name", tl.Label)
	}
}

func TestNilServiceIsLeftOut(t *testing.T) {
	r := tool.NewRegistry(&tool.Options{Logger: discard()})
	err := RegisterTools(r, &Lister{}, nil, &Site{})
	if err == nil {
		t.Fatal("no error for the tools of a nil service")
	}
	if _, ok := r.Tool("e2e.schedule"); ok {
		t.Error("a nil service's tool was added")
	}
	if _, ok := r.Tool("e2e.list"); !ok {
		t.Error("the other services' tools were not added")
	}
	var te interface{ Unwrap() []error }
	if !errors.As(err, &te) || len(te.Unwrap()) != 13 {
		t.Errorf("error = %v, want one reason per left-out tool", err)
	}
}

func TestAccessMethodWithBytes(t *testing.T) {
	s := &Scheduler{}
	r := newRegistry(t, s, &Site{}, &Lister{})
	if res := run(t, r, as("attach"), "e2e.attach", `{"file":"AQID"}`); !res.Success {
		t.Errorf("a small file: %+v", res)
	}
	if res := run(t, r, as("attach"), "e2e.attach", `{"file":"AQIDBAU="}`); res.Success || res.Failure != tool.FailureAccess {
		t.Errorf("a large file: %+v", res)
	}
	if diff := cmp.Diff([][]byte{{1, 2, 3}, {1, 2, 3, 4, 5}}, s.AccessChecked); diff != "" {
		t.Errorf("bytes the access method received (-want +got):\n%s", diff)
	}
	// Bytes that are not base64 reach neither the access method nor the
	// method: the run is an input failure naming the input.
	res := run(t, r, as("attach"), "e2e.attach", `{"file":"%%%"}`)
	want := []tool.Violation{{Path: "file", Rule: tool.RuleContentEncoding, Message: "must be base64 (standard alphabet, padded)", Detail: "base64"}}
	if res.Failure != tool.FailureInput || !cmp.Equal(want, res.Violations) {
		t.Errorf("not base64: %+v", res)
	}
	if len(s.AccessChecked) != 2 || len(s.Images) != 1 {
		t.Errorf("access method ran %d times, method %d times; want 2 and 1", len(s.AccessChecked), len(s.Images))
	}
}

// TestNamedResultsPartway checks that a method with named results whose
// error the registry maps to a partial RunError publishes the outputs it
// set with the failure, and that without that mapping they are dropped.
func TestNamedResultsPartway(t *testing.T) {
	partial := true
	mapError := func(err error) error {
		if errors.Is(err, ErrStorageFull) {
			return &tool.RunError{Message: "The storage is full, so the merge stopped partway.", Partial: partial, Err: err}
		}
		return nil
	}
	r := newRegistryWith(t, &tool.Options{Logger: discard(), MapError: mapError}, &Scheduler{}, &Site{}, &Lister{})
	ctx := as("access content", "view albums")
	args := `{"album":"a1","tracks":["one","two","three"],"room":2}`

	res := run(t, r, ctx, "e2e.merge", args)
	want := &tool.Result{
		Message: "The storage is full, so the merge stopped partway.",
		Failure: tool.FailureRuntime,
		Outputs: map[string]any{"moved": int64(2), "left": []any{"three"}},
	}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("a merge that stopped partway (-want +got):\n%s", diff)
	}
	res = run(t, r, ctx, "e2e.merge", `{"album":"a1","tracks":["one"],"room":2}`)
	if !res.Success || res.Outputs["moved"] != int64(1) {
		t.Errorf("a merge that finished: %+v", res)
	}

	// Mapped to a failure that is not partial: the outputs are dropped.
	partial = false
	res = run(t, r, ctx, "e2e.merge", args)
	if res.Success || len(res.Outputs) != 0 || res.Message != "The storage is full, so the merge stopped partway." {
		t.Errorf("a failure that is not partial: %+v, want no outputs", res)
	}
	// Not mapped: the service's error stays hidden, its outputs dropped.
	plain := newRegistry(t, &Scheduler{}, &Site{}, &Lister{})
	res = run(t, plain, ctx, "e2e.merge", args)
	if res.Success || len(res.Outputs) != 0 || res.Message != "Merge failed." || strings.Contains(res.Message, "storage") {
		t.Errorf("an unmapped error: %+v, want only \"Merge failed.\"", res)
	}
}
