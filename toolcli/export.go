package toolcli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/toolapi/toolapi/funcall"
	"github.com/toolapi/toolapi/tool"
)

// export runs "export": it prints the function-calling declarations of
// the tools the account may call in one of the formats of
// [funcall.Formats], as [funcall.Toolset.Declarations] makes them, as one
// indented JSON array.
func (c *command) export(args []string) int {
	fs := c.newFlagSet("export")
	format := fs.String("format", "openai", "declaration `format`: "+formatNames())
	user := fs.String("user", "", "act for the account with this `name`")
	words, err := parseFlags(fs, args)
	if err == nil {
		switch {
		case !slices.Contains(funcall.Formats(), funcall.Format(*format)):
			err = optionErrorf("--format must be one of %s, not %q", formatNames(), *format)
		case len(words) > 0:
			err = optionErrorf("export takes no words: %q", words)
		}
	}
	if err != nil {
		return c.usageError(fs, err)
	}
	acct, ue := c.account(*user)
	if ue != nil {
		fmt.Fprintf(c.stderr, "%s: %v\n", fs.Name(), ue)
		return 1
	}
	decls, err := funcall.New(c.reg, acct).Declare(tool.NarrowingFrom(c.ctx).Allows).Declarations(funcall.Format(*format))
	if err != nil {
		fmt.Fprintf(c.stderr, "%s: %v\n", fs.Name(), err)
		return 1
	}
	if err := writeJSON(c.stdout, decls); err != nil {
		fmt.Fprintf(c.stderr, "%s: %v\n", fs.Name(), err)
		return 1
	}
	return 0
}

// formatNames lists the export formats, separated by "|".
func formatNames() string {
	names := make([]string, 0, len(funcall.Formats()))
	for _, f := range funcall.Formats() {
		names = append(names, string(f))
	}
	return strings.Join(names, "|")
}
