package tool

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// narrowRegistry holds a viewer read tool, an editor write tool and an
// ungrouped read tool; ran records the IDs of the tools that ran.
func narrowRegistry(t *testing.T) (*Registry, *[]string) {
	t.Helper()
	var ran []string
	h := func(id string) Handler {
		return func(context.Context, *Values) (*Result, error) {
			ran = append(ran, id)
			return &Result{Success: true, Message: "ran"}, nil
		}
	}
	r := NewRegistry(nil)
	err := r.Add(
		&Tool{ID: "n.view", Label: "View", Description: "Views.", Operation: OpRead, Groups: []string{"viewer"}, Permission: "p", Handler: h("n.view"),
			Inputs: []*Definition{{Name: "q", Type: "string", Constraints: Constraints{Choice: []any{"apple", "avocado"}}}}},
		&Tool{ID: "n.edit", Label: "Edit", Description: "Edits.", Operation: OpWrite, Groups: []string{"editor", "viewer-extra"}, Permission: "p", Handler: h("n.edit")},
		&Tool{ID: "n.plain", Label: "Plain", Description: "Reads.", Operation: OpRead, Permission: "p", Handler: h("n.plain")},
	)
	if err != nil {
		t.Fatal(err)
	}
	return r, &ran
}

func TestNarrowRefusesAsUnknown(t *testing.T) {
	r, ran := narrowRegistry(t)
	ctx, err := r.Narrow(acctCtx(), Narrowing{Groups: []string{"viewer"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"n.edit", "n.plain"} {
		if _, err := r.Run(ctx, id, nil); !errors.Is(err, ErrNotFound) {
			t.Errorf("Run(%s) under viewer: err = %v, want ErrNotFound", id, err)
		}
		if _, err := r.RunJSON(ctx, id, []byte(`{}`)); !errors.Is(err, ErrNotFound) {
			t.Errorf("RunJSON(%s) under viewer: err = %v, want ErrNotFound", id, err)
		}
		if _, _, err := r.Validate(ctx, id, nil); !errors.Is(err, ErrNotFound) {
			t.Errorf("Validate(%s) under viewer: err = %v, want ErrNotFound", id, err)
		}
		if _, err := r.Refine(ctx, id, nil); !errors.Is(err, ErrNotFound) {
			t.Errorf("Refine(%s) under viewer: err = %v, want ErrNotFound", id, err)
		}
	}
	// The refusal is the same as for a tool that does not exist.
	_, errNone := r.Run(acctCtx(), "n.none", nil)
	_, errOut := r.Run(ctx, "n.edit", nil)
	if errors.Unwrap(errNone) != errors.Unwrap(errOut) {
		t.Errorf("narrowed refusal %v differs in kind from unknown %v", errOut, errNone)
	}
	if len(*ran) != 0 {
		t.Fatalf("tools ran under the narrowing: %v", *ran)
	}
	res, err := r.Run(ctx, "n.view", map[string]any{"q": "apple"})
	if err != nil || !res.Success {
		t.Fatalf("Run(n.view) under viewer = %+v, %v", res, err)
	}
	if _, err := r.Complete(ctx, "n.view", "q", "a", nil); err != nil {
		t.Errorf("Complete(n.view) under viewer: %v", err)
	}
	if _, err := r.Complete(Narrow(ctx, Narrowing{Groups: []string{"editor"}}), "n.view", "q", "a", nil); !errors.Is(err, ErrNotFound) {
		t.Errorf("Complete(n.view) under viewer∩editor: err = %v, want ErrNotFound", err)
	}
}

func TestNarrowReadOnly(t *testing.T) {
	r, ran := narrowRegistry(t)
	ctx := Narrow(acctCtx(), Narrowing{ReadOnly: true})
	if _, err := r.Run(ctx, "n.edit", nil); !errors.Is(err, ErrNotFound) {
		t.Errorf("Run(n.edit) read-only: err = %v, want ErrNotFound", err)
	}
	if res, err := r.Run(ctx, "n.plain", nil); err != nil || !res.Success {
		t.Errorf("Run(n.plain) read-only = %+v, %v", res, err)
	}
	if diff := cmp.Diff([]string{"n.plain"}, *ran); diff != "" {
		t.Errorf("ran (-want +got):\n%s", diff)
	}
	n := NarrowingFrom(ctx)
	edit, _ := r.Tool("n.edit")
	if got, want := n.Reason(edit), "not read-only (its operation is write) and this connection may only read"; got != want {
		t.Errorf("Reason = %q, want %q", got, want)
	}
}

func TestNarrowList(t *testing.T) {
	r, _ := narrowRegistry(t)
	ids := func(ctx context.Context) []string {
		var out []string
		for _, tl := range r.List(&Filter{Narrowing: NarrowingFrom(ctx)}) {
			out = append(out, tl.ID)
		}
		return out
	}
	bg := acctCtx()
	for _, c := range []struct {
		name string
		ctx  context.Context
		want []string
	}{
		{"none", bg, []string{"n.edit", "n.plain", "n.view"}},
		{"viewer", Narrow(bg, Narrowing{Groups: []string{"viewer"}}), []string{"n.view"}},
		{"viewer,editor", Narrow(bg, Narrowing{Groups: []string{"viewer", "editor"}}), []string{"n.edit", "n.view"}},
		{"read-only", Narrow(bg, Narrowing{ReadOnly: true}), []string{"n.plain", "n.view"}},
		{"viewer,editor then read-only", Narrow(Narrow(bg, Narrowing{Groups: []string{"viewer", "editor"}}), Narrowing{ReadOnly: true}), []string{"n.view"}},
		// A nested narrowing cannot widen: editor within viewer is nothing.
		{"viewer then editor", Narrow(Narrow(bg, Narrowing{Groups: []string{"viewer"}}), Narrowing{Groups: []string{"editor"}}), nil},
		{"viewer then none", Narrow(Narrow(bg, Narrowing{Groups: []string{"viewer"}}), Narrowing{}), []string{"n.view"}},
	} {
		if diff := cmp.Diff(c.want, ids(c.ctx)); diff != "" {
			t.Errorf("%s: List (-want +got):\n%s", c.name, diff)
		}
	}
	if got := NarrowingFrom(Narrow(Narrow(bg, Narrowing{Groups: []string{"viewer"}}), Narrowing{Groups: []string{"editor"}})).Reason(&Tool{Groups: []string{"viewer"}}); got == "" {
		t.Error("an empty intersection gives no reason")
	}
}

func TestNarrowUnknownGroup(t *testing.T) {
	r, _ := narrowRegistry(t)
	_, err := r.Narrow(acctCtx(), Narrowing{Groups: []string{"viewer", "admins"}})
	if !errors.Is(err, ErrUnknownGroup) {
		t.Fatalf("Narrow(admins): err = %v, want ErrUnknownGroup", err)
	}
	want := `unknown tool group "admins": no tool declares it (the groups are editor, viewer, viewer-extra)`
	if err.Error() != want {
		t.Errorf("error = %q, want %q", err, want)
	}
	if got := r.Groups(); !slices.Equal(got, []string{"editor", "viewer", "viewer-extra"}) {
		t.Errorf("Groups = %v", got)
	}
}

func TestGroupNamesChecked(t *testing.T) {
	h := func(context.Context, *Values) (*Result, error) { return nil, nil }
	for _, groups := range [][]string{{"Viewer"}, {""}, {"a b"}, {"view", "view"}} {
		r := NewRegistry(nil)
		err := r.Add(&Tool{ID: "g.t", Label: "T", Description: "T.", Groups: groups, Permission: "p", Handler: h})
		var de *DefinitionError
		if !errors.As(err, &de) || de.Rule != "group" {
			t.Errorf("groups %q: err = %v, want a DefinitionError of rule group", groups, err)
		}
	}
}

// acctCtx is a context whose account holds the permission p.
func acctCtx() context.Context {
	return WithAccount(context.Background(), &User{ID: "u", Permissions: []string{"p"}})
}
