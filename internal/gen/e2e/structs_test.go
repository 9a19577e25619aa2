package e2e

import (
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
