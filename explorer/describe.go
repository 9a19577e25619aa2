package explorer

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/toolapi/toolapi/tool"
)

// A toolView is what a tool page says about a tool.
type toolView struct {
	ID, Label, Description string
	Operation              string
	Destructive, Confirm   bool
	ReadOnly               bool
	// Deprecated is the tool's deprecation note, "" when none.
	Deprecated            string
	Access                []string
	CLI                   string
	MCPName, FunctionName string
	InputTable            defTable
	OutputTable           defTable
	InputSchema           string
	OutputSchema          string
	PresetSchemaID        string
	PresetSchema          string
}

// A defTable is a table of inputs or outputs.
type defTable struct {
	Rows   []defRow
	Output bool
}

// A defRow is one row of a table of inputs or outputs.
type defRow struct {
	Path     string
	Depth    int
	Label    string
	Type     string
	Required bool
	Nullable bool
	Locked   bool
	// Item marks the row of a list's items, which are neither required
	// nor optional.
	Item        bool
	Default     string
	Constraints string
	Examples    string
	Media       string
	Description string
}

func (e *server) describe(t *tool.Tool, acct tool.Account) *toolView {
	d := e.reg.Describe(t.ID)
	tv := &toolView{
		ID:          t.ID,
		Label:       d.Label,
		Description: d.Description,
		Operation:   string(d.Operation),
		Destructive: d.Destructive,
		Confirm:     t.MayConfirm(),
		Deprecated:  d.Deprecated,
		ReadOnly:    d.Operation.ReadOnly(),
		MCPName:     tool.NameOf(t.ID),
	}
	if tv.Label == "" {
		tv.Label = t.ID
	}
	tv.Access = accessLines(t, d.Permission)
	tv.CLI = e.cliLine(t)
	// Models know a tool by the one name the registry gives it, in MCP
	// and in function calling alike.
	tv.FunctionName = tv.MCPName
	for _, def := range t.Inputs {
		tv.InputTable.Rows = appendRows(tv.InputTable.Rows, def, def.Name, 0, false)
	}
	tv.OutputTable.Output = true
	for _, def := range t.Outputs {
		tv.OutputTable.Rows = appendRows(tv.OutputTable.Rows, def, def.Name, 0, true)
	}
	tv.InputSchema = prettySchema(d.InputSchema)
	tv.OutputSchema = prettySchema(d.OutputSchema)
	tv.PresetSchemaID = PresetSchemaID(t.ID)
	tv.PresetSchema = prettySchema(PresetSchema(t))
	return tv
}

func prettySchema(s *jsonschema.Schema) string {
	if s == nil {
		return "(none: the tool's definitions are invalid)"
	}
	return jsonText(s)
}

// accessLines says in words what a run of t needs.
func accessLines(t *tool.Tool, permission string) []string {
	var lines []string
	if p, err := tool.ParsePermission(permission); err == nil && len(p.Names) > 0 {
		q := make([]string, len(p.Names))
		for i, n := range p.Names {
			q[i] = "“" + n + "”"
		}
		if len(q) == 1 {
			lines = append(lines, "the permission "+q[0])
		} else if p.Any {
			lines = append(lines, "any one of the permissions "+strings.Join(q, ", "))
		} else {
			lines = append(lines, "all of the permissions "+strings.Join(q, ", "))
		}
	}
	for _, def := range t.Inputs {
		op := def.EntityOp
		if op == "" {
			continue
		}
		typ := def.Type
		every := ""
		if def.Type == "list" && def.Items != nil {
			typ = def.Items.Type
			every = "every "
		}
		typ = strings.TrimPrefix(typ, "entity:")
		if typ == "entity" {
			typ = "entity"
		}
		lines = append(lines, "“"+op+"” access to "+every+typ+" given as input "+def.Name)
	}
	if t.Access != nil {
		lines = append(lines, "the tool's own access check on the inputs")
	}
	if t.Confirm {
		lines = append(lines, "a person's confirmation of each run")
	} else if t.ConfirmIf != nil {
		lines = append(lines, "a person's confirmation of the runs the tool's own check on the inputs picks")
	}
	if len(lines) == 0 {
		lines = append(lines, "nothing: anyone may run it")
	}
	return lines
}

// cliLine returns a command line that runs t, with an example value for
// each required input.
func (e *server) cliLine(t *tool.Tool) string {
	var b strings.Builder
	b.WriteString(e.opts.AppName + " tool run " + shellQuote(t.ID))
	for _, def := range t.Inputs {
		if def.Locked || !def.Required {
			continue
		}
		switch {
		case def.Type == "map" || def.Type == "any" || def.Type == "list" && def.Items != nil && def.Items.Type == "map":
			obj, _ := json.Marshal(map[string]any{def.Name: exampleValue(def)})
			b.WriteString(" --input " + shellQuote(string(obj)))
		case def.Type == "list":
			v := exampleValue(def.Items)
			if len(def.Examples) > 0 {
				v = def.Examples[0]
			}
			b.WriteString(" --input " + shellQuote(def.Name+"="+scalarText(v)))
		default:
			b.WriteString(" --input " + shellQuote(def.Name+"="+scalarText(exampleValue(def))))
		}
	}
	return b.String()
}

// exampleValue returns a value of def for examples: its first example, its
// default, or a placeholder of its type.
func exampleValue(def *tool.Definition) any {
	if def == nil {
		return "..."
	}
	if len(def.Examples) > 0 && def.Type != "list" {
		return def.Examples[0]
	}
	if def.Default != nil {
		return def.Default
	}
	if len(def.Constraints.Choice) > 0 {
		return def.Constraints.Choice[0]
	}
	switch def.Type {
	case "integer":
		return 1
	case "float":
		return 1.5
	case "boolean":
		return true
	case "email":
		return "name@example.com"
	case "uri":
		return "https://example.com/"
	case "datetime_iso8601":
		if def.Constraints.DateOnly {
			return "2024-05-01"
		}
		return "2024-05-01T12:00:00Z"
	case "timestamp":
		return "2024-05-01T12:00:00Z"
	case "duration":
		return "PT1H"
	case "list":
		if len(def.Examples) > 0 {
			return []any{def.Examples[0]}
		}
		return []any{exampleValue(def.Items)}
	case "map":
		m := map[string]any{}
		for _, p := range def.Properties {
			if p.Required {
				m[p.Name] = exampleValue(p)
			}
		}
		if len(m) == 0 && len(def.Properties) > 0 {
			m[def.Properties[0].Name] = exampleValue(def.Properties[0])
		}
		return m
	case "any":
		return map[string]any{}
	}
	if strings.HasPrefix(def.Type, "entity") {
		if def.Type == "entity" {
			return "TYPE:ID"
		}
		return "ID"
	}
	return strings.ToUpper(def.Name)
}

func scalarText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// shellQuote quotes s for a POSIX shell when it needs quoting.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_.=/:,+@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// appendRows appends the rows of def and of what it holds (list items,
// map properties) to rows.
func appendRows(rows []defRow, def *tool.Definition, path string, depth int, output bool) []defRow {
	row := defRow{
		Path:        path,
		Depth:       depth,
		Label:       def.Label,
		Type:        typeText(def),
		Required:    def.Required,
		Nullable:    def.Nullable,
		Locked:      def.Locked,
		Constraints: strings.Join(constraintTexts(def), "; "),
		Media:       def.Constraints.Media,
		Description: def.Description,
	}
	if def.Default != nil && !output {
		row.Default = jsonCompact(def.Default)
	}
	if len(def.Examples) > 0 {
		ex := make([]string, len(def.Examples))
		for i, x := range def.Examples {
			ex[i] = jsonCompact(x)
		}
		row.Examples = strings.Join(ex, ", ")
	}
	row.Depth = min(depth, 4)
	rows = append(rows, row)
	switch {
	case def.Type == "list" && def.Items != nil:
		rows = appendRows(rows, def.Items, path+"[]", depth+1, output)
		rows[len(rows)-countRows(def.Items)].Item = true
	case def.Type == "map" && len(def.Properties) > 0:
		for _, p := range def.Properties {
			rows = appendRows(rows, p, path+"."+p.Name, depth+1, output)
		}
	case def.Type == "map" && def.Values != nil:
		rows = appendRows(rows, def.Values, path+".*", depth+1, output)
	}
	return rows
}

// countRows returns the number of rows appendRows gives def.
func countRows(def *tool.Definition) int {
	n := 1
	switch {
	case def.Type == "list" && def.Items != nil:
		n += countRows(def.Items)
	case def.Type == "map" && len(def.Properties) > 0:
		for _, p := range def.Properties {
			n += countRows(p)
		}
	case def.Type == "map" && def.Values != nil:
		n += countRows(def.Values)
	}
	return n
}

// typeText names def's type for people: "list of entity:album".
func typeText(def *tool.Definition) string {
	switch {
	case def.Type == "list" && def.Items != nil:
		return "list of " + def.Items.Type
	case def.Type == "map" && len(def.Properties) == 0 && def.Values != nil:
		return "map of " + def.Values.Type
	case def.Type == "datetime_iso8601" && def.Constraints.DateOnly:
		return "date"
	}
	return def.Type
}

// jsonCompact returns v as one line of JSON, with <, > and & as they are
// (the templates escape what they show).
func jsonCompact(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "?"
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// constraintTexts says in words what def's constraints require, one
// phrase each.
func constraintTexts(def *tool.Definition) []string {
	var out []string
	for _, r := range def.Requirements() {
		out = append(out, r.Text)
	}
	return out
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// firstLine returns the first line of s.
func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return strings.TrimSpace(s[:i])
	}
	return s
}

// sortedKeys returns the keys of m in order.
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
