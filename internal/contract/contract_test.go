package contract

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
)

func schema(t *testing.T, s string) *jsonschema.Schema {
	t.Helper()
	var out jsonschema.Schema
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return &out
}

const noOutputs = `{"type":"object","properties":{},"additionalProperties":false}`

func TestCompare(t *testing.T) {
	in := func(props, required string) string {
		return `{"type":"object","properties":{` + props + `},"required":[` + required + `],"additionalProperties":false}`
	}
	for _, tc := range []struct {
		name           string
		oldIn, newIn   string
		oldOut, newOut string
		want           []string
	}{
		{name: "same", oldIn: in(`"a":{"type":"string"}`, `"a"`), newIn: in(`"a":{"type":"string"}`, `"a"`)},
		{name: "new optional input", oldIn: in(``, ``), newIn: in(`"a":{"type":"string"}`, ``),
			want: []string{"compatible: t inputs.a: a new optional input"}},
		{name: "new required input", oldIn: in(``, ``), newIn: in(`"a":{"type":"string"}`, `"a"`),
			want: []string{"breaking: t inputs.a: a new required input"}},
		{name: "removed input", oldIn: in(`"a":{"type":"string"}`, ``), newIn: in(``, ``),
			want: []string{"breaking: t inputs.a: the input was removed"}},
		{name: "optional made required", oldIn: in(`"a":{"type":"string"}`, ``), newIn: in(`"a":{"type":"string"}`, `"a"`),
			want: []string{"breaking: t inputs.a: it is now required"}},
		{name: "required made optional", oldIn: in(`"a":{"type":"string"}`, `"a"`), newIn: in(`"a":{"type":"string"}`, ``),
			want: []string{"compatible: t inputs.a: it is now optional"}},
		{name: "input type narrowed", oldIn: in(`"n":{"type":"number"}`, ``), newIn: in(`"n":{"type":"integer"}`, ``),
			want: []string{"breaking: t inputs.n: no longer allows number (type integer, was number)"}},
		{name: "input type widened", oldIn: in(`"n":{"type":"integer"}`, ``), newIn: in(`"n":{"type":"number"}`, ``),
			want: []string{"compatible: t inputs.n: now allows number (type number, was integer)"}},
		{name: "choice removed and added", oldIn: in(`"c":{"type":"string","enum":["a","b"]}`, ``), newIn: in(`"c":{"type":"string","enum":["a","c"]}`, ``),
			want: []string{`breaking: t inputs.c: the choice "b" was removed`, `compatible: t inputs.c: the choice "c" was added`}},
		{name: "choices titled", oldIn: in(`"c":{"type":"string","enum":["a","b"]}`, ``),
			newIn: in(`"c":{"type":"string","oneOf":[{"const":"a","title":"A"},{"const":"b","title":"B"}]}`, ``)},
		{name: "titled choice removed", oldIn: in(`"c":{"type":"string","oneOf":[{"const":"a","title":"A"},{"const":"b","title":"B"}]}`, ``),
			newIn: in(`"c":{"type":"string","oneOf":[{"const":"a","title":"A"}]}`, ``),
			want:  []string{`breaking: t inputs.c: the choice "b" was removed`}},
		{name: "multi-select titled", oldIn: in(`"l":{"type":"array","items":{"type":"string","enum":["a","b"]}}`, ``),
			newIn: in(`"l":{"type":"array","items":{"anyOf":[{"const":"a","title":"A"},{"const":"b","title":"B"}]}}`, ``)},
		{name: "titled multi-select choice removed", oldIn: in(`"l":{"type":"array","items":{"anyOf":[{"const":"a","title":"A"},{"const":"b","title":"B"}]}}`, ``),
			newIn: in(`"l":{"type":"array","items":{"type":"string","enum":["a"]}}`, ``),
			want:  []string{`breaking: t inputs.l[]: the choice "b" was removed`}},
		{name: "range narrowed", oldIn: in(`"n":{"type":"integer","minimum":0,"maximum":100}`, ``), newIn: in(`"n":{"type":"integer","minimum":1,"maximum":50}`, ``),
			want: []string{"breaking: t inputs.n: the minimum rose from 0 to 1", "breaking: t inputs.n: the maximum fell from 100 to 50"}},
		{name: "range widened", oldIn: in(`"n":{"type":"integer","maximum":10}`, ``), newIn: in(`"n":{"type":"integer"}`, ``),
			want: []string{"compatible: t inputs.n: the maximum rose from 10 to none"}},
		{name: "list cap lowered", oldIn: in(`"l":{"type":"array","items":{"type":"string"},"maxItems":100}`, ``), newIn: in(`"l":{"type":"array","items":{"type":"string","maxLength":5},"maxItems":10}`, ``),
			want: []string{"breaking: t inputs.l: the maximum number of items fell from 100 to 10", "breaking: t inputs.l[]: the maximum number of characters fell from none to 5"}},
		{name: "a minimum length of 0 is none", oldIn: in(`"s":{"type":"string"}`, ``), newIn: in(`"s":{"type":"string","minLength":0,"maxLength":9}`, ``),
			want: []string{"breaking: t inputs.s: the maximum number of characters fell from none to 9"}},
		{name: "pattern added", oldIn: in(`"s":{"type":"string"}`, ``), newIn: in(`"s":{"type":"string","pattern":"^a"}`, ``),
			want: []string{`breaking: t inputs.s: the pattern "^a" was added`}},
		{name: "nested map property required", oldIn: in(`"m":{"type":"object","properties":{"x":{"type":"string"}},"additionalProperties":false}`, ``),
			newIn: in(`"m":{"type":"object","properties":{"x":{"type":"string"}},"required":["x"],"additionalProperties":false}`, ``),
			want:  []string{"breaking: t inputs.m.x: it is now required"}},
		{name: "map value type", oldIn: in(`"m":{"type":"object","additionalProperties":{"type":"number"}}`, ``),
			newIn: in(`"m":{"type":"object","additionalProperties":{"type":"integer"}}`, ``),
			want:  []string{"breaking: t inputs.m{}: no longer allows number (type integer, was number)"}},
		{name: "output removed", oldIn: in(``, ``), newIn: in(``, ``),
			oldOut: in(`"result":{"type":"string"}`, `"result"`), newOut: in(``, ``),
			want: []string{"breaking: t outputs.result: the output was removed"}},
		{name: "output added", oldIn: in(``, ``), newIn: in(``, ``),
			oldOut: in(``, ``), newOut: in(`"count":{"type":"integer"}`, `"count"`),
			want: []string{"compatible: t outputs.count: a new output"}},
		{name: "output may be missing or null", oldIn: in(``, ``), newIn: in(``, ``),
			oldOut: in(`"r":{"type":"string"}`, `"r"`), newOut: in(`"r":{"type":["string","null"]}`, ``),
			want: []string{"breaking: t outputs.r: it may now be missing", "breaking: t outputs.r: now allows null (type string or null, was string)"}},
		{name: "output choice added, range narrowed", oldIn: in(``, ``), newIn: in(``, ``),
			oldOut: in(`"s":{"type":"string","enum":["a"]},"n":{"type":"integer","maximum":10}`, ``),
			newOut: in(`"s":{"type":"string","enum":["a","b"]},"n":{"type":"integer","maximum":5}`, ``),
			want:   []string{"compatible: t outputs.n: the maximum fell from 10 to 5", `breaking: t outputs.s: the choice "b" was added`}},
		{name: "output item property removed", oldIn: in(``, ``), newIn: in(``, ``),
			oldOut: in(`"result":{"type":"array","items":{"type":"object","properties":{"id":{"type":"string"},"title":{"type":"string"}},"required":["id"],"additionalProperties":false}}`, `"result"`),
			newOut: in(`"result":{"type":"array","items":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"],"additionalProperties":false}}`, `"result"`),
			want:   []string{"breaking: t outputs.result[].title: the property was removed"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			oo, no := tc.oldOut, tc.newOut
			if oo == "" {
				oo, no = noOutputs, noOutputs
			}
			old := []Tool{{ID: "t", InputSchema: schema(t, tc.oldIn), OutputSchema: schema(t, oo)}}
			new := []Tool{{ID: "t", InputSchema: schema(t, tc.newIn), OutputSchema: schema(t, no)}}
			var got []string
			for _, c := range Compare(old, new) {
				got = append(got, c.String())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("changes (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCompareTools(t *testing.T) {
	s := schema(t, noOutputs)
	old := []Tool{{ID: "a", InputSchema: s, OutputSchema: s}, {ID: "b", InputSchema: s, OutputSchema: s}}
	new := []Tool{{ID: "b", Deprecated: "use c", InputSchema: s, OutputSchema: s}, {ID: "c", InputSchema: s, OutputSchema: s}}
	changes := Compare(old, new)
	var got []string
	for _, c := range changes {
		got = append(got, c.String())
	}
	want := []string{
		"breaking: a: the tool was removed",
		"compatible: b: the tool is deprecated: use c",
		"compatible: c: the tool was added",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
	if !Breaking(changes) || Breaking(changes[1:]) {
		t.Errorf("Breaking: %v for all, %v without the removal", Breaking(changes), Breaking(changes[1:]))
	}
}

// A tool's task mode is part of its contract.
func TestCompareTask(t *testing.T) {
	s := schema(t, noOutputs)
	for _, tc := range []struct {
		old, new string
		want     string
	}{
		{"", "", ""},
		{"", "optional", "compatible: t: a call may now run as a background task (task optional, was never)"},
		{"required", "optional", "compatible: t: a call may now run as a background task (task optional, was required)"},
		{"", "required", "breaking: t: every call now runs as a background task (task required, was never)"},
		{"optional", "required", "breaking: t: every call now runs as a background task (task required, was optional)"},
		{"optional", "", "breaking: t: calls no longer run as background tasks (task never, was optional)"},
	} {
		var got string
		for _, c := range Compare([]Tool{{ID: "t", Task: tc.old, InputSchema: s, OutputSchema: s}}, []Tool{{ID: "t", Task: tc.new, InputSchema: s, OutputSchema: s}}) {
			got = c.String()
			if c.Keyword != "task" {
				t.Errorf("%q to %q: keyword %q, want task", tc.old, tc.new, c.Keyword)
			}
		}
		if got != tc.want {
			t.Errorf("%q to %q: %q, want %q", tc.old, tc.new, got, tc.want)
		}
	}
}

func TestLockRoundTrip(t *testing.T) {
	l := &Lock{Tools: []Tool{
		{ID: "z.last", InputSchema: schema(t, `{"type":"object","properties":{"n":{"type":"integer","maximum":3}},"additionalProperties":false}`), OutputSchema: schema(t, noOutputs)},
		{ID: "a.first", Deprecated: "use z.last", InputSchema: schema(t, noOutputs), OutputSchema: schema(t, noOutputs)},
	}}
	b, err := l.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	var back Lock
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Tools[0].ID != "a.first" {
		t.Errorf("first tool %s, want a.first (ordered by ID)", back.Tools[0].ID)
	}
	if c := Compare(l.Tools, back.Tools); len(c) != 0 {
		t.Errorf("a lock read back differs: %v", c)
	}
}

// Each change names the JSON Schema keyword it is about, so that callers
// can place it (toolgen at the directive key that set it).
func TestChangeKeywords(t *testing.T) {
	old := schema(t, `{"type":"object","properties":{
		"c":{"type":"string","enum":["a","b"]},
		"n":{"type":"integer","maximum":10},
		"s":{"type":"string","maxLength":9,"pattern":"^a"},
		"l":{"type":"array","items":{"type":"string"},"maxItems":5},
		"m":{"type":"object","additionalProperties":{"type":"string"},"maxProperties":4},
		"r":{"type":"string"},
		"gone":{"type":"string"}},"additionalProperties":false}`)
	new := schema(t, `{"type":"object","properties":{
		"c":{"type":"string","enum":["a"]},
		"n":{"type":"integer","maximum":5},
		"s":{"type":"string","maxLength":3,"pattern":"^b"},
		"l":{"type":"array","items":{"type":"string"},"maxItems":2},
		"m":{"type":"object","additionalProperties":{"type":"string"},"maxProperties":2},
		"r":{"type":"string"}},"required":["r"],"additionalProperties":false}`)
	out := schema(t, noOutputs)
	got := map[string][]string{}
	for _, c := range Compare([]Tool{{ID: "t", InputSchema: old, OutputSchema: out}}, []Tool{{ID: "t", InputSchema: new, OutputSchema: out}}) {
		got[c.Path] = append(got[c.Path], c.Keyword)
	}
	want := map[string][]string{
		"inputs.c":    {"enum"},
		"inputs.n":    {"maximum"},
		"inputs.s":    {"maxLength", "pattern"},
		"inputs.l":    {"maxItems"},
		"inputs.m":    {"maxProperties"},
		"inputs.r":    {"required"},
		"inputs.gone": {"properties"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("keywords by path (-want +got):\n%s", diff)
	}
}
