package e2e

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/toolapi/toolapi/tool"
)

// TestUnsignedBoundsAgree checks that the bounds of uint, uint64 and
// uintptr inputs are exact integers end to end: the schema's maximum is
// 2^53-1 written as an integer, and the registry and an independent JSON
// Schema validator accept and refuse the same values around it.
func TestUnsignedBoundsAgree(t *testing.T) {
	r := newRegistry(t, &Scheduler{}, &Site{}, &Lister{})
	raw := r.InputSchemaJSON("e2e.reserve")
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var schema struct {
		Properties map[string]struct {
			Minimum, Maximum json.Number
		}
	}
	if err := dec.Decode(&schema); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"files", "bytes", "slot"} {
		p := schema.Properties[name]
		if p.Minimum != "0" || p.Maximum != "9007199254740991" {
			t.Errorf("%s: minimum %s, maximum %s; want 0 and 9007199254740991", name, p.Minimum, p.Maximum)
		}
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("reserve.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("reserve.json")
	if err != nil {
		t.Fatal(err)
	}
	ctx := as("access content")
	for _, tt := range []struct {
		bytes string
		valid bool
	}{
		{"0", true},
		{"9007199254740991", true},
		{"9007199254740992", false},
		{"9007199254740993", false},
		{"9223372036854775807", false},
		{"18446744073709551615", false},
		{"-1", false},
	} {
		args := `{"files":1,"slot":2,"bytes":` + tt.bytes + `}`
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(args))
		if err != nil {
			t.Fatal(err)
		}
		schemaValid := sch.Validate(inst) == nil
		res := run(t, r, ctx, "e2e.reserve", args)
		if schemaValid != tt.valid || res.Success != tt.valid {
			t.Errorf("bytes %s: schema says valid=%v, the registry %+v; want valid=%v from both", tt.bytes, schemaValid, res, tt.valid)
			continue
		}
		if tt.valid {
			if got, _ := json.Marshal(res.Outputs["result"]); string(got) != tt.bytes {
				t.Errorf("bytes %s arrived as %s", tt.bytes, got)
			}
		} else if tt.bytes != "-1" && tt.bytes != "18446744073709551615" && (res.Failure != tool.FailureInput || !strings.Contains(res.Message, "bytes: must be at most 9007199254740991")) {
			t.Errorf("bytes %s: %q, want the bound named exactly", tt.bytes, res.Message)
		}
	}
}
