package gen

import (
	"bytes"
	"fmt"
	"go/format"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"text/template"

	"github.com/toolapi/toolapi/tool"
)

// defLiteral returns the Go expression of a definition.
func defLiteral(d *tool.Definition) string { return "&tool.Definition" + defBody(d) }

// defBody returns the braced fields of a definition, for slices of them.
func defBody(d *tool.Definition) string {
	var b strings.Builder
	b.WriteString("{")
	writeDefFields(&b, d)
	b.WriteString("}")
	return b.String()
}

// outputLiteral returns the Go expression of an output definition in a
// slice: a call of tool.ResourceDefinition for the output it defines,
// else the braced fields.
func outputLiteral(d *tool.Definition) string {
	if d.Constraints.Media == tool.MediaResource && reflect.DeepEqual(d, tool.ResourceDefinition(d.Name, d.Description)) {
		return fmt.Sprintf("tool.ResourceDefinition(%q, %q)", d.Name, d.Description)
	}
	return defBody(d)
}

func writeDefFields(b *strings.Builder, d *tool.Definition) {
	field := func(name, value string) {
		b.WriteString("\n")
		b.WriteString(name)
		b.WriteString(": ")
		b.WriteString(value)
		b.WriteString(",")
	}
	q := strconv.Quote
	if d.Name != "" {
		field("Name", q(d.Name))
	}
	field("Type", q(d.Type))
	if d.Label != "" {
		field("Label", q(d.Label))
	}
	if d.Description != "" {
		field("Description", q(d.Description))
	}
	if d.Required {
		field("Required", "true")
	}
	if d.Nullable {
		field("Nullable", "true")
	}
	if d.Default != nil {
		field("Default", goValue(d.Default))
	}
	if d.Locked {
		field("Locked", "true")
	}
	if len(d.Examples) > 0 {
		field("Examples", goValue(d.Examples))
	}
	if d.Items != nil {
		field("Items", defLiteral(d.Items))
	}
	if len(d.Properties) > 0 {
		var pb strings.Builder
		pb.WriteString("[]*tool.Definition{")
		for _, p := range d.Properties {
			pb.WriteString("\n")
			pb.WriteString(defBody(p))
			pb.WriteString(",")
		}
		pb.WriteString("\n}")
		field("Properties", pb.String())
	}
	if d.Values != nil {
		field("Values", defLiteral(d.Values))
	}
	if d.EntityOp != "" {
		field("EntityOp", q(d.EntityOp))
	}
	if d.Config != "" {
		field("Config", q(d.Config))
	}
	if c := constraintsLiteral(d.Constraints); c != "" {
		field("Constraints", c)
	}
	b.WriteString("\n")
}

func constraintsLiteral(c tool.Constraints) string {
	var parts []string
	add := func(name, value string) { parts = append(parts, name+": "+value) }
	if c.NotBlank {
		add("NotBlank", "true")
	}
	if c.NotNull {
		add("NotNull", "true")
	}
	if c.Count != nil {
		add("Count", boundsLiteral(c.Count))
	}
	if c.Length != nil {
		add("Length", boundsLiteral(c.Length))
	}
	if c.Range != nil {
		var rp []string
		if c.Range.Min != nil {
			rp = append(rp, "Min: tool.Ptr("+floatLiteral(*c.Range.Min)+")")
		}
		if c.Range.Max != nil {
			rp = append(rp, "Max: tool.Ptr("+floatLiteral(*c.Range.Max)+")")
		}
		add("Range", "&tool.Range{"+strings.Join(rp, ", ")+"}")
	}
	if len(c.Choice) > 0 {
		add("Choice", goValue(c.Choice))
	}
	if c.Pattern != "" {
		add("Pattern", strconv.Quote(c.Pattern))
	}
	if c.Email {
		add("Email", "true")
	}
	if c.Encoding != "" {
		add("Encoding", strconv.Quote(c.Encoding))
	}
	if c.DateOnly {
		add("DateOnly", "true")
	}
	if c.Media != "" {
		add("Media", strconv.Quote(c.Media))
	}
	if len(parts) == 0 {
		return ""
	}
	return "tool.Constraints{" + strings.Join(parts, ", ") + "}"
}

func boundsLiteral(b *tool.Bounds) string {
	var parts []string
	if b.Min != nil {
		parts = append(parts, "Min: tool.Ptr("+strconv.Itoa(*b.Min)+")")
	}
	if b.Max != nil {
		parts = append(parts, "Max: tool.Ptr("+strconv.Itoa(*b.Max)+")")
	}
	return "&tool.Bounds{" + strings.Join(parts, ", ") + "}"
}

// floatLiteral writes f so that Go reads it as a float64.
func floatLiteral(f float64) string {
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eEn") {
		s += ".0"
	}
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return "0.0"
	}
	return s
}

// goValue returns the Go expression of a JSON-form value.
func goValue(v any) string {
	switch v := v.(type) {
	case nil:
		return "nil"
	case string:
		return strconv.Quote(v)
	case bool:
		return strconv.FormatBool(v)
	case int:
		return strconv.Itoa(v)
	case float64:
		return "float64(" + floatLiteral(v) + ")"
	case []any:
		parts := make([]string, len(v))
		for i, x := range v {
			parts[i] = goValue(x)
		}
		return "[]any{" + strings.Join(parts, ", ") + "}"
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = strconv.Quote(k) + ": " + goValue(v[k])
		}
		return "map[string]any{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprintf("%#v", v)
}

var fileTemplate = template.Must(template.New("file").Parse(`{{.Header}}

//go:build !{{.Tag}}

package {{.Pkg.Name}}

import (
{{range .Std}}	{{.}}
{{end}}
{{range .Other}}	{{.}}
{{end}})
{{range .Pkg.Services}}
// {{.Name}}Tools returns the tools of {{.Name}}'s methods:{{range $i, $t := .Tools}}{{if $i}},{{end}} {{$t.Tool.ID}}{{end}}.
// A nil svc gives the tools without handlers, which [tool.Registry.Add]
// leaves out and logs.
func {{.Name}}Tools(svc {{if not .Interface}}*{{end}}{{.Name}}) []*tool.Tool {
	return []*tool.Tool{
{{range .Tools}}		{{.Func}}(svc),
{{end}}	}
}
{{end}}
// RegisterTools adds the tools of {{range $i, $s := .Pkg.Services}}{{if $i}}, {{end}}{{$s.Name}}{{end}} to r. A nil
// service leaves its tools out, logged by r; the error joins the reasons of
// every tool left out.
func RegisterTools(r *tool.Registry{{range .Pkg.Services}}, {{.Param}} {{if not .Interface}}*{{end}}{{.Name}}{{end}}) error {
	var tools []*tool.Tool
{{range .Pkg.Services}}	tools = append(tools, {{.Name}}Tools({{.Param}})...)
{{end}}	return r.Add(tools...)
}
{{range .Tools}}
// {{.Func}} returns {{.Def.ID}}, the tool of {{.MethodName}}.
func {{.Func}}(svc {{if not .Service.Interface}}*{{end}}{{.Service.Name}}) *tool.Tool {
{{- if .Signature}}
	{{.Signature}} // a changed signature must break the build
{{- end}}
	t := &tool.Tool{
		ID: {{printf "%q" .Def.ID}},
		Label: {{printf "%q" .Def.Label}},
		Description: {{printf "%q" .Def.Description}},
		Operation: tool.Op{{.OpName}},
{{- if .Def.Destructive}}
		Destructive: tool.Ptr({{.Def.Destructive}}),
{{- end}}
{{- if .Def.Permission}}
		Permission: {{printf "%q" .Def.Permission}},
{{- end}}
{{- if .Def.Confirm}}
		Confirm: true,
{{- end}}
{{- if .InputDefs}}
		Inputs: []*tool.Definition{
{{range .InputDefs}}{{.}},
{{end}}},
{{- end}}
{{- if .OutputDefs}}
		Outputs: []*tool.Definition{
{{range .OutputDefs}}{{.}},
{{end}}},
{{- end}}
	}
	if svc == nil {
		return t
	}
{{- if .Refine}}
	t.Refiner = {{.Refine}}
{{- end}}
{{- if .Access}}
	t.Access = func(ctx context.Context, in *tool.Values) (bool, error) {
{{.Access}}	}
{{- end}}
	t.Handler = func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
{{.Decode}}{{.Call}}	}
	return t
}
{{end}}
{{range .Helpers}}
{{.}}{{end}}`))

type fileData struct {
	Header, Tag string
	Pkg         *Package
	Std, Other  []string
	Tools       []*renderTool
	Helpers     []string
}

type renderTool struct {
	Def                   *tool.Tool
	Service               *Service
	Func, MethodName      string
	InputDefs, OutputDefs []string
	Decode, Call, Access  string
	Refine, Signature     string
	OpName                string
}

// Param returns the parameter name of the service in RegisterTools.
func (s *Service) Param() string {
	p := lowerFirst(s.Name)
	switch p {
	case "r", "tools", "tool", "ctx", "error":
		p += "Svc"
	}
	return p
}

// Render returns the generated file of a package, formatted.
func Render(pkg *Package) ([]byte, error) {
	im := pkg.imports
	im.add("context", "context")
	im.add(toolPath, "tool")
	data := &fileData{Header: Header, Tag: BuildTag, Pkg: pkg}
	for _, s := range pkg.Services {
		for _, t := range s.Tools {
			op := string(t.Tool.Operation)
			data.Tools = append(data.Tools, &renderTool{
				Def: t.Tool, Service: s, Func: t.Func, MethodName: t.MethodName(), InputDefs: t.inputDefs, OutputDefs: t.outputDefs,
				Decode: t.decode, Call: t.call, Access: t.access, Refine: t.refine, Signature: t.signature,
				OpName: strings.ToUpper(op[:1]) + op[1:],
			})
		}
	}
	var names []string
	for name, h := range pkg.helpers {
		if h.code != "" {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, n := range names {
		data.Helpers = append(data.Helpers, pkg.helpers[n].code)
	}
	for _, t := range data.Tools {
		if strings.Contains(t.Decode+t.Call+t.Access, "time.") {
			im.add("time", "time")
		}
	}
	for _, h := range data.Helpers {
		if strings.Contains(h, "time.") {
			im.add("time", "time")
		}
	}
	data.Std, data.Other = im.lines()
	var buf bytes.Buffer
	if err := fileTemplate.Execute(&buf, data); err != nil {
		return nil, err
	}
	out, err := format.Source(buf.Bytes())
	if err != nil {
		return buf.Bytes(), fmt.Errorf("formatting the generated file of %s: %w", pkg.Path, err)
	}
	return out, nil
}
