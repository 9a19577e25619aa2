package kitchensink_test

import (
	"context"
	"testing"

	"github.com/toolapi/toolapi/internal/kitchensink"
	"github.com/toolapi/toolapi/tool"
)

// Every tool is in the registry and accepts its sample.
func TestSamples(t *testing.T) {
	reg, err := kitchensink.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(reg.List(nil)); got != len(kitchensink.IDs) {
		t.Fatalf("%d tools, want %d", got, len(kitchensink.IDs))
	}
	for _, id := range kitchensink.IDs {
		res, err := reg.RunJSON(tool.WithAccount(context.Background(), tool.Anonymous), id, []byte(kitchensink.Samples[id]))
		if err != nil || !res.Success || res.Outputs["tool"] != id {
			t.Errorf("%s: %v %+v", id, err, res)
		}
	}
}
