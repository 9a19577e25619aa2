package funcall

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/toolapi/toolapi/tool"
)

// Hidden stands in a [Confirmation] for the value of a sensitive input
// (see [tool.Definition.Sensitive]).
const Hidden = "(hidden)"

// WithConfirmer returns a Toolset like s whose runs of tools marked Confirm
// ask c, in place of any [tool.Confirmer] the context of a run carries. A
// nil c leaves the decision to the context: without a Confirmer there,
// such runs are refused as access failures saying that a person must
// confirm them.
//
// An adapter for an agent framework that can pause for a person (an
// interrupt) asks [Toolset.Confirmation] for what to show, and on the
// person's answer dispatches through s.WithConfirmer([Answer](yes)).
func (s *Toolset) WithConfirmer(c tool.Confirmer) *Toolset {
	out := *s
	out.confirmer = c
	return &out
}

// WithSecrets returns a Toolset like s whose runs collect the sensitive
// inputs a model leaves out through a, out of band: a
// [*github.com/toolapi/toolapi/secrets.Desk]
// opens a page where the person enters them, and the call fails as
// invalid_input with the link ([Response.Secret]) until the person has,
// so the model shows the link and calls again with the same arguments.
// The declarations then mark those inputs as ones to leave out
// ([tool.SecretNote]) instead of required.
func (s *Toolset) WithSecrets(a tool.SecretAsker) *Toolset {
	out := *s
	out.secrets = a
	return &out
}

// Confirmer returns the Confirmer the Toolset's runs ask, or nil (see
// [Toolset.WithConfirmer]).
func (s *Toolset) Confirmer() tool.Confirmer { return s.confirmer }

// runContext returns ctx for a run of the Toolset's: its account, its
// narrowings (see [Toolset.Narrowed]), its Confirmer and its SecretAsker
// when it has them.
func (s *Toolset) runContext(ctx context.Context) context.Context {
	ctx = tool.WithAccount(ctx, s.acct)
	for _, n := range s.narrowings {
		ctx = tool.Narrow(ctx, n)
	}
	if s.confirmer != nil {
		ctx = tool.WithConfirmer(ctx, s.confirmer)
	}
	if s.secrets != nil {
		ctx = tool.WithSecretAsker(ctx, s.secrets)
	}
	return ctx
}

// Answer returns the [tool.Confirmer] of an answer a person already gave:
// it confirms every run it is asked about when yes is set, and none
// otherwise.
func Answer(yes bool) tool.Confirmer { return answer(yes) }

type answer bool

func (a answer) Confirm(context.Context, *tool.Tool, string) (bool, error) {
	return bool(a), nil
}

// A Confirmation is what a person is asked before a tool marked Confirm
// runs a call a model made. It never holds the value of a sensitive
// input: [Hidden] stands in its place.
type Confirmation struct {
	// Tool is the name the model called the tool by.
	Tool string `json:"tool"`
	// Label is the tool's label ("Launch").
	Label string `json:"label"`
	// Arguments are the arguments of the call, a JSON object, with the
	// value of each sensitive input replaced by [Hidden]. They are nil
	// when the model sent none, or sent something other than a JSON
	// object (the run refuses it).
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// Message is the question to ask: `Run Launch (rocket.launch)?`, or
	// with the arguments, `Run Launch (rocket.launch) with {"to":"moon"}?`.
	Message string `json:"message"`
	// Reason says why this call needs confirming, as the tool's
	// [tool.Tool.ConfirmIf] gave it; the Message ends with it. Empty for
	// a tool that asks for every call.
	Reason string `json:"reason,omitempty"`
}

// Confirmation returns what a person is asked before the tool a model
// called by name runs with arguments (a JSON object), or nil when the
// Toolset does not hold that tool, or the tool is neither marked Confirm
// nor has a [tool.Tool.ConfirmIf] that picks this call.
func (s *Toolset) Confirmation(name string, arguments []byte) *Confirmation {
	id := s.ID(name)
	if id == "" {
		return nil
	}
	t, ok := s.reg.Tool(id)
	if !ok || !t.MayConfirm() {
		return nil
	}
	var reason string
	if t.ConfirmIf != nil {
		// The run decides from the checked inputs and their entities, for
		// the Toolset's account; asking nothing here leaves a run that
		// then needs confirming refused, never run unconfirmed.
		r, ask, err := s.reg.NeedsConfirmingJSON(s.runContext(context.Background()), id, arguments)
		if err != nil || !ask {
			return nil
		}
		reason = r
	}
	c := &Confirmation{Tool: name, Label: t.Label, Arguments: hideSensitive(t.Inputs, arguments), Reason: reason}
	if len(c.Arguments) == 0 || string(c.Arguments) == "{}" {
		c.Message = fmt.Sprintf("Run %s (%s)?", t.Label, t.ID)
	} else {
		c.Message = fmt.Sprintf("Run %s (%s) with %s?", t.Label, t.ID, c.Arguments)
	}
	c.Message = tool.WithReason(c.Message, reason)
	return c
}

// hideSensitive returns arguments, a JSON object of inputs, with the value
// of each sensitive one, at any depth, replaced by [Hidden]; nil when
// arguments are empty or not a JSON object.
func hideSensitive(inputs []*tool.Definition, arguments []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(arguments))
	dec.UseNumber()
	var args map[string]any
	if err := dec.Decode(&args); err != nil || dec.More() || args == nil {
		return nil
	}
	b, err := json.Marshal(hideIn(inputs, args))
	if err != nil {
		return nil
	}
	return b
}

// hideIn hides the sensitive values among m, whose keys defs define.
func hideIn(defs []*tool.Definition, m map[string]any) map[string]any {
	for _, d := range defs {
		if v, ok := m[d.Name]; ok {
			m[d.Name] = hide(d, v)
		}
	}
	return m
}

// hide returns v, a value d defines, with its sensitive parts hidden.
func hide(d *tool.Definition, v any) any {
	if d == nil || v == nil {
		return v
	}
	if d.Sensitive {
		return Hidden
	}
	switch x := v.(type) {
	case []any:
		for i := range x {
			x[i] = hide(d.Items, x[i])
		}
	case map[string]any:
		if len(d.Properties) > 0 {
			return hideIn(d.Properties, x)
		}
		for k := range x {
			x[k] = hide(d.Values, x[k])
		}
	}
	return v
}
