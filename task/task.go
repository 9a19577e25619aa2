package task

import (
	"errors"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/toolapi/toolapi/tool"
)

// A Status is where a task stands. The statuses are those of the MCP tasks
// extension.
type Status string

// The statuses of a task.
const (
	// Working: the task waits for a worker or runs.
	Working Status = "working"
	// InputRequired: the running task waits for an answer (see
	// [Manager.Answer]).
	InputRequired Status = "input_required"
	// Completed: the tool ran and succeeded; Result holds its outcome.
	Completed Status = "completed"
	// Failed: the tool ran and failed, or the task was interrupted or
	// expired before it ended; Result says why. [Task.Internal] tells a
	// failure the tool reported from one it did not.
	Failed Status = "failed"
	// Cancelled: someone cancelled the task before it ended.
	Cancelled Status = "cancelled"
)

// Finished reports whether s is an end: completed, failed or cancelled.
func (s Status) Finished() bool {
	return s == Completed || s == Failed || s == Cancelled
}

// A Task is one call of a tool run in the background, as its caller sees
// it.
type Task struct {
	// ID identifies the task: 26 random letters and digits, unguessable.
	ID string `json:"id"`
	// Tool is the ID of the tool the task runs.
	Tool string `json:"tool"`
	// Account is the ID of the account the task runs for.
	Account string `json:"account"`
	// Status is where the task stands.
	Status Status `json:"status"`
	// StatusMessage says why, in a sentence, when there is more to say
	// than the status ("interrupted", "expired before it started").
	StatusMessage string `json:"statusMessage,omitempty"`
	// Progress is the last progress the tool reported; nil if none.
	Progress *Progress `json:"progress,omitempty"`
	// Questions are what the task asks while its status is InputRequired,
	// in the order the tool asked them, those answered already left out;
	// nil otherwise. A tool asks several at once with [tool.Ask].
	Questions []*Question `json:"questions,omitempty"`
	// Question is the first of Questions, for a caller that answers one
	// question at a time; nil when the task does not wait for input.
	Question *Question `json:"question,omitempty"`
	// Created is when the task was created; Updated when its status,
	// progress or question last changed.
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
	// Expires is when the task is deleted: its time to live after it
	// ended, or, while it has not ended, after it was created (a task still
	// running then fails as expired).
	Expires time.Time `json:"expires"`
	// PollInterval is how often a caller should ask how the task stands.
	PollInterval time.Duration `json:"pollInterval"`
	// Approval says where the approval of the task's call stands, when
	// its tool has an approver and the call needed approval; nil
	// otherwise. While the call waits, the task is working and its
	// StatusMessage is [AwaitingApproval]. [Manager.Get] fills it in;
	// [Manager.List] does not.
	Approval *Approval `json:"approval,omitempty"`
	// Result is the outcome of a finished task: the Result a run of the
	// tool with the same arguments would have given, or, for a task that
	// did not run to its end, a runtime failure that says why. Nil until
	// the task is finished.
	Result *tool.Result `json:"result,omitempty"`
}

// Internal reports whether t failed other than by its tool's own word: its
// tool panicked or met an internal error (its Result says only "LABEL
// failed.", the cause is logged), or the task was interrupted, expired, or
// could not start its tool. A failed task that is not internal ended with
// the failure its tool reported (a [tool.Failed] result, a
// [tool.RunError]), or with the refusal of its inputs or account that a
// run with the same arguments would have given.
func (t *Task) Internal() bool {
	if t.Status != Failed {
		return false
	}
	return t.StatusMessage != "" || t.Result == nil || t.Result.Internal
}

// Progress is how far a running task has come.
type Progress struct {
	// Done of Total units are done; Total 0 means unknown.
	Done  float64 `json:"done"`
	Total float64 `json:"total,omitempty"`
	// Message says what the tool is doing.
	Message string `json:"message,omitempty"`
}

// A Question is what a task waiting for input asks: a confirmation of the
// run (Confirm true, Schema nil; answer with action "accept" to confirm)
// or values the tool asks for with [tool.Elicit] (Schema describes them).
type Question struct {
	// Key names the question among those the task asks at once: "confirm"
	// for the confirmation, "q" for a question of [tool.Elicit], else the
	// [tool.Question.Key] the tool gave or "q1", "q2", ... in the order
	// of its [tool.Ask]. Answer it with [Manager.AnswerKey].
	Key string `json:"key"`
	// Message is the question, for a person.
	Message string `json:"message"`
	// Confirm is true when the question asks to confirm the run.
	Confirm bool `json:"confirm,omitempty"`
	// Schema describes the object of values asked for; nil for a
	// confirmation.
	Schema *jsonschema.Schema `json:"schema,omitempty"`
}

// Errors of a [Manager]'s methods. Test for them with [errors.Is].
var (
	// ErrNotFound: no task has this ID for the account in the context (a
	// task of another account is not found either, unless the account
	// holds the Viewers permission).
	ErrNotFound = errors.New("task: no such task")
	// ErrNotTaskTool: the tool may not run as a task (its Task mode is
	// never).
	ErrNotTaskTool = errors.New("task: the tool does not run as a task")
	// ErrFinished: the task has already ended.
	ErrFinished = errors.New("task: the task has already ended")
	// ErrNotWaiting: the task is not waiting for an answer, or was
	// already given one.
	ErrNotWaiting = errors.New("task: the task is not waiting for an answer")
	// ErrBadCursor: a list cursor that this package did not give.
	ErrBadCursor = errors.New("task: cursor: not a cursor a list of tasks returned")
	// ErrNoKey: the tool has sensitive inputs, which are stored only
	// encrypted, and the Manager has no key.
	ErrNoKey = errors.New("task: the tool has sensitive inputs and the task manager has no key to encrypt them")
)

// A RefusedError is a task refused before it was created: the failed
// Result a run of the tool with the same arguments would have given
// (bad inputs, an account that may not run it, a run not confirmed), to be
// shown as that run's outcome would be.
type RefusedError struct {
	Result *tool.Result
}

func (e *RefusedError) Error() string { return "task refused: " + e.Result.Message }
