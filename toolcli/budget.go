package toolcli

import (
	"flag"

	"github.com/toolapi/toolapi/tool"
)

// cursorFlag adds --cursor to fs.
func cursorFlag(fs *flag.FlagSet) *string {
	return fs.String("cursor", "", "print the page after the one whose next_cursor is this `cursor` (a tool whose list output is paged), with the same other inputs")
}

// withCursor sets cursor, when not empty, as the cursor input of t in
// args. A tool that is not paged, or a different cursor given as --input
// too, is an option error.
func withCursor(args map[string]any, t *tool.Tool, cursor string) error {
	if cursor == "" {
		return nil
	}
	if !tool.Paged(t) {
		return optionErrorf("--cursor: %s is not paged (only a tool whose output is a list and that has an item budget is)", t.ID)
	}
	if v, ok := args[tool.CursorInput]; ok && v != tool.Text(cursor) && v != cursor {
		return optionErrorf("--cursor: differs from the %s given with --input", tool.CursorInput)
	}
	args[tool.CursorInput] = tool.Text(cursor)
	return nil
}
