package gen

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"

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

// A Package is what toolgen found in one Go package.
type Package struct {
	Path, Name, Dir string
	types           *types.Package
	// Services are the types whose methods are tools, by name.
	Services []*Service
	// helpers are the generated functions the tools call, by name.
	helpers  map[string]*helper
	helperBy map[string]string // key -> name
	imports  *imports
}

// A Service is a Go type with tool methods.
type Service struct {
	Name      string
	Interface bool
	Tools     []*Tool
}

// A Tool is one method tool: its definition and the Go code that runs it.
type Tool struct {
	// Tool holds the definitions; its Handler is nil.
	Tool    *tool.Tool
	Pos     token.Position
	Service *Service
	// Method is the Go method name ("Invoke" for an invokable service).
	Method string
	// Func is the name of the generated function that builds the tool.
	Func string

	// Generated Go code.
	inputDefs  []string // each input definition as a Go expression
	outputDefs []string
	decode     string // statements declaring the method's arguments from in
	call       string // statements calling the method and returning
	access     string // statements of the Access function, "" when none
	refine     string // the Refiner expression, "" when none
	signature  string // a declaration asserting the method's signature
	// check is the tool as toolgen checks and describes it (see
	// [index.standIn]).
	check *tool.Tool
	// describeOnly names the inputs and outputs whose schemas -describe
	// cannot know: given by definition=, or typed by an application data
	// type.
	describeOnly []string
}

// MethodName returns "Type.Method".
func (t *Tool) MethodName() string { return t.Service.Name + "." + t.Method }

// A helper is a generated function the tools call.
type helper struct {
	name string
	code string
}
