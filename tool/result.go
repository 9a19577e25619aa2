package tool

import (
	"errors"
	"fmt"
)

// A Failure is the category of a failed run.
type Failure string

// The failure categories.
const (
	FailureInput   Failure = "input"   // wrong inputs: the caller can correct them
	FailureAccess  Failure = "access"  // the account may not run the tool
	FailureRuntime Failure = "runtime" // the tool failed while running
)

// A Result is what a run produced.
type Result struct {
	Success bool
	// Message is a sentence for the caller ("LABEL completed." if empty).
	Message string
	// Outputs holds the outputs by name, in their wire form; read-only.
	Outputs map[string]any
	// Failure is the category of a failed run; empty on success.
	Failure Failure
	// Violations lists the problems of an input failure.
	Violations []Violation
	// Internal is true for a runtime failure that is not the tool's own
	// word to its caller: the run panicked, met an error that is no
	// [InputError], [AccessError] or [RunError], or returned outputs that
	// break their definitions. Its Message then says only "LABEL failed.";
	// the cause is logged. A failure the tool reports ([Failed], a
	// [RunError]) is not internal.
	Internal bool
	// Overflow, on a result whose outputs were over the tool's byte
	// budget, says where they are kept: Outputs is then empty (see
	// [Budget]).
	Overflow *Overflow `json:",omitempty"`
	// Secret, on an input failure of a call that left out sensitive
	// inputs, says where the person gives them out of band (see
	// [SecretAsker]); the caller calls again with the same inputs.
	Secret *SecretLink `json:",omitempty"`
}

// Succeeded returns a successful result carrying outputs.
func Succeeded(message string, outputs map[string]any) *Result {
	return &Result{Success: true, Message: message, Outputs: outputs}
}

// Failed returns a failed result with a message for the caller.
func Failed(message string, outputs map[string]any) *Result {
	return &Result{Message: message, Outputs: outputs, Failure: FailureRuntime}
}

// An InputError says valid inputs cannot be used, in words for the caller.
type InputError struct {
	// Input names the input at fault; empty when no one input is.
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

// An AccessError (see [Refuse]) fails a run as an access failure saying
// "You may not run LABEL: REASON.".
type AccessError struct {
	// Reason says why, in words the caller may read ("only the album's
	// owner may publish it").
	Reason string
}

func (e *AccessError) Error() string { return e.Reason }

// Refuse returns an [*AccessError] with the given reason.
func Refuse(reason string) error { return &AccessError{Reason: reason} }

// A RunError fails a run as a runtime failure with a message the caller
// sees, where any other error only says "LABEL failed.". Err is logged.
type RunError struct {
	// Message tells the caller what went wrong, as a sentence shown as it
	// is; empty: "LABEL failed.".
	Message string
	// Partial says the run failed partway: its Result's outputs are published.
	Partial bool
	Err     error
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

// ErrNotFound is returned for a tool ID the registry does not hold.
var ErrNotFound = errors.New("tool not found")

// ErrorType returns the category's name in JSON ("invalid_input", ...).
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
