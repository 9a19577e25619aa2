package toolcli

import (
	"fmt"

	"github.com/toolapi/toolapi/funcall"
)

// export runs "export": it prints the function-calling declarations of
// the tools the account may call, as [funcall.Toolset.OpenAI] or
// [funcall.Toolset.Anthropic] makes them, as one indented JSON array.
func (c *command) export(args []string) int {
	fs := c.newFlagSet("export")
	format := fs.String("format", "openai", "declaration `format`: openai or anthropic")
	user := fs.String("user", "", "act for the account with this `name`")
	words, err := parseFlags(fs, args)
	if err == nil {
		switch {
		case *format != "openai" && *format != "anthropic":
			err = optionErrorf("--format must be openai or anthropic, not %q", *format)
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
	set := funcall.New(c.reg, acct)
	var decls any = set.OpenAI()
	if *format == "anthropic" {
		decls = set.Anthropic()
	}
	if err := writeJSON(c.stdout, decls); err != nil {
		fmt.Fprintf(c.stderr, "%s: %v\n", fs.Name(), err)
		return 1
	}
	return 0
}
