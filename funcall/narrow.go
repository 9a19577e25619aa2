package funcall

import (
	"slices"

	"github.com/toolapi/toolapi/tool"
)

// Narrowed returns a Toolset that holds, declares and dispatches only the
// tools of s that n keeps (see [tool.Narrowing]); every run goes through
// the registry narrowed so, and a call of any other tool is answered as
// one of a tool that does not exist. Narrowing a narrowed Toolset keeps
// the tools both narrowings keep. Use [tool.Registry.Narrow] first to
// check that n's groups exist.
func (s *Toolset) Narrowed(n tool.Narrowing) *Toolset {
	out := *s
	out.narrowings = append(slices.Clone(s.narrowings), n)
	drop := func(t *tool.Tool) bool { return !(&n).Allows(t) }
	out.tools = slices.DeleteFunc(slices.Clone(s.tools), drop)
	out.decl = slices.DeleteFunc(slices.Clone(s.decl), drop)
	out.held = make(map[string]bool, len(out.tools))
	for _, t := range out.tools {
		out.held[t.ID] = true
	}
	return &out
}
