package e2e

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestStructInputDefaults checks that the properties of a struct input
// take the defaults and constraints their tool tags give.
func TestStructInputDefaults(t *testing.T) {
	s := &Scheduler{}
	r := newRegistry(t, s, &Site{}, &Lister{})
	for _, args := range []string{`{"filter":{"word":"front"}}`, `{"filter":{"word":"front","limit":null,"order":null}}`} {
		s.Filters = nil
		res := run(t, r, as("access content"), "e2e.filter", args)
		if !res.Success {
			t.Fatalf("%s: run failed: %s %v", args, res.Message, res.Violations)
		}
		if diff := cmp.Diff([]Filter{{Word: "front", Limit: 10, Order: "newest"}}, s.Filters); diff != "" {
			t.Errorf("%s: the method received (-want +got):\n%s", args, diff)
		}
	}
	res := run(t, r, as("access content"), "e2e.filter", `{"filter":{"word":"","limit":500,"order":"random"}}`)
	if res.Success || len(res.Violations) != 3 {
		t.Errorf("invalid properties: success %v, violations %v, want 3", res.Success, res.Violations)
	}
}

// TestOptionalStructInput checks that a struct input whose fields are all
// optional (here through a nested struct of the same kind) is optional,
// advertised with the default {}, and reads as its fields' defaults when
// left out, sent as null or sent empty.
func TestOptionalStructInput(t *testing.T) {
	r := newRegistry(t, &Scheduler{}, &Site{}, &Lister{})
	ctx := as("access content")
	for _, args := range []string{`{}`, `{"window":null}`, `{"window":{}}`, `{"window":{"paging":{}}}`} {
		res := run(t, r, ctx, "e2e.page", args)
		if !res.Success || res.Outputs["result"] != `20 newest ""` {
			t.Errorf("%s: %+v, want the defaults", args, res)
		}
	}
	res := run(t, r, ctx, "e2e.page", `{"window":{"paging":{"cursor":"c9","limit":5}}}`)
	if !res.Success || res.Outputs["result"] != `5 newest "c9"` {
		t.Errorf("a window set in part: %+v", res)
	}
	var schema struct {
		Required   []string `json:"required"`
		Properties map[string]struct {
			Default    any `json:"default"`
			Properties map[string]struct {
				Default any `json:"default"`
			} `json:"properties"`
			Required []string `json:"required"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(r.InputSchemaJSON("e2e.page"), &schema); err != nil {
		t.Fatal(err)
	}
	w := schema.Properties["window"]
	if len(schema.Required) != 0 || len(w.Required) != 0 || !cmp.Equal(w.Default, map[string]any{}) || !cmp.Equal(w.Properties["paging"].Default, map[string]any{}) {
		t.Errorf("schema: %+v, want window and paging optional with the default {}", schema)
	}
}
