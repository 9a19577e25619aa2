package tool

import (
	"errors"
	"fmt"
)

// A DefinitionError is one problem in a tool's definitions. [Tool.Check]
// and [Registry.Add] join every problem they find with [errors.Join].
type DefinitionError struct {
	// Path locates the problem ("inputs.limit", "outputs.result.items");
	// empty for the tool itself.
	Path string
	// Rule is the broken rule, spelled as toolgen's directive key ("id",
	// "type", "default", "range", "choice", "refine", ...).
	Rule string
	// Message says what is wrong and how to fix it, without the path.
	Message string
}

// Error returns "Path: Message", or Message when Path is empty.
func (e *DefinitionError) Error() string {
	if e.Path == "" {
		return e.Message
	}
	return e.Path + ": " + e.Message
}

// definitionErrors collects the problems of one tool's definitions.
type definitionErrors []error

func (d *definitionErrors) add(path, rule, format string, args ...any) {
	*d = append(*d, &DefinitionError{Path: path, Rule: rule, Message: fmt.Sprintf(format, args...)})
}

// err returns the problems joined, or nil.
func (d definitionErrors) err() error { return errors.Join(d...) }

// childPath returns the path of name under path.
func childPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}
