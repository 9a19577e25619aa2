package gen

import (
	"bytes"
	"fmt"
	"go/format"
	"go/token"
	"go/types"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/template"

	"github.com/toolapi/toolapi/tool"
)

var fileTemplate = template.Must(template.New("file").Parse(`{{.Header}}

//go:build !{{.Tag}}

package {{.Pkg.Name}}

import (
{{range .Std}}	{{.}}
{{end}}
{{range .Other}}	{{.}}
{{end}})
{{range .Services}}
// {{.Name}}Tools returns the tools of {{.Name}}'s methods:{{range $i, $t := .Tools}}{{if $i}},{{end}} {{$t.Def.ID}}{{end}}.
// A nil svc gives the tools without handlers, which [tool.Registry.Add]
// leaves out and logs.
func {{.Name}}Tools(svc {{if not .Interface}}*{{end}}{{.Name}}) []*tool.Tool {
	return []*tool.Tool{
{{range .Tools}}		{{.Func}}(svc),
{{end}}	}
}
{{end}}
// RegisterTools adds the tools of {{range $i, $s := .Services}}{{if $i}}, {{end}}{{$s.Name}}{{end}} to r. A nil
// service leaves its tools out, logged by r; the error joins the reasons of
// every tool left out.
func RegisterTools(r *tool.Registry{{range .Services}}, {{.Param}} {{if not .Interface}}*{{end}}{{.Name}}{{end}}) error {
	var tools []*tool.Tool
{{range .Services}}	tools = append(tools, {{.Name}}Tools({{.Param}})...)
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
{{- if .Def.Approver}}
		Approver: {{printf "%q" .Def.Approver}},
{{- end}}
{{- if .Def.Confirm}}
		Confirm: true,
{{- end}}
{{- if .Def.Deprecated}}
		Deprecated: {{printf "%q" .Def.Deprecated}},
{{- end}}
{{- if .TaskName}}
		Task: tool.Task{{.TaskName}},
{{- end}}
{{- if .Def.TaskTTL}}
		TaskTTL: {{printf "%d" .Def.TaskTTL}}, // {{.Def.TaskTTL}}
{{- end}}
{{- if .Def.Icon}}
		Icon: {{printf "%q" .Def.Icon}},
{{- end}}
{{- if .NeedNames}}
		Needs: []tool.ClientFeature{ {{- range $i, $n := .NeedNames}}{{if $i}}, {{end}}tool.Needs{{$n}}{{end -}} },
{{- end}}
{{- if or .Def.Budget.Bytes .Def.Budget.Items}}
		Budget: tool.Budget{ {{- with .Def.Budget.Bytes}}Bytes: {{.}}{{end}}{{if and .Def.Budget.Bytes .Def.Budget.Items}}, {{end}}{{with .Def.Budget.Items}}Items: {{.}}{{end -}} },
{{- end}}
{{- if .Def.Groups}}
		Groups: []string{ {{- range $i, $g := .Def.Groups}}{{if $i}}, {{end}}{{printf "%q" $g}}{{end -}} },
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
{{- if .ConfirmIf}}
	t.ConfirmIf = func(ctx context.Context, in *tool.Values) (string, error) {
{{.ConfirmIf}}	}
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
	Services    []*renderService
	Tools       []*renderTool
	Helpers     []string
}

type renderService struct {
	*Service
	Tools []*renderTool
}

type renderTool struct {
	Def                   *tool.Tool
	Service               *Service
	Func, MethodName      string
	InputDefs, OutputDefs []string
	Decode, Call, Access  string
	ConfirmIf             string
	Refine, Signature     string
	OpName, TaskName      string
	NeedNames             []string
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

// A renderer writes the generated file of one package from its model. It
// alone decides what the file imports: a package is imported when the
// code it writes names it.
type renderer struct {
	pkg     *Package
	imports *imports
	// helpers holds the code of each generated helper function by name
	// ("" while it is written); helperOf names the helper of each key.
	helpers  map[string]string
	helperOf map[string]string
	// reserved holds the names a generated function's locals avoid;
	// locals collects those they took.
	reserved map[string]bool
	locals   map[string]bool
}

// reservedLocals are the names the generated functions declare or refer
// to themselves.
var reservedLocals = []string{"ctx", "in", "svc", "t", "err", "tool", "context", "e", "m", "v", "x", "out", "res"}

// Render returns the generated file of a package, formatted.
func Render(pkg *Package) ([]byte, error) {
	reserved := map[string]bool{}
	for _, n := range reservedLocals {
		reserved[n] = true
	}
	for {
		r := &renderer{pkg: pkg, imports: newImports(pkg.types), helpers: map[string]string{}, helperOf: map[string]string{},
			reserved: reserved, locals: map[string]bool{}}
		src, err := r.file()
		if err != nil {
			return src, err
		}
		// A parameter or result named as a package the file imports
		// would hide it: render again with that name taken.
		clash := false
		for _, name := range r.imports.byPath {
			if r.locals[name] && !reserved[name] {
				reserved[name], clash = true, true
			}
		}
		if !clash {
			return src, nil
		}
	}
}

// file renders the whole file.
func (r *renderer) file() ([]byte, error) {
	r.use("context", "context")
	r.use(toolPath, "tool")
	data := &fileData{Header: Header, Tag: BuildTag, Pkg: r.pkg}
	// Tool functions are named first, so that helpers never take their
	// names.
	funcs := map[*Tool]string{}
	for _, s := range r.pkg.Services {
		for _, t := range s.Tools {
			funcs[t] = r.helper("tool "+t.Tool.ID, lowerFirst(camel(t.Tool.ID))+"Tool", func(string) string { return "" })
		}
	}
	for _, s := range r.pkg.Services {
		rs := &renderService{Service: s}
		for _, t := range s.Tools {
			rt := r.tool(t, funcs[t])
			rs.Tools = append(rs.Tools, rt)
			data.Tools = append(data.Tools, rt)
		}
		data.Services = append(data.Services, rs)
	}
	var names []string
	for name, code := range r.helpers {
		if code != "" {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, n := range names {
		data.Helpers = append(data.Helpers, r.helpers[n])
	}
	data.Std, data.Other = r.imports.lines()
	var buf bytes.Buffer
	if err := fileTemplate.Execute(&buf, data); err != nil {
		return nil, err
	}
	out, err := format.Source(buf.Bytes())
	if err != nil {
		return buf.Bytes(), fmt.Errorf("formatting the generated file of %s: %w", r.pkg.Path, err)
	}
	return out, nil
}

// tool renders the function building one tool.
func (r *renderer) tool(t *Tool, name string) *renderTool {
	op := string(t.Tool.Operation)
	rt := &renderTool{
		Def: t.Tool, Service: t.Service, Func: name, MethodName: t.MethodName(),
		OpName:    strings.ToUpper(op[:1]) + op[1:],
		Signature: r.signatureAssertion(t.method),
	}
	if m := string(t.Tool.Task); m != "" {
		rt.TaskName = strings.ToUpper(m[:1]) + m[1:]
	}
	for _, n := range t.Tool.Needs {
		rt.NeedNames = append(rt.NeedNames, strings.ToUpper(string(n[:1]))+string(n[1:]))
	}
	for _, p := range t.params {
		if p.defFunc != nil {
			rt.InputDefs = append(rt.InputDefs, r.definitionCall(p.defFunc, p.name))
		} else {
			rt.InputDefs = append(rt.InputDefs, r.defBody(p.def))
		}
	}
	for _, o := range t.outputs {
		if o.defFunc != nil {
			rt.OutputDefs = append(rt.OutputDefs, r.definitionCall(o.defFunc, o.def.Name))
		} else {
			rt.OutputDefs = append(rt.OutputDefs, r.outputLiteral(o.def))
		}
	}
	taken := maps.Clone(r.reserved)
	local := func(base, suffix string) string {
		name := base
		for taken[name] {
			name += suffix
		}
		taken[name] = true
		r.locals[name] = true
		return name
	}
	locals := make([]string, len(t.params))
	args := make([]string, 0, len(t.params)+1)
	if t.context {
		args = append(args, "ctx")
	}
	for i, p := range t.params {
		locals[i] = local(p.goName, "Arg")
		arg := locals[i]
		if p.variadic {
			arg += "..."
		}
		args = append(args, arg)
	}
	rt.Decode = r.decodeInputs(t, locals, nil)
	if t.access != "" {
		// An input the access method cannot be given is left to the
		// handler, which decodes the same values, fails the same way and
		// reports the input error without calling the method.
		decode := r.decodeInputs(t, locals, func(string) string { return "return true, nil" })
		accessArgs := append([]string{"ctx"}, args[len(args)-len(t.params):]...)
		rt.Access = decode + fmt.Sprintf("return svc.%s(%s)\n", t.access, strings.Join(accessArgs, ", "))
	}
	if t.confirm != "" {
		// As for access: an input the method cannot be given is left to
		// the handler to report.
		decode := r.decodeInputs(t, locals, func(string) string { return "return \"\", nil" })
		confirmArgs := append([]string{"ctx"}, args[len(args)-len(t.params):]...)
		rt.ConfirmIf = decode + fmt.Sprintf("return svc.%s(%s)\n", t.confirm, strings.Join(confirmArgs, ", "))
	}
	if t.refine != "" {
		var names []string
		for _, p := range t.params {
			names = append(names, strconv.Quote(p.name))
		}
		rt.Refine = fmt.Sprintf("&tool.Refiner{Inputs: []string{%s}, Refine: svc.%s}", strings.Join(names, ", "), t.refine)
	}
	rt.Call = r.call(t, fmt.Sprintf("svc.%s(%s)", t.Method, strings.Join(args, ", ")), func(base string) string { return local(base, "Out") })
	return rt
}

// call returns the statements calling the method (callExpr) and
// returning its result.
func (r *renderer) call(t *Tool, callExpr string, local func(string) string) string {
	w := &body{}
	res := t.result
	assign := func(names ...string) {
		if res.err {
			names = append(names, "err")
		}
		w.line("%s := %s", strings.Join(names, ", "), callExpr)
		if res.err {
			w.line("if err != nil {")
			w.line("return nil, err")
			w.line("}")
		}
	}
	switch res.kind {
	case resultNone:
		switch {
		case res.err && res.values == 0:
			w.line("if err := %s; err != nil {", callExpr)
			w.line("return nil, err")
			w.line("}")
		case res.err:
			w.line("if _, err := %s; err != nil {", callExpr)
			w.line("return nil, err")
			w.line("}")
		default:
			w.line("%s", callExpr)
		}
		w.line(`return tool.Succeeded("", nil), nil`)
	case resultToolResult:
		v := local("res")
		assign(v)
		if res.pointer {
			w.line("return %s, nil", v)
		} else {
			w.line("return &%s, nil", v)
		}
	case resultAnyMap:
		v := local("out")
		assign(v)
		w.line(`return tool.Succeeded("", %s), nil`, v)
	case resultValues:
		vars := make([]string, len(t.outputs))
		for i, o := range t.outputs {
			base := "result"
			if o.goName != "" {
				base = o.goName
			}
			vars[i] = local(base)
		}
		if !res.err || t.outputs[0].goName == "" {
			assign(vars...)
		} else {
			// Named results: a run that failed partway publishes the
			// outputs the method set (see tool.FailedPartway), the
			// error beside them deciding the outcome.
			w.line("%s, err := %s", strings.Join(vars, ", "), callExpr)
			w.line("if err != nil && !tool.FailedPartway(ctx, err) {")
			w.line("return nil, err")
			w.line("}")
		}
		w.line(`return tool.Succeeded("", map[string]any{`)
		for i, o := range t.outputs {
			w.line("%q: %s,", o.def.Name, r.publish(o.pub, vars[i]))
		}
		if res.err && t.outputs[0].goName != "" {
			w.line("}), err")
		} else {
			w.line("}), nil")
		}
	}
	return w.b.String()
}

// definitionCall returns the expression of a definition= function's
// definition, named name.
func (r *renderer) definitionCall(f *funcRef, name string) string {
	fn := f.name
	if f.pkg != nil {
		fn = r.use(f.pkg.Path(), f.pkg.Name()) + "." + f.name
	}
	withName := r.helper("withName", "withName", func(name string) string {
		return fmt.Sprintf(`// %[1]s returns a copy of a definition a function gave, named name.
func %[1]s(d *tool.Definition, name string) *tool.Definition {
	c := *d
	c.Name = name
	return &c
}
`, name)
	})
	return fmt.Sprintf("%s(%s(), %q)", withName, fn, name)
}

// signatureAssertion returns a declaration that compiles only while the
// method has exactly the signature the tool was generated from:
//
//	var _ func(*Manager, context.Context, string) ([]Image, error) = (*Manager).Search
//
// A result whose type changed, or a parameter added, breaks the build
// even where the generated call would still compile.
func (r *renderer) signatureAssertion(m *types.Func) string {
	sig := m.Type().(*types.Signature)
	recv := sig.Recv().Type()
	params := []*types.Var{types.NewParam(token.NoPos, nil, "", recv)}
	for i := range sig.Params().Len() {
		params = append(params, types.NewParam(token.NoPos, nil, "", sig.Params().At(i).Type()))
	}
	var results []*types.Var
	for i := range sig.Results().Len() {
		results = append(results, types.NewParam(token.NoPos, nil, "", sig.Results().At(i).Type()))
	}
	fn := types.NewSignatureType(nil, nil, nil, types.NewTuple(params...), types.NewTuple(results...), sig.Variadic())
	return fmt.Sprintf("var _ %s = (%s).%s", r.typeString(fn), r.typeString(recv), m.Name())
}

// use imports path, returning its local name.
func (r *renderer) use(path, name string) string { return r.imports.add(path, name) }

// typeString returns how the generated file spells t, importing what it
// names.
func (r *renderer) typeString(t types.Type) string { return r.imports.typeString(t) }

// helper returns the name of the generated function for key, written by
// write the first time key is asked for. base is the name it would like.
func (r *renderer) helper(key, base string, write func(name string) string) string {
	if name, ok := r.helperOf[key]; ok {
		return name
	}
	name := base
	for i := 2; ; i++ {
		_, taken := r.helpers[name]
		if !taken && (r.pkg.types == nil || r.pkg.types.Scope().Lookup(name) == nil) {
			break
		}
		name = base + strconv.Itoa(i)
	}
	r.helperOf[key] = name
	r.helpers[name] = "" // taken while written: a type may refer to itself
	r.helpers[name] = write(name)
	return name
}

// slug names a type inside generated function names: Image, AlbumImage
// (from package album), ImageList, ImagePtr.
func (r *renderer) slug(t types.Type) string {
	switch t := types.Unalias(t).(type) {
	case *types.Named:
		name := upperFirst(t.Obj().Name())
		if p := t.Obj().Pkg(); p != nil && p.Path() != r.pkg.Path {
			name = upperFirst(p.Name()) + name
		}
		return name
	case *types.Pointer:
		return r.slug(t.Elem()) + "Ptr"
	case *types.Slice:
		return r.slug(t.Elem()) + "List"
	case *types.Map:
		return r.slug(t.Elem()) + "Map"
	case *types.Basic:
		return upperFirst(t.Name())
	case *types.Struct:
		return "Shape"
	case *types.Interface:
		return "Any"
	}
	return "Value"
}
