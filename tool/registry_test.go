package tool

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParsePermission(t *testing.T) {
	tests := []struct {
		expr    string
		want    Permission
		wantErr bool
	}{
		{"", Permission{}, false},
		{"a", Permission{Names: []string{"a"}}, false},
		{"a, b", Permission{Names: []string{"a", "b"}}, false},
		{"a+b", Permission{Names: []string{"a", "b"}, Any: true}, false},
		{"a,b+c", Permission{}, true},
		{"a,,b", Permission{}, true},
		{"read notes+notes:edit", Permission{Names: []string{"read notes", "notes:edit"}, Any: true}, false},
		{"grüße.senden", Permission{Names: []string{"grüße.senden"}}, false},
		{"read notes &&", Permission{}, true},
		{"a,-b", Permission{}, true},
	}
	for _, tt := range tests {
		got, err := ParsePermission(tt.expr)
		if (err != nil) != tt.wantErr {
			t.Errorf("ParsePermission(%q) error = %v, want error %v", tt.expr, err, tt.wantErr)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ParsePermission(%q) (-want +got):\n%s", tt.expr, diff)
		}
	}
	all, _ := ParsePermission("a,b")
	anyOf, _ := ParsePermission("a+b")
	onlyA := &User{ID: "x", Permissions: []string{"a"}}
	both := &User{ID: "y", Permissions: []string{"a", "b"}}
	blocked := &User{ID: "z", Permissions: []string{"a", "b"}, IsBlocked: true}
	for _, c := range []struct {
		p    Permission
		acct Account
		want bool
	}{
		{all, onlyA, false}, {all, both, true}, {anyOf, onlyA, true}, {anyOf, Anonymous, false},
		{all, blocked, false}, {Permission{}, blocked, false}, {Permission{}, Anonymous, true},
	} {
		if got := c.p.allows(c.acct); got != c.want {
			t.Errorf("%q allows %s = %v, want %v", c.p, c.acct.AccountID(), got, c.want)
		}
	}
}

func TestRegistryAdd(t *testing.T) {
	var logs bytes.Buffer
	r := NewRegistry(&Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	h := func(context.Context, *Values) (*Result, error) { return nil, nil }
	good := &Tool{ID: "a.one", Label: "One", Description: "One.", Permission: "p", Handler: h}
	dup := &Tool{ID: "a.one", Label: "Other", Description: "Other.", Permission: "p", Handler: h}
	noCheck := &Tool{ID: "a.open", Label: "Open", Description: "No check.", Handler: h}
	optionalEntity := &Tool{ID: "a.opt", Label: "Opt", Description: "Optional entity only.", Handler: h,
		Inputs: []*Definition{{Name: "album", Type: "entity:album", EntityOp: "view"}}}
	listEntity := &Tool{ID: "a.list", Label: "List", Description: "Entity list only.", Handler: h,
		Inputs: []*Definition{{Name: "albums", Type: "list", Required: true, Items: &Definition{Type: "entity:album"}, EntityOp: "view"}}}
	noOp := &Tool{ID: "a.noop", Label: "No op", Description: "Entity without op.", Permission: "p", Handler: h,
		Inputs: []*Definition{{Name: "album", Type: "entity:album", Required: true}}}
	unknownType := &Tool{ID: "a.unknown", Label: "U", Description: "Unknown entity type.", Handler: h,
		Inputs: []*Definition{{Name: "x", Type: "entity:nope", Required: true, EntityOp: "view"}}}
	mixed := &Tool{ID: "a.mixed", Label: "M", Description: "Mixed permission.", Permission: "a,b+c", Handler: h}
	noHandler := &Tool{ID: "a.nohandler", Label: "N", Description: "No handler.", Permission: "p"}
	entityInMap := &Tool{ID: "a.inmap", Label: "I", Description: "Entity in a map.", Permission: "p", Handler: h,
		Inputs: []*Definition{{Name: "m", Type: "map", Properties: []*Definition{{Name: "album", Type: "entity:album", EntityOp: "view"}}}}}
	badDefault := &Tool{ID: "a.baddefault", Label: "B", Description: "Default out of range.", Permission: "p", Handler: h,
		Inputs: []*Definition{{Name: "n", Type: "integer", Default: 500, Constraints: Constraints{Range: &Range{Max: Ptr(100.0)}}}}}
	entityOK := &Tool{ID: "a.entity", Label: "E", Description: "Checked by entity op.", Handler: h,
		Inputs: []*Definition{{Name: "album", Type: "entity:album", Required: true, EntityOp: "update"}}}
	if err := r.AddEntityType(albumType(nil)); err != nil {
		t.Fatal(err)
	}
	err := r.Add(good, dup, noCheck, optionalEntity, listEntity, noOp, unknownType, mixed, noHandler, entityInMap, badDefault, entityOK)
	if err == nil {
		t.Fatal("Add returned no error for bad tools")
	}
	var ids []string
	for _, tl := range r.List(nil) {
		ids = append(ids, tl.ID)
	}
	if diff := cmp.Diff([]string{"a.entity", "a.one"}, ids); diff != "" {
		t.Errorf("tools added (-want +got):\n%s", diff)
	}
	if tl, _ := r.Tool("a.one"); tl != good {
		t.Error("the duplicate replaced the first tool with that ID")
	}
	for _, want := range []string{"already taken", "no access check", "needs an op", "unknown entity type", "mixes", "needs a handler", "inside a map", "default 500"} {
		if !strings.Contains(err.Error(), want) || !strings.Contains(logs.String(), want) {
			t.Errorf("error and log should mention %q:\nerror: %v\nlog: %s", want, err, logs.String())
		}
	}
}

func TestRegistryList(t *testing.T) {
	h := func(context.Context, *Values) (*Result, error) { return nil, nil }
	r := newTestRegistry(t,
		&Tool{ID: "album.search", Label: "Search", Description: "Finds images by word.", Operation: OpRead, Permission: "access content", Handler: h},
		&Tool{ID: "album.publish", Label: "Publish", Description: "Publishes an album.", Permission: "edit albums", Handler: h},
		&Tool{ID: "site.update_info", Label: "Update info", Description: "Updates the site name.", Permission: "administer site+edit albums", Handler: h},
	)
	ids := func(ts []*Tool) []string {
		var out []string
		for _, t := range ts {
			out = append(out, t.ID)
		}
		return out
	}
	reader := &User{ID: "r", Permissions: []string{"access content"}}
	editor := &User{ID: "e", Permissions: []string{"access content", "edit albums"}}
	tests := []struct {
		name string
		f    *Filter
		want []string
	}{
		{"all", nil, []string{"album.publish", "album.search", "site.update_info"}},
		{"reader", &Filter{Account: reader}, []string{"album.search"}},
		{"editor", &Filter{Account: editor}, []string{"album.publish", "album.search", "site.update_info"}},
		{"anonymous", &Filter{Account: Anonymous}, nil},
		{"operation", &Filter{Operation: OpWrite}, []string{"album.publish", "site.update_info"}},
		{"words or", &Filter{Words: []string{"images", "SITE"}}, []string{"album.search", "site.update_info"}},
		{"words and", &Filter{Words: []string{"album", "publishes"}, MatchAll: true}, []string{"album.publish"}},
		{"words none", &Filter{Words: []string{"zebra"}}, nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, ids(r.List(tt.f))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
	changed := 0
	r.OnChange(func() { changed++ })
	r.Remove("album.search")
	r.Add(&Tool{ID: "x.y", Label: "Y", Description: "Y.", Permission: "p", Handler: h})
	if changed != 2 {
		t.Errorf("OnChange called %d times, want 2", changed)
	}
}

type album struct {
	id, title, owner string
}

// albumType is an entity type over a fixed set of albums: anyone views,
// only the owner updates.
func albumType(loads *int) *EntityType {
	albums := map[string]*album{"1": {"1", "Mine", "editor"}, "2": {"2", "Theirs", "other"}}
	return &EntityType{
		ID: "album", Label: "Album",
		Load: func(_ context.Context, id string) (any, error) {
			if loads != nil {
				*loads++
			}
			if a, ok := albums[id]; ok {
				return a, nil
			}
			if id == "boom" {
				return nil, fmt.Errorf("db: connection refused")
			}
			return nil, fmt.Errorf("album %s: %w", id, ErrEntityNotFound)
		},
		Access: func(_ context.Context, acct Account, e any, op string) (bool, error) {
			a := e.(*album)
			return op == "view" || a.owner == acct.AccountID(), nil
		},
		Describe: func(e any) (string, string, bool) {
			a, ok := e.(*album)
			if !ok {
				return "", "", false
			}
			return a.id, a.title, true
		},
	}
}

func TestEntities(t *testing.T) {
	var got *Values
	loads := 0
	r := NewRegistry(&Options{Logger: slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil))})
	if err := r.AddEntityType(albumType(&loads)); err != nil {
		t.Fatal(err)
	}
	publish := &Tool{ID: "album.publish", Label: "Publish", Description: "Publishes.",
		Inputs:  []*Definition{{Name: "album", Type: "entity:album", Required: true, EntityOp: "update"}},
		Outputs: []*Definition{{Name: "result", Type: "entity:album", Required: true}},
		Handler: func(_ context.Context, in *Values) (*Result, error) {
			got = in
			return Succeeded("", map[string]any{"result": in.At(0)}), nil
		}}
	merge := &Tool{ID: "album.merge", Label: "Merge", Description: "Merges.", Permission: "p",
		Inputs:  []*Definition{{Name: "albums", Type: "list", Required: true, Items: &Definition{Type: "entity"}, EntityOp: "update"}},
		Handler: func(_ context.Context, in *Values) (*Result, error) { got = in; return nil, nil }}
	if err := r.Add(publish, merge); err != nil {
		t.Fatal(err)
	}
	ctx := WithAccount(context.Background(), editor)
	res, _ := r.RunJSON(ctx, "album.publish", []byte(`{"album":"1"}`))
	if !res.Success || got.At(0).(*album).title != "Mine" {
		t.Fatalf("own album: %+v", res)
	}
	if diff := cmp.Diff(map[string]any{"result": map[string]any{"entity_type": "album", "id": "1", "label": "Mine"}}, res.Outputs); diff != "" {
		t.Errorf("entity output (-want +got):\n%s", diff)
	}
	res, _ = r.RunJSON(ctx, "album.publish", []byte(`{"album":"2"}`))
	if res.Failure != FailureAccess || !strings.Contains(res.Message, "album 2") {
		t.Errorf("other's album: %+v, want an access failure naming the album", res)
	}
	res, _ = r.RunJSON(ctx, "album.publish", []byte(`{"album":"99"}`))
	if res.Failure != FailureInput || !cmp.Equal(res.Violations, []Violation{{Path: "album", Message: `no album has the ID "99"`}}, wordsOnly) {
		t.Errorf("missing album: %+v", res)
	}
	res, _ = r.RunJSON(ctx, "album.publish", []byte(`{"album":"boom"}`))
	if res.Failure != FailureRuntime || strings.Contains(res.Message, "refused") {
		t.Errorf("load error: %+v, want a runtime failure hiding the error", res)
	}
	res, _ = r.RunJSON(ctx, "album.merge", []byte(`{"albums":["album:1","album:2"]}`))
	if res.Failure != FailureAccess || !strings.Contains(res.Message, "albums[1]") {
		t.Errorf("list with other's album: %+v", res)
	}
	res, _ = r.RunJSON(ctx, "album.merge", []byte(`{"albums":["album:1","song:3","12"]}`))
	want := []Violation{{Path: "albums[2]", Message: `must be an entity reference of the form "type:id"`}}
	if diff := cmp.Diff(want, res.Violations, wordsOnly); diff != "" {
		t.Errorf("bad references (-want +got):\n%s", diff)
	}
	res, _ = r.RunJSON(ctx, "album.merge", []byte(`{"albums":["album:1","song:3"]}`))
	want = []Violation{{Path: "albums[1]", Message: `names an unknown entity type "song"`}}
	if diff := cmp.Diff(want, res.Violations, wordsOnly); diff != "" {
		t.Errorf("unknown type (-want +got):\n%s", diff)
	}
	blocked := &User{ID: "editor", Permissions: []string{"p"}, IsBlocked: true}
	before := loads
	res, _ = r.RunJSON(WithAccount(context.Background(), blocked), "album.publish", []byte(`{"album":"1"}`))
	if res.Failure != FailureAccess || loads != before {
		t.Errorf("blocked account: %+v, loads %d -> %d; want access failure before loading", res, before, loads)
	}
}

func TestAccessAndConfirm(t *testing.T) {
	var ran int
	r := newTestRegistry(t,
		&Tool{ID: "t.access", Label: "Guarded", Description: "Guarded by an access method.",
			Inputs: []*Definition{{Name: "n", Type: "integer", Required: true}},
			Access: func(ctx context.Context, in *Values) (bool, error) {
				if in.Int("n") < 0 {
					return false, &InputError{Input: "n", Message: "must not be negative"}
				}
				return in.Int("n") < 10 && AccountFrom(ctx).AccountID() == "editor", nil
			},
			Handler: func(context.Context, *Values) (*Result, error) { ran++; return nil, nil }},
		&Tool{ID: "t.confirm", Label: "Delete all", Description: "Needs a person.", Permission: "p", Confirm: true,
			Handler: func(context.Context, *Values) (*Result, error) { ran++; return nil, nil }},
	)
	ctx := WithAccount(context.Background(), editor)
	if res, _ := r.RunJSON(ctx, "t.access", []byte(`{"n":1}`)); !res.Success {
		t.Errorf("allowed by access: %+v", res)
	}
	if res, _ := r.RunJSON(ctx, "t.access", []byte(`{"n":11}`)); res.Failure != FailureAccess {
		t.Errorf("denied by access: %+v", res)
	}
	if res, _ := r.RunJSON(WithAccount(context.Background(), &User{ID: "x"}), "t.access", []byte(`{"n":1}`)); res.Failure != FailureAccess {
		t.Errorf("denied by access for another account: %+v", res)
	}
	if res, _ := r.RunJSON(ctx, "t.access", []byte(`{"n":-1}`)); res.Failure != FailureInput || !cmp.Equal(res.Violations, []Violation{{Path: "n", Message: "must not be negative"}}, wordsOnly) {
		t.Errorf("InputError from access: %+v", res)
	}
	ran = 0
	if res, _ := r.RunJSON(ctx, "t.confirm", nil); res.Failure != FailureAccess || !strings.Contains(res.Message, "confirm") {
		t.Errorf("no confirmer: %+v", res)
	}
	if res, _ := r.RunJSON(WithConfirmer(ctx, confirmFunc(false)), "t.confirm", nil); res.Failure != FailureAccess {
		t.Errorf("declined: %+v", res)
	}
	if ran != 0 {
		t.Errorf("the tool ran %d times without confirmation", ran)
	}
	if res, _ := r.RunJSON(WithConfirmer(ctx, Confirmed), "t.confirm", nil); !res.Success || ran != 1 {
		t.Errorf("confirmed: %+v, ran %d", res, ran)
	}
}

type confirmFunc bool

func (c confirmFunc) Confirm(context.Context, *Tool, string) (bool, error) { return bool(c), nil }

func TestCustomDataType(t *testing.T) {
	r := NewRegistry(&Options{Logger: slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil))})
	err := r.AddType(&DataType{Name: "color", Base: "string", Format: "color", Check: func(v any) string {
		s := v.(string)
		if len(s) != 7 || s[0] != '#' {
			return "must be a color such as #ff8800"
		}
		return ""
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.AddType(&DataType{Name: "string", Base: "string"}); err == nil {
		t.Error("a built-in type name was accepted")
	}
	var got *Values
	tl := echoTool(&got, &Definition{Name: "c", Type: "color", Required: true})
	if err := r.Add(tl); err != nil {
		t.Fatal(err)
	}
	ctx := WithAccount(context.Background(), editor)
	if res, _ := r.RunJSON(ctx, "test.echo", []byte(`{"c":"#ff8800"}`)); !res.Success {
		t.Errorf("valid color: %+v", res)
	}
	res, _ := r.RunJSON(ctx, "test.echo", []byte(`{"c":"red"}`))
	if diff := cmp.Diff([]Violation{{Path: "c", Message: "must be a color such as #ff8800"}}, res.Violations, wordsOnly); diff != "" {
		t.Errorf("invalid color (-want +got):\n%s", diff)
	}
	if f := r.Describe(tl.ID).InputSchema.Properties["c"].Format; f != "color" {
		t.Errorf("format = %q, want color", f)
	}
}

// TestListWhileAdding runs List beside Add and Remove (go test -race).
func TestListWhileAdding(t *testing.T) {
	r := NewRegistry(&Options{Logger: slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil))})
	h := func(context.Context, *Values) (*Result, error) { return nil, nil }
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for i := range 200 {
			id := fmt.Sprintf("t.%03d", i)
			r.Add(&Tool{ID: id, Label: "T", Description: "T.", Permission: "p", Handler: h})
			if i%3 == 0 {
				r.Remove(id)
			}
		}
	}()
	go func() {
		defer wg.Done()
		for range 200 {
			for _, tl := range r.List(&Filter{Account: editor}) {
				if tl == nil || tl.ID == "" {
					t.Error("List returned a broken tool")
					return
				}
			}
		}
	}()
	wg.Wait()
}

// TestToolInTwoRegistries checks that a Tool is a plain value: one literal
// added to two registries is compiled by each with its own data and entity
// types, runs in both, and a failed Add leaves it usable.
func TestToolInTwoRegistries(t *testing.T) {
	quiet := &Options{Logger: slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil))}
	a, b := NewRegistry(quiet), NewRegistry(quiet)
	a.AddEntityType(albumType(nil))
	a.AddType(&DataType{Name: "color", Base: "string", Format: "color"})
	b.AddType(&DataType{Name: "color", Base: "string", Format: "hex-color"})
	tl := &Tool{ID: "t.e", Label: "E", Description: "E.", Handler: func(context.Context, *Values) (*Result, error) { return nil, nil },
		Inputs: []*Definition{
			{Name: "album", Type: "entity:album", Required: true, EntityOp: "view"},
			{Name: "c", Type: "color"},
		}}
	if err := a.Add(tl); err != nil {
		t.Fatal(err)
	}
	if err := b.Add(tl); err == nil {
		t.Error("a registry without the entity type took the tool")
	}
	b.AddEntityType(albumType(nil))
	if err := b.Add(tl); err != nil {
		t.Fatalf("second registry: %v", err)
	}
	for name, r := range map[string]*Registry{"a": a, "b": b} {
		if res, _ := r.RunJSON(WithAccount(context.Background(), editor), "t.e", []byte(`{"album":"1","c":"red"}`)); !res.Success {
			t.Errorf("registry %s: run: %+v", name, res)
		}
		if got, _ := r.Tool("t.e"); got != tl {
			t.Errorf("registry %s holds another tool than the one added", name)
		}
	}
	if fa, fb := a.Describe("t.e").InputSchema.Properties["c"].Format, b.Describe("t.e").InputSchema.Properties["c"].Format; fa != "color" || fb != "hex-color" {
		t.Errorf("formats %q and %q, want each registry's own (color, hex-color)", fa, fb)
	}
	a.Remove("t.e")
	if _, ok := b.Tool("t.e"); !ok {
		t.Error("removing the tool from one registry removed it from the other")
	}
}

// TestAskFirstChecked: a tool's AskFirst questions need a task tool, a
// person to ask, and keys of their own.
func TestAskFirstChecked(t *testing.T) {
	q := func(key string, kind QuestionKind) Question { return Question{Key: key, Kind: kind, Message: "?"} }
	for _, c := range []struct {
		name  string
		task  TaskMode
		qs    []Question
		wants string
	}{
		{"not a task", TaskNever, []Question{q("name", AskPerson)}, "need a tool whose task is optional or required"},
		{"a model", TaskRequired, []Question{q("name", AskModel)}, "a task asks only a person"},
		{"no key", TaskRequired, []Question{q("", AskPerson)}, `key ""`},
		{"reserved", TaskRequired, []Question{q("q2", AskPerson)}, "reserved"},
		{"twice", TaskOptional, []Question{q("name", AskPerson), q("name", AskPerson)}, "asked twice"},
	} {
		reg := NewRegistry(nil)
		err := reg.Add(&Tool{ID: "x.ask", Description: "Asks.", Permission: "p", Task: c.task, AskFirst: c.qs,
			Handler: func(context.Context, *Values) (*Result, error) { return nil, nil }})
		if err == nil || !strings.Contains(err.Error(), c.wants) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.wants)
		}
	}
	reg := NewRegistry(nil)
	if err := reg.Add(&Tool{ID: "x.ask", Description: "Asks.", Permission: "p", Task: TaskRequired,
		AskFirst: []Question{q("name", AskPerson)},
		Handler:  func(context.Context, *Values) (*Result, error) { return nil, nil }}); err != nil {
		t.Errorf("a good AskFirst: %v", err)
	}
}
