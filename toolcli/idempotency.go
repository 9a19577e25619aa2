package toolcli

import (
	"flag"

	"github.com/toolapi/toolapi/tool"
)

// keyInput is the name of the input in which an application that keeps
// idempotency keys (package idempotency) takes them on its write and
// trigger tools.
const keyInput = "idempotency_key"

// idempotencyFlag adds --idempotency-key to fs.
func idempotencyFlag(fs *flag.FlagSet) *string {
	return fs.String("idempotency-key", "", "run at most once with this `key`: a repeat with the same key and inputs prints the first run's result without running (write and trigger tools of an application that keeps keys)")
}

// withIdempotencyKey sets key, when not empty, as t's idempotency key in
// args. A tool without the input, or a different key given as --input
// too, is an option error.
func withIdempotencyKey(args map[string]any, t *tool.Tool, key string) error {
	if key == "" {
		return nil
	}
	takes := false
	for _, d := range t.Inputs {
		if d.Name == keyInput && d.Type == "string" {
			takes = true
		}
	}
	if !takes {
		return optionErrorf("--idempotency-key: %s takes no idempotency key (only the write and trigger tools of an application that keeps keys do)", t.ID)
	}
	if v, ok := args[keyInput]; ok && v != tool.Text(key) && v != key {
		return optionErrorf("--idempotency-key: differs from the %s given with --input", keyInput)
	}
	args[keyInput] = tool.Text(key)
	return nil
}
