package mcpserver_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/toolapi/toolapi/internal/kitchensink"
	"github.com/toolapi/toolapi/mcpserver"
	"github.com/toolapi/toolapi/tool"
)

// With FoldAnnotations no advertised schema carries an annotation keyword,
// the descriptions say what they said, and every schema accepts what the
// schema without the option accepts.
func TestFoldAnnotations(t *testing.T) {
	reg, err := kitchensink.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	folded := connect(t, mcpserver.New(reg, &mcpserver.Options{FoldAnnotations: true}), tool.Anonymous, nil)
	plain := connect(t, mcpserver.New(reg, nil), tool.Anonymous, nil)
	fl, err := folded.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	pl, err := plain.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(fl.Tools) != len(kitchensink.IDs) || len(pl.Tools) != len(fl.Tools) {
		t.Fatalf("%d tools folded, %d plain", len(fl.Tools), len(pl.Tools))
	}
	annotations := []string{`"examples"`, `"default"`, `"contentMediaType"`, `"contentEncoding"`}
	sawExample := false
	for i, mt := range fl.Tools {
		in := mustJSON(t, mt.InputSchema)
		out := mustJSON(t, mt.OutputSchema)
		for _, a := range annotations {
			if bytes.Contains(in, []byte(a)) || bytes.Contains(out, []byte(a)) {
				t.Errorf("%s: a folded schema still has %s: %s", mt.Name, a, in)
			}
		}
		sawExample = sawExample || strings.Contains(string(in), `Example: \"hello\".`)
		plainIn := mustJSON(t, pl.Tools[i].InputSchema)
		tl, _ := reg.ToolByName(mt.Name)
		for _, args := range []string{kitchensink.Samples[tl.ID], `{}`, `{"text":""}`, `{"word":7}`, `{"settings":{}}`} {
			a, b := validates(t, in, args), validates(t, plainIn, args)
			if a != b {
				t.Errorf("%s: %s is valid %v folded, %v plain", mt.Name, args, a, b)
			}
		}
	}
	if !sawExample {
		t.Error("no folded description says the example")
	}
}

func validates(t *testing.T, schema []byte, doc string) bool {
	t.Helper()
	s, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("mem://s.json", s); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("mem://s.json")
	if err != nil {
		t.Fatalf("%v\n%s", err, schema)
	}
	var v any
	if err := json.Unmarshal([]byte(doc), &v); err != nil {
		t.Fatal(err)
	}
	inst, _ := jsonschema.UnmarshalJSON(strings.NewReader(doc))
	return sch.Validate(inst) == nil
}
