package tool

import (
	"context"
	"fmt"
	"strings"
)

// MaxSuggestions is the most suggestions [Registry.Complete] returns, the
// most an MCP completion carries.
const MaxSuggestions = 100

// A Suggestion is a value an input may take, offered while a caller fills
// it in.
type Suggestion struct {
	// Value is what to send: a choice in its JSON form written as text, or
	// an entity's ID.
	Value string `json:"value"`
	// Label is what a person reads; it is Value when there is nothing
	// better.
	Label string `json:"label"`
}

// Complete returns what the input named input of the tool with the given
// ID may take that starts with (choices) or matches (entity labels)
// prefix, given the other arguments args (as [Registry.Run] takes them):
// the input's choices as its refiner makes them for args, or the entities
// of an entity input found by label through the entity type's Search,
// those the account in ctx may view. A list input offers its items'. At
// most 100 are returned (what an MCP completion carries), in the order of the choices or of the
// search. It returns [ErrNotFound] for a tool the account may not run or an
// input the tool does not have, and nothing for an input with no choices
// and no search.
func (r *Registry) Complete(ctx context.Context, id, input, prefix string, args map[string]any) ([]Suggestion, error) {
	defs, err := r.Refine(ctx, id, args)
	if err != nil {
		return nil, err
	}
	var def *Definition
	for _, d := range defs {
		if d.Name == input {
			def = d
		}
	}
	if def == nil || def.Locked {
		return nil, fmt.Errorf("%w: tool %q has no input %q", ErrNotFound, id, input)
	}
	if def.Type == "list" && def.Items != nil {
		def = def.Items
	}
	if len(def.Constraints.Choice) > 0 {
		var out []Suggestion
		for _, c := range def.Constraints.Choice {
			v := fmt.Sprint(c)
			if strings.HasPrefix(strings.ToLower(v), strings.ToLower(prefix)) {
				out = append(out, Suggestion{Value: v, Label: v})
				if len(out) == MaxSuggestions {
					break
				}
			}
		}
		return out, nil
	}
	typeID, ok := strings.CutPrefix(def.Type, "entity:")
	if !ok {
		return nil, nil
	}
	et, ok := r.EntityType(typeID)
	if !ok || et.Search == nil {
		return nil, nil
	}
	refs, err := et.Search(ctx, AccountFrom(ctx), prefix, MaxSuggestions)
	if err != nil {
		r.logger.Error("entity search failed", "tool", id, "input", input, "error", err.Error())
		return nil, fmt.Errorf("the %s search failed", et.Label)
	}
	out := make([]Suggestion, 0, min(len(refs), MaxSuggestions))
	for _, ref := range refs[:min(len(refs), MaxSuggestions)] {
		out = append(out, Suggestion{Value: ref.ID, Label: ref.Label})
	}
	return out, nil
}
