package directive

import (
	"go/token"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var pos = token.Position{Filename: "a.go", Offset: 100, Line: 7, Column: 1}

func TestParse(t *testing.T) {
	tests := []struct {
		line string
		want string // d.Format()
	}{
		{`//tool:method id=album.search op=read permission="access content"`,
			`//tool:method id="album.search" op="read" permission="access content"`},
		{`//tool:method id=a.b destructive=false confirm`,
			`//tool:method id="a.b" destructive="false" confirm`},
		{`//tool:input word "A single word." example=Oma example="Two words"`,
			`//tool:input word description="A single word." example="Oma" example="Two words"`},
		{"//tool:input\tlimit range=1..100 default=10",
			`//tool:input limit range="1..100" default="10"`},
		{`//tool:input tags notblank count=1..5 length=..40 choice=a|b|c`,
			`//tool:input tags notblank count="1..5" length="..40" choice="a|b|c"`},
		{`//tool:entity album op=update`, `//tool:entity album op="update"`},
		{`//tool:entity cover op=view optional`, `//tool:entity cover op="view" optional`},
		{`//tool:output track_count "The number of tracks."`,
			`//tool:output track_count description="The number of tracks."`},
		{`//tool:output multiple type=uri name=files`, `//tool:output multiple type="uri" name="files"`},
		{`//tool:output run members=langcode,documents(uri,problems)`,
			`//tool:output run members="langcode,documents(uri,problems)"`},
		{`//tool:property type=uri`, `//tool:property type="uri"`},
		{`//tool:property "The caption." media=text/html omitnull`,
			`//tool:property description="The caption." media="text/html" omitnull`},
		{`//tool:entitytype album,node`, `//tool:entitytype album,node`},
		{`//tool:config system.site`, `//tool:config system.site`},
		{`//tool:input target type=entity:node definition=defs.Target`,
			`//tool:input target type="entity:node" definition="defs.Target"`},
		{`//tool:input delta type=integer range=-1.5..`,
			`//tool:input delta type="integer" range="-1.5.."`},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			d, diags := Parse(tt.line, pos)
			if len(diags) > 0 {
				t.Fatalf("Parse: %v", diags)
			}
			if got := d.Format(); got != tt.want {
				t.Errorf("Format() = %s\nwant       %s", got, tt.want)
			}
		})
	}
}

func TestParseValues(t *testing.T) {
	d, diags := Parse(`//tool:input tags "Tags." count=2 range=..9.5 choice=x|y example=a example=b notblank=false`, pos)
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	a, _ := d.Lookup("count")
	if *a.Bounds.Min != 2 || *a.Bounds.Max != 2 {
		t.Errorf("count bounds = %d..%d, want 2..2", *a.Bounds.Min, *a.Bounds.Max)
	}
	r, _ := d.Lookup("range")
	if r.Range.Min != nil || *r.Range.Max != 9.5 {
		t.Errorf("range = %v..%v, want ..9.5", r.Range.Min, r.Range.Max)
	}
	c, _ := d.Lookup("choice")
	if diff := cmp.Diff([]string{"x", "y"}, c.Choice); diff != "" {
		t.Errorf("choice (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"a", "b"}, d.List("example")); diff != "" {
		t.Errorf("examples (-want +got):\n%s", diff)
	}
	if d.Flag("notblank") {
		t.Error("notblank=false reads as set")
	}
	if d.String("description") != "Tags." {
		t.Errorf("description = %q", d.String("description"))
	}
}

func TestParseMethodValues(t *testing.T) {
	d, diags := Parse(`//tool:method id=a task=required taskttl=1h30m icon=data:image/png;base64,iVBO needs=logging,sampling`, pos)
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	if got := d.String("task"); got != "required" {
		t.Errorf("task = %q", got)
	}
	if a, _ := d.Lookup("taskttl"); a.Duration != 90*time.Minute {
		t.Errorf("taskttl = %v, want 1h30m", a.Duration)
	}
	if a, _ := d.Lookup("needs"); !reflect.DeepEqual(a.List, []string{"logging", "sampling"}) {
		t.Errorf("needs = %q", a.List)
	}
	d, diags = Parse(`//tool:input region header=X-Region_1 icon=https://example.com/i.png`, pos)
	if len(diags) != 1 || !strings.Contains(diags[0].Message, `unknown key "icon" for //tool:input`) {
		t.Errorf("diagnostics = %v, want icon refused on an input", diags)
	}
	if got := d.String("header"); got != "X-Region_1" {
		t.Errorf("header = %q", got)
	}
}

func TestParseMembers(t *testing.T) {
	d, diags := Parse(`//tool:output run members="langcode, documents(uri,problems), caption{media=text/html label=\"The caption\"}"`, pos)
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	a, _ := d.Lookup("members")
	type m struct {
		Name    string
		Members []m
		Refine  map[string]string
	}
	var conv func([]Member) []m
	conv = func(ms []Member) []m {
		var out []m
		for _, x := range ms {
			y := m{Name: x.Name, Members: conv(x.Members)}
			for _, r := range x.Refine {
				if y.Refine == nil {
					y.Refine = map[string]string{}
				}
				y.Refine[r.Key] = r.Value
			}
			out = append(out, y)
		}
		return out
	}
	want := []m{
		{Name: "langcode"},
		{Name: "documents", Members: []m{{Name: "uri"}, {Name: "problems"}}},
		{Name: "caption", Refine: map[string]string{"media": "text/html", "label": "The caption"}},
	}
	if diff := cmp.Diff(want, conv(a.Members)); diff != "" {
		t.Errorf("members (-want +got):\n%s", diff)
	}
	if a.Members[1].Members[1].Pos.Column != len(`//tool:output run members="langcode, documents(uri,`)+1 {
		t.Errorf("problems at column %d", a.Members[1].Members[1].Pos.Column)
	}
}

func TestParseDiagnostics(t *testing.T) {
	tests := []struct {
		line string
		col  int // column of the first diagnostic
		msg  string
	}{
		{`//tool:methd id=x`, 8, `unknown directive //tool:methd: did you mean method? (known: `},
		{`//tool:entitytypes x`, 8, `unknown directive //tool:entitytypes: did you mean entitytype? (known: `},
		{`//tool:bogus x`, 8, `unknown directive //tool:bogus (known: `},
		{`//tool:method id=x permision=p`, 20, `unknown key "permision" for //tool:method: did you mean permission? (known: `},
		{`//tool:input w defualt=1`, 16, `unknown key "defualt" for //tool:input: did you mean default? (known: `},
		{`//tool:method id=x op=raed`, 23, `op: "raed" is not an operation: did you mean read? (one of: `},
		{`//tool:output r members="a{lable=x}"`, 28, `unknown key "lable" in a member refinement: did you mean label? (known: `},
		{`//tool:`, 8, `directive has no name`},
		{`//tool:method id=x bogus=1`, 20, `unknown key "bogus" for //tool:method`},
		{`//tool:method op=read`, 8, `//tool:method needs id=`},
		{`//tool:method id=x op=fetch`, 23, `op: "fetch" is not an operation`},
		{`//tool:method id=x id=y`, 20, `key "id" is repeated`},
		{`//tool:method id=x access=not-an-ident`, 27, `access: "not-an-ident" is not a Go identifier`},
		{`//tool:method id=x confirm=a.b`, 28, `confirm: must be true, false or a method name, not "a.b"`},
		{`//tool:method id=x confirm confirm=Large`, 28, `key "confirm" is repeated: give either confirm or confirm=Method`},
		{`//tool:method id=x confirm=Large confirm`, 34, `key "confirm" is repeated: give either confirm or confirm=Method`},
		{`//tool:method id`, 15, `id: needs a value`},
		{`//tool:method extra id=x`, 15, `unknown key "extra"`},
		{`//tool:input`, 8, `//tool:input needs a name argument first`},
		{`//tool:input 9lives`, 14, `"9lives" is not a valid name`},
		{`//tool:input w count=5..1`, 22, `count: "5..1": MIN is above MAX`},
		{`//tool:input w count=-1..`, 22, `count: "-1.." is not MIN..MAX`},
		{`//tool:input w range=a..b`, 22, `range: "a..b" is not MIN..MAX (numbers)`},
		{`//tool:input w range=..`, 22, `range: ".." bounds nothing`},
		{`//tool:input w choice=a||b`, 23, `choice: "a||b" has an empty choice`},
		{`//tool:input w type=Entity`, 21, `type: "Entity" is not a data type`},
		{`//tool:input w "unterminated`, 16, `unterminated quoted string`},
		{`//tool:input w "a" "b"`, 20, `a quoted description must come first`},
		{`//tool:input w example=a"b`, 25, `unexpected quote in the value of "example"`},
		{`//tool:input w op=view`, 16, `unknown key "op" for //tool:input`},
		{`//tool:entity album`, 8, `//tool:entity needs op=`},
		{`//tool:entity album op=View`, 24, `op: "View" is not an entity operation`},
		{`//tool:entity album op=view config=x`, 29, `unknown key "config" for //tool:entity`},
		{`//tool:output r members=a(b`, 26, `unclosed "(" in members`},
		{`//tool:output r members=a,,b`, 27, `expected a member name`},
		{`//tool:output r members="a{bogus=1}"`, 28, `unknown key "bogus" in a member refinement`},
		{`//tool:output r members=a)`, 26, `unexpected ")" in members`},
		{`//tool:output r members=a,a`, 27, `member "a" is selected twice`},
		{`//tool:property "x" omitnull=maybe`, 30, `omitnull: must be true or false`},
		{`//tool:property name`, 17, `name: needs a value`},
		{`//tool:entitytype`, 8, `//tool:entitytype needs a name argument first`},
		{`//tool:entitytype album,`, 25, `"" is not a valid name`},
		{`//tool:config "x"`, 15, `//tool:config takes no quoted description`},
		{`//tool:input w "x"y`, 19, `missing space after quoted string`},
		{`//tool:input w "\q"`, 16, `bad quoted string`},
		{`//tool:input w Key=1`, 16, `"Key" is not a key`},
		{`//tool:method id=x task=always`, 25, `task: "always" is not allowed (one of: optional, required)`},
		{`//tool:method id=x task=Optional`, 25, `task: "Optional" is not allowed: did you mean optional? (one of: optional, required)`},
		{`//tool:method id=x task`, 20, `task: needs a value (task=...)`},
		{`//tool:method id=x taskttl=0s`, 28, `taskttl: "0s" is not a positive duration`},
		{`//tool:method id=x taskttl=-1h`, 28, `taskttl: "-1h" is not a positive duration`},
		{`//tool:method id=x task_ttl=1h`, 20, `unknown key "task_ttl" for //tool:method: did you mean taskttl?`},
		{`//tool:method id=x needs=sampling,sampling`, 26, `needs: "sampling" is listed twice`},
		{`//tool:method id=x needs=sampling,`, 26, `needs: "" is not allowed (one or more of: sampling, logging`},
		{`//tool:method id=x needs=elicitation`, 26, `needs: "elicitation" is not allowed`},
		{`//tool:method id=x icon=/a.png`, 25, `icon: "/a.png" is not an https: or data: address`},
		{`//tool:method id=x icon=https:///a.png`, 25, `is not an https: or data: address`},
		{`//tool:method id=x icon=data:text/plain,hi`, 25, `is not an image: a data: address must start data:image/`},
		{`//tool:input w header=X:Region`, 23, `header: "X:Region" is not a header name`},
		{`//tool:input w header=Région`, 23, `is not a header name`},
		{`//tool:entity album op=view header=Album`, 29, `unknown key "header" for //tool:entity`},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			_, diags := Parse(tt.line, pos)
			if len(diags) == 0 {
				t.Fatalf("no diagnostic, want %q", tt.msg)
			}
			d := diags[0]
			if !strings.Contains(d.Message, tt.msg) {
				t.Errorf("message = %q, want it to contain %q", d.Message, tt.msg)
			}
			if d.Pos.Column != tt.col || d.Pos.Line != 7 || d.Pos.Offset != 100+tt.col-1 {
				t.Errorf("position = %d:%d (offset %d), want 7:%d", d.Pos.Line, d.Pos.Column, d.Pos.Offset, tt.col)
			}
		})
	}
}

// TestConfirmFlagOrMethod checks that confirm is a flag or names a
// method, and that Flag and Method tell which.
func TestConfirmFlagOrMethod(t *testing.T) {
	tests := []struct {
		line   string
		flag   bool
		method string
	}{
		{`//tool:method id=x`, false, ""},
		{`//tool:method id=x confirm`, true, ""},
		{`//tool:method id=x confirm=true`, true, ""},
		{`//tool:method id=x confirm=false`, false, ""},
		{`//tool:method id=x confirm=NeedsConfirming`, false, "NeedsConfirming"},
	}
	for _, tt := range tests {
		d, diags := Parse(tt.line, pos)
		if len(diags) > 0 {
			t.Fatalf("%s: %v", tt.line, diags)
		}
		if d.Flag("confirm") != tt.flag || d.Method("confirm") != tt.method {
			t.Errorf("%s: Flag %v, Method %q; want %v, %q", tt.line, d.Flag("confirm"), d.Method("confirm"), tt.flag, tt.method)
		}
	}
}

func TestParseCollectsEveryProblem(t *testing.T) {
	_, diags := Parse(`//tool:method op=fetch bogus=1 confirm=2`, pos)
	var cols []int
	for _, d := range diags {
		cols = append(cols, d.Pos.Column)
	}
	if diff := cmp.Diff([]int{18, 24, 40, 8}, cols); diff != "" {
		t.Errorf("diagnostic columns (-want +got):\n%s\n%v", diff, diags)
	}
}

// TestSuggest checks the "did you mean" candidate: the closest within one
// edit for short words and two for longer ones, case ignored, a swap of
// neighbours one edit, and none when nothing is that close.
func TestSuggest(t *testing.T) {
	keys := []string{"id", "label", "description", "op", "destructive", "permission", "access", "refine", "confirm", "deprecated"}
	tests := []struct{ word, want string }{
		{"permision", "permission"},
		{"Permission", "permission"},
		{"lable", "label"},
		{"descriptoin", "description"},
		{"destrutcive", "destructive"},
		{"ip", "id"},
		{"o", ""},
		{"colour", ""},
		{"confrim", "confirm"},
		{"deprecate", "deprecated"},
		{"acess", "access"},
		{"refines", "refine"},
		{"xyz", ""},
		{"label", ""},
	}
	for _, tt := range tests {
		if got := Suggest(tt.word, keys); got != tt.want {
			t.Errorf("Suggest(%q) = %q, want %q", tt.word, got, tt.want)
		}
	}
}

func TestParseTag(t *testing.T) {
	tests := []struct {
		tag     string
		want    Tag
		wantErr string
	}{
		{"", Tag{}, ""},
		{"title", Tag{Name: "title"}, ""},
		{",omitnull,type=uri,media=text/html,label=Cover", Tag{Args: []Arg{
			{Key: "omitnull", Value: "true", Bare: true}, {Key: "type", Value: "uri"}, {Key: "media", Value: "text/html"}, {Key: "label", Value: "Cover"},
		}}, ""},
		{"url,type=entity:node", Tag{Name: "url", Args: []Arg{{Key: "type", Value: "entity:node"}}}, ""},
		{"limit,default=10,range=1..100,choice=10|20", Tag{Name: "limit", Args: []Arg{
			{Key: "default", Value: "10"},
			{Key: "range", Value: "1..100", Range: &NumBounds{Min: ptr(1.0), Max: ptr(100.0)}},
			{Key: "choice", Value: "10|20", Choice: []string{"10", "20"}},
		}}, ""},
		{",notblank,length=1..5,pattern=^[a-z]+$,example=ab,example=cd", Tag{Args: []Arg{
			{Key: "notblank", Value: "true", Bare: true},
			{Key: "length", Value: "1..5", Bounds: &IntBounds{Min: ptr(1), Max: ptr(5)}},
			{Key: "pattern", Value: "^[a-z]+$"}, {Key: "example", Value: "ab"}, {Key: "example", Value: "cd"},
		}}, ""},
		{`tags,default=["new","hot"],count=0..5`, Tag{Name: "tags", Args: []Arg{
			{Key: "default", Value: `["new","hot"]`},
			{Key: "count", Value: "0..5", Bounds: &IntBounds{Min: ptr(0), Max: ptr(5)}},
		}}, ""},
		{`meta,default={"a":[1,2],"b":"x,]}"},notnull`, Tag{Name: "meta", Args: []Arg{
			{Key: "default", Value: `{"a":[1,2],"b":"x,]}"}`}, {Key: "notnull", Value: "true", Bare: true},
		}}, ""},
		{`tags,pattern=^[a-z]+$,default=["a"]`, Tag{Name: "tags", Args: []Arg{
			{Key: "pattern", Value: "^[a-z]+$"}, {Key: "default", Value: `["a"]`},
		}}, ""},
		{`tags,default=["new","hot"`, Tag{}, `default: the value ["new","hot" has no closing ']'`},
		{`tags,default=["new]`, Tag{}, `default: the value ["new] has no closing quote`},
		{`tags,default=[1}]`, Tag{}, `default: the value [1} has a '}' that closes nothing`},
		{",default=1,default=2", Tag{}, "default is given twice"},
		{",range=9..1", Tag{}, "range:"},
		{",bogus", Tag{}, `unknown option "bogus" (known: `},
		{",defualt=3", Tag{}, `unknown option "defualt=3": did you mean default? (known: `},
		{",Label=x", Tag{}, `unknown option "Label=x": did you mean label? (known: `},
		{",type=", Tag{}, "type needs a value"},
		{",type=URI", Tag{}, `is not a data type`},
		{"a-b", Tag{}, "is not a member name"},
		{",omitnull=1", Tag{}, "omitnull takes no value"},
		{"-", Tag{}, `"-" does not leave a field out: a struct input leaves out a field tagged json:"-"`},
	}
	for _, tt := range tests {
		got, err := ParseTag(tt.tag)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseTag(%q) error = %v, want %q", tt.tag, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseTag(%q): %v", tt.tag, err)
		} else if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("ParseTag(%q) (-want +got):\n%s", tt.tag, diff)
		}
	}
}

// TestCheckStructTag checks that every syntax reflect.StructTag cannot
// read is an error saying how to write it, and that every tag it reads is
// accepted, agreeing with reflect on what the tool key holds.
func TestCheckStructTag(t *testing.T) {
	tests := []struct {
		tag     string
		wantErr string // "" for a good tag
	}{
		{``, ""},
		{`tool:"a,default=5"`, ""},
		{`json:"a,omitempty" tool:"a,default=5"`, ""},
		{`  tool:"a"  json:"b"  `, ""},
		{`tool:"a\"b"`, ""},
		{`tool: "a,default=5"`, "malformed struct tag `tool: \"a,default=5\"`: a space follows the colon of tool: write tool:\"a,default=5\" with no space"},
		{`tool:"x`, "malformed struct tag `tool:\"x`: the value of tool has no closing quote: add one after the value"},
		{`json:"x"tool:"y"`, `no space follows the value of json: separate key:"value" pairs with a space`},
		{`tool :"x"`, `a space comes before the colon of tool: write tool:"..." with no space`},
		{`tool`, `tool is not followed by :"value" (write tool:"...")`},
		{`tool:`, `tool: has no value (write tool:"...")`},
		{`tool:'x'`, `the value of tool is in ' quotes: write it in double quotes, tool:"..."`},
		{`tool:x`, `the value of tool is not quoted: write tool:"..."`},
		{`:"x"`, `":" at byte 0 does not start a key:"value" pair`},
		{`tool:"\q"`, `the value of tool, "\q", is not a valid Go string`},
	}
	for _, tt := range tests {
		err := CheckStructTag(tt.tag)
		if tt.wantErr == "" {
			if err != nil {
				t.Errorf("CheckStructTag(%#q): %v", tt.tag, err)
				continue
			}
			want, wantOK := reflect.StructTag(tt.tag).Lookup("tool")
			if strings.Contains(tt.tag, "tool") && !wantOK {
				t.Errorf("CheckStructTag(%#q) accepts a tag reflect reads no tool key from (%q)", tt.tag, want)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("CheckStructTag(%#q) = %v, want %q", tt.tag, err, tt.wantErr)
		}
	}
}

// FuzzParse checks that Parse never panics, that its diagnostics lie on
// the line, and that a directive parsed without diagnostics is well formed:
// it formats to a line that parses back, without diagnostics, to the same
// directive.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`//tool:method id=album.search op=read permission="access content"`,
		`//tool:input word "A single word." example=Oma notblank count=1..3 range=-1..1.5 choice=a|b`,
		`//tool:entity album op=update optional`,
		`//tool:output run members="langcode,documents(uri,problems),caption{media=text/html}"`,
		`//tool:property "The caption." type=uri omitnull`,
		`//tool:entitytype album,node`,
		`//tool:config system.site`,
		`//tool:methd`,
		`//tool:input w "\x"`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		d, diags := Parse(line, pos)
		for _, dg := range diags {
			if dg.Pos.Line != 7 || dg.Pos.Column < 1 || dg.Pos.Column > len(line)+1 {
				t.Fatalf("diagnostic %q at column %d outside the line (%d bytes)", dg.Message, dg.Pos.Column, len(line))
			}
			if dg.Message == "" {
				t.Fatal("empty diagnostic message")
			}
		}
		if len(diags) > 0 {
			return
		}
		if d == nil {
			t.Fatal("no directive and no diagnostic")
		}
		if !utf8.ValidString(line) {
			return
		}
		again, diags2 := Parse(d.Format(), pos)
		if len(diags2) > 0 {
			t.Fatalf("%q parsed clean but its Format %q does not: %v", line, d.Format(), diags2)
		}
		if again.Format() != d.Format() {
			t.Fatalf("round trip: %q became %q", d.Format(), again.Format())
		}
	})
}

func TestIsSpaced(t *testing.T) {
	tests := []struct {
		comment string
		want    bool
	}{
		{"// tool:method id=a", true},
		{"//\ttool:input word", true},
		{"//   tool:output", true},
		{"//tool:method id=a", false},
		{"// tool: a word", false},
		{"// the tool:method directive", false},
		{"// Tool:method", false},
		{"/* tool:method */", false},
	}
	for _, tt := range tests {
		if got := IsSpaced(tt.comment); got != tt.want {
			t.Errorf("IsSpaced(%q) = %v, want %v", tt.comment, got, tt.want)
		}
	}
}

func ptr[T any](v T) *T { return &v }

func TestMistyped(t *testing.T) {
	tests := []struct {
		comment    string
		wantOffset int
		wantMsg    string // "" when the comment is not reported
	}{
		{"//tools:method id=a", 0, `"//tools:method" is not a directive, as its prefix is not "//tool:": write //tool:method`},
		{"//Tool:input word", 0, `"//Tool:input" is not a directive, as its prefix is not "//tool:": write //tool:input`},
		{"// tol:entity album op=view", 0, `"// tol:entity" is not a directive, as its prefix is not "//tool:": write //tool:entity`},
		{"//toool:output", 0, `"//toool:output" is not a directive, as its prefix is not "//tool:": write //tool:output`},
		{"//tpol:config c", 0, `"//tpol:config" is not a directive, as its prefix is not "//tool:": write //tool:config`},
		{"/* tool:method id=a op=read */", 3, `"tool:method" in a /* */ comment is not a directive: a directive is a line comment, write //tool:method ... on a line of its own in the doc comment`},
		{"/*tool:input word*/", 2, `"tool:input" in a /* */ comment is not a directive: a directive is a line comment, write //tool:input ... on a line of its own in the doc comment`},
		{"/*\nSearch finds albums.\n\n\ttool:method id=a\n*/", 26, `"tool:method" in a /* */ comment is not a directive: a directive is a line comment, write //tool:method ... on a line of its own in the doc comment`},
		{"/*\n * //tool:output x\n */", 8, `"tool:output" in a /* */ comment is not a directive: a directive is a line comment, write //tool:output ... on a line of its own in the doc comment`},
		// Not reported: directives, spaced ones (IsSpaced), prose, unknown names.
		{"//tool:method id=a", 0, ""},
		{"// tool:method id=a", 0, ""},
		{"//tools:methods", 0, ""},
		{"//tools: method", 0, ""},
		{"// see tools:method in the guide", 0, ""},
		{"//todo:method", 0, ""},
		{"//go:generate x", 0, ""},
		{"/* the tool: method */", 0, ""},
		{"/* a tool:method in prose */", 0, ""},
		{"/* tools:method */", 0, ""},
	}
	for _, tt := range tests {
		off, msg, ok := Mistyped(tt.comment)
		if ok != (tt.wantMsg != "") || msg != tt.wantMsg || off != tt.wantOffset {
			t.Errorf("Mistyped(%q) = %d, %q, %v; want %d, %q", tt.comment, off, msg, ok, tt.wantOffset, tt.wantMsg)
		}
		if ok && strings.HasPrefix(tt.comment, "/*") && !strings.HasPrefix(tt.comment[off:], "tool:") {
			t.Errorf("Mistyped(%q): offset %d does not point at tool:", tt.comment, off)
		}
	}
}
