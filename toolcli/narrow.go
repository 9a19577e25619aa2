package toolcli

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/toolapi/toolapi/tool"
)

// narrowFlags takes the global flags --groups NAME[,NAME...] and
// --read-only out of args (the words after the command word, up to "--"),
// narrows c's context by them (see [tool.Registry.Narrow]) and returns the
// other words. Its error names the flag and the rule.
func (c *command) narrowFlags(args []string) ([]string, error) {
	var n tool.Narrowing
	narrowed := false
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if len(a) < 2 || a[0] != '-' || (name != "groups" && name != "read-only") {
			rest = append(rest, a)
			continue
		}
		narrowed = true
		switch name {
		case "groups":
			if !hasValue {
				if i+1 >= len(args) {
					return nil, optionErrorf("--groups needs a comma-separated list of toolsets")
				}
				i++
				value = args[i]
			}
			groups := tool.ParseGroups(value)
			if len(groups) == 0 {
				return nil, optionErrorf("--groups needs at least one toolset, not %q", value)
			}
			n.Groups = append(n.Groups, groups...)
		case "read-only":
			if hasValue {
				b, err := strconv.ParseBool(value)
				if err != nil {
					return nil, optionErrorf("--read-only must be true or false, not %q", value)
				}
				n.ReadOnly = n.ReadOnly || b
			} else {
				n.ReadOnly = true
			}
		}
	}
	if narrowed {
		ctx, err := c.reg.Narrow(c.ctx, n)
		if err != nil {
			return nil, optionErrorf("--groups: %v", err)
		}
		c.ctx = ctx
	}
	return rest, nil
}

// outOfReach says why the narrowing of c's context leaves t out, or "".
func (c *command) outOfReach(t *tool.Tool) string {
	return tool.NarrowingFrom(c.ctx).Reason(t)
}

// narrowedMessage says that the tool word names is out of reach of the
// command's narrowing, and why.
func narrowedMessage(word, why string) string {
	return fmt.Sprintf("tool %q is out of reach: %s (--groups and --read-only narrow the command)", word, why)
}
