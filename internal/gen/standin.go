package gen

import (
	"context"

	"github.com/toolapi/toolapi/tool"
)

// standIn returns the tool as toolgen checks and describes it with
// [tool.Tool.Check] and [tool.Tool.Describe], without running application
// code. Its definitions are t's, except that a definition typed by an
// application data type, which only the application's registry knows,
// stands as the built-in type its Go value has (any when the value has no
// Go type, as over a tool.Result). An access= method is declared by an
// Access function, and a confirm= method by a ConfirmIf function, that are
// never called. It also returns the names ("input
// NAME", "output NAME") of the inputs and outputs whose schemas are
// therefore not the application's.
func (inf *inference) standIn(t *tool.Tool, access, confirmIf bool) (*tool.Tool, []string) {
	s := &tool.Tool{
		ID: t.ID, Label: t.Label, Description: t.Description,
		Operation: t.Operation, Destructive: t.Destructive, Permission: t.Permission, Approver: t.Approver,
		Confirm: t.Confirm, Deprecated: t.Deprecated,
		Task: t.Task, TaskTTL: t.TaskTTL, Icon: t.Icon, Needs: t.Needs, Groups: t.Groups,
		Budget: t.Budget,
	}
	if access {
		s.Access = declaredAccess
	}
	if confirmIf {
		s.ConfirmIf = declaredConfirmIf
	}
	var standing []string
	defs := func(kind string, in []*tool.Definition) []*tool.Definition {
		out := in
		for i, d := range in {
			sd, changed := inf.standInDef(d)
			if !changed {
				continue
			}
			if &out[0] == &in[0] {
				out = append([]*tool.Definition(nil), in...)
			}
			out[i] = sd
			standing = append(standing, kind+" "+d.Name)
		}
		return out
	}
	s.Inputs = defs("input", t.Inputs)
	s.Outputs = defs("output", t.Outputs)
	return s, standing
}

// declaredConfirmIf stands for a confirm= method, which toolgen does not
// run.
func declaredConfirmIf(context.Context, *tool.Values) (string, error) { return "", nil }

// declaredAccess stands for an access= method, which toolgen does not run.
func declaredAccess(context.Context, *tool.Values) (bool, error) { return false, nil }

// standInDef returns def with every application data type replaced by a
// built-in type, and whether anything was replaced; def itself is never
// changed.
func (inf *inference) standInDef(def *tool.Definition) (*tool.Definition, bool) {
	if def == nil {
		return nil, false
	}
	var c *tool.Definition
	copyDef := func() {
		if c == nil {
			cp := *def
			c = &cp
		}
	}
	if _, known := typeGroup(def.Type); !known {
		copyDef()
		c.Type = "any"
		if base, ok := inf.appBaseOf(def); ok {
			c.Type = base
		}
	}
	if d, changed := inf.standInDef(def.Items); changed {
		copyDef()
		c.Items = d
	}
	if d, changed := inf.standInDef(def.Values); changed {
		copyDef()
		c.Values = d
	}
	for i, p := range def.Properties {
		d, changed := inf.standInDef(p)
		if !changed {
			continue
		}
		copyDef()
		if len(c.Properties) > 0 && &c.Properties[0] == &def.Properties[0] {
			c.Properties = append([]*tool.Definition(nil), def.Properties...)
		}
		c.Properties[i] = d
	}
	if c == nil {
		return def, false
	}
	return c, true
}
