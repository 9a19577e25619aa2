package tool

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
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
