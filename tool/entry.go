package tool

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// An entry is a tool as a registry holds it: the tool as it was added and
// what its definitions compiled to for that registry. The tool itself is
// never written: one Tool may be added to several registries.
type entry struct {
	tool       *Tool
	permission Permission
	searchText string
	inputs     []*node
	outputs    []*node
	inputIndex map[string]int
	refined    map[string]bool
	inSchema   *jsonschema.Schema
	outSchema  *jsonschema.Schema

	inJSON  encodedSchema
	outJSON encodedSchema
	dropped sync.Map // undeclared output names already logged
}

// compileTool compiles t's definitions for r; a nil r knows the built-in
// data types only and checks no entity type.
func compileTool(r *Registry, t *Tool) (*entry, error) {
	if t.ID == "" {
		return nil, errors.New("a tool needs an ID")
	}
	if strings.TrimSpace(t.Description) == "" {
		return nil, errors.New("a tool needs a description")
	}
	if t.Operation != "" && !t.Operation.Valid() {
		return nil, fmt.Errorf("operation %q is not one of read, write, trigger, transform, explain", t.Operation)
	}
	perm, err := ParsePermission(t.Permission)
	if err != nil {
		return nil, err
	}
	var types func(string) *DataType
	if r != nil {
		types = func(name string) *DataType {
			r.mu.RLock()
			defer r.mu.RUnlock()
			return r.types[name]
		}
	}
	p := &entry{tool: t, permission: perm, inputIndex: make(map[string]int, len(t.Inputs))}
	entityCheck := false
	for i, def := range t.Inputs {
		if def == nil || def.Name == "" {
			return nil, fmt.Errorf("input %d has no name", i)
		}
		if _, dup := p.inputIndex[def.Name]; dup {
			return nil, fmt.Errorf("input %q is defined twice", def.Name)
		}
		n, err := compile(def, types, def.Name)
		if err != nil {
			return nil, fmt.Errorf("input %s", err)
		}
		if def.Nullable {
			return nil, fmt.Errorf("input %s: an input cannot be nullable (an optional input sent as null takes its default)", def.Name)
		}
		if err := checkEntities(r, n, def.Name, true); err != nil {
			return nil, err
		}
		if n.kind == kEntity && def.Required && def.EntityOp != "" {
			entityCheck = true
		}
		p.inputIndex[def.Name] = i
		p.inputs = append(p.inputs, n)
	}
	if len(perm.Names) == 0 && !entityCheck && t.Access == nil {
		return nil, errors.New("no access check: declare a permission, an entity op on a required single entity input, or an access method")
	}
	seen := map[string]bool{}
	for i, def := range t.Outputs {
		if def == nil || def.Name == "" {
			return nil, fmt.Errorf("output %d has no name", i)
		}
		if seen[def.Name] {
			return nil, fmt.Errorf("output %q is defined twice", def.Name)
		}
		seen[def.Name] = true
		n, err := compile(def, types, def.Name)
		if err != nil {
			return nil, fmt.Errorf("output %s", err)
		}
		if err := checkEntities(r, n, def.Name, false); err != nil {
			return nil, err
		}
		p.outputs = append(p.outputs, n)
	}
	if t.Refiner != nil {
		if t.Refiner.Refine == nil {
			return nil, errors.New("refiner has no Refine function")
		}
		p.refined = make(map[string]bool, len(t.Refiner.Inputs))
		for _, name := range t.Refiner.Inputs {
			if _, ok := p.inputIndex[name]; !ok {
				return nil, fmt.Errorf("refiner names %q, which is not an input", name)
			}
			p.refined[name] = true
		}
	}
	p.searchText = strings.ToLower(t.ID + "\n" + t.Label + "\n" + t.Description)
	p.inSchema = objectSchema(p.inputs, false)
	p.outSchema = objectSchema(p.outputs, true)
	return p, nil
}

// checkEntities checks where entities sit in a definition: an entity input
// must declare its op and may sit only at the top or as the item of a
// top-level list (inside a map no access check is possible); with a
// registry, the entity type must be known.
func checkEntities(r *Registry, n *node, path string, input bool) error {
	var walk func(n *node, path string, top bool) error
	walk = func(n *node, path string, top bool) error {
		switch n.kind {
		case kEntity:
			if input {
				if !top {
					return fmt.Errorf("input %s: an entity inside a map cannot be access-checked", path)
				}
			}
			if r != nil && n.entityType != "" {
				et, ok := r.EntityType(n.entityType)
				if !ok {
					return fmt.Errorf("%s: unknown entity type %q", path, n.entityType)
				}
				n.et = et
			}
		case kList:
			return walk(n.items, path+"[]", top)
		case kMap:
			for _, pn := range n.props {
				if err := walk(pn, path+"."+pn.def.Name, false); err != nil {
					return err
				}
			}
			if n.values != nil {
				return walk(n.values, path+"{}", false)
			}
		}
		return nil
	}
	if err := walk(n, path, true); err != nil {
		return err
	}
	if input && entityOp(n) == "" && (n.kind == kEntity || (n.kind == kList && n.items.kind == kEntity)) {
		return fmt.Errorf("input %s: an entity input needs an op (view, update, delete, ...)", path)
	}
	return nil
}

// entityOp returns the op declared on an entity input or its list.
func entityOp(n *node) string {
	if n.def.EntityOp != "" {
		return n.def.EntityOp
	}
	if n.kind == kList {
		return n.items.def.EntityOp
	}
	return ""
}
