package explorer

import (
	"github.com/toolapi/toolapi/tool"
)

// Sensitive inputs ([tool.Definition.Sensitive]) are secrets: their fields
// are password fields that never show a value back, and they are left out
// of presets and of the runs kept for the history; an output that repeats
// one is shown masked.

// masked is what the explorer shows in place of a secret.
const masked = tool.SecretMask

// withoutSensitive returns v, the value of def as typed or as JSON, with
// the sensitive values inside left out; ok is false when v is sensitive
// itself.
func withoutSensitive(def *tool.Definition, v any) (any, bool) {
	if def == nil {
		return v, true
	}
	if def.Sensitive {
		return nil, false
	}
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, item := range x {
			out[i], _ = withoutSensitive(def.Items, item)
		}
		return out, true
	case map[string]any:
		if len(def.Properties) == 0 {
			return x, true
		}
		out := make(map[string]any, len(x))
		for _, p := range def.Properties {
			if pv, ok := x[p.Name]; ok {
				if pv, ok := withoutSensitive(p, pv); ok {
					out[p.Name] = pv
				}
			}
		}
		return out, true
	}
	return v, true
}
