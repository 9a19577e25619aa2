package tool

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
)

// A Reporter carries what a running tool tells its caller while it runs.
type Reporter interface {
	// Progress reports that done of total units are done (total 0: unknown).
	Progress(ctx context.Context, done, total float64, message string)
	// Log sends a message at a level ("debug", "info", "warning", ...).
	Log(ctx context.Context, level, message string)
}

type reporterKey struct{}

// WithReporter returns a context whose runs report to r.
func WithReporter(ctx context.Context, r Reporter) context.Context {
	return context.WithValue(ctx, reporterKey{}, r)
}

func reporterFrom(ctx context.Context) Reporter {
	r, _ := ctx.Value(reporterKey{}).(Reporter)
	return r
}

// Progress reports the running tool's progress to its caller, if it listens.
func Progress(ctx context.Context, done, total float64, message string) {
	if r := reporterFrom(ctx); r != nil {
		r.Progress(ctx, done, total, message)
	}
}

// Log sends a message from the running tool to its caller, if it listens.
func Log(ctx context.Context, level, message string) {
	if r := reporterFrom(ctx); r != nil {
		r.Log(ctx, level, message)
	}
}

// A Confirmer asks a person to confirm a run of a tool marked Confirm.
// question ("Run LABEL (ID) with {...}?") never names a sensitive input.
type Confirmer interface {
	Confirm(ctx context.Context, t *Tool, question string) (bool, error)
}

type confirmerKey struct{}

// WithConfirmer returns a context whose runs of Confirm tools ask c (else
// fail as access failures).
func WithConfirmer(ctx context.Context, c Confirmer) context.Context {
	return context.WithValue(ctx, confirmerKey{}, c)
}

// ConfirmerFrom returns the [Confirmer] ctx carries, or nil.
func ConfirmerFrom(ctx context.Context) Confirmer {
	c, _ := ctx.Value(confirmerKey{}).(Confirmer)
	return c
}

// Confirmed is a [Confirmer] that accepts every run (a CLI's --yes).
var Confirmed Confirmer = confirmed{}

type confirmed struct{}

func (confirmed) Confirm(context.Context, *Tool, string) (bool, error) { return true, nil }

type accountKey struct{}

// WithAccount returns a context carrying acct as the account a run is for.
func WithAccount(ctx context.Context, acct Account) context.Context {
	return context.WithValue(ctx, accountKey{}, acct)
}

// AccountFrom returns the account ctx carries, or [Anonymous].
func AccountFrom(ctx context.Context) Account {
	if a, ok := ctx.Value(accountKey{}).(Account); ok && a != nil {
		return a
	}
	return Anonymous
}

// A Client is the caller's side of a run (an MCP client's model or person),
// which a running tool may ask things.
type Client interface {
	// Sample returns the caller's model's answer to prompt, of at most maxTokens.
	Sample(ctx context.Context, prompt string, maxTokens int) (string, error)
	// Elicit asks the caller's person for values matching requested.
	Elicit(ctx context.Context, message string, requested *jsonschema.Schema) (*Elicitation, error)
}

// An Elicitation is a person's answer: "accept" (with Content), "decline"
// or "cancel".
type Elicitation struct {
	Action  string
	Content map[string]any
}

// ErrUnsupported is wrapped by [Sample], [Elicit] and [Ask] when the caller
// cannot.
var ErrUnsupported = errors.New("the caller does not support this")

type clientKey struct{}

// WithClient returns a context whose runs can ask c.
func WithClient(ctx context.Context, c Client) context.Context {
	return context.WithValue(ctx, clientKey{}, c)
}

// Sample asks the caller's language model to answer prompt.
func Sample(ctx context.Context, prompt string, maxTokens int) (string, error) {
	c, _ := ctx.Value(clientKey{}).(Client)
	if c == nil {
		return "", ErrUnsupported
	}
	return c.Sample(ctx, prompt, maxTokens)
}

// Elicit asks the caller's person for values matching requested.
func Elicit(ctx context.Context, message string, requested *jsonschema.Schema) (*Elicitation, error) {
	c, _ := ctx.Value(clientKey{}).(Client)
	if c == nil {
		return nil, ErrUnsupported
	}
	return c.Elicit(ctx, message, requested)
}

// A QuestionKind says who answers a [Question].
type QuestionKind string

// The kinds of question a tool may [Ask].
const (
	// AskPerson asks the caller's person for values (as [Elicit]).
	AskPerson QuestionKind = "person"
	// AskModel asks the caller's language model (as [Sample]).
	AskModel QuestionKind = "model"
	// AskRoots asks the caller for its roots: the URIs (file:///...) of
	// the folders it works in.
	AskRoots QuestionKind = "roots"
)

// A Question is one question of [Ask].
type Question struct {
	// Key names the question, so that a caller that answers in a later
	// request (MCP from protocol version 2026-07-28) answers it under this
	// name: letters, digits, "_", "-" and "." , at most 64. It must be
	// unique among the questions of one run, never "confirm" (the
	// confirmation of a tool marked Confirm), never "secret" (the page
	// where the person enters sensitive inputs, see [SecretAsker]) and
	// never "q" followed by
	// digits (the names of questions asked without a key). Empty means
	// the next of those numbers.
	Key string
	// Kind says who answers. Required.
	Kind QuestionKind
	// Message is what the person is asked (AskPerson).
	Message string
	// Schema is the object of values the person is asked for (AskPerson);
	// nil asks for no value, only an answer.
	Schema *jsonschema.Schema
	// Prompt is what the model is asked (AskModel).
	Prompt string
	// MaxTokens bounds the model's answer (AskModel); zero means 1000.
	MaxTokens int
}

// An Answer is the answer to one [Question].
type Answer struct {
	// Elicitation is the person's answer (AskPerson).
	Elicitation *Elicitation
	// Text is the model's answer (AskModel).
	Text string
	// Roots are the URIs of the caller's roots (AskRoots).
	Roots []string
}

// An Asker is a [Client] that takes several questions at once, so that a
// caller that answers in a later request gets them together in one round.
type Asker interface {
	Ask(ctx context.Context, questions []Question) ([]Answer, error)
}

// Ask asks the caller every question at once and returns their answers in
// order. A caller that answers in a later request (MCP from protocol
// version 2026-07-28) receives all of them in one round. A caller that
// cannot ask one of them makes Ask fail with an error wrapping
// [ErrUnsupported]; a Client that is not an [Asker] is asked one question
// after the other, and AskRoots is then unsupported.
func Ask(ctx context.Context, questions ...Question) ([]Answer, error) {
	c, _ := ctx.Value(clientKey{}).(Client)
	if c == nil {
		return nil, ErrUnsupported
	}
	if a, ok := c.(Asker); ok {
		return a.Ask(ctx, questions)
	}
	answers := make([]Answer, len(questions))
	for i, q := range questions {
		switch q.Kind {
		case AskPerson:
			el, err := c.Elicit(ctx, q.Message, q.Schema)
			if err != nil {
				return nil, err
			}
			answers[i].Elicitation = el
		case AskModel:
			text, err := c.Sample(ctx, q.Prompt, q.MaxTokens)
			if err != nil {
				return nil, err
			}
			answers[i].Text = text
		default:
			return nil, fmt.Errorf("%w: question %d asks %q", ErrUnsupported, i, q.Kind)
		}
	}
	return answers, nil
}
