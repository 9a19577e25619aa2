package tool

import (
	"context"
	"slices"
)

// An Operation says what a tool does to the world.
type Operation string

// The operations a tool may declare.
const (
	OpRead      Operation = "read"
	OpWrite     Operation = "write"
	OpTrigger   Operation = "trigger"
	OpTransform Operation = "transform"
	OpExplain   Operation = "explain"
)

// Valid reports whether op is one of the declared operations.
func (op Operation) Valid() bool {
	switch op {
	case OpRead, OpWrite, OpTrigger, OpTransform, OpExplain:
		return true
	}
	return false
}

// ReadOnly reports whether op leaves the world as it was (read, explain).
func (op Operation) ReadOnly() bool { return op == OpRead || op == OpExplain }

// Idempotent reports whether running op twice with the same inputs has the
// effect of running it once (read, explain, transform).
func (op Operation) Idempotent() bool { return op == OpRead || op == OpExplain || op == OpTransform }

// A Handler runs a tool with validated, resolved inputs. It returns the
// outputs by name. A returned error, once mapped by [Options.MapError],
// decides the outcome: an [InputError] (or an error wrapping one) reaches
// the caller as an input failure, an [AccessError] as a refusal, a
// [RunError] as a runtime failure with its message; any other error is
// logged and the caller learns only that the run failed. A Result returned
// beside an error counts only when the error is a partial RunError (see
// [FailedPartway]): its outputs are published with the failure.
type Handler func(ctx context.Context, in *Values) (*Result, error)

// A Tool is a typed, validated, access-checked operation. Hand-written tools
// fill the fields directly; toolgen writes them for method tools.
type Tool struct {
	// ID names the tool everywhere ("album.search"): 1 to 128 letters,
	// digits, "_", "." and "-". Required.
	ID string
	// Label is a short human name ("Search"). Required.
	Label string
	// Description says what the tool does. Required.
	Description string
	// Operation says what the tool does to the world; empty means write
	// (see [Tool.EffectiveOperation]).
	Operation Operation
	// Destructive says whether the tool's effects cannot simply be undone;
	// nil means the operation's default: destructive for write and
	// trigger, not for the others. See [Tool.IsDestructive].
	Destructive *bool
	// Permission is an expression over permission names: "a,b" needs all
	// of them, "a+b" any one; empty means no permission check.
	Permission string
	// Access, when set, is checked after the inputs are resolved: it
	// reports whether the account in ctx (see [AccountFrom]) may run the
	// tool with these inputs. An [InputError] it returns is an input
	// failure; an [AccessError] (see [Refuse]) refuses the run with its
	// reason; any other error is logged and fails the run.
	Access func(ctx context.Context, in *Values) (bool, error)
	// Confirm asks a person to confirm each run before it happens.
	Confirm bool
	// Deprecated, when set, marks the tool as deprecated and says what to
	// use instead ("use album.search2"). Every caller shows it: the CLI's
	// list and info, MCP's tools/list (the description starts with
	// "Deprecated: " and _meta carries it), the explorer and function
	// calling. A deprecated tool still runs. Empty means not deprecated; a
	// blank (spaces only) value is invalid.
	Deprecated string
	// Inputs define what the tool takes, in order.
	Inputs []*Definition
	// Outputs define what the tool gives, in order.
	Outputs []*Definition
	// Refiner, when set, refines input definitions from the values of other
	// inputs.
	Refiner *Refiner
	// Handler runs the tool. Required.
	Handler Handler
}

// EffectiveOperation returns the operation t declares: t.Operation, or
// write when it is empty. Callers that show or act on the operation ask
// this rather than read the field.
func (t *Tool) EffectiveOperation() Operation {
	if t.Operation == "" {
		return OpWrite
	}
	return t.Operation
}

// IsDestructive reports whether t's effects cannot simply be undone:
// t.Destructive when set, else true for the operations write and trigger
// (an empty operation means write) and false for the others. Every caller
// (MCP annotations, the explorer, the CLI, function calling) asks this.
func (t *Tool) IsDestructive() bool {
	if t.Destructive != nil {
		return *t.Destructive
	}
	op := t.EffectiveOperation()
	return op == OpWrite || op == OpTrigger
}

// Clone returns a copy of t whose input and output definitions are deep
// copies ([Definition.Clone]), for changing a tool without touching the
// original (see [Options.Adjust]).
func (t *Tool) Clone() *Tool {
	c := *t
	c.Inputs = cloneAll(t.Inputs)
	c.Outputs = cloneAll(t.Outputs)
	if t.Refiner != nil {
		rf := *t.Refiner
		rf.Inputs = slices.Clone(t.Refiner.Inputs)
		c.Refiner = &rf
	}
	return &c
}

// AdvertisedDescription returns t's description as the callers that show
// a tool by its description alone give it (MCP's tools/list, function
// calling): for a deprecated tool, "Deprecated: " and the note, a blank
// line, then the description; else the description.
func (t *Tool) AdvertisedDescription() string {
	if t.Deprecated == "" {
		return t.Description
	}
	return "Deprecated: " + t.Deprecated + "\n\n" + t.Description
}
