package gen

import (
	"fmt"
	"go/token"
	"go/types"
	"strings"

	"github.com/toolapi/toolapi/internal/directive"
	"github.com/toolapi/toolapi/tool"
)

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

// outputs describes what the method returns: its outputs, and how the
// method returns them.
func (pi *pkgInference) outputs(errs *toolErrors, c candidate, sig *types.Signature, dirs []*directive.Directive, doc docText) ([]*output, results) {
	res := sig.Results()
	var vals []*types.Var
	var shape results
	for i := range res.Len() {
		v := res.At(i)
		if isError(v.Type()) {
			if i != res.Len()-1 {
				errs.add(c.pos, "only the last result may be an error")
				return nil, shape
			}
			shape.err = true
			continue
		}
		vals = append(vals, v)
	}
	shape.values = len(vals)
	switch {
	case len(vals) == 0:
		// Nothing, or only an error: no output.
		if len(dirs) > 0 {
			errs.add(dirs[0].Pos, "//tool:output on a method that returns no value")
		}
		return nil, shape
	case len(vals) == 1 && isToolResultType(vals[0].Type()):
		shape.kind = resultToolResult
		_, shape.pointer = vals[0].Type().(*types.Pointer)
		return pi.declaredOutputs(errs, dirs, "a tool.Result"), shape
	case len(vals) == 1 && types.Identical(derefType(vals[0].Type()), c.recv.Type()):
		// A fluent method returns its receiver: no output.
		if len(dirs) > 0 {
			errs.add(dirs[0].Pos, "//tool:output on a fluent method, which has no output")
		}
		return nil, shape
	case len(vals) == 1 && vals[0].Name() == "" && isAnyMap(vals[0].Type()) && len(dirs) >= 2:
		// Several outputs declared over a map[string]any result.
		shape.kind = resultAnyMap
		return pi.declaredOutputs(errs, dirs, "a map[string]any"), shape
	}
	shape.kind = resultValues
	return pi.resultOutputs(errs, c, vals, dirs, doc), shape
}

// resultOutputs describes the outputs of results that carry their values:
// one named "result", or one per named result.
func (pi *pkgInference) resultOutputs(errs *toolErrors, c candidate, vals []*types.Var, dirs []*directive.Directive, doc docText) []*output {
	named := vals[0].Name() != "" && vals[0].Name() != "_"
	if !named && len(vals) > 1 {
		errs.add(c.pos, "several unnamed results: name them, as each named result is an output")
		return nil
	}
	names := make([]string, len(vals))
	for i, v := range vals {
		names[i] = "result"
		if named {
			names[i] = snake(v.Name())
		}
	}
	dirFor := outputDirectives(errs, vals, names, named, dirs)
	var outs []*output
	for i, v := range vals {
		o, ok := pi.inferredOutput(errs, c, v.Type(), names[i], dirFor[i])
		if !ok {
			continue
		}
		if named {
			o.goName = v.Name()
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
		outs = append(outs, o)
	}
	return outs
}

// outputDirectives returns the //tool:output directive refining each
// result, by index. names holds the output names, which an unnamed
// result's directive may change.
func outputDirectives(errs *toolErrors, vals []*types.Var, names []string, named bool, dirs []*directive.Directive) map[int]*directive.Directive {
	dirFor := map[int]*directive.Directive{}
	for _, d := range dirs {
		n := outputName(d)
		if !named && len(vals) == 1 {
			if _, dup := dirFor[0]; dup {
				errs.add(d.Pos, "several //tool:output on one result: return map[string]any or tool.Result to declare several outputs, or name the results")
				continue
			}
			dirFor[0] = d
			if n != "" {
				names[0] = n
			}
			continue
		}
		i := -1
		for j, v := range vals {
			if n == names[j] || n == v.Name() {
				i = j
			}
		}
		if i < 0 {
			errs.add(outputPos(d), "//tool:output %s names no result%s (results: %s)", n, directive.DidYouMean(snake(n), names), strings.Join(names, ", "))
			continue
		}
		if _, dup := dirFor[i]; dup {
			errs.add(outputPos(d), "result %s has two //tool:output directives", n)
			continue
		}
		dirFor[i] = d
	}
	return dirFor
}

func isAnyMap(t types.Type) bool {
	m, ok := t.(*types.Map)
	return ok && types.Identical(m.Key(), types.Typ[types.String]) && isEmptyInterface(m.Elem())
}

// inferredOutput describes one output typed from a Go result.
func (pi *pkgInference) inferredOutput(errs *toolErrors, c candidate, t types.Type, name string, d *directive.Directive) (*output, bool) {
	fail := func(pos token.Position, format string, args ...any) (*output, bool) {
		errs.add(errs.placed(pos, args), "output %s: %s", name, fmt.Sprintf(format, args...))
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
	o := &output{dir: d}
	var err error
	switch {
	case d != nil && d.String("definition") != "":
		ref, err := pi.definitionFunc(d.String("definition"))
		if err != nil {
			return fail(at, "definition=%s: %v", d.String("definition"), err)
		}
		o.defFunc = ref
		o.def = &tool.Definition{Type: "any", Required: true}
		o.pub = rawPublication(t)
	case d != nil && d.String("config") != "":
		def, err := pi.configOutput(t, d.String("config"))
		if err != nil {
			return fail(at, "%v", err)
		}
		o.def = def
		_, o.pub, err = pi.output(t, nil, nil)
		if err != nil && isAnyMap(t) {
			o.pub = asIs(t)
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
		o.pub = rawPublication(t)
	default:
		o.def, o.pub, err = pi.output(t, sel, nil)
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
		conv, err := pi.applyKeys(o.def, t, args, true)
		if err != nil {
			return fail(at, "%v", err)
		}
		if conv != nil {
			o.pub = conv
		}
	}
	return o, true
}

// rawPublication publishes a value that describes itself: a
// json.Marshaler through its JSON, anything else as it is.
func rawPublication(t types.Type) *publication {
	if isMarshaler(derefType(t)) {
		return &publication{kind: pubJSON, typ: t}
	}
	return asIs(t)
}

// configOutput describes a config= output: the config struct's fields.
func (pi *pkgInference) configOutput(t types.Type, name string) (*tool.Definition, error) {
	key, ok := pi.configs[name]
	if !ok {
		return nil, fmt.Errorf("config=%s: no type declares //tool:config %s", name, name)
	}
	td := pi.decls.types[key]
	pt := derefType(t)
	if !isAnyMap(pt) && typeKey(namedObj(pt)) != key {
		return nil, fmt.Errorf("config=%s: the result must be %s or map[string]any, not %s", name, td.obj.Name(), types.TypeString(t, nil))
	}
	d, _, err := pi.shape(td.obj.Type(), td.obj.Type().Underlying().(*types.Struct), nil)
	if err != nil {
		return nil, err
	}
	return d, nil
}

// declaredOutputs describes outputs a result cannot type (a tool.Result or
// a map): each //tool:output needs a name and a type, definition or config.
func (pi *pkgInference) declaredOutputs(errs *toolErrors, dirs []*directive.Directive, what string) []*output {
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
		o := &output{dir: d}
		switch {
		case d.String("definition") != "":
			ref, err := pi.definitionFunc(d.String("definition"))
			if err != nil {
				errs.add(d.Pos, "output %s: definition=%s: %v", name, d.String("definition"), err)
				continue
			}
			o.defFunc = ref
			o.def = &tool.Definition{Name: name, Type: "any", Required: true}
			outs = append(outs, o)
			continue
		case d.String("config") != "":
			key, ok := pi.configs[d.String("config")]
			if !ok {
				errs.add(d.Pos, "output %s: config=%s: no type declares //tool:config %s", name, d.String("config"), d.String("config"))
				continue
			}
			td := pi.decls.types[key]
			def, _, err := pi.shape(td.obj.Type(), td.obj.Type().Underlying().(*types.Struct), nil)
			if err != nil {
				errs.add(errs.placed(d.Pos, []any{err}), "output %s: %v", name, err)
				continue
			}
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
		if _, err := pi.applyKeys(o.def, nil, args, true); err != nil {
			errs.add(errs.placed(d.Pos, []any{err}), "output %s: %v", name, err)
			continue
		}
		outs = append(outs, o)
	}
	return outs
}
