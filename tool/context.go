package tool

import (
	"context"
	"errors"

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

// ErrUnsupported is wrapped by [Sample] and [Elicit] when the caller cannot.
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
