package directive_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolapi/toolapi/internal/directive"
)

// guidePath is the user guide, relative to this package.
const guidePath = "../../docs/guide.md"

// TestGuideCoversDirectives fails when the user guide leaves out a
// directive, one of its keys or one of the operations, as read from the
// directive table itself: each directive needs a section whose heading
// names it (`//tool:NAME`), and that section must mention each of the
// directive's keys in backquotes (`key` or `key=...`).
func TestGuideCoversDirectives(t *testing.T) {
	data, err := os.ReadFile(guidePath)
	if err != nil {
		t.Fatal(err)
	}
	guide := string(data)
	for _, name := range directive.Names() {
		body, ok := section(guide, "//tool:"+name)
		if !ok {
			t.Errorf("%s has no section whose heading names //tool:%s", guidePath, name)
			continue
		}
		var keys []string
		for key := range directive.Specs[name].Keys {
			keys = append(keys, key)
		}
		slices.Sort(keys)
		for _, key := range keys {
			if !strings.Contains(body, "`"+key+"`") && !strings.Contains(body, "`"+key+"=") {
				t.Errorf("%s: the section of //tool:%s does not mention its key %s (write `%s` in it)", guidePath, name, key, key)
			}
		}
	}
	method, _ := section(guide, "//tool:method")
	for _, op := range directive.Operations {
		if !strings.Contains(method, "`"+op+"`") {
			t.Errorf("%s: the section of //tool:method does not mention the operation %s", guidePath, op)
		}
	}
}

// TestGuideKindsTable fails when the guide's table of value kinds (the
// one headed "| kind | syntax | keys |") leaves a directive key or a tool
// tag option out of the row of the kind the parser reads it as.
func TestGuideKindsTable(t *testing.T) {
	data, err := os.ReadFile(guidePath)
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{} // kind name -> its keys cell
	in := false
	for l := range strings.Lines(string(data)) {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "| kind | syntax | keys |") {
			in = true
			continue
		}
		if !in || strings.HasPrefix(l, "|---") {
			continue
		}
		if !strings.HasPrefix(l, "|") {
			if len(rows) > 0 {
				break
			}
			continue
		}
		cells := strings.Split(strings.ReplaceAll(l, `\|`, ""), "|")
		if len(cells) < 4 {
			t.Fatalf("%s: a row of the kinds table has fewer than three cells: %s", guidePath, l)
		}
		rows[strings.TrimSpace(cells[1])] = cells[3]
	}
	if len(rows) < 5 {
		t.Fatalf("%s: no table headed \"| kind | syntax | keys |\" found (rows %v)", guidePath, rows)
	}
	check := func(where, key string, kind directive.Kind) {
		row, ok := rows[kind.String()]
		if !ok {
			t.Errorf("%s: the kinds table has no row for %s, the kind of %s", guidePath, kind, where)
			return
		}
		if !strings.Contains(row, "`"+key+"`") {
			t.Errorf("%s: the kinds table's %s row does not list %s (write `%s` in it)", guidePath, kind, where, key)
		}
	}
	for _, name := range directive.Names() {
		for key, spec := range directive.Specs[name].Keys {
			check("the key "+key+" of //tool:"+name, key, spec.Kind)
		}
	}
	for _, key := range directive.TagKeys() {
		check("the tool tag option "+key, key, directive.TagKind(key))
	}
}

// tagSection is the heading of the guide's section on value objects and
// struct inputs, where the tool struct tag is documented.
const tagSection = "Value objects and member selection"

// TestGuideCoversTagKeys fails when the user guide leaves out an option of
// the tool struct tag, as read from the parser's own table: the section
// on value objects and struct inputs must mention each in backquotes, and
// list each option only an input (or only a published member) takes.
func TestGuideCoversTagKeys(t *testing.T) {
	data, err := os.ReadFile(guidePath)
	if err != nil {
		t.Fatal(err)
	}
	body, ok := section(string(data), tagSection)
	if !ok {
		t.Fatalf("%s has no section headed %q, where the tool struct tag is documented", guidePath, tagSection)
	}
	keys := directive.TagKeys()
	if len(keys) < 10 {
		t.Fatalf("TagKeys() = %v: the table of tag options is missing", keys)
	}
	for _, key := range keys {
		if !strings.Contains(body, "`"+key+"`") && !strings.Contains(body, "`"+key+"=") {
			t.Errorf("%s: the section %q does not mention the struct tag option %s (write `%s` in it)", guidePath, tagSection, key, key)
		}
	}
	for _, only := range []struct {
		what string
		keys []string
	}{{"only inputs take", directive.InputOnly}, {"only a published member takes", directive.OutputOnly}} {
		// The list follows the phrase, in the same paragraph.
		var para string
		for p := range strings.SplitSeq(body, "\n\n") {
			p = strings.Join(strings.Fields(p), " ")
			if _, after, ok := strings.Cut(p, only.what); ok {
				para = after
				break
			}
		}
		if para == "" {
			t.Errorf("%s: the section %q does not say which options %s", guidePath, tagSection, only.what)
			continue
		}
		for _, key := range only.keys {
			if !strings.Contains(para, "`"+key+"`") {
				t.Errorf("%s: the section %q does not list %s among the options %s", guidePath, tagSection, key, only.what)
			}
		}
	}
}

// section returns the text under the Markdown heading that names
// directive (followed by anything but a letter, so that //tool:entity does
// not match //tool:entitytype), up to the next heading of the same or a
// higher level.
func section(doc, directive string) (string, bool) {
	lines := strings.Split(doc, "\n")
	fenced := false
	for i, l := range lines {
		if strings.HasPrefix(l, "```") {
			fenced = !fenced
		}
		level := headingLevel(l)
		if fenced || level == 0 || !names(l, directive) {
			continue
		}
		end := len(lines)
		inFence := false
		for j := i + 1; j < len(lines); j++ {
			if strings.HasPrefix(lines[j], "```") {
				inFence = !inFence
			}
			if n := headingLevel(lines[j]); !inFence && n > 0 && n <= level {
				end = j
				break
			}
		}
		return strings.Join(lines[i+1:end], "\n"), true
	}
	return "", false
}

// headingLevel returns the level of a Markdown heading line ("## x" is 2),
// or 0 for any other line.
func headingLevel(l string) int {
	n := 0
	for n < len(l) && l[n] == '#' {
		n++
	}
	if n == 0 || n >= len(l) || l[n] != ' ' {
		return 0
	}
	return n
}

// names reports whether line holds directive not followed by a letter.
func names(line, directive string) bool {
	for rest := line; ; {
		i := strings.Index(rest, directive)
		if i < 0 {
			return false
		}
		rest = rest[i+len(directive):]
		if rest == "" || !isLetter(rest[0]) {
			return true
		}
	}
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// TestDocsStandAlone fails when the README or a page under docs/ points
// readers at a file they do not have: the documentation must explain
// everything itself.
func TestDocsStandAlone(t *testing.T) {
	forbidden := []string{"DESIGN.md", "../shared", "/work/shared"}
	files := []string{"../../README.md"}
	err := filepath.WalkDir("../../docs", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 3 {
		t.Fatalf("found only %v: the documentation is missing", files)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range forbidden {
			if strings.Contains(string(data), s) {
				t.Errorf("%s mentions %s, which readers of the repository do not have", f, s)
			}
		}
	}
}
