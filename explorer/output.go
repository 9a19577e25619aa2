package explorer

import (
	"encoding/base64"
	"html/template"
	"net/url"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/toolapi/toolapi/tool"
)

// A resultView is what a run gave, ready to show.
type resultView struct {
	Success    bool
	Message    string
	Failure    string
	ErrorType  string
	Violations []tool.Violation
	Outputs    []outputView
	JSON       string
	// Overflow is the address of the outputs, when they were over the
	// tool's byte budget and so are not in the result.
	Overflow string
	// NextPage is the address of the form filled in for the next page of
	// a paged tool's list, when there is one.
	NextPage string
	// Copy holds the run as a command line, curl and an MCP request.
	Copy *copyView
}

// InputFailure reports whether the run failed on its inputs: the form's
// error summary shows it then, next to the fields.
func (rv *resultView) InputFailure() bool { return rv.Failure == string(tool.FailureInput) }

// An outputView is one output of a result.
type outputView struct {
	Name, Label, Description string
	Value                    *valueView
}

// A valueView shows one value. Kind says how:
//
//	text      Text, as text
//	source    Text, markup shown as its escaped source (text/html)
//	html      HTML, markup made safe by Options.SanitizeHTML
//	link      Text linked to Href
//	entity    Text (the label) and Note (type and ID), linked to Href when set
//	image     an <img> of Src (a data: URL of an image type), with Text as alt
//	null      null
//	table     Columns and Rows (a list of maps with properties)
//	items     Items (any other list)
//	map       Entries (a map)
//	json      Text holding JSON
//	mark      a boolean: Note the mark (✓, ✗), Text the word (yes, no)
//	time      Text, a time or duration for a person; Note its wire form
type valueView struct {
	Kind    string
	Text    string
	Note    string
	Href    string
	Src     template.URL
	HTML    template.HTML
	Columns []string
	Rows    [][]*valueView
	Items   []*valueView
	Entries []entryView
}

// An entryView is one entry of a map.
type entryView struct {
	Key   string
	Value *valueView
}

// An outputViews turns the outputs of one result into views for one
// account.
type outputViews struct {
	e    *server
	acct tool.Account
	// links caches the tool an entity of each type links to ("" for
	// none), by entity type.
	links map[string]*tool.Tool
}

// result turns a run's result into its view.
func (e *server) result(t *tool.Tool, res *tool.Result, acct tool.Account) *resultView {
	ov := &outputViews{e: e, acct: acct}
	rv := &resultView{Success: res.Success, Message: res.Message, Failure: string(res.Failure), ErrorType: res.Failure.ErrorType()}
	rv.Violations = res.Violations
	for _, def := range t.Outputs {
		v, ok := res.Outputs[def.Name]
		if !ok {
			continue
		}
		label := humanName(def)
		rv.Outputs = append(rv.Outputs, outputView{Name: def.Name, Label: label, Description: def.Description, Value: ov.value(def, v)})
	}
	if len(res.Outputs) > 0 {
		rv.JSON = jsonText(res.Outputs)
	}
	if res.Overflow != nil {
		rv.Overflow = e.overflowPath(res.Overflow)
	}
	return rv
}

// value returns the view of v, a published value of def.
func (ov *outputViews) value(def *tool.Definition, v any) *valueView {
	if v == nil {
		return &valueView{Kind: "null", Text: "null"}
	}
	if def == nil {
		return anyView(v)
	}
	switch {
	case def.Type == "list":
		items, ok := v.([]any)
		if !ok {
			return anyView(v)
		}
		if def.Items != nil && def.Items.Type == "map" && len(def.Items.Properties) > 0 {
			tv := &valueView{Kind: "table"}
			for _, p := range def.Items.Properties {
				tv.Columns = append(tv.Columns, humanName(p))
			}
			for _, item := range items {
				m, _ := item.(map[string]any)
				row := make([]*valueView, len(def.Items.Properties))
				for i, p := range def.Items.Properties {
					if pv, ok := m[p.Name]; ok {
						row[i] = ov.value(p, pv)
					} else {
						row[i] = &valueView{Kind: "text"}
					}
				}
				tv.Rows = append(tv.Rows, row)
			}
			return tv
		}
		lv := &valueView{Kind: "items"}
		for _, item := range items {
			lv.Items = append(lv.Items, ov.value(def.Items, item))
		}
		return lv
	case def.Type == "map":
		m, ok := v.(map[string]any)
		if !ok {
			return anyView(v)
		}
		if def.Constraints.Media == tool.MediaResource {
			if iv := resourceImage(m); iv != nil {
				return iv
			}
		}
		mv := &valueView{Kind: "map"}
		if len(def.Properties) > 0 {
			for _, p := range def.Properties {
				if pv, ok := m[p.Name]; ok {
					mv.Entries = append(mv.Entries, entryView{Key: humanName(p), Value: ov.value(p, pv)})
				}
			}
			return mv
		}
		for _, k := range sortedKeys(m) {
			mv.Entries = append(mv.Entries, entryView{Key: k, Value: ov.value(def.Values, m[k])})
		}
		return mv
	case def.Type == "entity" || strings.HasPrefix(def.Type, "entity:"):
		return ov.entityView(v)
	case def.Type == "any":
		return anyView(v)
	}
	if b, ok := v.(bool); ok && def.Type == "boolean" {
		if b {
			return &valueView{Kind: "mark", Text: "yes", Note: "✓"}
		}
		return &valueView{Kind: "mark", Text: "no", Note: "✗"}
	}
	s, ok := v.(string)
	if !ok {
		return &valueView{Kind: "text", Text: scalarText(v)}
	}
	switch def.Type {
	case "datetime_iso8601", "timestamp":
		if text, ok := humanTime(s, def.Constraints.DateOnly); ok {
			return &valueView{Kind: "time", Text: text, Note: s}
		}
	case "duration":
		if text, ok := humanDuration(s); ok {
			return &valueView{Kind: "time", Text: text, Note: s}
		}
	}
	media := def.Constraints.Media
	switch {
	case media == "text/html":
		if ov.e.opts.SanitizeHTML != nil {
			if safe, ok := ov.e.opts.SanitizeHTML(s); ok {
				return &valueView{Kind: "html", HTML: template.HTML(safe), Text: s}
			}
		}
		return &valueView{Kind: "source", Text: s}
	case strings.HasPrefix(media, "image/"):
		if src, ok := imageDataURL(media, s); ok {
			return &valueView{Kind: "image", Src: src, Text: def.Description}
		}
		if isWebURL(s) {
			return &valueView{Kind: "link", Text: s, Href: s}
		}
	case def.Type == "uri" && isWebURL(s):
		return &valueView{Kind: "link", Text: s, Href: s}
	}
	return &valueView{Kind: "text", Text: s}
}

func anyView(v any) *valueView {
	switch x := v.(type) {
	case string:
		return &valueView{Kind: "text", Text: x}
	case bool, float64, int64, int:
		return &valueView{Kind: "text", Text: scalarText(x)}
	}
	return &valueView{Kind: "json", Text: jsonText(v)}
}

// entityView shows a published entity reference: its label, linked to
// where the entity can be seen.
func (ov *outputViews) entityView(v any) *valueView {
	m, ok := v.(map[string]any)
	if !ok {
		return anyView(v)
	}
	ref := tool.EntityRef{}
	ref.EntityType, _ = m["entity_type"].(string)
	ref.ID, _ = m["id"].(string)
	ref.Label, _ = m["label"].(string)
	ev := &valueView{Kind: "entity", Text: ref.Label, Note: ref.EntityType + " " + ref.ID}
	if ev.Text == "" {
		ev.Text = ref.EntityType + " " + ref.ID
		ev.Note = ""
	}
	if ov.e.opts.EntityURL != nil {
		ev.Href = ov.e.opts.EntityURL(ref)
	} else {
		ev.Href = ov.entityToolURL(ref)
	}
	return ev
}

// entityToolURL returns the address of the form of a read tool the
// account may run whose only required input is an entity of ref's type,
// filled in with ref; "" when there is none.
func (ov *outputViews) entityToolURL(ref tool.EntityRef) string {
	if ov.links == nil {
		ov.links = make(map[string]*tool.Tool)
	}
	t, ok := ov.links[ref.EntityType]
	if !ok {
		t = ov.entityTool("entity:" + ref.EntityType)
		ov.links[ref.EntityType] = t
	}
	if t == nil {
		return ""
	}
	name := ""
	for _, def := range t.Inputs {
		if def.Required && !def.Locked {
			name = def.Name
		}
	}
	return ov.e.toolURL(t.ID) + "?" + url.Values{"in:" + name: {ref.ID}}.Encode()
}

// entityTool returns the first read tool, by ID, whose only required
// input is of the given data type.
func (ov *outputViews) entityTool(typ string) *tool.Tool {
	for _, t := range ov.e.reg.List(&tool.Filter{Account: ov.acct}) {
		if !t.EffectiveOperation().ReadOnly() {
			continue
		}
		var only *tool.Definition
		n := 0
		for _, def := range t.Inputs {
			if def.Required && !def.Locked {
				only = def
				n++
			}
		}
		if n == 1 && only.Type == typ {
			return t
		}
	}
	return nil
}

// imageDataURL returns a data: URL showing s, the base64 of an image of
// the given media type, when s is such base64.
func imageDataURL(media, s string) (template.URL, bool) {
	media = strings.ToLower(strings.TrimSpace(media))
	if !strings.HasPrefix(media, "image/") || strings.ContainsAny(media, ";,\"' ") {
		return "", false
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return "", false
	}
	if _, err := base64.StdEncoding.DecodeString(s); err != nil {
		return "", false
	}
	return template.URL("data:" + media + ";base64," + s), true
}

// resourceImage shows an embedded resource holding an image.
func resourceImage(m map[string]any) *valueView {
	mime, _ := m["mime_type"].(string)
	blob, _ := m["blob"].(string)
	if blob == "" {
		return nil
	}
	src, ok := imageDataURL(mime, blob)
	if !ok {
		return nil
	}
	uri, _ := m["uri"].(string)
	return &valueView{Kind: "image", Src: src, Text: uri}
}

// isWebURL reports whether s is an http or https URL.
func isWebURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// InlineHTML is a strict sanitiser for [Options.SanitizeHTML]: it keeps
// the inline tags b, i, em, strong, code, small, sub, sup and br, written
// without attributes and properly nested, and escapes everything else. It
// reports false for text holding any other markup, which is then shown as
// escaped source.
func InlineHTML(html string) (string, bool) {
	escaped := template.HTMLEscapeString(html)
	var b strings.Builder
	var open []string
	rest := escaped
	for {
		i := strings.Index(rest, "&lt;")
		if i < 0 {
			b.WriteString(rest)
			break
		}
		b.WriteString(rest[:i])
		rest = rest[i+len("&lt;"):]
		j := strings.Index(rest, "&gt;")
		if j < 0 {
			return "", false
		}
		tag := rest[:j]
		rest = rest[j+len("&gt;"):]
		closing := strings.HasPrefix(tag, "/")
		name := strings.TrimSuffix(strings.TrimPrefix(tag, "/"), "/")
		name = strings.TrimSpace(name)
		if !inlineTags[name] || name != strings.ToLower(name) {
			return "", false
		}
		switch {
		case name == "br":
			if closing {
				return "", false
			}
			b.WriteString("<br>")
		case closing:
			if len(open) == 0 || open[len(open)-1] != name {
				return "", false
			}
			open = open[:len(open)-1]
			b.WriteString("</" + name + ">")
		default:
			if strings.HasSuffix(tag, "/") {
				return "", false
			}
			open = append(open, name)
			b.WriteString("<" + name + ">")
		}
	}
	if len(open) > 0 {
		return "", false
	}
	return b.String(), true
}

var inlineTags = map[string]bool{
	"b": true, "i": true, "em": true, "strong": true, "code": true,
	"small": true, "sub": true, "sup": true, "br": true,
}

// humanName returns the name a person reads for a value: its label, else
// its name in words ("track_count" is "Track count").
func humanName(def *tool.Definition) string {
	if def.Label != "" {
		return def.Label
	}
	words := strings.ReplaceAll(def.Name, "_", " ")
	if words == "" {
		return ""
	}
	r, size := utf8.DecodeRuneInString(words)
	return string(unicode.ToUpper(r)) + words[size:]
}

// humanTime returns an RFC 3339 time as a person reads it: "1 Dec 2026,
// 14:30 UTC", or "1 Dec 2026" for a date.
func humanTime(s string, dateOnly bool) (string, bool) {
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t.Format("2 Jan 2006"), true
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return "", false
	}
	t = t.UTC()
	if dateOnly {
		return t.Format("2 Jan 2006"), true
	}
	if t.Second() != 0 {
		return t.Format("2 Jan 2006, 15:04:05 UTC"), true
	}
	return t.Format("2 Jan 2006, 15:04 UTC"), true
}

// humanDuration returns an ISO 8601 duration (PT18M5S, P1DT2H, -PT0.5S)
// as a person reads it: "18 min 5 s", "1 d 2 h", "minus 0.5 s".
func humanDuration(s string) (string, bool) {
	rest := s
	neg := strings.HasPrefix(rest, "-")
	rest = strings.TrimPrefix(rest, "-")
	rest, ok := strings.CutPrefix(rest, "P")
	if !ok || rest == "" {
		return "", false
	}
	units := map[byte]string{'Y': "y", 'W': "w", 'D': "d", 'H': "h", 'S': "s"}
	var parts []string
	inTime := false
	num := ""
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		switch {
		case c == 'T' && !inTime && num == "":
			inTime = true
		case c >= '0' && c <= '9' || c == '.' || c == ',':
			num += string(c)
		default:
			if num == "" {
				return "", false
			}
			unit := units[c]
			if c == 'M' {
				unit = "min"
				if !inTime {
					unit = "mo"
				}
			}
			if unit == "" {
				return "", false
			}
			if strings.Trim(num, "0.,") != "" || len(parts) == 0 && i == len(rest)-1 {
				parts = append(parts, strings.ReplaceAll(num, ",", ".")+" "+unit)
			}
			num = ""
		}
	}
	if num != "" || len(parts) == 0 {
		return "", false
	}
	out := strings.Join(parts, " ")
	if neg {
		out = "minus " + out
	}
	return out, true
}
