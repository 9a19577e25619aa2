package main

import (
	"encoding/json"
	"regexp"
	"strconv"
	"testing"

	"github.com/toolapi/toolapi/funcall"
)

// badDescription matches what a description written for a model must not
// hold: a bound that bounds nothing ("At least 0 characters.") or a raw
// fragment of a schema ("not: {...}", {"pattern": ...}), such as the rule
// against the NUL character every string has, which no model needs told.
var badDescription = regexp.MustCompile(`\bAt least 0 (character|item|entr)|\b[A-Za-z$]+: [{\[]|\{"|"\}|\\x00`)

// descriptionsIn returns every "description" string in the JSON value v,
// with its path.
func descriptionsIn(v any, path string, out map[string]string) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if s, ok := x.(string); ok && k == "description" {
				out[path] = s
				continue
			}
			descriptionsIn(x, path+"/"+k, out)
		}
	case []any:
		for i, x := range v {
			descriptionsIn(x, path+"/"+strconv.Itoa(i), out)
		}
	}
}

// In every function-calling format the album's declarations describe
// their tools and inputs in words only.
func TestExportDescriptionsInWords(t *testing.T) {
	s := newSQLiteStore(t)
	app, _ := newTestApp(t, s)
	set := funcall.New(app.Registry, mustUser(t, s, "admin"))
	n := 0
	for _, f := range funcall.Formats() {
		d, err := set.Declarations(f)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(d)
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		descs := map[string]string{}
		descriptionsIn(v, string(f), descs)
		for path, desc := range descs {
			n++
			if m := badDescription.FindString(desc); m != "" {
				t.Errorf("%s: description holds %q: %s", path, m, desc)
			}
		}
	}
	if n < 50 {
		t.Errorf("only %d descriptions checked", n)
	}
}
