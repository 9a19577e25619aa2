package explorer

import (
	"strings"

	"github.com/toolapi/toolapi/tool"
)

// Sensitive inputs ([tool.Definition.Sensitive]) are secrets: their fields
// are password fields that never show a value back, and they are left out
// of presets and of the runs kept for the history; an output that repeats
// one is shown masked.

// masked is what the explorer shows in place of a secret.
const masked = "••••••••"

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

// secrets returns the text of the sensitive values in args, the arguments
// of a run of inputs defs.
func secrets(defs []*tool.Definition, args map[string]any) []string {
	var out []string
	var walk func(def *tool.Definition, v any, secret bool)
	walk = func(def *tool.Definition, v any, secret bool) {
		secret = secret || def != nil && def.Sensitive
		switch x := v.(type) {
		case tool.Text:
			if secret && x != "" {
				out = append(out, string(x))
			}
		case string:
			if secret && x != "" {
				out = append(out, x)
			}
		case []any:
			var items *tool.Definition
			if def != nil {
				items = def.Items
			}
			for _, item := range x {
				walk(items, item, secret)
			}
		case map[string]any:
			for k, pv := range x {
				var pd *tool.Definition
				if def != nil {
					for _, p := range def.Properties {
						if p.Name == k {
							pd = p
						}
					}
				}
				walk(pd, pv, secret)
			}
		}
	}
	for _, def := range defs {
		if v, ok := args[def.Name]; ok {
			walk(def, v, false)
		}
	}
	return out
}

// maskSecrets returns v with every string holding one of the secrets
// replaced by the mask.
func maskSecrets(v any, secrets []string) any {
	switch x := v.(type) {
	case string:
		for _, s := range secrets {
			if strings.Contains(x, s) {
				return masked
			}
		}
		return x
	case []any:
		out := make([]any, len(x))
		for i, item := range x {
			out[i] = maskSecrets(item, secrets)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, pv := range x {
			out[k] = maskSecrets(pv, secrets)
		}
		return out
	}
	return v
}
