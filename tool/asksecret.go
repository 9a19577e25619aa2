package tool

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
)

// A SecretAsker collects the sensitive inputs a call left out from the
// caller's person out of band: on a page the person opens, so that the
// values never pass through the caller's language model. A caller that
// serves a model (MCP, function calling) puts one in the context of its
// runs ([WithSecretAsker]).
//
// The run path asks it when the only problems of a call's inputs are
// required sensitive inputs that are absent: a top-level input marked
// sensitive, of type string. The run then goes on with the values the
// person gave, checked like any other. key identifies the call by its
// tool, account and other arguments, so that a caller that calls again
// with the same arguments finds the values given for the first call.
type SecretAsker interface {
	AskSecrets(ctx context.Context, t *Tool, missing []*Definition, key string) (map[string]string, error)
}

type secretAskerKey struct{}

// WithSecretAsker returns a context whose runs ask a for the sensitive
// inputs a call leaves out.
func WithSecretAsker(ctx context.Context, a SecretAsker) context.Context {
	return context.WithValue(ctx, secretAskerKey{}, a)
}

// A SecretLink says where the person gives the sensitive inputs a call
// left out, when the caller could not wait for them: the caller shows
// the link to its person and calls the tool again with the same inputs.
type SecretLink struct {
	// URL is the page where the person enters the values.
	URL string `json:"url"`
	// Inputs name the inputs the page asks for.
	Inputs []string `json:"inputs"`
	// Expires is when the page stops taking them.
	Expires time.Time `json:"expires"`
}

// A SecretsPendingError is returned by a [SecretAsker] that asked for
// the values on a page and cannot wait for them: the run fails as an
// input failure whose message gives the link, and whose [Result.Secret]
// holds it.
type SecretsPendingError struct {
	Link SecretLink
}

func (e *SecretsPendingError) Error() string {
	return "waiting for the person to give " + strings.Join(e.Link.Inputs, ", ") + " at " + e.Link.URL
}

// ErrSecretsDeclined is returned by a [SecretAsker] whose person
// declined to give the values: the run fails as an access failure.
var ErrSecretsDeclined = errors.New("the person declined to give the values")

// OutOfBandInputs returns the inputs of t that a [SecretAsker] may
// collect: top-level, sensitive, required strings of a tool that never
// runs as a task (a task's inputs are complete when it is created).
func (t *Tool) OutOfBandInputs() []*Definition {
	if t.Task != TaskNever {
		return nil
	}
	var out []*Definition
	for _, d := range t.Inputs {
		if d.Sensitive && d.Required && d.Type == "string" {
			out = append(out, d)
		}
	}
	return out
}

// secretsAskedFor returns the inputs of e that vs, the violations of a
// call, say are absent, when those are all its violations and all are
// inputs that may be collected out of band; else nil.
func secretsAskedFor(e *entry, vs []Violation) []*Definition {
	if len(e.secrets) == 0 || len(vs) == 0 {
		return nil
	}
	var out []*Definition
	for _, v := range vs {
		if v.Rule != RuleRequired {
			return nil
		}
		var found *Definition
		for _, d := range e.secrets {
			if d.Name == v.Path {
				found = d
			}
		}
		if found == nil {
			return nil
		}
		out = append(out, found)
	}
	return out
}

// askSecrets asks the caller's [SecretAsker] for missing and returns the
// arguments with the values it got, or the Result that ends the run; ok
// is false when the caller has no asker or it cannot ask (the run fails
// with its violations as they are).
func (r *Registry) askSecrets(ctx context.Context, e *entry, args arguments, missing []*Definition) (arguments, *Result, bool) {
	a, _ := ctx.Value(secretAskerKey{}).(SecretAsker)
	if a == nil {
		return args, nil, false
	}
	tree := args.tree
	if args.isDoc {
		m, vs := decodeArgs(args.doc)
		if vs != nil {
			return args, nil, false
		}
		tree = m
	}
	key, err := secretKey(e.tool.ID, AccountFrom(ctx), tree)
	if err != nil {
		return args, nil, false
	}
	values, err := a.AskSecrets(ctx, e.tool, missing, key)
	var pending *SecretsPendingError
	switch {
	case errors.As(err, &pending):
		link := pending.Link
		return args, &Result{Failure: FailureInput, Secret: &link, Violations: requiredViolations(missing),
			Message: fmt.Sprintf("%s needs %s from the person, not from the model: ask them to open %s and enter it there (the page takes it until %s), then call %s again with the same inputs.",
				e.tool.label(), inputList(missing), link.URL, link.Expires.UTC().Format(time.DateTime+" UTC"), e.tool.label())}, true
	case errors.Is(err, ErrSecretsDeclined):
		return args, accessFailure(e.tool.label() + " did not run: the person did not give " + inputList(missing) + "."), true
	case errors.Is(err, ErrUnsupported):
		return args, nil, false
	case err != nil:
		return args, r.failure(ctx, e, nil, err, "asking for secret inputs failed"), true
	}
	merged := make(map[string]any, len(tree)+len(values))
	for k, v := range tree {
		merged[k] = v
	}
	for _, d := range missing {
		v, ok := values[d.Name]
		if !ok {
			return args, r.runtimeFailure(e.tool, "asking for secret inputs failed", fmt.Errorf("no value for %q", d.Name)), true
		}
		merged[d.Name] = v
	}
	return arguments{tree: merged}, nil, true
}

// secretKey identifies a call by its tool, account and arguments: the
// SHA-256 of them, the arguments in canonical JSON (keys sorted).
func secretKey(toolID string, acct Account, args map[string]any) (string, error) {
	b, err := json.Marshal(args)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00", toolID, acct.AccountID())
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil)), nil
}

// requiredViolations returns the "required" violations of defs.
func requiredViolations(defs []*Definition) []Violation {
	vs := make([]Violation, len(defs))
	for i, d := range defs {
		vs[i] = newViolation(Violation{Path: d.Name, Rule: RuleRequired})
	}
	return vs
}

// inputList names defs by label: "the Password", "the Password and the
// PIN".
func inputList(defs []*Definition) string {
	names := make([]string, len(defs))
	for i, d := range defs {
		label := d.Label
		if label == "" {
			label = d.Name
		}
		names[i] = "the " + label
	}
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// SecretNote ends the description of an input a caller collects out of
// band, in the input schemas it shows a language model (see
// [LeaveSecretsOut]).
const SecretNote = "Leave this out: the person enters it on a page the call links to, so that it never passes through the model."

// LeaveSecretsOut changes sch, an input schema of t that the caller owns
// (a clone), for a caller that collects sensitive inputs out of band
// ([SecretAsker]): each input it may collect is no longer required, and
// its description ends with [SecretNote], so that a model leaves it out
// rather than asks its person for it.
func LeaveSecretsOut(sch *jsonschema.Schema, t *Tool) {
	for _, d := range t.OutOfBandInputs() {
		sch.Required = slices.DeleteFunc(sch.Required, func(n string) bool { return n == d.Name })
		if p := sch.Properties[d.Name]; p != nil {
			p.Description = strings.TrimSpace(strings.TrimSpace(p.Description) + " " + SecretNote)
		}
	}
}
