package explorer

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"log/slog"
	"strings"
	"sync"

	"github.com/toolapi/toolapi/tool"
)

// AppMIMEType is the media type of an MCP App page, the HTML an agent
// host shows in a sandboxed frame inside the conversation.
const AppMIMEType = "text/html;profile=mcp-app"

// AppOptions configure [Apps]; nil means defaults.
type AppOptions struct {
	// Logger receives what goes wrong while building pages. Nil means the
	// registry's logger.
	Logger *slog.Logger
}

// Apps builds the MCP App of each tool of a registry: one self-contained
// HTML page that shows the tool's execute form as the explorer shows it
// (the same fields, built from the same definitions: constraints and
// help, entity pickers, choices, a confirmation box for tools that
// change data), runs the tool through the agent host that shows it
// (tools/call over the host's postMessage bridge), and renders the
// outputs as the explorer does. The host may seed the form with the
// arguments a model proposed; the person checks and edits them before
// running.
//
// A page holds no credential and loads nothing: its style and script are
// inline, it needs no network, and every value of the server in it is
// escaped by html/template. The part of a page that does not depend on
// the account (everything but the suggestions of its entity pickers, and
// for a tool with a refiner its refined fields) is built once per tool
// and kept. Apps is safe for concurrent use.
type Apps struct {
	e *server

	mu    sync.Mutex
	built map[string]*appParts // by tool ID
}

// An appParts is the account-independent part of the page of one tool.
type appParts struct {
	t         *tool.Tool
	name, uri string
	// head and tail surround the per-account datalists.
	head, tail []byte
	// entityTypes are the entity types whose suggestions the page offers.
	entityTypes []string
}

// NewApps returns the app builder of reg's tools. opts may be nil.
func NewApps(reg *tool.Registry, opts *AppOptions) *Apps {
	e := &server{reg: reg, prefix: "/"}
	if opts != nil {
		e.logger = opts.Logger
	}
	if e.logger == nil {
		e.logger = reg.Logger()
	}
	return &Apps{e: e, built: make(map[string]*appParts)}
}

var (
	//go:embed assets/app.js
	appScriptSource string
	//go:embed assets/style.css
	appStyleSource string

	appScript = compactSource(appScriptSource, "//")
	appStyle  = compactSource(appStyleSource, "/*")
)

// compactSource returns src without the indentation of its lines, its
// empty lines and the lines that are only a comment starting with
// comment, so that each page carries less.
func compactSource(src, comment string) string {
	var b strings.Builder
	b.Grow(len(src))
	for line := range strings.Lines(src) {
		line = strings.TrimLeft(line, " \t")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, comment) && (comment != "/*" || strings.HasSuffix(strings.TrimSpace(line), "*/")) {
			continue
		}
		b.WriteString(line)
	}
	return b.String()
}

//go:embed templates/app.html
var appTemplateText string

var appTemplate = template.Must(template.New("app").Parse(appTemplateText))

// An appView is what the app template shows.
type appView struct {
	Tool         *tool.Tool
	Name         string
	URI          string
	Refines      bool
	Operation    string
	Destructive  bool
	NeedsConfirm bool
	Fields       []*field
	Kinds        string
	Outputs      string
	Style        template.CSS
	Script       template.JS
	Datalists    []datalist
}

// Page returns the HTML of t's app as acct sees it; name is the name
// the tool is called by over MCP, and uri the address the page is read
// at. args, when not nil, are values the form shows in place of the
// defaults, for a tool with a refiner (see [tool.Refiner]): the page's
// fields are then those the refiner makes of them, and the page reads
// itself again, at uri with the query "args" holding the values as JSON,
// when a value they depend on changes. The caller checks that acct may
// see t: a page says nothing more than the tool's definition and the
// entities acct may view.
func (a *Apps) Page(ctx context.Context, acct tool.Account, t *tool.Tool, name, uri string, args map[string]any) ([]byte, error) {
	ctx = tool.WithAccount(ctx, acct)
	if t.Refiner != nil {
		// Refined fields depend on what the refiner makes of the
		// values, for this account: nothing of the page is kept.
		p, err := a.build(ctx, acct, t, name, uri, args)
		if err != nil {
			return nil, err
		}
		return a.assemble(ctx, acct, p), nil
	}
	a.mu.Lock()
	p := a.built[t.ID]
	a.mu.Unlock()
	if p == nil || p.t != t || p.name != name || p.uri != uri {
		var err error
		if p, err = a.build(ctx, acct, t, name, uri, nil); err != nil {
			return nil, err
		}
		a.mu.Lock()
		a.built[t.ID] = p
		a.mu.Unlock()
	}
	return a.assemble(ctx, acct, p), nil
}

// Forget drops what was kept of the page of the tool with the given ID,
// for a tool that left the registry.
func (a *Apps) Forget(id string) {
	a.mu.Lock()
	delete(a.built, id)
	a.mu.Unlock()
}

// build renders the parts of t's page around the datalists.
func (a *Apps) build(ctx context.Context, acct tool.Account, t *tool.Tool, name, uri string, args map[string]any) (*appParts, error) {
	fm := a.e.newForm(ctx, &visit{acct: acct}, t)
	fm.app = true
	fm.fill(args) // the defaults, the values given over them, refined
	fm.build(nil)
	kinds, err := json.Marshal(inputKinds(fm.defs))
	if err != nil {
		return nil, fmt.Errorf("input kinds: %w", err)
	}
	outs, err := json.Marshal(appOutputs(t.Outputs))
	if err != nil {
		return nil, fmt.Errorf("outputs: %w", err)
	}
	v := &appView{
		Tool:         t,
		Name:         name,
		URI:          uri,
		Refines:      t.Refiner != nil,
		Operation:    string(t.EffectiveOperation()),
		Destructive:  t.IsDestructive(),
		NeedsConfirm: t.IsDestructive() || t.MayConfirm(),
		Fields:       fm.fields,
		Kinds:        string(kinds),
		Outputs:      string(outs),
		Style:        template.CSS(appStyle),
		Script:       template.JS(appScript),
	}
	var head, tail bytes.Buffer
	if err := appTemplate.ExecuteTemplate(&head, "head", v); err != nil {
		return nil, fmt.Errorf("rendering the app of %s: %w", t.ID, err)
	}
	if err := appTemplate.ExecuteTemplate(&tail, "tail", v); err != nil {
		return nil, fmt.Errorf("rendering the app of %s: %w", t.ID, err)
	}
	return &appParts{t: t, name: name, uri: uri, head: head.Bytes(), tail: tail.Bytes(), entityTypes: fm.entityOrder}, nil
}

// assemble returns the page of p with the suggestions acct may see.
func (a *Apps) assemble(ctx context.Context, acct tool.Account, p *appParts) []byte {
	if len(p.entityTypes) == 0 {
		out := make([]byte, 0, len(p.head)+len(p.tail))
		return append(append(out, p.head...), p.tail...)
	}
	var lists []datalist
	for _, typ := range p.entityTypes {
		et, ok := a.e.reg.EntityType(typ)
		if !ok || et.Search == nil {
			continue
		}
		refs, err := et.Search(ctx, acct, "", maxSuggestions)
		if err != nil {
			a.e.logger.Error("explorer: searching entities for an app", "type", typ, "error", err.Error())
		}
		lists = append(lists, datalist{ID: "entities-" + typ, Entities: refs})
	}
	var b bytes.Buffer
	b.Grow(len(p.head) + len(p.tail) + 64*len(lists))
	b.Write(p.head)
	if err := appTemplate.ExecuteTemplate(&b, "datalists", lists); err != nil {
		a.e.logger.Error("explorer: rendering the suggestions of an app", "tool", p.t.ID, "error", err.Error())
	}
	b.Write(p.tail)
	return b.Bytes()
}

// inputKinds returns how the page turns each field's text into JSON, by
// path pattern: "tags[]" for the items of tags, "settings.limit" for a
// property.
func inputKinds(defs []*tool.Definition) map[string]string {
	out := make(map[string]string)
	var walk func(def *tool.Definition, path string)
	walk = func(def *tool.Definition, path string) {
		out[path] = inputKind(def)
		switch {
		case def.Type == "list" && def.Items != nil:
			walk(def.Items, path+"[]")
		case def.Type == "map" && len(def.Properties) > 0:
			for _, p := range def.Properties {
				walk(p, path+"."+p.Name)
			}
		}
	}
	for _, def := range defs {
		if !def.Locked {
			walk(def, def.Name)
		}
	}
	return out
}

// inputKind says how the page reads a value of def: as an integer, a
// number, a boolean, JSON, a date or time given as the browser's date
// fields give it, a list, a map, or text.
func inputKind(def *tool.Definition) string {
	switch defaultAdapter(def) {
	case listAdapter:
		return "list"
	case mapAdapter:
		return "map"
	case jsonAdapter:
		return "json"
	case checkboxAdapter:
		return "boolean"
	case dateTimeAdapter:
		return "datetime"
	}
	switch def.Type {
	case "integer":
		return "integer"
	case "float":
		return "number"
	}
	return "text"
}

// An appOutput is what the page's script needs of an output's definition
// to render its values as the explorer does.
type appOutput struct {
	Name        string       `json:"name"`
	Label       string       `json:"label,omitempty"`
	Description string       `json:"description,omitempty"`
	Type        string       `json:"type"`
	Media       string       `json:"media,omitempty"`
	DateOnly    bool         `json:"dateonly,omitempty"`
	Items       *appOutput   `json:"items,omitempty"`
	Properties  []*appOutput `json:"properties,omitempty"`
}

func appOutputs(defs []*tool.Definition) []*appOutput {
	out := make([]*appOutput, 0, len(defs))
	for _, d := range defs {
		out = append(out, appOutputOf(d, true))
	}
	return out
}

func appOutputOf(d *tool.Definition, top bool) *appOutput {
	o := &appOutput{Name: d.Name, Type: d.Type, Media: d.Constraints.Media, DateOnly: d.Constraints.DateOnly, Description: d.Description}
	if top {
		o.Label = humanName(d)
	} else {
		o.Label = d.Label
		o.Description = ""
	}
	if d.Items != nil {
		o.Items = appOutputOf(d.Items, false)
	}
	for _, p := range d.Properties {
		o.Properties = append(o.Properties, appOutputOf(p, false))
	}
	return o
}
