package explorer

import (
	"context"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolapi/toolapi/tool"
)

// renderField renders the input def holding value (as typed) the way the
// execute form does, and returns its HTML.
func renderField(t *testing.T, env *testEnv, def *tool.Definition, value any) (string, *form) {
	t.Helper()
	fm := env.exp.newForm(context.Background(), &visit{acct: testUsers["alice"]}, &tool.Tool{ID: "test.field", Inputs: []*tool.Definition{def}})
	if value != nil {
		fm.state[def.Name] = value
	}
	fm.build(nil)
	return string(fm.fields[0].HTML()), fm
}

// TestAdapterRoundTrip renders a field of each data type with a value,
// submits the form as a browser would and reads the value back: it must
// be what was shown.
func TestAdapterRoundTrip(t *testing.T) {
	env := newTestEnv(t, nil)
	tests := []struct {
		name    string
		def     *tool.Definition
		value   any
		want    any    // what Extract returns; nil means value
		control string // a fragment the rendered control has
	}{
		{"string", &tool.Definition{Name: "s", Type: "string"}, `Hello <b>"world"</b> & co`, nil, `type="text"`},
		{"textarea by media", &tool.Definition{Name: "s", Type: "string", Constraints: tool.Constraints{Media: "text/markdown"}}, "\nfirst line\nsecond <line>", nil, `<textarea`},
		{"textarea by length", &tool.Definition{Name: "s", Type: "string", Constraints: tool.Constraints{Length: &tool.Bounds{Max: ptr(5000)}}}, "long", nil, `<textarea`},
		{"integer", &tool.Definition{Name: "n", Type: "integer", Constraints: tool.Constraints{Range: &tool.Range{Min: ptr(-3.0), Max: ptr(7.0)}}}, "5", nil, `type="number" id="f-n" name="in:n" value="5" min="-3" max="7" step="1"`},
		{"float", &tool.Definition{Name: "x", Type: "float"}, "1.25", nil, `step="any"`},
		{"boolean true", &tool.Definition{Name: "b", Type: "boolean"}, "true", nil, `type="checkbox"`},
		{"boolean false", &tool.Definition{Name: "b", Type: "boolean"}, "false", nil, `<input type="hidden" name="in:b" value="false">`},
		{"email", &tool.Definition{Name: "m", Type: "email"}, "ann@example.com", nil, `type="email"`},
		{"uri", &tool.Definition{Name: "u", Type: "uri"}, "https://example.com/a?b=c&d=e", nil, `type="url"`},
		{"date", &tool.Definition{Name: "d", Type: "datetime_iso8601", Constraints: tool.Constraints{DateOnly: true}}, "2024-05-01", nil, `type="date"`},
		{"date from RFC 3339", &tool.Definition{Name: "d", Type: "datetime_iso8601", Constraints: tool.Constraints{DateOnly: true}}, "2024-05-01T00:00:00Z", "2024-05-01", `type="date"`},
		{"datetime", &tool.Definition{Name: "t", Type: "datetime_iso8601"}, "2024-05-01T12:30:00Z", "2024-05-01T12:30:00", `type="datetime-local"`},
		{"timestamp", &tool.Definition{Name: "t", Type: "timestamp"}, "2024-05-01T12:30:15", nil, `type="datetime-local"`},
		{"duration", &tool.Definition{Name: "w", Type: "duration"}, "PT1H30M", nil, `placeholder="PT1H30M"`},
		{"choice", &tool.Definition{Name: "c", Type: "string", Constraints: tool.Constraints{Choice: []any{"red", "green", "blue"}}}, "green", nil, `<option value="green" selected>`},
		{"integer choice", &tool.Definition{Name: "c", Type: "integer", Constraints: tool.Constraints{Choice: []any{1, 2, 3}}}, "2", nil, `<option value="2" selected>`},
		{"list", &tool.Definition{Name: "tags", Type: "list", Items: &tool.Definition{Type: "string"}}, []any{"a", "b c"}, nil, `name="rows:tags" value="2"`},
		{"list of maps", &tool.Definition{Name: "rows", Type: "list", Items: &tool.Definition{Type: "map", Properties: []*tool.Definition{{Name: "k", Type: "string"}, {Name: "n", Type: "integer"}}}},
			[]any{map[string]any{"k": "x", "n": "1"}, map[string]any{"k": "y"}}, nil, `name="in:rows[1].k"`},
		{"map", &tool.Definition{Name: "settings", Type: "map", Properties: []*tool.Definition{{Name: "limit", Type: "integer"}, {Name: "label", Type: "string"}}},
			map[string]any{"limit": "5", "label": "x"}, nil, `<fieldset class="map"`},
		{"free map", &tool.Definition{Name: "meta", Type: "map"}, "{\n  \"k\": \"v\"\n}", nil, `class="code"`},
		{"any", &tool.Definition{Name: "extra", Type: "any"}, "[1, 2]", nil, `class="code"`},
		{"entity", &tool.Definition{Name: "album", Type: "entity:album", EntityOp: "view"}, "3", nil, `list="entities-album"`},
		{"empty text", &tool.Definition{Name: "s", Type: "string"}, nil, nil, `value=""`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			html, fm := renderField(t, env, tt.def, tt.value)
			if !strings.Contains(html, tt.control) {
				t.Errorf("the field lacks %s:\n%s", tt.control, html)
			}
			submitted := formValues(html)
			got := fm.adapter(tt.def).Extract(fm.newField(tt.def, tt.def.Name, nil, -1), submitted)
			want := tt.want
			if want == nil {
				want = tt.value
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("value read back (-want +got):\n%s\nsubmitted: %v\nhtml:\n%s", diff, submitted, html)
			}
		})
	}
}

func TestLockedFieldIsShownAndNotSent(t *testing.T) {
	env := newTestEnv(t, nil)
	def := &tool.Definition{Name: "mode", Type: "string", Default: "safe", Locked: true}
	html, fm := renderField(t, env, def, nil)
	if !strings.Contains(html, `value="safe" disabled`) {
		t.Errorf("locked field:\n%s", html)
	}
	submitted := formValues(html)
	if submitted.Has("in:mode") {
		t.Errorf("a locked field was submitted: %v", submitted)
	}
	fm.read(url.Values{"in:mode": {"unsafe"}})
	if args := fm.args(); len(args) != 0 {
		t.Errorf("a locked input sent by a forged form reached the arguments: %v", args)
	}
}

func TestDefaultAdapter(t *testing.T) {
	tests := []struct {
		def  *tool.Definition
		want adapter
	}{
		{&tool.Definition{Type: "string"}, textAdapter},
		{&tool.Definition{Type: "string", Constraints: tool.Constraints{Media: "text/html"}}, textAreaAdapter},
		{&tool.Definition{Type: "string", Constraints: tool.Constraints{Length: &tool.Bounds{Max: ptr(201)}}}, textAreaAdapter},
		{&tool.Definition{Type: "string", Constraints: tool.Constraints{Length: &tool.Bounds{Max: ptr(200)}}}, textAdapter},
		{&tool.Definition{Type: "string", Constraints: tool.Constraints{Media: "image/png"}}, textAdapter},
		{&tool.Definition{Type: "integer"}, numberAdapter},
		{&tool.Definition{Type: "float"}, numberAdapter},
		{&tool.Definition{Type: "boolean"}, checkboxAdapter},
		{&tool.Definition{Type: "email"}, emailAdapter},
		{&tool.Definition{Type: "uri"}, urlAdapter},
		{&tool.Definition{Type: "datetime_iso8601"}, dateTimeAdapter},
		{&tool.Definition{Type: "datetime_iso8601", Constraints: tool.Constraints{DateOnly: true}}, dateAdapter},
		{&tool.Definition{Type: "timestamp"}, dateTimeAdapter},
		{&tool.Definition{Type: "duration"}, durationAdapter},
		{&tool.Definition{Type: "string", Constraints: tool.Constraints{Choice: []any{"a"}}}, selectAdapter},
		{&tool.Definition{Type: "list", Items: &tool.Definition{Type: "string"}}, listAdapter},
		{&tool.Definition{Type: "map", Properties: []*tool.Definition{{Name: "a", Type: "string"}}}, mapAdapter},
		{&tool.Definition{Type: "map"}, jsonAdapter},
		{&tool.Definition{Type: "any"}, jsonAdapter},
		{&tool.Definition{Type: "entity"}, entityAdapter},
		{&tool.Definition{Type: "entity:album"}, entityAdapter},
		{&tool.Definition{Type: "color"}, textAdapter},
	}
	for _, tt := range tests {
		if got := defaultAdapter(tt.def); got != tt.want {
			t.Errorf("defaultAdapter(%s %+v) = %#v, want %#v", tt.def.Type, tt.def.Constraints, got, tt.want)
		}
	}
}

var hexColor = regexp.MustCompile(`^#[0-9a-f]{6}$`)

// TestApplicationDataType adds a data type: the form shows a text field for
// it, and what it sends is checked by the type.
func TestApplicationDataType(t *testing.T) {
	reg := tool.NewRegistry(nil)
	if err := reg.AddType(&tool.DataType{Name: "color", Base: "string", Check: func(v any) string {
		if !hexColor.MatchString(v.(string)) {
			return "must be a color such as #336699"
		}
		return ""
	}}); err != nil {
		t.Fatal(err)
	}
	paint := &tool.Tool{
		ID: "paint", Label: "Paint", Description: "Paints.", Operation: tool.OpTransform, Permission: "paint",
		Inputs:  []*tool.Definition{{Name: "color", Type: "color", Required: true}},
		Outputs: []*tool.Definition{{Name: "painted", Type: "string", Required: true}},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			return tool.Succeeded("", map[string]any{"painted": in.String("color")}), nil
		},
	}
	if err := reg.Add(paint); err != nil {
		t.Fatal(err)
	}
	env := &testEnv{reg: reg}
	env.exp = New(reg, &Options{
		Anonymous: func(context.Context) (tool.Account, error) {
			return &tool.User{ID: "guest", Permissions: []string{"paint"}}, nil
		},
	}).(*server)
	env.srv = newServer(t, env.exp)
	b := env.browser(t)
	b.get("/signin")
	b.post("/signin", url.Values{"guest": {"1"}})
	page := b.get("/tools/paint")
	if !strings.Contains(page.body, `<input type="text" id="f-color" name="in:color" value=""`) {
		t.Fatalf("the page lacks the color's text field:\n%s", page.body)
	}
	r := b.post("/tools/paint", url.Values{"action": {"run"}, "in:color": {"#336699"}})
	if r.status != 200 || !strings.Contains(r.body, "#336699") || !strings.Contains(r.body, "Paint completed.") {
		t.Errorf("painting #336699: %d\n%s", r.status, r.body)
	}
	r = b.post("/tools/paint", url.Values{"action": {"run"}, "in:color": {"teal"}})
	if r.status != 422 || !strings.Contains(r.body, `<ul class="violations" id="f-color-errors"><li>must be a color such as #336699</li></ul>`) ||
		!strings.Contains(r.body, `value="teal"`) {
		t.Errorf("painting teal: %d\n%s", r.status, r.body)
	}
}
