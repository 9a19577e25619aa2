package toolcli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/toolapi/toolapi/tool"
)

// list runs "list" (search false) and "search WORDS..." (search true).
func (c *command) list(args []string, search bool) int {
	sub := "list"
	if search {
		sub = "search"
	}
	fs := c.newFlagSet(sub)
	format := fs.String("format", "table", "output `format`: table, json or markdown")
	op := fs.String("operation", "", "show only tools of this `operation` (read, write, trigger, transform, explain)")
	user := fs.String("user", "", "act for the account with this `name`")
	match := "or"
	if search {
		fs.StringVar(&match, "match", "or", "`or`: a tool matches any word; and: every word")
	}
	words, err := parseFlags(fs, args)
	if err != nil {
		return c.usageError(fs, err)
	}
	switch {
	case *format != "table" && *format != "json" && *format != "markdown":
		err = optionErrorf("--format must be table, json or markdown, not %q", *format)
	case *op != "" && !tool.Operation(*op).Valid():
		err = optionErrorf("--operation must be read, write, trigger, transform or explain, not %q", *op)
	case match != "or" && match != "and":
		err = optionErrorf("--match must be or or and, not %q", match)
	case search && len(words) == 0:
		err = optionErrorf("search needs at least one word")
	case !search && len(words) > 0:
		err = optionErrorf("list takes no words (use search): %q", words)
	}
	if err != nil {
		return c.usageError(fs, err)
	}
	acct, ue := c.account(*user)
	if ue != nil {
		fmt.Fprintf(c.stderr, "%s: %v\n", fs.Name(), ue)
		return 1
	}
	tools := c.reg.List(&tool.Filter{
		Account:   acct,
		Operation: tool.Operation(*op),
		Words:     words,
		MatchAll:  match == "and",
	})
	switch *format {
	case "json":
		defs := make([]*tool.Info, len(tools))
		for i, t := range tools {
			defs[i] = c.reg.Describe(t.ID)
		}
		err = writeJSON(c.stdout, defs)
	case "markdown":
		err = writeMarkdown(c.stdout, tools)
	default:
		err = writeTable(c.stdout, tools)
	}
	if err != nil {
		fmt.Fprintf(c.stderr, "%s: %v\n", fs.Name(), err)
		return 1
	}
	return 0
}

// usageError reports a flag or argument problem of a subcommand other than
// run, or prints its help for -h.
func (c *command) usageError(fs *flag.FlagSet, err error) int {
	if errors.Is(err, flag.ErrHelp) {
		flagUsage(c.stdout, fs)
		return 0
	}
	fmt.Fprintf(c.stderr, "%s: %v\n", fs.Name(), err)
	flagUsage(c.stderr, fs)
	return 1
}

// writeTable writes tools as an aligned table.
func writeTable(w io.Writer, tools []*tool.Tool) error {
	if len(tools) == 0 {
		_, err := fmt.Fprintln(w, "No tools.")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tOPERATION\tDESTRUCTIVE\tLABEL")
	for _, t := range tools {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", t.ID, t.Op(), yesNo(t.IsDestructive()), oneLine(t.Label))
	}
	return tw.Flush()
}

// writeMarkdown writes tools as a Markdown table.
func writeMarkdown(w io.Writer, tools []*tool.Tool) error {
	var b strings.Builder
	b.WriteString("| ID | Label | Operation | Destructive | Description |\n")
	b.WriteString("|---|---|---|---|---|\n")
	for _, t := range tools {
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n",
			t.ID, markdownCell(t.Label), t.Op(), yesNo(t.IsDestructive()), markdownCell(t.Description))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// markdownCell makes s fit in one Markdown table cell.
func markdownCell(s string) string {
	s = oneLine(s)
	s = strings.ReplaceAll(s, `\`, `\\`)
	return strings.ReplaceAll(s, "|", `\|`)
}

// oneLine joins the lines of s with spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// info runs "info ID".
func (c *command) info(args []string) int {
	fs := c.newFlagSet("info")
	format := fs.String("format", "text", "output `format`: text or json")
	user := fs.String("user", "", "act for the account with this `name`")
	words, err := parseFlags(fs, args)
	if err == nil {
		switch {
		case *format != "text" && *format != "json":
			err = optionErrorf("--format must be text or json, not %q", *format)
		case len(words) != 1:
			err = optionErrorf("info takes one tool ID, not %d words", len(words))
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
	t, ok := c.reg.Tool(words[0])
	if !ok || !t.Allowed(acct) {
		fmt.Fprintf(c.stderr, "%s: tool %q not found\n", fs.Name(), words[0])
		return 1
	}
	if *format == "json" {
		err = writeJSON(c.stdout, c.reg.Describe(t.ID))
	} else {
		err = writeInfo(c.stdout, t)
	}
	if err != nil {
		fmt.Fprintf(c.stderr, "%s: %v\n", fs.Name(), err)
		return 1
	}
	return 0
}

// writeJSON writes v as indented JSON.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// writeInfo writes a readable description of t.
func writeInfo(w io.Writer, t *tool.Tool) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n", t.ID, t.Label)
	if t.Description != "" {
		fmt.Fprintf(&b, "\n%s\n", t.Description)
	}
	b.WriteString("\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "Operation:\t%s\n", t.Op())
	fmt.Fprintf(tw, "Destructive:\t%s\n", yesNo(t.IsDestructive()))
	if p := t.Describe().Permission; p != "" {
		fmt.Fprintf(tw, "Permission:\t%s\n", p)
	}
	if t.Confirm {
		fmt.Fprintf(tw, "Confirm:\tyes\n")
	}
	tw.Flush()
	writeDefinitions(&b, "Inputs", t.Inputs, true)
	writeDefinitions(&b, "Outputs", t.Outputs, false)
	lines := strings.Split(b.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	_, err := io.WriteString(w, strings.Join(lines, "\n"))
	return err
}

// writeDefinitions writes one line per definition: name, type, whether it
// is required, its default and description.
func writeDefinitions(b *strings.Builder, title string, defs []*tool.Definition, inputs bool) {
	if len(defs) == 0 {
		return
	}
	fmt.Fprintf(b, "\n%s:\n", title)
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	for _, d := range defs {
		if inputs && d.Locked {
			continue
		}
		var notes []string
		if d.Required {
			notes = append(notes, "required")
		} else {
			notes = append(notes, "optional")
		}
		if d.Nullable {
			notes = append(notes, "nullable")
		}
		if d.Default != nil {
			if data, err := json.Marshal(d.Default); err == nil {
				notes = append(notes, "default "+string(data))
			}
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", d.Name, typeName(d), strings.Join(notes, ", "), oneLine(d.Description))
	}
	tw.Flush()
}

// typeName spells the data type of d, with the item type of a list.
func typeName(d *tool.Definition) string {
	if d.Type == "list" && d.Items != nil {
		return "list of " + typeName(d.Items)
	}
	return d.Type
}
