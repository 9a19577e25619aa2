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
		Narrowing: tool.NarrowingFrom(c.ctx),
	})
	switch *format {
	case "json":
		defs := make([]*info, len(tools))
		for i, t := range tools {
			defs[i] = c.describe(t)
		}
		err = writeJSON(c.stdout, defs)
	case "markdown":
		err = writeMarkdown(c.stdout, tools, tool.NameOf)
	default:
		err = writeTable(c.stdout, tools, tool.NameOf)
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

// info is the DEF of a tool ([tool.Info]) with its name in MCP and
// function calling, after its ID.
type info struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	*tool.Info
}

// describe returns the DEF of t as the registry holds it.
func (c *command) describe(t *tool.Tool) *info {
	return &info{ID: t.ID, Name: tool.NameOf(t.ID), Info: c.reg.Describe(t.ID)}
}

// writeTable writes tools as an aligned table, with the name that name
// gives each.
func writeTable(w io.Writer, tools []*tool.Tool, name func(id string) string) error {
	if len(tools) == 0 {
		_, err := fmt.Fprintln(w, "No tools.")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tOPERATION\tDESTRUCTIVE\tLABEL")
	for _, t := range tools {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", t.ID, name(t.ID), t.EffectiveOperation(), yesNo(t.IsDestructive()), oneLine(listedLabel(t)))
	}
	return tw.Flush()
}

// writeMarkdown writes tools as a Markdown table, with the name that name
// gives each.
func writeMarkdown(w io.Writer, tools []*tool.Tool, name func(id string) string) error {
	var b strings.Builder
	b.WriteString("| ID | Name | Label | Operation | Destructive | Description |\n")
	b.WriteString("|---|---|---|---|---|---|\n")
	for _, t := range tools {
		fmt.Fprintf(&b, "| `%s` | `%s` | %s | %s | %s | %s |\n",
			t.ID, name(t.ID), markdownCell(listedLabel(t)), t.EffectiveOperation(), yesNo(t.IsDestructive()), markdownCell(t.Description))
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
	t, ok := c.lookUp(words[0], acct)
	if out, found := c.reg.ToolByName(words[0]); !ok && found && out.Allowed(acct) {
		// The command's own narrowing, not the account, leaves it out.
		fmt.Fprintf(c.stderr, "%s: %s\n", fs.Name(), narrowedMessage(words[0], c.outOfReach(out)))
		return 1
	}
	if !ok {
		fmt.Fprintf(c.stderr, "%s: %s\n", fs.Name(), notFoundMessage(words[0], acct))
		return 1
	}
	if *format == "json" {
		err = writeJSON(c.stdout, c.describe(t))
	} else {
		err = writeInfo(c.stdout, t, tool.NameOf(t.ID))
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

// writeInfo writes a readable description of t, known by name in MCP and
// function calling.
func writeInfo(w io.Writer, t *tool.Tool, name string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n", t.ID, t.Label)
	if t.Description != "" {
		fmt.Fprintf(&b, "\n%s\n", t.Description)
	}
	b.WriteString("\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "Name:\t%s (in MCP and function calling)\n", name)
	fmt.Fprintf(tw, "Operation:\t%s\n", t.EffectiveOperation())
	fmt.Fprintf(tw, "Destructive:\t%s\n", yesNo(t.IsDestructive()))
	if t.Deprecated != "" {
		fmt.Fprintf(tw, "Deprecated:\t%s\n", oneLine(t.Deprecated))
	}
	if p := t.Describe().Permission; p != "" {
		fmt.Fprintf(tw, "Permission:\t%s\n", p)
	}
	if t.Confirm {
		fmt.Fprintf(tw, "Confirm:\tyes\n")
	} else if t.ConfirmIf != nil {
		fmt.Fprintf(tw, "Confirm:\twhen the tool's own check asks\n")
	}
	switch t.Task {
	case tool.TaskOptional:
		fmt.Fprintf(tw, "Task:\toptional (a call may run as a background task; its outcome is kept %s)\n", t.EffectiveTaskTTL())
	case tool.TaskRequired:
		fmt.Fprintf(tw, "Task:\trequired (every call runs as a background task; its outcome is kept %s)\n", t.EffectiveTaskTTL())
	}
	if len(t.Needs) > 0 {
		needs := make([]string, len(t.Needs))
		for i, n := range t.Needs {
			needs[i] = string(n)
		}
		fmt.Fprintf(tw, "Needs:\t%s (of the client)\n", strings.Join(needs, ", "))
	}
	if t.Icon != "" {
		fmt.Fprintf(tw, "Icon:\t%s\n", iconText(t.Icon))
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

// iconText returns an icon's address, or for a data: address its media
// type and size, which are shorter than its data.
func iconText(icon string) string {
	if rest, ok := strings.CutPrefix(icon, "data:"); ok {
		media, _, _ := strings.Cut(rest, ",")
		media, _, _ = strings.Cut(media, ";")
		return fmt.Sprintf("%s picture (%d bytes as a data: address)", media, len(icon))
	}
	return icon
}

// writeDefinitions writes one line per definition: name, type, whether it
// is required, its default and description, and under the description
// what the value must be. The properties of a map follow it, named by
// their path as --input takes it ("settings.limit"); those of the maps in
// a list as "tags[].name".
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
		writeDefinition(tw, d.Name, d, inputs)
	}
	tw.Flush()
}

func writeDefinition(tw io.Writer, path string, d *tool.Definition, input bool) {
	var notes []string
	if d.Required {
		notes = append(notes, "required")
	} else {
		notes = append(notes, "optional")
	}
	if d.Nullable {
		notes = append(notes, "nullable")
	}
	if d.Sensitive {
		notes = append(notes, "sensitive")
	}
	if d.Header != "" {
		notes = append(notes, "header "+d.Header)
	}
	if d.Default != nil {
		if data, err := json.Marshal(d.Default); err == nil {
			notes = append(notes, "default "+string(data))
		}
	}
	fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", path, typeName(d), strings.Join(notes, ", "), oneLine(d.Description))
	if rules := rulesOf(d, input); len(rules) > 0 {
		fmt.Fprintf(tw, "  \t\t\t%s\n", oneLine(strings.Join(rules, "; ")))
	}
	props := d.Properties
	prefix := path + "."
	if d.Type == "list" && d.Items != nil && len(d.Items.Properties) > 0 {
		props, prefix = d.Items.Properties, path+"[]."
	}
	for _, p := range props {
		if p.Locked {
			continue
		}
		writeDefinition(tw, prefix+p.Name, p, input)
	}
}

// rulesOf spells what a value of d must be, one phrase per constraint
// (as [tool.Definition.Requirements] words them), with its examples last.
// The rules of a list's items follow the list's own, after "each". A list
// input without a maximum count takes at most [tool.DefaultMaxItems]
// items.
func rulesOf(d *tool.Definition, input bool) []string {
	c := d.Constraints
	if input && d.Type == "list" && (c.Count == nil || c.Count.Max == nil) {
		count := tool.Bounds{Max: tool.Ptr(tool.DefaultMaxItems)}
		if c.Count != nil {
			count.Min = c.Count.Min
		}
		bounded := *d
		bounded.Constraints.Count = &count
		d = &bounded
	}
	rules := requirementTexts(d)
	if d.Type == "list" && d.Items != nil {
		if items := requirementTexts(d.Items); len(items) > 0 {
			rules = append(rules, "each "+strings.Join(items, ", "))
		}
	}
	if len(d.Examples) > 0 {
		rules = append(rules, "example "+jsonList(d.Examples, ", "))
	}
	return rules
}

// requirementTexts returns the words of d's requirements, and its media
// type, which is said but not checked.
func requirementTexts(d *tool.Definition) []string {
	var out []string
	for _, r := range d.Requirements() {
		out = append(out, r.Text)
	}
	if d.Constraints.Media != "" {
		out = append(out, "media type "+d.Constraints.Media)
	}
	return out
}

// jsonList writes each value as JSON, joined by sep.
func jsonList(vs []any, sep string) string {
	out := make([]string, 0, len(vs))
	for _, v := range vs {
		data, err := json.Marshal(v)
		if err != nil {
			data = []byte(fmt.Sprint(v))
		}
		out = append(out, string(data))
	}
	return strings.Join(out, sep)
}

// typeName spells the data type of d, with the item type of a list and
// the value type of a map without properties.
func typeName(d *tool.Definition) string {
	switch {
	case d.Type == "list" && d.Items != nil:
		return "list of " + typeName(d.Items)
	case d.Type == "map" && len(d.Properties) == 0 && d.Values != nil:
		return "map of " + typeName(d.Values)
	}
	return d.Type
}
