package tool

import (
	"context"
	"fmt"
	"strings"
)

// MaxSuggestions is the most suggestions an MCP completion carries.
const MaxSuggestions = 100

// A Suggestion is a value an input may take, offered as a caller types.
type Suggestion struct {
	// Value is what to send: a choice's JSON as text, or an entity's ID.
	Value string `json:"value"`
	// Label is what a person reads (Value when nothing better).
	Label string `json:"label"`
}

// Complete returns up to [MaxSuggestions] values starting with prefix that
// the named input may take: its choices, refined for args, or entities the
// account may view. It returns [ErrNotFound] for a tool the account may not
// run or an input it lacks.
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
