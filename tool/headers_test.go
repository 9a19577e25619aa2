package tool

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// A hand-written tool's Icon and its inputs' Header are checked when the
// tool is added, as toolgen checks icon= and header=.
func TestIconAndHeaderChecked(t *testing.T) {
	anyone := func(context.Context, *Values) (bool, error) { return true, nil }
	base := func() *Tool {
		return &Tool{ID: "a.b", Description: "Does b.", Access: anyone,
			Handler: func(context.Context, *Values) (*Result, error) { return Succeeded("", nil), nil }}
	}
	str := func(name, header string) *Definition { return &Definition{Name: name, Type: "string", Header: header} }
	for _, tt := range []struct {
		name string
		edit func(t *Tool)
		path string
		rule string
		want string // "" for no error
	}{
		{"https icon", func(t *Tool) { t.Icon = "https://example.com/i.png" }, "", "", ""},
		{"data icon", func(t *Tool) { t.Icon = "data:image/svg+xml;base64,PHN2Zz4=" }, "", "", ""},
		{"http icon", func(t *Tool) { t.Icon = "http://example.com/i.png" }, "", "icon", "https: address"},
		{"relative icon", func(t *Tool) { t.Icon = "/i.png" }, "", "icon", "https: address"},
		{"icon too long", func(t *Tool) { t.Icon = "data:image/png;base64," + strings.Repeat("A", MaxIconLength) }, "", "icon", "more than the 32768"},
		{"data icon not an image", func(t *Tool) { t.Icon = "data:text/plain,hi" }, "", "icon", "must be an image"},
		{"headers", func(t *Tool) {
			t.Inputs = []*Definition{str("region", "Region"), {Name: "n", Type: "integer", Header: "X-N"}, {Name: "f", Type: "boolean", Header: "X-F"}}
		}, "", "", ""},
		{"header not a token", func(t *Tool) { t.Inputs = []*Definition{str("region", "The Region")} }, "inputs.region", "header", "not a header name"},
		{"header on a float", func(t *Tool) { t.Inputs = []*Definition{{Name: "r", Type: "float", Header: "R"}} }, "inputs.r", "header", "not float"},
		{"header on a list", func(t *Tool) {
			t.Inputs = []*Definition{{Name: "l", Type: "list", Items: &Definition{Type: "string"}, Header: "L"}}
		}, "inputs.l", "header", "not list"},
		{"header on a sensitive input", func(t *Tool) {
			t.Inputs = []*Definition{{Name: "s", Type: "string", Sensitive: true, Header: "S"}}
		}, "inputs.s", "header", "sensitive"},
		{"header twice", func(t *Tool) { t.Inputs = []*Definition{str("a", "Region"), str("b", "region")} }, "inputs.b", "header", "already carries the input a"},
		{"header on a property", func(t *Tool) {
			t.Inputs = []*Definition{{Name: "m", Type: "map", Properties: []*Definition{str("p", "P")}}}
		}, "inputs.m.p", "header", "only a top-level input"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tl := base()
			tt.edit(tl)
			err := NewRegistry(nil).Add(tl)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Add: %v", err)
				}
				return
			}
			var de *DefinitionError
			if err == nil || !errors.As(err, &de) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Add: %v, want a DefinitionError containing %q", err, tt.want)
			}
			if de.Path != tt.path || de.Rule != tt.rule {
				t.Errorf("error at %q rule %q, want %q rule %q", de.Path, de.Rule, tt.path, tt.rule)
			}
		})
	}
}
