// Package exportcheck holds the repository's test of what the
// function-calling exports tell a model: every description is words.
package exportcheck

import (
	"encoding/json"
	"regexp"
	"strconv"
	"testing"

	"github.com/toolapi/toolapi/funcall"
)

// badDescription matches what a description written for a model must not
// hold: a bound that bounds nothing ("At least 0 characters."), a raw
// fragment of a schema ("not: {...}", {"pattern": ...}), or the rule
// against the NUL character every string has, which no model needs told.
var badDescription = regexp.MustCompile(`\bAt least 0 (character|item|entr)|\b[A-Za-z$]+: [{\[]|\{"|"\}|\\x00`)

// DescriptionsInWords fails t for every description, in every format of
// set's declarations, that holds what badDescription matches, and when
// fewer than min descriptions were checked.
func DescriptionsInWords(t testing.TB, set *funcall.Toolset, min int) {
	t.Helper()
	n := 0
	for _, f := range funcall.Formats() {
		d, err := set.Declarations(f)
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
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
	if n < min {
		t.Errorf("only %d descriptions checked, want at least %d", n, min)
	}
}

// descriptionsIn adds every "description" string in the JSON value v to
// out, by path.
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
