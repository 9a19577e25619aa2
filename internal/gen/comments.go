package gen

import (
	"go/ast"
	"go/doc/comment"
	"go/types"
	"regexp"
	"slices"
	"strings"

	"github.com/toolapi/toolapi/internal/directive"
)

// A docText is a doc comment read the toolgen way: its prose without
// directive lines, split into the parts that describe a tool.
type docText struct {
	// Description is the first paragraph, on one line.
	Description string
	// Items are the list items "- name: text" by name.
	Items map[string]string
	// Returns is the paragraph starting with "Returns", the word dropped.
	Returns string
	// Prose is the whole text without directives.
	Prose string
	// Directives are the directive comment lines.
	Directives []*ast.Comment
	// Text is the prose on one line, link definitions left out and links
	// rendered.
	Text string
}

// isGoDirective reports a comment line that is a Go directive rather than
// prose: //line, //extern, //export, or //word:word (//go:generate,
// //nolint:errcheck).
func isGoDirective(text string) bool {
	rest, ok := strings.CutPrefix(text, "//")
	if !ok {
		return false
	}
	for _, p := range []string{"line ", "extern ", "export "} {
		if strings.HasPrefix(rest, p) {
			return true
		}
	}
	i := 0
	for i < len(rest) && isLowerAlnum(rest[i]) {
		i++
	}
	return i > 0 && i+1 < len(rest) && rest[i] == ':' && isLowerAlnum(rest[i+1])
}

func isLowerAlnum(c byte) bool { return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' }

// isDocSpace reports the white space of a doc line (\s in a regular
// expression).
func isDocSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// parseItem reads a list item line "- name: text" (the bullet one of
// - * + •), returning the name and the text.
func parseItem(l string) (name, text string, ok bool) {
	i := 0
	for i < len(l) && isDocSpace(l[i]) {
		i++
	}
	switch {
	case i < len(l) && (l[i] == '-' || l[i] == '*' || l[i] == '+'):
		i++
	case strings.HasPrefix(l[i:], "•"):
		i += len("•")
	default:
		return "", "", false
	}
	j := i
	for j < len(l) && isDocSpace(l[j]) {
		j++
	}
	if j == i {
		return "", "", false
	}
	start := j
	for j < len(l) && (l[j] == '_' || 'a' <= l[j] && l[j] <= 'z' || 'A' <= l[j] && l[j] <= 'Z' || j > start && '0' <= l[j] && l[j] <= '9') {
		j++
	}
	if j == start {
		return "", "", false
	}
	name = l[start:j]
	for j < len(l) && isDocSpace(l[j]) {
		j++
	}
	if j >= len(l) || l[j] != ':' {
		return "", "", false
	}
	return name, l[j+1:], true
}

// readDoc reads cg, a doc comment of pkg (nil when unknown). name is the
// documented Go name; a description that starts with it drops it ("Search
// finds..." reads "Finds..."). Doc links read as go doc prints them (see
// [docLinks]).
func readDoc(cg *ast.CommentGroup, name string, pkg *types.Package) docText {
	d := docText{Items: map[string]string{}}
	if cg == nil {
		return d
	}
	var lines []string
	for _, c := range cg.List {
		if directive.IsDirective(c.Text) {
			d.Directives = append(d.Directives, c)
			continue
		}
		if strings.HasPrefix(c.Text, "/*") {
			body := strings.TrimSuffix(strings.TrimPrefix(c.Text, "/*"), "*/")
			for _, l := range strings.Split(body, "\n") {
				lines = append(lines, strings.TrimPrefix(strings.TrimSpace(l), "* "))
			}
			continue
		}
		if isGoDirective(c.Text) {
			continue
		}
		l := strings.TrimPrefix(c.Text, "//")
		l = strings.TrimPrefix(l, " ")
		lines = append(lines, strings.TrimRight(l, " \t"))
	}
	d.Prose = strings.TrimSpace(strings.Join(lines, "\n"))

	var paras, defs [][]string
	var cur []string
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			if cur != nil {
				paras = append(paras, cur)
				cur = nil
			}
			continue
		}
		cur = append(cur, l)
	}
	if cur != nil {
		paras = append(paras, cur)
	}
	// A paragraph of link definitions only ("[text]: URL") is no prose;
	// the definitions give the links of the other paragraphs.
	paras = slices.DeleteFunc(paras, func(p []string) bool {
		if slices.ContainsFunc(p, func(l string) bool { return !linkDef.MatchString(l) }) {
			return false
		}
		defs = append(defs, p)
		return true
	})
	links := docLinks{pkg: pkg, defs: defs}
	for i, p := range paras {
		if _, _, ok := parseItem(p[0]); ok {
			readItems(p, d.Items)
			continue
		}
		text := joinLines(p)
		if rest, ok := strings.CutPrefix(text, "Returns "); ok && d.Returns == "" {
			d.Returns = upperFirst(strings.TrimSpace(links.text(rest)))
			continue
		}
		if i == 0 {
			d.Description = dropName(links.text(text), name)
		}
	}
	for k, v := range d.Items {
		d.Items[k] = links.text(v)
	}
	var all []string
	for _, p := range paras {
		all = append(all, joinLines(p))
	}
	d.Text = strings.Join(strings.Fields(links.text(strings.Join(all, " "))), " ")
	return d
}

// linkDef matches a doc comment's link definition line, "[text]: URL".
var linkDef = regexp.MustCompile(`^\s*\[[^\]]+\]:\s+\S+\s*$`)

// docLinks renders the links of doc text as go doc prints them: a doc
// link to a symbol of pkg ([Entry], [Store.Get]) or to an imported package
// ([pkg.Func], [time.Duration]) as its text without brackets, and [text]
// given by a link definition of the same comment as text. Brackets that
// link nowhere stay, as go doc leaves them.
type docLinks struct {
	pkg  *types.Package
	defs [][]string
}

// text returns one paragraph's text with its links rendered.
func (l docLinks) text(s string) string {
	if !strings.Contains(s, "[") && !strings.Contains(s, "``") && !strings.Contains(s, "''") {
		return s
	}
	src := s
	for _, p := range l.defs {
		src += "\n\n" + strings.Join(p, "\n")
	}
	p := &comment.Parser{LookupSym: l.lookupSym, LookupPackage: l.lookupPackage}
	doc := p.Parse(src)
	if len(doc.Content) != 1 {
		return s
	}
	para, ok := doc.Content[0].(*comment.Paragraph)
	if !ok {
		return s
	}
	var b strings.Builder
	writeInline(&b, para.Text)
	return strings.Join(strings.Fields(b.String()), " ")
}

func writeInline(b *strings.Builder, text []comment.Text) {
	for _, t := range text {
		switch t := t.(type) {
		case comment.Plain:
			b.WriteString(string(t))
		case comment.Italic:
			b.WriteString(string(t))
		case *comment.Link:
			writeInline(b, t.Text)
		case *comment.DocLink:
			writeInline(b, t.Text)
		}
	}
}

// lookupSym reports whether [recv.name] or [name] names a symbol of the
// package: a package-level name, or a method or field of a type.
func (l docLinks) lookupSym(recv, name string) bool {
	if l.pkg == nil {
		return false
	}
	if recv == "" {
		return l.pkg.Scope().Lookup(name) != nil
	}
	tn, ok := l.pkg.Scope().Lookup(recv).(*types.TypeName)
	if !ok {
		return false
	}
	obj, _, _ := types.LookupFieldOrMethod(tn.Type(), true, l.pkg, name)
	return obj != nil
}

// lookupPackage resolves a package name the package imports.
func (l docLinks) lookupPackage(name string) (string, bool) {
	if l.pkg == nil {
		return "", false
	}
	for _, imp := range l.pkg.Imports() {
		if imp.Name() == name {
			return imp.Path(), true
		}
	}
	return "", false
}

// readItems reads the list items of a paragraph; an indented line that
// starts no item continues the one before.
func readItems(p []string, items map[string]string) {
	var name string
	for _, l := range p {
		if n, text, ok := parseItem(l); ok {
			name = n
			items[name] = strings.TrimSpace(text)
			continue
		}
		if name != "" && (strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t")) {
			items[name] = strings.TrimSpace(items[name] + " " + strings.TrimSpace(l))
		}
	}
}

func joinLines(p []string) string {
	parts := make([]string, len(p))
	for i, l := range p {
		parts[i] = strings.TrimSpace(l)
	}
	return strings.Join(parts, " ")
}

// dropName drops a leading Go name from a description and upper-cases
// what follows: "Search finds images." becomes "Finds images.".
func dropName(text, name string) string {
	if name == "" {
		return text
	}
	rest, ok := strings.CutPrefix(text, name+" ")
	if !ok {
		return text
	}
	for _, article := range []string{"is ", "are "} {
		if strings.HasPrefix(rest, article) {
			return text // "Manager is a..." keeps its subject
		}
	}
	return upperFirst(rest)
}

var implementsDoc = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*) implements \[([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)?(?:\.[A-Za-z_][A-Za-z0-9_]*)?)\]\.?$`)

// implementsRef returns the bracketed reference of a doc comment that only
// says "Method implements [pkg.Interface]." ("" when it says more).
func implementsRef(prose, method string) string {
	m := implementsDoc.FindStringSubmatch(strings.TrimSpace(prose))
	if m == nil || m[1] != method {
		return ""
	}
	return m[2]
}

// fieldDoc returns a struct field's description: its doc comment, else its
// trailing line comment. pkg is the package declaring the field, for its
// doc links.
func fieldDoc(f *ast.Field, pkg *types.Package) string {
	if f == nil {
		return ""
	}
	for _, cg := range []*ast.CommentGroup{f.Doc, f.Comment} {
		if cg == nil {
			continue
		}
		if d := readDoc(cg, "", pkg); d.Text != "" {
			return d.Text
		}
	}
	return ""
}
