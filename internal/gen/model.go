package gen

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"

	"github.com/toolapi/toolapi/internal/directive"
	"github.com/toolapi/toolapi/tool"
)

// A Diagnostic is one problem found in the source: a directive that does
// not parse or sits in the wrong place, or a method whose tool cannot be
// built (it is left out; the rest generate).
type Diagnostic struct {
	Pos token.Position `json:"-"`
	// Tool is the ID of the tool left out, "" when unknown.
	Tool string `json:"tool,omitempty"`
	// Method is Type.Method of the method left out, "" for problems that
	// are not a method's.
	Method  string `json:"method,omitempty"`
	Message string `json:"message"`

	comment *ast.Comment
}

// String formats d as "file:line:col: tool ID (Type.Method): reason".
func (d Diagnostic) String() string { return d.format(d.Pos.Filename) }

// Relative formats d with its file name relative to dir.
func (d Diagnostic) Relative(dir string) string {
	name := d.Pos.Filename
	if rel, err := filepath.Rel(dir, name); err == nil && filepath.IsLocal(rel) {
		name = rel
	}
	return d.format(name)
}

func (d Diagnostic) format(file string) string {
	pos := d.Pos
	pos.Filename = file
	prefix := ""
	if pos.IsValid() {
		prefix = pos.String() + ": "
	}
	switch {
	case d.Tool != "" && d.Method != "":
		return fmt.Sprintf("%stool %s (%s): %s", prefix, d.Tool, d.Method, d.Message)
	case d.Method != "":
		return fmt.Sprintf("%s%s: %s", prefix, d.Method, d.Message)
	}
	return prefix + d.Message
}

// A Package is what toolgen found in one Go package: plain data about its
// tools, from which [Render] alone writes Go code.
type Package struct {
	Path, Name, Dir string
	types           *types.Package
	// Services are the types whose methods are tools, by name.
	Services []*Service
	// objects maps the map definitions of named structs and value objects
	// to their Go types, so that the renderer writes their properties
	// once.
	objects map[*tool.Definition]types.Type
	// entityTypes maps the key of a Go type ("path.Name") to the entity
	// types it is the class of, for every loaded package.
	entityTypes map[string][]string
}

// A Service is a Go type with tool methods.
type Service struct {
	Name      string
	Interface bool
	Tools     []*Tool
}

// A Tool is one method tool: its definitions and what the generated code
// needs to run it.
type Tool struct {
	// Tool holds the definitions; its Handler is nil.
	Tool    *tool.Tool
	Pos     token.Position
	Service *Service
	// Method is the Go method name ("Invoke" for an invokable service).
	Method string

	method  *types.Func // the Go method, whose signature the generated file asserts
	context bool        // the method takes a context.Context first
	params  []*param    // the other parameters, each an input
	result  results     // how the method returns its outputs
	outputs []*output
	access  string // the access= method, "" when none
	confirm string // the confirm= method, "" when none
	refine  string // the refine= method, "" when none

	// check is the tool as toolgen checks and describes it (see
	// [standIn]).
	check *tool.Tool
	// described is check's Info, once [Tool.info] made it.
	described *tool.Info
	// describeOnly names the inputs and outputs whose schemas -describe
	// cannot know: given by definition=, or typed by an application data
	// type.
	describeOnly []string
	// position returns where to fix something about a definition path of
	// the tool's ("inputs.limit", "outputs.result.items.title") and rule
	// (a directive key), as a diagnostic points there.
	position func(path, rule string) token.Position
}

// info returns the Info of the tool as toolgen describes it (and locks
// it), made once.
func (t *Tool) info() *tool.Info {
	if t.described == nil {
		t.described = t.check.Describe()
	}
	return t.described
}

// MethodName returns "Type.Method".
func (t *Tool) MethodName() string { return t.Service.Name + "." + t.Method }

// A param is one input parameter of a tool method.
type param struct {
	v        *types.Var
	goName   string
	name     string // input name
	def      *tool.Definition
	defFunc  *funcRef // definition=, nil when none
	variadic bool
	dir      *directive.Directive
}

// An output is one output of a tool method.
type output struct {
	def     *tool.Definition
	defFunc *funcRef // definition=, nil when none
	// pub says how the result's value is published; nil for the outputs
	// declared over a tool.Result or a map[string]any, which the method
	// publishes itself.
	pub *publication
	// goName is the Go name of the named result, "" when unnamed.
	goName string
	// dir is its //tool:output directive, nil when none.
	dir *directive.Directive
}

// A funcRef is a package-level function named by definition=.
type funcRef struct {
	pkg  *types.Package // nil for the tool's own package
	name string
}

// results says how a method returns its outputs.
type results struct {
	kind resultKind
	// values is the number of non-error results.
	values int
	// err says the last result is an error.
	err bool
	// pointer says a tool.Result is returned as *tool.Result.
	pointer bool
}

type resultKind int

const (
	resultNone       resultKind = iota // no output: nothing, an error, or the receiver (fluent)
	resultToolResult                   // a tool.Result, published as returned
	resultAnyMap                       // a map[string]any keyed by the declared outputs
	resultValues                       // one output per result
)

// A publication says how the generated code turns a Go value into the
// value a tool publishes.
type publication struct {
	kind pubKind
	typ  types.Type // the Go type of the value
	// conv is the type a pubConvert converts to: "int64", "[]byte"...
	conv string
	// elem publishes the element of a list or map, or what a non-nil
	// pointer points to (nil: the pointer itself, as for an entity).
	elem *publication
	// members are the members a pubFields or pubMembers publishes.
	members []*publishedMember
	// key identifies a pubMembers: its type and members= selection.
	key string
}

type pubKind int

const (
	pubAsIs     pubKind = iota // the value as it is
	pubConvert                 // a Go conversion to conv
	pubUnixTime                // an integer of Unix seconds as a time.Time
	pubJSON                    // a json.Marshaler through its JSON
	pubPointer                 // nil as nil, else the element
	pubList                    // a slice as []any
	pubMap                     // a map as map[string]any
	pubFields                  // a struct as the map of all its exported fields
	pubMembers                 // a value object as the map of its marked or selected members
)

// A publishedMember is one member a publication reads.
type publishedMember struct {
	name   string     // key in the published map
	goName string     // field or getter name
	method bool       // a getter, called
	typ    types.Type // the member's Go type
	pub    *publication
	// omitZero leaves the key out when the value is its zero value (an
	// optional field of a struct published whole); omitNil leaves it out
	// when nil (omitnull).
	omitZero, omitNil bool
}
