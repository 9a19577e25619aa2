package tool

import (
	"context"
	"slices"
	"time"
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

// Idempotent reports whether op is read, explain or transform.
func (op Operation) Idempotent() bool { return op == OpRead || op == OpExplain || op == OpTransform }

// A Handler runs a tool with validated, resolved inputs. Of its errors,
// only an [InputError], [AccessError] or [RunError] speaks to the caller.
type Handler func(ctx context.Context, in *Values) (*Result, error)

// A Tool is a typed, validated, access-checked operation.
type Tool struct {
	// ID names the tool ("album.search"): letters, digits, "_", "." and "-",
	// starting with a letter or "_", its [NameOf] at most 64 long. Required.
	ID string
	// Label is a short human name ("Search"). Required.
	Label string
	// Description says what the tool does. Required.
	Description string
	// Operation says what the tool does to the world; empty means write.
	Operation Operation
	// Destructive, when set, overrides the default of [Tool.IsDestructive].
	Destructive *bool
	// Permission needs all of "a,b", any one of "a+b"; empty: no check.
	Permission string
	// Access, when set, reports whether the account in ctx may run the tool
	// with these inputs.
	Access func(ctx context.Context, in *Values) (bool, error)
	// Confirm asks a person to confirm each run before it happens.
	Confirm bool
	// ConfirmIf, when set, decides from the checked inputs (and the
	// entities loaded for them) whether a run needs a person to confirm
	// it: a non-empty reason asks, and the question shows the reason. With
	// Confirm also set, every run asks, with the reason when there is one.
	// An error fails the run; its text stays in the log.
	ConfirmIf func(ctx context.Context, in *Values) (reason string, err error)
	// Approver, when set, is a permission (as Permission) an account
	// other than the caller must hold to approve a run before it happens:
	// the run waits, as a task, for that approval. A tool with Confirm or
	// ConfirmIf needs approval for the runs those ask to confirm; one with
	// neither, for every run. A tool with an approver must have Task
	// required; a run outside a task is refused (see [Approved]).
	Approver string
	// Deprecated, when set, says what to use instead; the tool still runs.
	Deprecated string
	// Inputs define what the tool takes, in order.
	Inputs []*Definition
	// Outputs define what the tool gives, in order.
	Outputs []*Definition
	// Refiner, when set, refines inputs from the values of others.
	Refiner *Refiner
	// Handler runs the tool. Required.
	Handler Handler

	// Task says whether a call may or must run as a task: started now,
	// run in the background, watched and collected later. Empty means
	// never.
	Task TaskMode
	// TaskTTL is how long a task's outcome is kept after it ends; zero
	// means one day. Only for a tool whose Task is set.
	TaskTTL time.Duration
	// AskFirst are questions for the caller's person that a tool run as a
	// task asks before the task is created, when its caller can ask then
	// (an MCP client from protocol version 2026-07-28 on answers them in
	// input-required rounds of the call that creates the task): their
	// answers go into the task, and the run's own [Ask] of the same keys,
	// when it is the run's first question, finds them there instead of
	// asking again. A caller that cannot ask before leaves them to the
	// task, which asks them when the run does. Each needs a Key and asks
	// a person (AskPerson). Only for a tool whose Task is set.
	AskFirst []Question
	// Icon is the address of a small picture of the tool (https: or a
	// data: URI of an image) that clients may show beside its name.
	Icon string
	// Needs lists what the tool asks of the client while it runs beyond
	// the call itself; a client that cannot provide one of them is
	// refused before the tool runs rather than seeing a silent no-op.
	Needs []ClientFeature
	// Groups name the toolsets the tool belongs to ("viewer"): lowercase
	// letters, digits, "-" and "_". A connection narrowed to some groups
	// (see [Narrow]) reaches only the tools of those groups.
	Groups []string
	// Budget bounds what one result carries: its bytes, and the items of
	// a page of a list (see [Budget]). Zero fields mean the registry's
	// ([Options.Budget]).
	Budget Budget
}

// A TaskMode says whether a tool's calls run as tasks.
type TaskMode string

// The task modes a tool may declare.
const (
	// TaskNever runs every call in the caller's request (the default).
	TaskNever TaskMode = ""
	// TaskOptional lets the caller choose: a run, or a task.
	TaskOptional TaskMode = "optional"
	// TaskRequired runs every call as a task.
	TaskRequired TaskMode = "required"
)

// Valid reports whether m is one of the declared task modes.
func (m TaskMode) Valid() bool {
	return m == TaskNever || m == TaskOptional || m == TaskRequired
}

// A ClientFeature is something a tool may ask of the client that called
// it while it runs.
type ClientFeature string

// The client features a tool may declare in [Tool.Needs].
const (
	// NeedsSampling: the tool asks the client's model ([Sample]).
	NeedsSampling ClientFeature = "sampling"
	// NeedsLogging: the tool's log messages must reach the client ([Log]).
	NeedsLogging ClientFeature = "logging"
)

// Valid reports whether f is one of the declared client features.
func (f ClientFeature) Valid() bool { return f == NeedsSampling || f == NeedsLogging }

// EffectiveOperation returns t.Operation, or write when it is empty.
func (t *Tool) EffectiveOperation() Operation {
	if t.Operation == "" {
		return OpWrite
	}
	return t.Operation
}

// IsDestructive reports whether t's effects cannot simply be undone:
// t.Destructive when set, else whether the operation is write or trigger.
func (t *Tool) IsDestructive() bool {
	if t.Destructive != nil {
		return *t.Destructive
	}
	op := t.EffectiveOperation()
	return op == OpWrite || op == OpTrigger
}

// clone returns a copy of t with deep copies of its definitions.
func (t *Tool) clone() *Tool {
	c := *t
	c.Inputs = cloneAll(t.Inputs)
	c.Outputs = cloneAll(t.Outputs)
	c.Needs = slices.Clone(t.Needs)
	c.Groups = slices.Clone(t.Groups)
	if t.Refiner != nil {
		rf := *t.Refiner
		rf.Inputs = slices.Clone(t.Refiner.Inputs)
		c.Refiner = &rf
	}
	return &c
}

// AdvertisedDescription returns the description, after a deprecation note.
func (t *Tool) AdvertisedDescription() string {
	if t.Deprecated == "" {
		return t.Description
	}
	return "Deprecated: " + t.Deprecated + "\n\n" + t.Description
}
