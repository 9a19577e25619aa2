// Package msgcheck finds code that reads the words of a diagnostic: the
// Message of a violation, a definition error or any other value, or the
// text of an error. Diagnostics carry their rule as data (see
// tool.Violation's Rule); words are for people and models, and code that
// searches them breaks when the words change, or, worse, silently stops
// matching.
//
// [Check] reports, in one parsed file:
//
//   - a call of a function of package strings with such a text as an
//     argument (strings.Contains(v.Message, "…"), strings.HasPrefix(
//     err.Error(), "…"), strings.Cut, strings.Index, …);
//   - a regular expression matched against one (re.MatchString(
//     err.Error()), regexp.MatchString(p, v.Message), re.FindString…);
//   - a switch on one (switch err.Error() { … });
//   - a comparison of one with a string literal (v.Message == "is
//     required"), except the empty string, which asks whether there are
//     words at all, not which;
//   - slicing or indexing one (v.Message[:5]).
//
// A text is the selector .Message (of any value), a call .Error() with no
// arguments, or a variable that holds one: a local variable assigned a
// text, and a parameter of a function or method of the package that some
// call in the package passes a text (plainMessage(def, v.Message) makes
// plainMessage's second parameter a text). Methods are matched by name
// alone, and variables by the parser's resolution within a file, which is
// enough for the ways words travel within a package; a text that crosses
// packages, or a struct field, is not followed.
package msgcheck

import (
	"go/ast"
	"go/token"
	"strconv"
	"strings"
)

// A Finding is one place that reads a diagnostic's words.
type Finding struct {
	Pos  token.Position
	What string // "strings.Contains on .Message", ...
}

func (f Finding) String() string { return f.Pos.String() + ": " + f.What }

// regexpMethods are the names of the methods of *regexp.Regexp (and the
// functions of package regexp) that match a text.
var regexpMethods = map[string]bool{
	"Match": true, "MatchString": true, "MatchReader": true,
	"Find": true, "FindString": true, "FindIndex": true, "FindStringIndex": true,
	"FindSubmatch": true, "FindStringSubmatch": true, "FindSubmatchIndex": true, "FindStringSubmatchIndex": true,
	"FindAll": true, "FindAllString": true, "FindAllIndex": true, "FindAllStringIndex": true,
	"FindAllSubmatch": true, "FindAllStringSubmatch": true, "FindAllSubmatchIndex": true, "FindAllStringSubmatchIndex": true,
	"ReplaceAll": true, "ReplaceAllString": true, "ReplaceAllLiteralString": true, "ReplaceAllStringFunc": true,
	"Split": true,
}

// Check returns the places in the files of one package that read a
// diagnostic's words. The files must be parsed with object resolution
// (parser.ParseFile without parser.SkipObjectResolution).
func Check(fset *token.FileSet, files []*ast.File) []Finding {
	c := &checker{held: map[*ast.Object]string{}}
	c.follow(files)
	var out []Finding
	for _, f := range files {
		out = append(out, c.check(fset, f)...)
	}
	return out
}

// A checker knows the variables of a package that hold a text.
type checker struct {
	held map[*ast.Object]string // variable → what it holds: ".Message"
}

// follow marks the variables that hold a text, until no more do.
func (c *checker) follow(files []*ast.File) {
	// The parameters of each function and method, by name ("f", ".m").
	params := map[string][]*ast.Ident{}
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok {
				continue
			}
			key := fd.Name.Name
			if fd.Recv != nil {
				key = "." + key
			}
			var names []*ast.Ident
			for _, field := range fd.Type.Params.List {
				if len(field.Names) == 0 {
					names = append(names, nil)
				}
				names = append(names, field.Names...)
			}
			params[key] = append(params[key], names...)
			if len(params[key]) != len(names) {
				params[key] = nil // two functions of one name: none followed
			}
		}
	}
	mark := func(id *ast.Ident, text string) bool {
		if id == nil || id.Obj == nil || id.Name == "_" {
			return false
		}
		if _, ok := c.held[id.Obj]; ok {
			return false
		}
		c.held[id.Obj] = text
		return true
	}
	for changed := true; changed; {
		changed = false
		for _, f := range files {
			ast.Inspect(f, func(n ast.Node) bool {
				switch x := n.(type) {
				case *ast.AssignStmt:
					if len(x.Lhs) == len(x.Rhs) {
						for i, rhs := range x.Rhs {
							if text := c.baseOf(rhs); text != "" {
								if id, ok := x.Lhs[i].(*ast.Ident); ok && mark(id, text) {
									changed = true
								}
							}
						}
					}
				case *ast.ValueSpec:
					if len(x.Names) == len(x.Values) {
						for i, v := range x.Values {
							if text := c.baseOf(v); text != "" && mark(x.Names[i], text) {
								changed = true
							}
						}
					}
				case *ast.CallExpr:
					var key string
					switch fn := x.Fun.(type) {
					case *ast.Ident:
						key = fn.Name
					case *ast.SelectorExpr:
						key = "." + fn.Sel.Name
					default:
						return true
					}
					ps := params[key]
					for i, arg := range x.Args {
						if text := c.baseOf(arg); text != "" && i < len(ps) && mark(ps[i], text) {
							changed = true
						}
					}
				}
				return true
			})
		}
	}
}

// check returns the places in f that read a text.
func (c *checker) check(fset *token.FileSet, f *ast.File) []Finding {
	stringsName := importName(f, "strings")
	var out []Finding
	report := func(n ast.Node, what string) {
		out = append(out, Finding{Pos: fset.Position(n.Pos()), What: what})
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.CallExpr:
			sel, ok := x.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			pkg, isPkg := sel.X.(*ast.Ident)
			for _, arg := range x.Args {
				text := c.textOf(arg)
				if text == "" {
					continue
				}
				switch {
				case isPkg && stringsName != "" && pkg.Name == stringsName:
					report(x, "strings."+sel.Sel.Name+" on "+text)
				case regexpMethods[sel.Sel.Name]:
					// A method of *regexp.Regexp, or a function of
					// package regexp, by its name: matching words is the
					// point, whoever matches them.
					report(x, "regular expression "+sel.Sel.Name+" on "+text)
				}
			}
		case *ast.SwitchStmt:
			if text := c.textOf(x.Tag); text != "" {
				report(x, "switch on "+text)
			}
		case *ast.BinaryExpr:
			if x.Op != token.EQL && x.Op != token.NEQ {
				return true
			}
			for _, pair := range [][2]ast.Expr{{x.X, x.Y}, {x.Y, x.X}} {
				if text := c.textOf(pair[0]); text != "" && nonEmptyString(pair[1]) {
					report(x, "comparison of "+text+" with a string literal")
					break
				}
			}
		case *ast.SliceExpr:
			if text := c.textOf(x.X); text != "" {
				report(x, "slicing "+text)
			}
		case *ast.IndexExpr:
			if text := c.textOf(x.X); text != "" {
				report(x, "indexing "+text)
			}
		}
		return true
	})
	return out
}

// textOf returns ".Message" or ".Error()" when e is such a text, or
// names the variable that holds one ("msg, which holds .Message"); else
// "".
func (c *checker) textOf(e ast.Expr) string {
	if id, ok := ast.Unparen(e).(*ast.Ident); ok && id.Obj != nil {
		if text, ok := c.held[id.Obj]; ok {
			return id.Name + ", which holds " + text
		}
	}
	return c.baseOf(e)
}

// baseOf returns what e is or holds: ".Message", ".Error()" or "".
func (c *checker) baseOf(e ast.Expr) string {
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident:
		if x.Obj != nil {
			return c.held[x.Obj]
		}
	case *ast.SelectorExpr:
		if x.Sel.Name == "Message" {
			return ".Message"
		}
	case *ast.CallExpr:
		if sel, ok := x.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Error" && len(x.Args) == 0 {
			return ".Error()"
		}
	}
	return ""
}

// nonEmptyString reports whether e is a string literal other than "".
func nonEmptyString(e ast.Expr) bool {
	lit, ok := ast.Unparen(e).(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return false
	}
	s, err := strconv.Unquote(lit.Value)
	return err != nil || s != ""
}

// importName returns the name f refers to the package path by, or ""
// when f does not import it (or imports it as _ or .).
func importName(f *ast.File, path string) string {
	for _, imp := range f.Imports {
		p, err := strconv.Unquote(imp.Path.Value)
		if err != nil || p != path {
			continue
		}
		if imp.Name == nil {
			return path[strings.LastIndexByte(path, '/')+1:]
		}
		if imp.Name.Name == "_" || imp.Name.Name == "." {
			return ""
		}
		return imp.Name.Name
	}
	return ""
}
