package tool

import "strings"

// SecretMask is what callers show, and tasks keep, in place of an output
// value that repeats a sensitive input.
const SecretMask = "••••••••"

// Secrets returns the text of the sensitive values in args, the arguments
// of a run of the inputs defs (JSON values or [Text], by input name): the
// non-empty strings found under a sensitive input, at any depth.
func Secrets(defs []*Definition, args map[string]any) []string {
	var out []string
	var walk func(def *Definition, v any, secret bool)
	walk = func(def *Definition, v any, secret bool) {
		secret = secret || def != nil && def.Sensitive
		switch x := v.(type) {
		case Text:
			if secret && x != "" {
				out = append(out, string(x))
			}
		case string:
			if secret && x != "" {
				out = append(out, x)
			}
		case []any:
			var items *Definition
			if def != nil {
				items = def.Items
			}
			for _, item := range x {
				walk(items, item, secret)
			}
		case map[string]any:
			for k, pv := range x {
				var pd *Definition
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

// MaskSecrets returns v (an output value as JSON values) with every string
// that holds one of secrets replaced by mask, at any depth; v itself is
// not changed.
func MaskSecrets(v any, secrets []string, mask string) any {
	switch x := v.(type) {
	case string:
		for _, s := range secrets {
			if strings.Contains(x, s) {
				return mask
			}
		}
		return x
	case []any:
		out := make([]any, len(x))
		for i, item := range x {
			out[i] = MaskSecrets(item, secrets, mask)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, pv := range x {
			out[k] = MaskSecrets(pv, secrets, mask)
		}
		return out
	}
	return v
}
