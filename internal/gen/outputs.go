package gen

import (
	"fmt"
	"go/token"
	"go/types"
	"strings"

	"github.com/toolapi/toolapi/internal/directive"
	"github.com/toolapi/toolapi/tool"
)

// An output is one output of a tool method.
type output struct {
	def     *tool.Definition
	defExpr string // a definition= function call, "" when none
	pub     pubFn
	local   string // the Go variable holding its value
}

// outputName returns the name an //tool:output directive gives: its
// argument or name=.
func outputName(d *directive.Directive) string {
	if n := d.String("name"); n != "" {
		return n
	}
	return d.Arg
}

func outputPos(d *directive.Directive) token.Position {
	if a, ok := d.Lookup("name"); ok {
		return a.ValuePos
	}
	if d.Arg != "" {
		return d.ArgPos
	}
	return d.Pos
}

// outputs describes what the method returns and writes the statements
// that call it and return its result.
func (in *inferrer) outputs(ty *typer, errs *toolErrors, c candidate, sig *types.Signature, dirs []*directive.Directive, doc docText, args string, locals map[string]bool) ([]*output, string) {
	res := sig.Results()
	var vals []*types.Var
	hasErr := false
	for i := range res.Len() {
		v := res.At(i)
		if isError(v.Type()) {
			if i != res.Len()-1 {
				errs.add(c.pos, "only the last result may be an error")
				return nil, ""
			}
			hasErr = true
			continue
		}
		vals = append(vals, v)
	}
	callExpr := fmt.Sprintf("svc.%s(%s)", c.method.Name(), args)
	w := ty.writer()
	errCheck := func() {
		if hasErr {
			w.line("if err != nil {")
			w.line("return nil, err")
			w.line("}")
		}
	}
	local := func(base string) string {
		name := base
		for locals[name] {
			name += "Out"
		}
		locals[name] = true
		return name
	}
	assign := func(names ...string) string {
		if hasErr {
			names = append(names, "err")
		}
		return strings.Join(names, ", ") + " := " + callExpr
	}
	noOutputs := func() {
		switch {
		case hasErr && len(vals) == 0:
			w.line("if err := %s; err != nil {", callExpr)
			w.line("return nil, err")
			w.line("}")
		case hasErr:
			w.line("if _, err := %s; err != nil {", callExpr)
			w.line("return nil, err")
			w.line("}")
		default:
			w.line("%s", callExpr)
		}
		w.line(`return tool.Succeeded("", nil), nil`)
	}

	// Nothing, or only an error: no output.
	if len(vals) == 0 {
		if len(dirs) > 0 {
			errs.add(dirs[0].Pos, "//tool:output on a method that returns no value")
			return nil, ""
		}
		noOutputs()
		return nil, w.b.String()
	}
	if len(vals) == 1 && isToolResultType(vals[0].Type()) {
		outs := in.declaredOutputs(ty, errs, dirs, "a tool.Result")
		r := local("res")
		w.line("%s", assign(r))
		errCheck()
		if _, isPtr := vals[0].Type().(*types.Pointer); isPtr {
			w.line("return %s, nil", r)
		} else {
			w.line("return &%s, nil", r)
		}
		return outs, w.b.String()
	}
	// A fluent method returns its receiver: no output.
	if len(vals) == 1 && types.Identical(derefType(vals[0].Type()), c.recv.Type()) {
		if len(dirs) > 0 {
			errs.add(dirs[0].Pos, "//tool:output on a fluent method, which has no output")
			return nil, ""
		}
		noOutputs()
		return nil, w.b.String()
	}
	// Several outputs declared over a map[string]any result.
	if len(vals) == 1 && vals[0].Name() == "" && isAnyMap(vals[0].Type()) && len(dirs) >= 2 {
		outs := in.declaredOutputs(ty, errs, dirs, "a map[string]any")
		r := local("out")
		w.line("%s", assign(r))
		errCheck()
		w.line(`return tool.Succeeded("", %s), nil`, r)
		return outs, w.b.String()
	}

	named := vals[0].Name() != "" && vals[0].Name() != "_"
	if !named && len(vals) > 1 {
		errs.add(c.pos, "several unnamed results: name them, as each named result is an output")
		return nil, ""
	}
	var outs []*output
	var names []string
	for _, v := range vals {
		name := "result"
		if named {
			name = snake(v.Name())
		}
		names = append(names, name)
	}
	// Directives refine the outputs they name.
	dirFor := map[int]*directive.Directive{}
	for _, d := range dirs {
		n := outputName(d)
		switch {
		case !named && len(vals) == 1:
			if _, dup := dirFor[0]; dup {
				errs.add(d.Pos, "several //tool:output on one result: return map[string]any or tool.Result to declare several outputs, or name the results")
				continue
			}
			dirFor[0] = d
			if n != "" {
				names[0] = n
			}
		default:
			i := -1
			for j, v := range vals {
				if n == names[j] || n == v.Name() {
					i = j
				}
			}
			if i < 0 {
				errs.add(outputPos(d), "//tool:output %s names no result (results: %s)", n, strings.Join(names, ", "))
				continue
			}
			if _, dup := dirFor[i]; dup {
				errs.add(outputPos(d), "result %s has two //tool:output directives", n)
				continue
			}
			dirFor[i] = d
		}
	}
	var locs []string
	for i, v := range vals {
		o, ok := in.inferredOutput(ty, errs, c, v.Type(), names[i], dirFor[i])
		if !ok {
			continue
		}
		if named {
			if d, ok := doc.Items[v.Name()]; ok {
				o.def.Description = d
			} else if d, ok := doc.Items[names[i]]; ok {
				o.def.Description = d
			}
		} else if o.def.Description == "" {
			o.def.Description = doc.Returns
		}
		if dd := dirFor[i]; dd != nil && dd.Has("description") {
			o.def.Description = dd.String("description")
		}
		base := "result"
		if named {
			base = v.Name()
		}
		o.local = local(base)
		locs = append(locs, o.local)
		outs = append(outs, o)
	}
	if errs.n > 0 {
		return nil, ""
	}
	w.line("%s", assign(locs...))
	errCheck()
	w.line(`return tool.Succeeded("", map[string]any{`)
	for _, o := range outs {
		w.line("%q: %s,", o.def.Name, o.pub(o.local))
	}
	w.line("}), nil")
	return outs, w.b.String()
}

func isAnyMap(t types.Type) bool {
	m, ok := t.(*types.Map)
	return ok && types.Identical(m.Key(), types.Typ[types.String]) && isEmptyInterface(m.Elem())
}

// inferredOutput describes one output typed from a Go result.
func (in *inferrer) inferredOutput(ty *typer, errs *toolErrors, c candidate, t types.Type, name string, d *directive.Directive) (*output, bool) {
	fail := func(pos token.Position, format string, args ...any) (*output, bool) {
		errs.add(pos, "output %s: %s", name, fmt.Sprintf(format, args...))
		return nil, false
	}
	at := c.pos
	if d != nil {
		at = d.Pos
	}
	var sel []directive.Member
	if d != nil {
		if a, ok := d.Lookup("members"); ok {
			sel = a.Members
		}
	}
	o := &output{}
	var err error
	switch {
	case d != nil && d.String("definition") != "":
		expr, err := in.definitionFunc(ty, d.String("definition"))
		if err != nil {
			return fail(at, "definition=%s: %v", d.String("definition"), err)
		}
		o.defExpr = fmt.Sprintf("withName(%s(), %q)", expr, name)
		ty.pkg.helpers["withName"] = &helper{name: "withName", code: withNameCode}
		o.def = &tool.Definition{Type: "any", Required: true}
		o.pub = in.rawPublisher(ty, t)
	case d != nil && d.String("config") != "":
		def, err := in.configOutput(ty, t, d.String("config"))
		if err != nil {
			return fail(at, "%v", err)
		}
		o.def = def
		_, o.pub, err = ty.output(t, nil, nil)
		if err != nil && isAnyMap(t) {
			o.pub = identity
		} else if err != nil {
			return fail(at, "%v", err)
		}
	case d != nil && d.String("type") != "" && (isMarshaler(derefType(t)) || isEmptyInterface(t)):
		if sel != nil {
			return fail(at, "members= selects nothing: type= replaced what the value holds")
		}
		o.def = &tool.Definition{Type: d.String("type")}
		if d.Flag("multiple") {
			o.def = &tool.Definition{Type: "list", Items: o.def}
		}
		o.pub = in.rawPublisher(ty, t)
	default:
		o.def, o.pub, err = ty.output(t, sel, nil)
		if err != nil {
			return fail(at, "%v", err)
		}
		if d != nil && d.Flag("multiple") && o.def.Type != "list" {
			return fail(at, "multiple needs a list result, not %s", types.TypeString(t, nil))
		}
	}
	o.def.Name = name
	o.def.Required = true
	if d != nil {
		var args []directive.Arg
		for _, a := range d.Args {
			if a.Key == "type" && o.def.Type == d.String("type") {
				continue // already applied
			}
			args = append(args, a)
		}
		conv, err := ty.applyKeys(o.def, t, args, true)
		if err != nil {
			return fail(at, "%v", err)
		}
		if conv != nil {
			o.pub = conv
		}
	}
	return o, true
}

// rawPublisher publishes a value that describes itself: a json.Marshaler
// through its JSON, anything else as it is.
func (in *inferrer) rawPublisher(ty *typer, t types.Type) pubFn {
	if !isMarshaler(derefType(t)) {
		return identity
	}
	ty.pkg.imports.add("encoding/json", "json")
	ty.pkg.helpers["publishJSON"] = &helper{name: "publishJSON", code: publishJSONCode}
	return call("publishJSON")
}

const publishJSONCode = `// publishJSON publishes a value through its own JSON encoding. A value
// that fails to encode publishes as nil, which the registry reports.
func publishJSON(v json.Marshaler) any {
	data, err := v.MarshalJSON()
	if err != nil {
		return nil
	}
	var x any
	if err := json.Unmarshal(data, &x); err != nil {
		return nil
	}
	return x
}
`

// configOutput describes a config= output: the config struct's fields.
func (in *inferrer) configOutput(ty *typer, t types.Type, name string) (*tool.Definition, error) {
	key, ok := in.x.configs[name]
	if !ok {
		return nil, fmt.Errorf("config=%s: no type declares //tool:config %s", name, name)
	}
	td := in.x.types[key]
	pt := derefType(t)
	if !isAnyMap(pt) && typeKey(namedObj(pt)) != key {
		return nil, fmt.Errorf("config=%s: the result must be %s or map[string]any, not %s", name, td.obj.Name(), types.TypeString(t, nil))
	}
	d, _, err := ty.shape(td.obj.Type(), td.obj.Type().Underlying().(*types.Struct), nil)
	if err != nil {
		return nil, err
	}
	d.Config = name
	return d, nil
}

// declaredOutputs describes outputs a result cannot type (a tool.Result or
// a map): each //tool:output needs a name and a type, definition or config.
func (in *inferrer) declaredOutputs(ty *typer, errs *toolErrors, dirs []*directive.Directive, what string) []*output {
	var outs []*output
	seen := map[string]bool{}
	for _, d := range dirs {
		name := outputName(d)
		if name == "" {
			errs.add(d.Pos, "//tool:output over %s needs a name", what)
			continue
		}
		if seen[name] {
			errs.add(outputPos(d), "output %s is declared twice", name)
			continue
		}
		seen[name] = true
		if d.Has("members") {
			a, _ := d.Lookup("members")
			errs.add(a.Pos, "output %s: members= cannot select from %s, which is published as returned", name, what)
			continue
		}
		o := &output{}
		switch {
		case d.String("definition") != "":
			expr, err := in.definitionFunc(ty, d.String("definition"))
			if err != nil {
				errs.add(d.Pos, "output %s: definition=%s: %v", name, d.String("definition"), err)
				continue
			}
			o.defExpr = fmt.Sprintf("withName(%s(), %q)", expr, name)
			ty.pkg.helpers["withName"] = &helper{name: "withName", code: withNameCode}
			o.def = &tool.Definition{Name: name, Type: "any", Required: true}
			outs = append(outs, o)
			continue
		case d.String("config") != "":
			key, ok := in.x.configs[d.String("config")]
			if !ok {
				errs.add(d.Pos, "output %s: config=%s: no type declares //tool:config %s", name, d.String("config"), d.String("config"))
				continue
			}
			td := in.x.types[key]
			def, _, err := ty.shape(td.obj.Type(), td.obj.Type().Underlying().(*types.Struct), nil)
			if err != nil {
				errs.add(d.Pos, "output %s: %v", name, err)
				continue
			}
			def.Config = d.String("config")
			o.def = def
		case d.String("type") != "":
			o.def = &tool.Definition{Type: d.String("type")}
			if d.Flag("multiple") {
				o.def = &tool.Definition{Type: "list", Items: o.def}
			}
		default:
			errs.add(d.Pos, "output %s: an output of %s needs type=, definition= or config=, as nothing can be inferred", name, what)
			continue
		}
		o.def.Name = name
		o.def.Required = true
		var args []directive.Arg
		for _, a := range d.Args {
			if a.Key != "type" {
				args = append(args, a)
			}
		}
		if _, err := ty.applyKeys(o.def, nil, args, true); err != nil {
			errs.add(d.Pos, "output %s: %v", name, err)
			continue
		}
		outs = append(outs, o)
	}
	return outs
}
