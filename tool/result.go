package tool

import (
	"errors"
	"fmt"
)

// A Failure is the category of a failed run.
type Failure string

// The failure categories.
const (
	// FailureInput: the inputs were wrong; the caller can correct them
	// using the violations and the input schema.
	FailureInput Failure = "input"
	// FailureAccess: the account may not run the tool with these inputs.
	FailureAccess Failure = "access"
	// FailureRuntime: the tool failed while running.
	FailureRuntime Failure = "runtime"
)

// A Result is what a run produced. Handlers return one; [Registry.Run]
// returns one to callers with the failure category and violations set.
type Result struct {
	// Success reports whether the run succeeded.
	Success bool
	// Message is a sentence for the caller. Empty on success means
	// "LABEL completed.".
	Message string
	// Outputs holds the published outputs by name, in their wire form. A
	// failed run may carry outputs too. Treat them as read-only: one
	// entity's reference map, say, may appear in several places.
	Outputs map[string]any
	// Failure is the category of a failed run; empty on success.
	Failure Failure
	// Violations lists the problems of an input failure (or the output
	// problems of a runtime failure, which are logged, not shown).
	Violations []Violation
}

// Succeeded returns a successful result carrying outputs; an empty message
// means the default "LABEL completed.".
func Succeeded(message string, outputs map[string]any) *Result {
	return &Result{Success: true, Message: message, Outputs: outputs}
}

// Failed returns a failed result with a message meant for the caller; it
// may still carry outputs.
func Failed(message string, outputs map[string]any) *Result {
	return &Result{Message: message, Outputs: outputs, Failure: FailureRuntime}
}

// An InputError is an error a tool returns when its inputs, though valid by
// their definitions, cannot be used. Its message reaches the caller, unlike
// the text of any other error.
type InputError struct {
	// Input names the input at fault; empty when the fault is not one
	// input's.
	Input string
	// Message says what is wrong, in plain words.
	Message string
}

func (e *InputError) Error() string {
	if e.Input == "" {
		return e.Message
	}
	return e.Input + ": " + e.Message
}

// An AccessError refuses a run with a reason the caller sees, where a
// bare refusal would only say "You may not run LABEL with these inputs.".
// An access method ([Tool.Access]), an entity type's Access or a handler
// returns one (or an error wrapping one), usually made by [Refuse]; the
// run fails as an access failure saying "You may not run LABEL: REASON.".
type AccessError struct {
	// Reason says why, in plain words for the caller ("only the album's
	// owner may publish it"); it must not hold what the caller may not
	// know.
	Reason string
}

func (e *AccessError) Error() string { return e.Reason }

// Refuse returns an [*AccessError] with the given reason, for an access
// method to return:
//
//	return false, tool.Refuse("only the album's owner may publish it")
func Refuse(reason string) error { return &AccessError{Reason: reason} }

// A RunError fails a run with a message the caller sees, where any other
// error only says "LABEL failed.". A handler returns one (or an error
// wrapping one), or [Options.MapError] maps an application's error to one.
// The run fails as a runtime failure; Err is logged, never shown.
type RunError struct {
	// Message says what went wrong, in plain words for the caller ("The
	// merge stopped after moving 12 of 30 comments."); it must not hold
	// what the caller may not know. Empty means "LABEL failed.".
	Message string
	// Partial says the run failed partway, having changed things: the
	// outputs the handler set (the Result it returned beside the error)
	// are published with the failure, so the caller learns what was done.
	// Without it a failed run's outputs are dropped.
	Partial bool
	// Err is the cause, for the log.
	Err error
}

func (e *RunError) Error() string {
	switch {
	case e.Err == nil:
		return e.Message
	case e.Message == "":
		return e.Err.Error()
	}
	return e.Message + ": " + e.Err.Error()
}

func (e *RunError) Unwrap() error { return e.Err }

// InputErrorf returns an [InputError] about input, its message formatted.
func InputErrorf(input, format string, args ...any) error {
	return &InputError{Input: input, Message: fmt.Sprintf(format, args...)}
}

// ErrNotFound is returned by [Registry.Run] for a tool ID the registry
// does not hold (or the account may not see).
var ErrNotFound = errors.New("tool not found")

// ErrorType returns the name callers give the failure category in JSON
// ("invalid_input", "access_denied", "execution_failed").
func (f Failure) ErrorType() string {
	switch f {
	case FailureInput:
		return "invalid_input"
	case FailureAccess:
		return "access_denied"
	case FailureRuntime:
		return "execution_failed"
	}
	return ""
}
