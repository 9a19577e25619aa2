package explorer

import (
	"bytes"
	"encoding/json"
	"html/template"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/toolapi/toolapi/tool"
)

// An adapter renders the form field of a value of one data type and reads
// the submitted value back. The form calls Render with the value as it was
// last typed and the violations found at its path, and Extract when the
// form comes back.
//
// Values in a form are what people typed: a string for a scalar (sent to
// the tool as [tool.Text], which the run path coerces to the input's type),
// []any of the items' values for a list (nil for an empty row) and
// map[string]any of the properties' values for a map with properties.
// Extract may also return a JSON value (a bool, a float64, ...), sent as
// it is, and returns nil when the field was left empty.
type adapter interface {
	// Render returns the HTML of f: its control, label, description and
	// violations (see [field.Frame]). It must escape what it shows.
	Render(f *field) (template.HTML, error)
	// Extract returns the value of f in the submitted form.
	Extract(f *field, form url.Values) any
}

// A field is one value of a form: an input, an item of a list input or a
// property of a map input.
type field struct {
	// Def defines the value.
	Def *tool.Definition
	// Path is the value's path as violations name it: "word", "tags[2]",
	// "settings.limit".
	Path string
	// Name is the name of the form control that holds the value, and ID
	// its HTML id.
	Name, ID string
	// Value is the value as typed (see [adapter]); nil when empty.
	Value any
	// Violations are the messages of the violations found at Path.
	Violations []string
	// Locked says the value is fixed to its default: shown read-only, and
	// not submitted.
	Locked bool
	// Index is the position of a list item (0 for the first), -1 for
	// anything else.
	Index int

	// Matches are the entities the person's last search for this field
	// found (entity pickers).
	Matches []tool.EntityRef

	form     *form
	children []*field
	refined  bool
	searched bool
}

// Refined reports whether the tool's refiner refines this input from the
// values of the others.
func (f *field) Refined() bool { return f.refined }

// InApp reports whether the field is on the page of an MCP App, which
// has no server of its own to search with.
func (f *field) InApp() bool { return f.form.app }

// Searched reports whether the person's last action searched the entities
// of this field.
func (f *field) Searched() bool { return f.searched }

// EntityTypeLabel returns the lower-case label of an entity field's type.
func (f *field) EntityTypeLabel() string {
	typ := entityTypeOf(f.Def)
	if et, ok := f.form.e.reg.EntityType(typ); ok && et.Label != "" {
		return strings.ToLower(et.Label)
	}
	if typ == "" {
		return "entity"
	}
	return typ
}

// Label returns the field's label: the definition's label, else its name,
// else (a list item) its position counted from 1.
func (f *field) Label() string {
	switch {
	case f.Index >= 0:
		return "#" + strconv.Itoa(f.Index+1)
	case f.Def.Label != "":
		return f.Def.Label
	}
	return f.Def.Name
}

// Text returns the value as text: "" when it is empty or not text.
func (f *field) Text() string {
	switch v := f.Value.(type) {
	case string:
		return v
	case nil:
		return ""
	case bool:
		return strconv.FormatBool(v)
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	b, _ := json.Marshal(f.Value)
	return string(b)
}

// Required reports whether a value must be given: an input or property
// that is required, or any list item.
func (f *field) Required() bool { return f.Index >= 0 || f.Def.Required }

// DescribedBy returns the IDs of the elements that describe f's control,
// for aria-describedby: its violations, hint and description, those that
// are shown.
func (f *field) DescribedBy() string {
	var ids []string
	if f.Invalid() {
		ids = append(ids, f.ID+"-errors")
	}
	if f.Hint() != "" {
		ids = append(ids, f.ID+"-hint")
	}
	if f.Def.Description != "" {
		ids = append(ids, f.ID+"-desc")
	}
	return strings.Join(ids, " ")
}

// Invalid reports whether the field has violations.
func (f *field) Invalid() bool { return len(f.Violations) > 0 }

// Children returns the fields of a list's items or a map's properties.
func (f *field) Children() []*field { return f.children }

// HTML renders the field through its adapter.
func (f *field) HTML() template.HTML {
	html, err := f.form.adapter(f.Def).Render(f)
	if err != nil {
		f.form.e.logger.Error("explorer: rendering a field", "tool", f.form.t.ID, "path", f.Path, "error", err.Error())
		return template.HTML(`<p class="problem">This field cannot be shown.</p>`)
	}
	return html
}

// Hint returns a line saying what the value must be, from the definition's
// type and constraints, for people filling the form.
func (f *field) Hint() string {
	var parts []string
	for _, r := range f.Def.Requirements() {
		// A regular expression tells a person little: an example does.
		if r.Rule != tool.RulePattern {
			parts = append(parts, r.Text)
		}
	}
	if f.Def.Constraints.Pattern != "" {
		if len(f.Def.Examples) > 0 {
			if s, ok := f.Def.Examples[0].(string); ok {
				parts = append(parts, "like “"+s+"”")
			}
		}
	}
	if f.Def.Type == "datetime_iso8601" && !f.Def.Constraints.DateOnly || f.Def.Type == "timestamp" {
		parts = append(parts, "in UTC")
	}
	if f.Def.Type == "duration" {
		parts = append(parts, "such as PT1H30M or 1h30m")
	}
	if f.Def.Sensitive {
		parts = append(parts, "a secret: never shown again, nor kept in presets or the history")
	}
	return strings.Join(parts, "; ")
}

// Frame wraps control, the HTML of f's control, with f's label, hint,
// description and violations, as the built-in adapters show them.
func (f *field) Frame(control template.HTML) template.HTML {
	return execField("frame", struct {
		*field
		Control template.HTML
	}{f, control})
}

// Submitted returns the last value the form holds under f's name; a
// checkbox sends a hidden "false" before its "true", so the last one
// counts.
func (f *field) Submitted(form url.Values) (string, bool) {
	vs := form[f.Name]
	if len(vs) == 0 {
		return "", false
	}
	return vs[len(vs)-1], true
}

// Item returns the field of item i of a list field.
func (f *field) Item(i int) *field {
	return f.form.newField(f.Def.Items, f.Path+"["+strconv.Itoa(i)+"]", nil, i)
}

// Property returns the field of the property def of a map field.
func (f *field) Property(def *tool.Definition) *field {
	return f.form.newField(def, f.Path+"."+def.Name, nil, -1)
}

// Extract returns the value of child (an item or property of f) in the
// submitted form, through the child's adapter.
func (f *field) Extract(child *field, form url.Values) any {
	return f.form.adapter(child.Def).Extract(child, form)
}

// Rows returns the number of rows a list field shows in the submitted
// form.
func (f *field) Rows(form url.Values) int {
	if n, ok := f.form.rows[f.Path]; ok {
		return n
	}
	n, err := strconv.Atoi(form.Get("rows:" + f.Path))
	if err != nil || n < 0 {
		n = 0
	}
	n = min(n, maxRows, f.form.rowBudget)
	f.form.rowBudget -= n
	f.form.rows[f.Path] = n
	return n
}

// maxRows bounds the rows of one list in a form, maxFormRows those of all
// its lists together.
const (
	maxRows     = 500
	maxFormRows = 2000
)

// Datalist returns the id of the datalist of an entity field's
// suggestions, "" when its entity type cannot be searched.
func (f *field) Datalist() string {
	typ := entityTypeOf(f.Def)
	if typ == "" || f.form.suggestions(typ) == nil {
		return ""
	}
	return "entities-" + typ
}

// EntitiesURL returns the address that answers searches for an entity
// field's type, for the script that fills its suggestions while typing.
func (f *field) EntitiesURL() string {
	typ := entityTypeOf(f.Def)
	if typ == "" || f.form.app {
		return ""
	}
	return f.form.e.path("/entities/" + url.PathEscape(typ))
}

// entityTypeOf returns the entity type of an "entity:ID" definition.
func entityTypeOf(def *tool.Definition) string {
	typ, ok := strings.CutPrefix(def.Type, "entity:")
	if !ok {
		return ""
	}
	return typ
}

// The built-in adapters. [defaultAdapter] chooses among them.
var (
	// textAdapter is a one-line text field: strings and data types without
	// an adapter of their own.
	textAdapter adapter = control{"input", "text"}
	// textAreaAdapter is a text area: strings whose media type is text/*
	// or that may be longer than 200 characters.
	textAreaAdapter adapter = control{"textarea", "text"}
	// numberAdapter is a number field with the minimum, maximum and step
	// of its range: integers and floats.
	numberAdapter adapter = control{"input", "number"}
	// checkboxAdapter is a checkbox sent with an explicit false when it is
	// not ticked: booleans.
	checkboxAdapter adapter = checkbox{}
	// emailAdapter is an email field.
	emailAdapter adapter = control{"input", "email"}
	// urlAdapter is a URL field: uri.
	urlAdapter adapter = control{"input", "url"}
	// dateAdapter is a date field: datetime_iso8601 with DateOnly.
	dateAdapter adapter = control{"input", "date"}
	// dateTimeAdapter is a date and time field read as UTC:
	// datetime_iso8601 and timestamp.
	dateTimeAdapter adapter = control{"input", "datetime-local"}
	// durationAdapter is a text field for an ISO 8601 duration (PT1H30M)
	// or a Go one (1h30m).
	durationAdapter adapter = control{"input", "duration"}
	// selectAdapter is a select of the definition's choices, with an
	// empty option when the value is optional.
	selectAdapter adapter = selectBox{}
	// listAdapter shows a list as rows of its items' fields, with buttons
	// that add and remove rows without script.
	listAdapter adapter = list{}
	// mapAdapter shows a map with properties as a fieldset of its
	// properties' fields.
	mapAdapter adapter = fieldset{}
	// jsonAdapter is a text area for JSON: maps without properties and
	// the any type. For any, text that is not JSON is sent as a string.
	jsonAdapter adapter = control{"textarea", "json"}
	// entityAdapter is an entity picker: a text field for the entity's
	// ID, suggestions from [tool.EntityType.Search] and a button that
	// searches by label without script.
	entityAdapter adapter = entityPicker{}
)

// defaultAdapter returns the built-in adapter for def: a select when it
// has choices, else by data type as the built-in adapters say, and
// [textAdapter] for data types it does not know.
func defaultAdapter(def *tool.Definition) adapter {
	switch def.Type {
	case "list":
		return listAdapter
	case "map":
		if len(def.Properties) > 0 {
			return mapAdapter
		}
		return jsonAdapter
	case "any":
		return jsonAdapter
	}
	if len(def.Constraints.Choice) > 0 {
		return selectAdapter
	}
	if def.Sensitive && def.Type == "string" {
		return textAdapter // a password field
	}
	switch def.Type {
	case "string":
		c := def.Constraints
		if strings.HasPrefix(c.Media, "text/") || c.Length != nil && (c.Length.Max == nil || *c.Length.Max > 200) {
			return textAreaAdapter
		}
		return textAdapter
	case "integer", "float":
		return numberAdapter
	case "boolean":
		return checkboxAdapter
	case "email":
		return emailAdapter
	case "uri":
		return urlAdapter
	case "datetime_iso8601":
		if def.Constraints.DateOnly {
			return dateAdapter
		}
		return dateTimeAdapter
	case "timestamp":
		return dateTimeAdapter
	case "duration":
		return durationAdapter
	case "entity":
		return entityAdapter
	}
	if strings.HasPrefix(def.Type, "entity:") {
		return entityAdapter
	}
	return textAdapter
}

// adapter returns the adapter of def.
func (e *server) adapter(def *tool.Definition) adapter { return defaultAdapter(def) }

// control is a single control rendered by the named template of
// fields.html, with an input type (or a mode for text areas).
type control struct {
	tmpl, kind string
}

func (c control) Render(f *field) (template.HTML, error) {
	return f.Frame(execField(c.tmpl, controlData{field: f, Kind: c.kind, Value: c.display(f)})), nil
}

// display returns the text a control shows for f's value: none for a
// sensitive value, which is never shown back.
func (c control) display(f *field) string {
	if f.Def.Sensitive {
		return ""
	}
	s := f.Text()
	switch c.kind {
	case "date":
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			return t.UTC().Format("2006-01-02")
		}
	case "datetime-local":
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			return t.UTC().Format("2006-01-02T15:04:05")
		}
	case "json":
		if _, ok := f.Value.(string); !ok && f.Value != nil {
			return jsonText(f.Value)
		}
	}
	return s
}

func (c control) Extract(f *field, form url.Values) any {
	s, ok := f.Submitted(form)
	if !ok || strings.TrimSpace(s) == "" {
		return nil
	}
	return s
}

type controlData struct {
	*field
	Kind  string
	Value string
}

// Min, Max and Step are the attributes of a number field.
func (d controlData) Min() string {
	if r := d.Def.Constraints.Range; r != nil && r.Min != nil {
		return strconv.FormatFloat(*r.Min, 'f', -1, 64)
	}
	return ""
}

func (d controlData) Max() string {
	if r := d.Def.Constraints.Range; r != nil && r.Max != nil {
		return strconv.FormatFloat(*r.Max, 'f', -1, 64)
	}
	return ""
}

// InputType is the type attribute of an input control.
func (d controlData) InputType() string {
	if d.Def.Sensitive && d.Kind != "number" {
		return "password"
	}
	if d.Kind == "duration" {
		return "text"
	}
	return d.Kind
}

func (d controlData) Step() string {
	if d.Def.Type == "integer" {
		return "1"
	}
	return "any"
}

// Placeholder returns the example a control shows while empty.
func (d controlData) Placeholder() string {
	if len(d.Def.Examples) > 0 {
		if s, ok := d.Def.Examples[0].(string); ok {
			return s
		}
		b, _ := json.Marshal(d.Def.Examples[0])
		return string(b)
	}
	switch d.Kind {
	case "duration":
		return "PT1H30M"
	case "json":
		if d.Def.Type == "map" {
			return "{}"
		}
	}
	return ""
}

type checkbox struct{}

func (checkbox) Render(f *field) (template.HTML, error) {
	return f.Frame(execField("checkbox", f)), nil
}

func (checkbox) Extract(f *field, form url.Values) any {
	s, ok := f.Submitted(form)
	if !ok {
		return nil
	}
	return s
}

// Checked reports whether a checkbox shows a tick.
func (f *field) Checked() bool {
	switch v := f.Value.(type) {
	case bool:
		return v
	case string:
		switch strings.ToLower(v) {
		case "true", "1", "yes", "on":
			return true
		}
	}
	return false
}

type selectBox struct{}

// An option is one option of a select.
type option struct {
	Value, Label string
	Selected     bool
}

func (selectBox) Render(f *field) (template.HTML, error) {
	cur := f.Text()
	if f.Def.Sensitive {
		cur = "" // a secret is never shown back, not even as a choice
	}
	var opts []option
	if !f.Required() || cur == "" {
		opts = append(opts, option{Value: "", Label: "(none)", Selected: cur == ""})
	}
	found := cur == ""
	for _, c := range f.Def.Constraints.Choice {
		v := choiceText(c)
		opts = append(opts, option{Value: v, Label: v, Selected: v == cur})
		found = found || v == cur
	}
	if !found {
		// Keep what was sent, though it is no longer a choice (a refined
		// list changed): its violation says why.
		opts = append(opts, option{Value: cur, Label: cur + " (not a choice)", Selected: true})
	}
	return f.Frame(execField("select", struct {
		*field
		Options []option
	}{f, opts})), nil
}

func (selectBox) Extract(f *field, form url.Values) any {
	return control{}.Extract(f, form)
}

// choiceText returns the text of a choice as a form sends it.
func choiceText(c any) string {
	if s, ok := c.(string); ok {
		return s
	}
	b, _ := json.Marshal(c)
	return string(b)
}

type list struct{}

func (list) Render(f *field) (template.HTML, error) {
	return execField("list", f), nil
}

func (list) Extract(f *field, form url.Values) any {
	n := f.Rows(form)
	items := make([]any, n)
	for i := range n {
		items[i] = f.Extract(f.Item(i), form)
	}
	return items
}

// AddAction and RemoveAction are the values of a list's row buttons;
// FindAction is that of an entity picker's search button.
func (f *field) AddAction() string    { return "add:" + f.Path }
func (f *field) RemoveAction() string { return "remove:" + f.Path }

// DeleteAction is the value of the button that removes the list item f.
func (f *field) DeleteAction() string { return "delete:" + f.Path }

// Position is a list item's position counted from 1.
func (f *field) Position() int      { return f.Index + 1 }
func (f *field) FindAction() string { return "find:" + f.Path }

// PickAction is the value of the button that picks an entity found.
func (f *field) PickAction(ref tool.EntityRef) string { return "pick:" + f.Path + "=" + ref.ID }

// RowsName is the name of the hidden field holding a list's row count.
func (f *field) RowsName() string { return "rows:" + f.Path }

type fieldset struct{}

func (fieldset) Render(f *field) (template.HTML, error) {
	return execField("fieldset", f), nil
}

func (fieldset) Extract(f *field, form url.Values) any {
	m := make(map[string]any, len(f.Def.Properties))
	for _, p := range f.Def.Properties {
		if v := f.Extract(f.Property(p), form); v != nil {
			m[p.Name] = v
		}
	}
	return m
}

type entityPicker struct{}

func (entityPicker) Render(f *field) (template.HTML, error) {
	return f.Frame(execField("entity", f)), nil
}

func (entityPicker) Extract(f *field, form url.Values) any {
	return control{}.Extract(f, form)
}

// execField executes a template of fields.html.
func execField(name string, data any) template.HTML {
	var b bytes.Buffer
	if err := fieldTemplates.ExecuteTemplate(&b, name, data); err != nil {
		return template.HTML(`<p class="problem">` + template.HTMLEscapeString(err.Error()) + `</p>`)
	}
	return template.HTML(b.String())
}
