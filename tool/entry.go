package tool

import (
	"regexp"
	"strconv"
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
	approver   Permission
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

	budget Budget // as the registry applies it (see Registry.budgetOf)
	paged  bool   // the tool is paged (see Budget)

	secrets []*Definition // the inputs a caller may collect out of band (see SecretAsker)
}

// compileTool compiles t's definitions for r; a nil r knows the built-in
// data types only and checks no entity type. It reports every problem, each
// a *DefinitionError. The entry's schemas are set by [entry.withSchemas].
func compileTool(r *Registry, t *Tool) (*entry, error) {
	var errs definitionErrors
	checkID(t.ID, &errs)
	if strings.TrimSpace(t.Description) == "" {
		errs.add("", "description", "a tool needs a description")
	}
	if t.Deprecated != "" && strings.TrimSpace(t.Deprecated) == "" {
		errs.add("", "deprecated", "a deprecation note is blank: say what to use instead (\"use album.search2\")")
	}
	if t.Operation != "" && !t.Operation.Valid() {
		errs.add("", "op", "operation %q is not one of read, write, trigger, transform, explain", t.Operation)
	}
	if !t.Task.Valid() {
		errs.add("", "task", "task %q is not one of optional, required (or empty: never)", t.Task)
	}
	if t.TaskTTL < 0 || (t.TaskTTL > 0 && t.Task == TaskNever) {
		errs.add("", "task", "a task TTL needs a positive duration and a tool whose task is optional or required")
	}
	checkIcon(t.Icon, &errs)
	checkBudget(t, &errs)
	checkGroups(t.Groups, &errs)
	checkAskFirst(t, &errs)
	for _, f := range t.Needs {
		if !f.Valid() {
			errs.add("", "needs", "need %q is not one of sampling, logging", f)
		}
	}
	perm, err := ParsePermission(t.Permission)
	if err != nil {
		errs.add("", "permission", "%v", err)
	}
	approver, err := ParsePermission(t.Approver)
	if err != nil {
		errs.add("", "approver", "%v", err)
	}
	if t.Approver != "" {
		if t.Task != TaskRequired {
			errs.add("", "approver", "a tool with an approver runs every call as a task that waits for the approval: its task must be required")
		}
	}
	var types func(string) *DataType
	if r != nil {
		types = func(name string) *DataType {
			r.mu.RLock()
			defer r.mu.RUnlock()
			return r.types[name]
		}
	}
	e := &entry{tool: t, permission: perm, approver: approver, inputIndex: make(map[string]int, len(t.Inputs)), secrets: t.OutOfBandInputs()}
	entityCheck, weakEntity := false, false
	for i, def := range t.Inputs {
		if def == nil || def.Name == "" {
			errs.add("inputs["+strconv.Itoa(i)+"]", "name", "input %d has no name", i)
			continue
		}
		path := "inputs." + def.Name
		if _, dup := e.inputIndex[def.Name]; dup {
			errs.add(path, "name", "input %q is defined twice", def.Name)
			continue
		}
		e.inputIndex[def.Name] = i
		if def.Nullable {
			errs.add(path, "nullable", "an input cannot be nullable (an optional input sent as null takes its default)")
		}
		n := compileNode(def, types, path, true, &errs)
		if n == nil {
			continue
		}
		checkEntities(r, n, path, true, &errs)
		switch {
		case n.kind == kEntity && def.Required && def.EntityOp != "":
			entityCheck = true
		case entityOp(n) != "":
			weakEntity = true
		}
		e.inputs = append(e.inputs, n)
	}
	checkHeaders(e.inputs, &errs)
	switch {
	case strings.TrimSpace(t.Permission) != "" || entityCheck || t.Access != nil:
	case weakEntity:
		errs.add("", "access", "no access check a caller cannot skip: an entity op on an optional or list input may check nothing; declare a permission, an access method, or an entity op on a required single entity input")
	default:
		errs.add("", "access", "no access check: declare a permission, an access method, or an entity op on a required single entity input")
	}
	seen := map[string]bool{}
	for i, def := range t.Outputs {
		if def == nil || def.Name == "" {
			errs.add("outputs["+strconv.Itoa(i)+"]", "name", "output %d has no name", i)
			continue
		}
		path := "outputs." + def.Name
		if seen[def.Name] {
			errs.add(path, "name", "output %q is defined twice", def.Name)
			continue
		}
		seen[def.Name] = true
		n := compileNode(def, types, path, false, &errs)
		if n == nil {
			continue
		}
		checkEntities(r, n, path, false, &errs)
		e.outputs = append(e.outputs, n)
	}
	if t.Refiner != nil {
		if t.Refiner.Refine == nil {
			errs.add("", "refine", "the refiner has no Refine function")
		}
		e.refined = make(map[string]bool, len(t.Refiner.Inputs))
		for _, name := range t.Refiner.Inputs {
			if _, ok := e.inputIndex[name]; !ok {
				errs.add("", "refine", "the refiner names %q, which is not an input", name)
			}
			e.refined[name] = true
		}
	}
	if len(errs) > 0 {
		return nil, errs.err()
	}
	e.searchText = strings.ToLower(t.ID + "\n" + t.Label + "\n" + t.Description)
	return e, nil
}

// withSchemas sets e's input and output JSON Schemas, which [compileTool]
// leaves to the callers that need them ([Tool.Check] does not); it
// returns e.
func (e *entry) withSchemas() *entry {
	if e != nil {
		e.inSchema = objectSchema(e.inputs, false)
		e.outSchema = objectSchema(e.outputs, true)
	}
	return e
}

// checkEntities checks where entities sit in a definition: an entity input
// must declare its op and may sit only at the top or as the item of a
// top-level list (inside a map no access check is possible); with a
// registry, the entity type must be known.
func checkEntities(r *Registry, n *node, path string, input bool, errs *definitionErrors) {
	var walk func(n *node, path string, top bool)
	walk = func(n *node, path string, top bool) {
		switch n.kind {
		case kEntity:
			if input && !top {
				errs.add(path, "type", "an entity inside a map cannot be access-checked; take its ID as a string, or make it an input of its own")
			}
			if r != nil && n.entityType != "" {
				et, ok := r.EntityType(n.entityType)
				if !ok {
					errs.add(path, "type", "unknown entity type %q; add it to the registry first", n.entityType)
					return
				}
				n.et = et
			}
		case kList:
			walk(n.items, path+".items", top)
		case kMap:
			for _, pn := range n.props {
				walk(pn, childPath(path, pn.def.Name), false)
			}
			if n.values != nil {
				walk(n.values, path+".values", false)
			}
		}
	}
	walk(n, path, true)
	if input && entityOp(n) == "" && (n.kind == kEntity || (n.kind == kList && n.items.kind == kEntity)) {
		errs.add(path, "op", "an entity input needs an op (view, update, delete, ...)")
	}
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

// checkAskFirst checks t's AskFirst questions: only on a task tool, each
// asking a person under a key of its own.
func checkAskFirst(t *Tool, errs *definitionErrors) {
	if len(t.AskFirst) > 0 && t.Task == TaskNever {
		errs.add("", "ask_first", "questions asked before the task need a tool whose task is optional or required")
	}
	seen := map[string]bool{}
	for i, q := range t.AskFirst {
		switch {
		case q.Kind != AskPerson:
			errs.add("", "ask_first", "question %d asks %q: a task asks only a person", i, q.Kind)
		case !askFirstKey.MatchString(q.Key) || q.Key == "confirm" || q.Key == "secret" || reservedAskKey.MatchString(q.Key):
			errs.add("", "ask_first", "question %d: key %q is not letters, digits, _ - . (at most 64), or is reserved (confirm, secret, q, q1, q2, ...)", i, q.Key)
		case seen[q.Key]:
			errs.add("", "ask_first", "question %d: key %q is asked twice", i, q.Key)
		}
		seen[q.Key] = true
	}
}

// askFirstKey is the form of a key of an AskFirst question, and
// reservedAskKey that of the keys callers give questions without one.
var (
	askFirstKey    = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)
	reservedAskKey = regexp.MustCompile(`^q[0-9]*$`)
)
