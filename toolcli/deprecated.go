package toolcli

import "github.com/toolapi/toolapi/tool"

// listedLabel returns t's label as list and search show it: marked
// "(deprecated: NOTE)" when t is deprecated.
func listedLabel(t *tool.Tool) string {
	if t.Deprecated == "" {
		return t.Label
	}
	return t.Label + " (deprecated: " + t.Deprecated + ")"
}
