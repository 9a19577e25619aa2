package explorer

import (
	"context"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"

	"github.com/toolapi/toolapi/tool"
)

// A form is the execute form of one tool as one person sees it: the
// (refined) input definitions, the values as typed, and what the last
// action found.
type form struct {
	e    *server
	ctx  context.Context
	v    *visit
	t    *tool.Tool
	defs []*tool.Definition
	// refined names the inputs the tool's refiner refines.
	refined map[string]bool
	// state holds the values as typed, by input name (see Adapter).
	state map[string]any

	// matches holds what a search of an entity field found, by path;
	// searched is that field's path.
	matches  map[string][]tool.EntityRef
	searched string

	// rows holds the rows each list field shows, by path, out of a
	// budget for the whole form (lists inside lists multiply otherwise).
	rows      map[string]int
	rowBudget int

	fields   []*field
	problems []string
	// summary lists the violations placed on fields, for the error
	// summary at the top of the form.
	summary []summaryItem
	// entities caches the suggestions of each entity type.
	entities map[string][]tool.EntityRef
	// entityOrder lists the entity types whose suggestions were shown.
	entityOrder []string
	// app says the form is the page of an MCP App (see [Apps]): its
	// entity pickers offer the suggestions the page is given for its
	// account, and nothing reaches the explorer's own pages.
	app bool
}

func (e *server) newForm(ctx context.Context, v *visit, t *tool.Tool) *form {
	fm := &form{e: e, ctx: tool.WithAccount(ctx, v.acct), v: v, t: t, defs: t.Inputs, state: map[string]any{},
		rows: map[string]int{}, rowBudget: maxFormRows}
	if t.Refiner != nil {
		fm.refined = make(map[string]bool, len(t.Refiner.Inputs))
		for _, name := range t.Refiner.Inputs {
			fm.refined[name] = true
		}
	}
	return fm
}

func (fm *form) adapter(def *tool.Definition) adapter { return fm.e.adapter(def) }

// defaults fills the state with the inputs' defaults.
func (fm *form) defaults() {
	for _, def := range fm.defs {
		if def.Default != nil {
			fm.state[def.Name] = fromJSON(def, def.Default)
		}
	}
}

// read reads the state from a submitted form (or a query string). For a
// tool with a refiner, the values read decide the definitions the form is
// read by a second time.
func (fm *form) read(values url.Values) {
	fm.readBy(values)
	if fm.t.Refiner != nil {
		fm.refine()
		fm.readBy(values)
	}
}

func (fm *form) readBy(values url.Values) {
	fm.state = make(map[string]any, len(fm.defs))
	for _, def := range fm.defs {
		if def.Locked {
			continue
		}
		f := fm.newField(def, def.Name, nil, -1)
		if v := fm.adapter(def).Extract(f, values); v != nil {
			fm.state[def.Name] = v
		}
	}
}

// refine replaces the definitions by those the tool's refiner makes for
// the current values.
func (fm *form) refine() {
	if fm.t.Refiner == nil {
		return
	}
	defs, err := fm.e.reg.Refine(fm.ctx, fm.t.ID, fm.args())
	if err != nil {
		fm.e.logger.Error("explorer: refining inputs", "tool", fm.t.ID, "error", err.Error())
		fm.problems = append(fm.problems, "Some inputs could not be refined from the others; their choices may be out of date.")
		return
	}
	fm.defs = defs
}

// args returns the arguments of a run: what was typed as [tool.Text],
// without empty values and empty rows. Locked inputs are left out.
func (fm *form) args() map[string]any {
	args := make(map[string]any, len(fm.defs))
	for _, def := range fm.defs {
		if def.Locked {
			continue
		}
		if v, ok := toArg(def, fm.state[def.Name]); ok {
			args[def.Name] = v
		}
	}
	return args
}

// typedState returns the values as typed that a run keeps: every
// input's but the locked and sensitive ones.
func (fm *form) typedState() map[string]any {
	out := make(map[string]any, len(fm.state))
	for _, def := range fm.defs {
		if v, ok := fm.state[def.Name]; ok && !def.Locked {
			if v, ok := withoutSensitive(def, v); ok {
				out[def.Name] = v
			}
		}
	}
	return out
}

// compact drops the empty rows of lists, so that the rows of the form
// line up with the items sent and their violations' paths.
func (fm *form) compact() {
	for _, def := range fm.defs {
		if v, ok := fm.state[def.Name]; ok {
			fm.state[def.Name] = compact(def, v)
		}
	}
}

// toArg returns the argument a value as typed stands for, and false when
// it stands for nothing (an empty field, a list without items, a map
// without properties set).
func toArg(def *tool.Definition, v any) (any, bool) {
	switch x := v.(type) {
	case nil:
		return nil, false
	case string:
		if strings.TrimSpace(x) == "" {
			return nil, false
		}
		if def.Type == "any" {
			var j any
			if err := json.Unmarshal([]byte(x), &j); err == nil {
				return j, true
			}
			return x, true
		}
		return tool.Text(x), true
	case []any:
		if def.Items == nil {
			return x, len(x) > 0
		}
		var items []any
		for _, item := range x {
			if a, ok := toArg(def.Items, item); ok {
				items = append(items, a)
			}
		}
		return items, len(items) > 0
	case map[string]any:
		if len(def.Properties) == 0 {
			return x, len(x) > 0
		}
		m := make(map[string]any, len(x))
		for _, p := range def.Properties {
			if a, ok := toArg(p, x[p.Name]); ok {
				m[p.Name] = a
			}
		}
		return m, len(m) > 0
	}
	return v, true
}

func compact(def *tool.Definition, v any) any {
	switch x := v.(type) {
	case []any:
		if def.Items == nil {
			return x
		}
		var out []any
		for _, item := range x {
			if _, ok := toArg(def.Items, item); ok {
				out = append(out, compact(def.Items, item))
			}
		}
		return out
	case map[string]any:
		if len(def.Properties) == 0 {
			return x
		}
		out := make(map[string]any, len(x))
		for _, p := range def.Properties {
			if pv, ok := x[p.Name]; ok {
				out[p.Name] = compact(p, pv)
			}
		}
		return out
	}
	return v
}

// fromJSON returns the value as typed that shows the JSON value v (a
// default, a preset) in the form.
func fromJSON(def *tool.Definition, v any) any {
	if v == nil {
		return nil
	}
	switch def.Type {
	case "list":
		if items, ok := v.([]any); ok && def.Items != nil {
			out := make([]any, len(items))
			for i, item := range items {
				out[i] = fromJSON(def.Items, item)
			}
			return out
		}
	case "map":
		if m, ok := v.(map[string]any); ok && len(def.Properties) > 0 {
			out := make(map[string]any, len(m))
			for _, p := range def.Properties {
				if pv, ok := m[p.Name]; ok {
					out[p.Name] = fromJSON(p, pv)
				}
			}
			return out
		}
		return jsonText(v)
	case "any":
		return jsonText(v)
	}
	switch x := v.(type) {
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	}
	return jsonText(v)
}

// jsonText returns v as indented JSON, with <, > and & as they are (the
// templates escape what they show).
func jsonText(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return ""
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func (fm *form) newField(def *tool.Definition, path string, value any, index int) *field {
	return &field{Def: def, Path: path, Name: "in:" + path, ID: "f-" + htmlID(path), Value: value, Index: index, form: fm}
}

// htmlID returns path as the tail of an HTML id: spaces become "_".
func htmlID(path string) string {
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' {
			return '_'
		}
		return r
	}, path)
}

// build builds the fields of the form from the state and places the
// violations on them.
func (fm *form) build(vs []tool.Violation) {
	fm.fields = fm.fields[:0]
	for _, def := range fm.defs {
		v := fm.state[def.Name]
		if def.Locked {
			v = fromJSON(def, def.Default)
		}
		f := fm.tree(def, def.Name, v, -1)
		if def.Locked {
			lock(f)
		}
		if fm.refined[def.Name] {
			f.refined = true
		}
		fm.fields = append(fm.fields, f)
	}
	fm.place(vs)
}

func (fm *form) tree(def *tool.Definition, path string, value any, index int) *field {
	f := fm.newField(def, path, value, index)
	switch {
	case def.Type == "list" && def.Items != nil:
		items, _ := value.([]any)
		for i := range max(len(items), 1) {
			var iv any
			if i < len(items) {
				iv = items[i]
			}
			f.children = append(f.children, fm.tree(def.Items, path+"["+strconv.Itoa(i)+"]", iv, i))
		}
	case def.Type == "map" && len(def.Properties) > 0:
		m, _ := value.(map[string]any)
		for _, p := range def.Properties {
			f.children = append(f.children, fm.tree(p, path+"."+p.Name, m[p.Name], -1))
		}
	}
	f.Matches = fm.matches[path]
	f.searched = fm.searched == path
	return f
}

func lock(f *field) {
	f.Locked = true
	for _, c := range f.children {
		lock(c)
	}
}

// place gives each violation to the field at its path, else to the
// nearest field above it (a value inside a JSON text area), else to the
// form.
func (fm *form) place(vs []tool.Violation) {
	if len(vs) == 0 {
		return
	}
	index := make(map[string]*field)
	var walk func(f *field)
	walk = func(f *field) {
		index[f.Path] = f
		for _, c := range f.children {
			walk(c)
		}
	}
	for _, f := range fm.fields {
		walk(f)
	}
	for _, v := range vs {
		p := v.Path
		for {
			if f, ok := index[p]; ok {
				msg := plainMessage(f.Def, v)
				if m, refs, ok := f.notFound(v); ok && p == v.Path {
					msg = m
					if f.Matches == nil {
						// The suggestions, to pick.
						f.Matches = refs
					}
				}
				if p != v.Path {
					msg = strings.TrimPrefix(v.Path[len(p):], ".") + ": " + v.ForPeople()
				}
				f.Violations = append(f.Violations, msg)
				fm.summary = append(fm.summary, summaryItem{ID: f.ID, Label: f.pathLabel(), Message: msg})
				break
			}
			if p == "" {
				msg := v.ForPeople()
				if v.Path != "" {
					msg = v.Path + ": " + msg
				}
				fm.problems = append(fm.problems, msg)
				break
			}
			p = parentPath(p)
		}
	}
}

// A summaryItem is one problem of the error summary, linked to the field
// with that ID.
type summaryItem struct {
	ID, Label, Message string
}

// pathLabel names a field in the error summary: its label, after its
// parents' ("Settings › limit", "Tags › #2").
func (f *field) pathLabel() string {
	label := f.Label()
	p := f.Path
	for {
		p = parentPath(p)
		if p == "" {
			return label
		}
		if def := f.form.defAt(p); def != nil {
			name := def.Label
			if name == "" {
				name = def.Name
			}
			if strings.HasSuffix(p, "]") {
				name = p[strings.LastIndexByte(p, '['):]
				if n, err := strconv.Atoi(name[1 : len(name)-1]); err == nil {
					name = "#" + strconv.Itoa(n+1)
				}
			}
			label = name + " › " + label
		}
	}
}

// parentPath returns the path of the value that holds the value at p:
// "tags" for "tags[2]", "settings" for "settings.limit", "" for an input.
func parentPath(p string) string {
	if strings.HasSuffix(p, "]") {
		if i := strings.LastIndexByte(p, '['); i >= 0 {
			return p[:i]
		}
	}
	if i := strings.LastIndexByte(p, '.'); i >= 0 {
		return p[:i]
	}
	return ""
}

// at returns the value as typed at a path of the state, and a function
// that replaces it; ok is false when the path leads nowhere.
func (fm *form) at(path string) (get func() any, set func(any), ok bool) {
	segs := splitPath(path)
	if len(segs) == 0 {
		return nil, nil, false
	}
	var container any = fm.state
	for i, s := range segs {
		last := i == len(segs)-1
		switch c := container.(type) {
		case map[string]any:
			if s.index >= 0 {
				return nil, nil, false
			}
			if last {
				return func() any { return c[s.name] }, func(v any) { c[s.name] = v }, true
			}
			next, ok := c[s.name]
			if !ok || next == nil {
				if segs[i+1].index >= 0 {
					next = []any{}
				} else {
					next = map[string]any{}
				}
				c[s.name] = next
			}
			container = next
		case []any:
			if s.index < 0 || s.index >= len(c) {
				return nil, nil, false
			}
			if last {
				return func() any { return c[s.index] }, func(v any) { c[s.index] = v }, true
			}
			if c[s.index] == nil {
				if segs[i+1].index >= 0 {
					c[s.index] = []any{}
				} else {
					c[s.index] = map[string]any{}
				}
			}
			container = c[s.index]
		default:
			return nil, nil, false
		}
	}
	return nil, nil, false
}

type pathSeg struct {
	name  string
	index int // -1 for a name
}

// splitPath splits "a.b[2].c" into a, b, [2], c.
func splitPath(p string) []pathSeg {
	var segs []pathSeg
	for p != "" {
		switch {
		case p[0] == '[':
			end := strings.IndexByte(p, ']')
			if end < 0 {
				return nil
			}
			n, err := strconv.Atoi(p[1:end])
			if err != nil || n < 0 {
				return nil
			}
			segs = append(segs, pathSeg{index: n})
			p = p[end+1:]
		case p[0] == '.':
			p = p[1:]
		default:
			end := strings.IndexAny(p, ".[")
			if end < 0 {
				end = len(p)
			}
			segs = append(segs, pathSeg{name: p[:end], index: -1})
			p = p[end:]
		}
	}
	return segs
}

// suggestions returns entities of type typ the person may view, to offer
// in its fields; nil when the type cannot be searched.
func (fm *form) suggestions(typ string) []tool.EntityRef {
	if refs, ok := fm.entities[typ]; ok {
		return refs
	}
	if fm.entities == nil {
		fm.entities = make(map[string][]tool.EntityRef)
	}
	et, ok := fm.e.reg.EntityType(typ)
	if !ok || et.Search == nil {
		fm.entities[typ] = nil
		return nil
	}
	if fm.app {
		// An app's page gets the suggestions of its account when it
		// is read; the fields only name the list.
		fm.entities[typ] = []tool.EntityRef{}
		fm.entityOrder = append(fm.entityOrder, typ)
		return fm.entities[typ]
	}
	refs, err := et.Search(fm.ctx, fm.v.acct, "", maxSuggestions)
	if err != nil {
		fm.e.logger.Error("explorer: searching entities", "type", typ, "error", err.Error())
	}
	if refs == nil {
		refs = []tool.EntityRef{}
	}
	fm.entities[typ] = refs
	fm.entityOrder = append(fm.entityOrder, typ)
	return refs
}

// maxSuggestions bounds the entities offered per entity type.
const maxSuggestions = 50

// A datalist is the suggestions of one entity type.
type datalist struct {
	ID       string
	Entities []tool.EntityRef
}

// datalists returns the suggestions shown so far, one datalist per type.
// Call it after the fields are rendered.
func (fm *form) datalists() []datalist {
	var out []datalist
	for _, typ := range fm.entityOrder {
		out = append(out, datalist{ID: "entities-" + typ, Entities: fm.entities[typ]})
	}
	return out
}

// find searches the entities of the field at path by the label typed in
// it.
func (fm *form) find(path string) {
	def := fm.defAt(path)
	if def == nil {
		return
	}
	typ := entityTypeOf(def)
	et, ok := fm.e.reg.EntityType(typ)
	if !ok || et.Search == nil {
		fm.problems = append(fm.problems, "Entities of this type cannot be searched; type the ID.")
		return
	}
	get, _, ok := fm.at(path)
	if !ok {
		return
	}
	q, _ := get().(string)
	refs, err := et.Search(fm.ctx, fm.v.acct, strings.TrimSpace(q), maxSuggestions)
	if err != nil {
		fm.e.logger.Error("explorer: searching entities", "type", typ, "error", err.Error())
		fm.problems = append(fm.problems, "The search failed; try again.")
		return
	}
	fm.matches = map[string][]tool.EntityRef{path: refs}
	fm.searched = path
}

// defAt returns the definition of the value at path.
func (fm *form) defAt(path string) *tool.Definition {
	segs := splitPath(path)
	if len(segs) == 0 {
		return nil
	}
	var def *tool.Definition
	for i, s := range segs {
		switch {
		case i == 0:
			for _, d := range fm.defs {
				if d.Name == s.name && s.index < 0 {
					def = d
				}
			}
		case def == nil:
			return nil
		case s.index >= 0:
			def = def.Items
		default:
			var next *tool.Definition
			for _, p := range def.Properties {
				if p.Name == s.name {
					next = p
				}
			}
			def = next
		}
		if def == nil {
			return nil
		}
	}
	return def
}

// resolveLabels replaces, in every entity field, a label typed instead of
// an ID by the ID of the one entity of that type with that label (case
// aside) that the person may see: "Blue Hours" finds the album. Text that
// is an entity's ID, or that several entities share as their label, is
// left for validation to judge.
func (fm *form) resolveLabels() {
	for _, def := range fm.defs {
		if v, ok := fm.state[def.Name]; ok && !def.Locked {
			fm.state[def.Name] = fm.resolve(def, v)
		}
	}
}

func (fm *form) resolve(def *tool.Definition, v any) any {
	switch x := v.(type) {
	case string:
		typ := entityTypeOf(def)
		text := strings.TrimSpace(x)
		if typ == "" || text == "" {
			return v
		}
		et, ok := fm.e.reg.EntityType(typ)
		if !ok || et.Search == nil {
			return v
		}
		refs, err := et.Search(fm.ctx, fm.v.acct, text, maxSuggestions)
		if err != nil {
			fm.e.logger.Error("explorer: searching entities", "type", typ, "error", err.Error())
			return v
		}
		id := ""
		for _, ref := range refs {
			if ref.ID == text {
				return v
			}
			if strings.EqualFold(strings.TrimSpace(ref.Label), text) {
				if id != "" {
					return v // two share the label
				}
				id = ref.ID
			}
		}
		if id != "" {
			return id
		}
	case []any:
		if def.Items != nil {
			for i, item := range x {
				x[i] = fm.resolve(def.Items, item)
			}
		}
	case map[string]any:
		for _, p := range def.Properties {
			if pv, ok := x[p.Name]; ok {
				x[p.Name] = fm.resolve(p, pv)
			}
		}
	}
	return v
}

// addRow adds an empty row to the list at path and returns its rows;
// removeRow removes its last row.
func (fm *form) addRow(path string) int {
	if def := fm.defAt(path); def == nil || def.Type != "list" {
		return 0
	}
	get, set, ok := fm.at(path)
	if !ok {
		return 0
	}
	items, _ := get().([]any)
	if len(items) == 0 {
		items = []any{nil} // the row shown while the list was empty
	}
	if len(items) < maxRows {
		items = append(items, nil)
	}
	set(items)
	return len(items)
}

func (fm *form) removeRow(path string) {
	if def := fm.defAt(path); def == nil || def.Type != "list" {
		return
	}
	if get, set, ok := fm.at(path); ok {
		if items, _ := get().([]any); len(items) > 0 {
			set(items[:len(items)-1])
		}
	}
}

// deleteRow removes the list item at path ("tags[2]").
func (fm *form) deleteRow(path string) {
	if !strings.HasSuffix(path, "]") {
		return
	}
	i := strings.LastIndexByte(path, '[')
	if i < 0 {
		return
	}
	n, err := strconv.Atoi(path[i+1 : len(path)-1])
	list := path[:i]
	if err != nil || n < 0 {
		return
	}
	if def := fm.defAt(list); def == nil || def.Type != "list" {
		return
	}
	if get, set, ok := fm.at(list); ok {
		if items, _ := get().([]any); n < len(items) {
			set(append(items[:n:n], items[n+1:]...))
		}
	}
}

// pick sets the entity field at path to id.
func (fm *form) pick(path, id string) {
	if def := fm.defAt(path); def == nil {
		return
	}
	if _, set, ok := fm.at(path); ok {
		set(id)
	}
}
