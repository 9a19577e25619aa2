package tool

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestDefaultsAreNotShared checks that no run sees what another did to a
// list or map default, and that a list-of-entities default is loaded and
// access-checked on every run.
func TestDefaultsAreNotShared(t *testing.T) {
	loads := 0
	r := NewRegistry(&Options{Logger: slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil))})
	r.AddEntityType(albumType(&loads))
	var got *Values
	err := r.Add(
		&Tool{ID: "t.entities", Label: "E", Description: "Takes albums.", Permission: "p",
			Inputs:  []*Definition{{Name: "albums", Type: "list", Items: &Definition{Type: "entity:album"}, EntityOp: "update", Default: []any{"1"}}},
			Handler: func(_ context.Context, in *Values) (*Result, error) { got = in; return nil, nil }},
		&Tool{ID: "t.map", Label: "M", Description: "Changes its map.", Permission: "p",
			Inputs: []*Definition{{Name: "m", Type: "map", Default: map[string]any{"a": 1.0}}},
			Handler: func(_ context.Context, in *Values) (*Result, error) {
				m := in.Map("m")
				if len(m) != 1 {
					return nil, fmt.Errorf("the default has %d keys", len(m))
				}
				m["b"] = 2.0
				return nil, nil
			}},
	)
	if err != nil {
		t.Fatal(err)
	}
	if res, _ := r.RunJSON(WithAccount(context.Background(), editor), "t.entities", nil); !res.Success {
		t.Fatalf("owner: %+v", res)
	}
	other := &User{ID: "mallory", Permissions: []string{"p"}}
	res, _ := r.RunJSON(WithAccount(context.Background(), other), "t.entities", nil)
	if res.Failure != FailureAccess || loads != 2 {
		t.Errorf("another account on the default: %+v after %d loads; want an access failure after a second load", res, loads)
	}
	for range 2 {
		if res, _ := r.RunJSON(WithAccount(context.Background(), editor), "t.map", nil); !res.Success {
			t.Errorf("map default: %+v", res)
		}
	}
	_ = got
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

// TestPanicsOutsideTheHandler checks that a panic in an access method, a
// data type check or an entity type fails the run like a handler's.
func TestPanicsOutsideTheHandler(t *testing.T) {
	var logs bytes.Buffer
	r := NewRegistry(&Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	r.AddType(&DataType{Name: "boom", Base: "string", Check: func(any) string { panic("secret check state") }})
	h := func(context.Context, *Values) (*Result, error) { return nil, nil }
	err := r.Add(
		&Tool{ID: "t.access", Label: "Access", Description: "Panics in access.", Handler: h,
			Access: func(context.Context, *Values) (bool, error) { panic("secret access state") }},
		&Tool{ID: "t.check", Label: "Check", Description: "Panics in a check.", Permission: "p", Handler: h,
			Inputs: []*Definition{{Name: "x", Type: "boom", Required: true}}},
	)
	if err != nil {
		t.Fatal(err)
	}
	ctx := WithAccount(context.Background(), editor)
	for _, c := range []struct{ id, args, secret string }{{"t.access", "", "secret access state"}, {"t.check", `{"x":"a"}`, "secret check state"}} {
		res, err := r.RunJSON(ctx, c.id, []byte(c.args))
		if err != nil || res.Failure != FailureRuntime || strings.Contains(res.Message, "secret") {
			t.Errorf("%s: %+v %v; want a runtime failure hiding the panic", c.id, res, err)
		}
		if !strings.Contains(logs.String(), c.secret) {
			t.Errorf("%s: the panic was not logged", c.id)
		}
	}
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
	if fa, fb := a.InputSchema("t.e").Properties["c"].Format, b.InputSchema("t.e").Properties["c"].Format; fa != "color" || fb != "hex-color" {
		t.Errorf("formats %q and %q, want each registry's own (color, hex-color)", fa, fb)
	}
	a.Remove("t.e")
	if _, ok := b.Tool("t.e"); !ok {
		t.Error("removing the tool from one registry removed it from the other")
	}
}

// TestNumbers checks big and out-of-range numbers on both paths.
func TestNumbers(t *testing.T) {
	var got *Values
	r := newTestRegistry(t, echoTool(&got, &Definition{Name: "i", Type: "integer"}, &Definition{Name: "f", Type: "float"}))
	ctx := WithAccount(context.Background(), editor)
	run := map[string]func(string) *Result{
		"RunJSON": func(doc string) *Result { res, _ := r.RunJSON(ctx, "test.echo", []byte(doc)); return res },
		"Run": func(doc string) *Result {
			m, vs := decodeArgs([]byte(doc))
			if vs != nil {
				return &Result{Failure: FailureInput, Violations: vs}
			}
			res, _ := r.Run(ctx, "test.echo", m)
			return res
		},
	}
	for name, run := range run {
		if res := run(`{"i":9007199254740993}`); !res.Success || got.At(0) != int64(9007199254740993) {
			t.Errorf("%s: 2^53+1: %+v %v", name, res, got.At(0))
		}
		if res := run(`{"i":9223372036854775807}`); !res.Success || got.At(0) != int64(9223372036854775807) {
			t.Errorf("%s: max int64: %+v", name, res)
		}
		res := run(`{"i":9223372036854775808,"f":-1e400}`)
		want := []Violation{{"i", "must be an integer between -9223372036854775808 and 9223372036854775807"}, {"f", "must be a number"}}
		if diff := cmp.Diff(want, res.Violations); diff != "" {
			t.Errorf("%s: out of range (-want +got):\n%s", name, diff)
		}
	}
}

// TestDurationOutputs checks that a duration the wire form cannot hold
// fails the run instead of publishing something schema-invalid.
func TestDurationOutputs(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{{90 * time.Minute, "PT1H30M"}, {49 * time.Hour, "P2DT1H"}, {0, "PT0S"}, {1500 * time.Millisecond, ""}, {-time.Hour, ""}} {
		r := newTestRegistry(t, &Tool{ID: "t.d", Label: "D", Description: "D.", Permission: "p",
			Outputs: []*Definition{{Name: "d", Type: "duration", Required: true}},
			Handler: func(context.Context, *Values) (*Result, error) { return Succeeded("", map[string]any{"d": c.d}), nil }})
		res, _ := r.RunJSON(WithAccount(context.Background(), editor), "t.d", nil)
		if c.want == "" {
			if res.Failure != FailureRuntime {
				t.Errorf("%v: %+v, want a runtime failure", c.d, res)
			}
			continue
		}
		if !res.Success || res.Outputs["d"] != c.want {
			t.Errorf("%v: %+v, want %s", c.d, res, c.want)
		}
	}
}

// TestRefineChecksPermission checks that refining needs the tool's
// permission and hands out copies.
func TestRefineChecksPermission(t *testing.T) {
	var got *Values
	tl := echoTool(&got, &Definition{Name: "x", Type: "string"})
	r := newTestRegistry(t, tl)
	if _, err := r.Refine(context.Background(), "test.echo", nil); !errors.Is(err, ErrNotFound) {
		t.Errorf("anonymous Refine: err = %v, want ErrNotFound", err)
	}
	defs, err := r.Refine(WithAccount(context.Background(), editor), "test.echo", nil)
	if err != nil {
		t.Fatal(err)
	}
	defs[0].Name = "changed"
	if tl.Inputs[0].Name != "x" {
		t.Error("Refine handed out the tool's own definition")
	}
}

// TestConstraintKinds checks that constraints meaningless for a data type
// are refused when the tool is added.
func TestConstraintKinds(t *testing.T) {
	h := func(context.Context, *Values) (*Result, error) { return nil, nil }
	for _, def := range []*Definition{
		{Name: "x", Type: "datetime_iso8601", Constraints: Constraints{Pattern: "^2024"}},
		{Name: "x", Type: "duration", Constraints: Constraints{Length: &Bounds{Max: Ptr(3)}}},
		{Name: "x", Type: "timestamp", Constraints: Constraints{Choice: []any{"2024-01-01T00:00:00Z"}}},
		{Name: "x", Type: "string", Constraints: Constraints{Range: &Range{Max: Ptr(1.0)}}},
		{Name: "x", Type: "integer", Constraints: Constraints{Range: &Range{Max: Ptr(math.NaN())}}},
	} {
		tl := &Tool{ID: "t.c", Label: "C", Description: "C.", Permission: "p", Inputs: []*Definition{def}, Handler: h}
		if err := tl.Check(); err == nil {
			t.Errorf("%s with %+v was accepted", def.Type, def.Constraints)
		}
	}
}

// TestObjectsPublishInPlace checks that an Object is published like a
// map: undeclared keys dropped, nil optional members left out, values in
// their wire form, and the caller sees a map[string]any.
func TestObjectsPublishInPlace(t *testing.T) {
	obj := Object{"title": "Cranes", "created": time.Date(2023, 6, 11, 6, 0, 0, 0, time.UTC), "note": nil, "secret": "x"}
	r := newTestRegistry(t, &Tool{ID: "t.o", Label: "O", Description: "O.", Permission: "p",
		Outputs: []*Definition{{Name: "result", Type: "list", Required: true, Items: &Definition{Type: "map", Properties: []*Definition{
			{Name: "title", Type: "string", Required: true},
			{Name: "created", Type: "timestamp", Required: true},
			{Name: "note", Type: "string"},
		}}}},
		Handler: func(context.Context, *Values) (*Result, error) {
			return Succeeded("", map[string]any{"result": []any{obj}}), nil
		}})
	res, _ := r.RunJSON(WithAccount(context.Background(), editor), "t.o", nil)
	want := map[string]any{"result": []any{map[string]any{"title": "Cranes", "created": "2023-06-11T06:00:00Z"}}}
	if diff := cmp.Diff(want, res.Outputs); diff != "" {
		t.Errorf("outputs (-want +got):\n%s", diff)
	}
}

// TestSimpleWebURL checks the URI fast path against url.Parse: whatever
// it accepts, url.Parse accepts as absolute.
func TestSimpleWebURL(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const alphabet = "hts:/p.a-_~%[]@?#e1 xw"
	accepted := 0
	for range 200000 {
		b := []byte("http")
		if rng.IntN(2) == 0 {
			b = append(b, 's')
		}
		b = append(b, "://"...)
		for range rng.IntN(12) {
			b = append(b, alphabet[rng.IntN(len(alphabet))])
		}
		s := string(b)
		if simpleWebURL(s) {
			accepted++
			u, err := url.Parse(s)
			if err != nil || !u.IsAbs() {
				t.Fatalf("simpleWebURL accepts %q, url.Parse says %v", s, err)
			}
		}
	}
	if accepted == 0 {
		t.Fatal("the generator never produced a simple URL")
	}
	t.Logf("%d simple URLs checked", accepted)
}

// TestListRangeNarrowsItems checks that a range on a list narrows the
// range its items already have (a sized integer's bounds) and never
// widens it.
func TestListRangeNarrowsItems(t *testing.T) {
	var got *Values
	r := newTestRegistry(t, echoTool(&got, &Definition{Name: "xs", Type: "list",
		Items:       &Definition{Type: "integer", Constraints: Constraints{Range: &Range{Min: Ptr(-32768.0), Max: Ptr(32767.0)}}},
		Constraints: Constraints{Range: &Range{Min: Ptr(0.0), Max: Ptr(100000.0)}}}))
	res, _ := r.RunJSON(WithAccount(context.Background(), editor), "test.echo", []byte(`{"xs":[-1,100000,5]}`))
	want := []Violation{{"xs[0]", "must be at least 0"}, {"xs[1]", "must be at most 32767"}}
	if diff := cmp.Diff(want, res.Violations); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
}
