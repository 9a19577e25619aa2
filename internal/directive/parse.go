package directive

import (
	"fmt"
	"go/token"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Prefix starts every directive line.
const Prefix = "//tool:"

// A Diagnostic is one problem with a directive, at the column of the
// offending token.
type Diagnostic struct {
	Pos     token.Position
	Message string
}

func (d Diagnostic) String() string {
	if d.Pos.IsValid() {
		return d.Pos.String() + ": " + d.Message
	}
	return d.Message
}

// A Directive is one parsed directive line.
type Directive struct {
	// Name is the directive name ("method", "input", ...).
	Name string
	// Pos is the position of the leading "//".
	Pos token.Position
	// Arg is the NAME argument, "" when none was given.
	Arg    string
	ArgPos token.Position
	// Args are the items in the order written. A quoted description is
	// stored under the key "description".
	Args []Arg
}

// An Arg is one key of a directive with its value.
type Arg struct {
	Key string
	// Value is the value unquoted; "true" for a bare flag.
	Value string
	// Bare reports a flag written without a value.
	Bare bool
	// Pos is the position of the key (of the opening quote for a
	// description); ValuePos that of the value.
	Pos, ValuePos token.Position

	// Bounds holds a Count value, Range a NumRange value, Choice a Choice
	// value and Members a Members value.
	Bounds  *IntBounds
	Range   *NumBounds
	Choice  []string
	Members []Member
	// List holds a ListOf value split at its commas; Duration a Duration
	// value.
	List     []string
	Duration time.Duration
	// Size holds a BudgetSize value's number, and Items whether it counts
	// items (budget=50items) rather than bytes (budget=16000).
	Size  int
	Items bool
}

// IntBounds is an inclusive range of counts; a nil bound is open.
type IntBounds struct{ Min, Max *int }

// NumBounds is an inclusive range of numbers; a nil bound is open.
type NumBounds struct{ Min, Max *float64 }

// A Member is one member of a members selection.
type Member struct {
	Name string
	Pos  token.Position
	// Members selects the members of the value object this member holds.
	Members []Member
	// Refine holds the property keys given in braces.
	Refine []Arg
}

// Lookup returns the last item with the given key.
func (d *Directive) Lookup(key string) (Arg, bool) {
	for i := len(d.Args) - 1; i >= 0; i-- {
		if d.Args[i].Key == key {
			return d.Args[i], true
		}
	}
	return Arg{}, false
}

// Has reports whether the key was given.
func (d *Directive) Has(key string) bool { _, ok := d.Lookup(key); return ok }

// String returns the value of key, "" when it was not given.
func (d *Directive) String(key string) string { a, _ := d.Lookup(key); return a.Value }

// Flag reports whether the flag key was given and not set to false (nor,
// for a key that also takes a method name, to a method).
func (d *Directive) Flag(key string) bool {
	a, ok := d.Lookup(key)
	return ok && a.Value != "false" && (a.Bare || a.Value == "true" || !isIdent(a.Value))
}

// Method returns the method name a key that is a flag or a method name
// (confirm=Method) was given, "" when it was given none.
func (d *Directive) Method(key string) string {
	a, ok := d.Lookup(key)
	if !ok || a.Bare || a.Value == "true" || a.Value == "false" || !isIdent(a.Value) {
		return ""
	}
	return a.Value
}

// List returns every value of a list key, in order.
func (d *Directive) List(key string) []string {
	var vs []string
	for _, a := range d.Args {
		if a.Key == key {
			vs = append(vs, a.Value)
		}
	}
	return vs
}

// ArgList returns the comma-separated parts of the argument (entitytype).
func (d *Directive) ArgList() []string {
	if d.Arg == "" {
		return nil
	}
	return strings.Split(d.Arg, ",")
}

// Format returns the directive as a line that parses back to it.
func (d *Directive) Format() string {
	var b strings.Builder
	b.WriteString(Prefix)
	b.WriteString(d.Name)
	if d.Arg != "" {
		b.WriteByte(' ')
		b.WriteString(d.Arg)
	}
	for _, a := range d.Args {
		b.WriteByte(' ')
		b.WriteString(a.Key)
		if !a.Bare {
			b.WriteByte('=')
			b.WriteString(strconv.Quote(a.Value))
		}
	}
	return b.String()
}

// IsDirective reports whether a comment's text is a directive line.
func IsDirective(comment string) bool { return strings.HasPrefix(comment, Prefix) }

// IsSpaced reports whether a comment's text looks like a directive with
// space between "//" and "tool:" ("// tool:method ..."), which is not a
// directive: gofmt and go/doc treat it as prose.
func IsSpaced(comment string) bool {
	rest, ok := strings.CutPrefix(comment, "//")
	if !ok {
		return false
	}
	trimmed := strings.TrimLeft(rest, " \t")
	if len(trimmed) == len(rest) {
		return false
	}
	name, ok := strings.CutPrefix(trimmed, "tool:")
	return ok && name != "" && 'a' <= name[0] && name[0] <= 'z'
}

// Unspaced returns the diagnostic of a comment [IsSpaced] reports, found
// at pos.
func Unspaced(comment string, pos token.Position) Diagnostic {
	rest := strings.TrimLeft(strings.TrimPrefix(comment, "//"), " \t")
	name, _, _ := strings.Cut(strings.TrimPrefix(rest, "tool:"), " ")
	written := comment[:len(comment)-len(rest)+len("tool:")+len(name)]
	return Diagnostic{Pos: pos, Message: fmt.Sprintf("%q is not a directive, as a space follows \"//\": remove the space (write //tool:%s)", written, name)}
}

// Mistyped reports a comment (its text, as go/ast holds it) that looks
// like a directive but is not one, so it would be silently ignored: a
// line comment whose prefix is misspelt ("//tools:method",
// "//Tool:input", "// tol:method"), or a block comment with a line that
// starts with a directive ("/* tool:method ... */"). Either must name a
// known directive to count. It returns the byte offset in comment of
// what looks like the directive and the diagnostic's message, saying how
// to write it. A directive written with a space after "//" is left to
// [IsSpaced].
func Mistyped(comment string) (offset int, message string, ok bool) {
	if rest, isLine := strings.CutPrefix(comment, "//"); isLine {
		if IsDirective(comment) || IsSpaced(comment) {
			return 0, "", false
		}
		text := strings.TrimLeft(rest, " \t")
		word, name, ok := prefixed(text)
		if !ok || !nearTool(word) {
			return 0, "", false
		}
		written := comment[:len(comment)-len(text)+len(word)+1+len(name)]
		return 0, fmt.Sprintf("%q is not a directive, as its prefix is not %q: write //tool:%s", written, Prefix, name), true
	}
	body, isBlock := strings.CutPrefix(comment, "/*")
	if !isBlock {
		return 0, "", false
	}
	off := len("/*")
	for line := range strings.SplitAfterSeq(body, "\n") {
		text := strings.TrimPrefix(strings.TrimLeft(line, " \t*"), "//")
		at := off + len(line) - len(text)
		off += len(line)
		word, name, ok := prefixed(text)
		if ok && word == "tool" {
			return at, fmt.Sprintf("\"tool:%s\" in a /* */ comment is not a directive: a directive is a line comment, write //tool:%s ... on a line of its own in the doc comment", name, name), true
		}
	}
	return 0, "", false
}

// prefixed splits text that starts with WORD:NAME, NAME a known directive
// followed by a space or the end.
func prefixed(text string) (word, name string, ok bool) {
	word, rest, ok := strings.Cut(text, ":")
	if !ok || word == "" || strings.ContainsAny(word, " \t") {
		return "", "", false
	}
	name = rest
	if i := strings.IndexAny(rest, " \t\r\n*"); i >= 0 {
		name = rest[:i]
	}
	_, known := Specs[name]
	return word, name, known
}

// nearTool reports whether word is "tool" misspelt: another case, or one
// letter added, left out or changed ("tools", "tol", "toll").
func nearTool(word string) bool {
	w := strings.ToLower(word)
	const t = "tool"
	switch {
	case w == t:
		return word != t
	case len(w) == len(t):
		diff := 0
		for i := range len(t) {
			if w[i] != t[i] {
				diff++
			}
		}
		return diff == 1
	case len(w) == len(t)+1:
		return dropsOne(w, t)
	case len(w) == len(t)-1:
		return dropsOne(t, w)
	}
	return false
}

// dropsOne reports whether short is long with one byte left out.
func dropsOne(long, short string) bool {
	for i := range len(long) {
		if long[:i]+long[i+1:] == short {
			return true
		}
	}
	return false
}

// Parse parses one directive line (a comment's text, starting with
// "//tool:") found at pos. It returns the directive, nil when its name is
// unknown, and every problem found. A directive with diagnostics may be
// partly filled: keys with bad values are left out of it.
func Parse(line string, pos token.Position) (*Directive, []Diagnostic) {
	p := &parser{line: line, pos: pos}
	return p.parse(), p.diags
}

type parser struct {
	line  string
	pos   token.Position
	i     int
	diags []Diagnostic
}

// at returns the position of byte offset i of the line.
func (p *parser) at(i int) token.Position {
	pos := p.pos
	if pos.Line > 0 {
		pos.Column += i
	}
	if pos.Offset >= 0 {
		pos.Offset += i
	}
	return pos
}

func (p *parser) errorf(i int, format string, args ...any) {
	p.diags = append(p.diags, Diagnostic{Pos: p.at(i), Message: fmt.Sprintf(format, args...)})
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' }

func (p *parser) skipSpace() {
	for p.i < len(p.line) && isSpace(p.line[p.i]) {
		p.i++
	}
}

func (p *parser) parse() *Directive {
	if !strings.HasPrefix(p.line, Prefix) {
		p.errorf(0, "not a directive: it must start with %q", Prefix)
		return nil
	}
	if strings.ContainsAny(p.line, "\n\r") {
		p.errorf(0, "a directive is one line")
		return nil
	}
	p.i = len(Prefix)
	start := p.i
	for p.i < len(p.line) && !isSpace(p.line[p.i]) {
		p.i++
	}
	name := p.line[start:p.i]
	spec, ok := Specs[name]
	if !ok {
		if name == "" {
			p.errorf(start, "directive has no name (known: %s)", strings.Join(Names(), ", "))
		} else {
			p.errorf(start, "unknown directive //tool:%s%s (known: %s)", name, DidYouMean(name, Names()), strings.Join(Names(), ", "))
		}
		return nil
	}
	d := &Directive{Name: name, Pos: p.at(0)}
	first := true
	seen := keySet{}
	for {
		p.skipSpace()
		if p.i >= len(p.line) {
			break
		}
		itemStart := p.i
		if p.line[p.i] == '"' {
			s, ok := p.quoted()
			if !ok {
				break
			}
			if _, ok := spec.Keys["description"]; !ok {
				p.errorf(itemStart, "//tool:%s takes no quoted description", name)
			} else if !first {
				p.errorf(itemStart, "a quoted description must come first")
			} else if seen.has("description") {
				p.errorf(itemStart, "key %q is repeated", "description")
			} else {
				seen.add("description")
				d.Args = append(d.Args, Arg{Key: "description", Value: s, Pos: p.at(itemStart), ValuePos: p.at(itemStart)})
			}
			first = false
			continue
		}
		// A bare token: key, key=value, or the argument.
		for p.i < len(p.line) && !isSpace(p.line[p.i]) && p.line[p.i] != '=' && p.line[p.i] != '"' {
			p.i++
		}
		word := p.line[itemStart:p.i]
		hasValue := p.i < len(p.line) && p.line[p.i] == '='
		if !hasValue && p.i < len(p.line) && p.line[p.i] == '"' {
			p.errorf(p.i, "unexpected quote after %q", word)
			p.skipToken()
			first = false
			continue
		}
		if !hasValue && d.Arg == "" && len(d.Args) == 0 && first && p.takesArg(spec, word) {
			p.argument(d, spec, word, itemStart) // a description may follow
			continue
		}
		first = false
		var value string
		valuePos := p.i
		bare := !hasValue
		if hasValue {
			p.i++ // '='
			valuePos = p.i
			if p.i < len(p.line) && p.line[p.i] == '"' {
				s, ok := p.quoted()
				if !ok {
					break
				}
				value = s
			} else {
				vs := p.i
				for p.i < len(p.line) && !isSpace(p.line[p.i]) && p.line[p.i] != '"' {
					p.i++
				}
				value = p.line[vs:p.i]
				if p.i < len(p.line) && p.line[p.i] == '"' {
					p.errorf(p.i, "unexpected quote in the value of %q", word)
					p.skipToken()
					continue
				}
			}
		} else {
			value = "true"
		}
		if !validKey(word) {
			p.errorf(itemStart, "%q is not a key", word)
			continue
		}
		key, ok := spec.Keys[word]
		if !ok {
			p.errorf(itemStart, "unknown key %q for //tool:%s%s (known: %s)", word, name, DidYouMean(word, sortedKeys(spec.Keys)), strings.Join(sortedKeys(spec.Keys), ", "))
			continue
		}
		if seen.has(word) && !key.List {
			if key.Kind == FlagOrMethod {
				p.errorf(itemStart, "key %q is repeated: give either %s or %s=Method", word, word, word)
				continue
			}
			p.errorf(itemStart, "key %q is repeated", word)
			continue
		}
		seen.add(word)
		a := Arg{Key: word, Value: value, Bare: bare, Pos: p.at(itemStart), ValuePos: p.at(valuePos)}
		quoted := hasValue && valuePos < len(p.line) && p.line[valuePos] == '"'
		if p.check(&a, key, quoted) {
			if key.Kind == BudgetSize && slices.ContainsFunc(d.Args, func(b Arg) bool { return b.Key == a.Key && b.Items == a.Items }) {
				unit := "byte"
				if a.Items {
					unit = "item"
				}
				p.errorf(itemStart, "%s: the %s budget is given twice (give %s=BYTES and %s=Nitems at most once each)", word, unit, word, word)
				continue
			}
			d.Args = append(d.Args, a)
		}
	}
	if spec.Arg == RequiredArg && d.Arg == "" {
		p.errorf(len(Prefix), "//tool:%s needs a name argument first", name)
	}
	var missing []string
	for k, key := range spec.Keys {
		if key.Required && !seen.has(k) {
			missing = append(missing, k)
		}
	}
	slices.Sort(missing)
	for _, k := range missing {
		p.errorf(len(Prefix), "//tool:%s needs %s=", name, k)
	}
	return d
}

// A keySet holds the keys a directive gave: a few, so a slice.
type keySet []string

func (s keySet) has(k string) bool { return slices.Contains(s, k) }
func (s *keySet) add(k string) {
	if !s.has(k) {
		*s = append(*s, k)
	}
}

// takesArg reports whether a first bare word is the directive's argument.
func (p *parser) takesArg(spec *Spec, word string) bool {
	switch spec.Arg {
	case RequiredArg:
		return true
	case OptionalArg:
		k, isKey := spec.Keys[word]
		return !(isKey && (k.Kind == Flag || k.Kind == FlagOrMethod))
	}
	return false
}

func (p *parser) argument(d *Directive, spec *Spec, word string, at int) {
	if spec.Arg == NoArg {
		p.errorf(at, "//tool:%s takes no argument", spec.Name)
		return
	}
	parts := []string{word}
	if spec.ArgList {
		parts = strings.Split(word, ",")
	}
	off := at
	for _, part := range parts {
		if !validName(part) {
			p.errorf(off, "%q is not a valid name", part)
			return
		}
		off += len(part) + 1
	}
	d.Arg, d.ArgPos = word, p.at(at)
}

func (p *parser) skipToken() {
	for p.i < len(p.line) && !isSpace(p.line[p.i]) {
		p.i++
	}
}

// quoted reads a Go string literal at p.i.
func (p *parser) quoted() (string, bool) {
	start := p.i
	p.i++
	for p.i < len(p.line) {
		switch p.line[p.i] {
		case '\\':
			p.i += 2
			continue
		case '"':
			p.i++
			s, err := strconv.Unquote(p.line[start:p.i])
			if err != nil {
				p.errorf(start, "bad quoted string %s", p.line[start:p.i])
				return "", false
			}
			if p.i < len(p.line) && !isSpace(p.line[p.i]) {
				p.errorf(p.i, "missing space after quoted string")
				p.skipToken()
				return "", false
			}
			return s, true
		}
		p.i++
	}
	p.errorf(start, "unterminated quoted string")
	p.i = len(p.line)
	return "", false
}

// check validates a's value against kind, filling its parsed forms. It
// reports whether the value is good.
func (p *parser) check(a *Arg, key Key, quoted bool) bool {
	kind := key.Kind
	at := a.ValuePos.Offset - p.pos.Offset
	if p.pos.Offset < 0 {
		at = a.ValuePos.Column - p.pos.Column
	}
	msg := checkValue(a, key)
	if msg == "" && kind == Members {
		var diags []Diagnostic
		raw := rawOffsets(p.line[at:], quoted, len(a.Value))
		a.Members, diags = parseMembers(a.Value, func(i int) token.Position {
			return p.at(at + raw[i])
		})
		p.diags = append(p.diags, diags...)
		return len(diags) == 0
	}
	if msg != "" {
		if a.Bare {
			at = a.Pos.Column - p.pos.Column
		}
		p.errorf(at, "%s: %s", a.Key, msg)
		return false
	}
	return true
}

// checkValue checks a's value against key's kind and fills its parsed
// forms; it returns what is wrong, or "".
func checkValue(a *Arg, key Key) string {
	v, kind := a.Value, key.Kind
	if kind != Flag && kind != FlagOrMethod && a.Bare {
		return fmt.Sprintf("needs a value (%s=...)", a.Key)
	}
	switch kind {
	case Text:
		return ""
	case Flag:
		if v != "true" && v != "false" {
			return fmt.Sprintf("must be true or false, not %q", v)
		}
	case FlagOrMethod:
		if !isIdent(v) {
			return fmt.Sprintf("must be true, false or a method name, not %q", v)
		}
	case Identifier:
		if !isIdent(v) {
			return fmt.Sprintf("%q is not a Go identifier", v)
		}
	case FuncName:
		pkg, name, ok := strings.Cut(v, ".")
		if !isIdent(pkg) || ok && !isIdent(name) {
			return fmt.Sprintf("%q is not a function name (Func or pkg.Func)", v)
		}
	case Operation:
		for _, op := range Operations {
			if v == op {
				return ""
			}
		}
		return fmt.Sprintf("%q is not an operation%s (one of: %s)", v, DidYouMean(v, Operations), strings.Join(Operations, ", "))
	case EntityOp:
		if !isWord(v) {
			return fmt.Sprintf("%q is not an entity operation (a lower-case word such as view, update, delete)", v)
		}
	case DataType:
		if id, ok := strings.CutPrefix(v, "entity:"); ok {
			if !validName(id) {
				return fmt.Sprintf("%q is not a data type (entity:ID)", v)
			}
		} else if !isTypeName(v) {
			return fmt.Sprintf("%q is not a data type", v)
		}
	case Count:
		b, msg := parseCount(v)
		if msg != "" {
			return msg
		}
		a.Bounds = b
	case NumRange:
		r, msg := parseRange(v)
		if msg != "" {
			return msg
		}
		a.Range = r
	case Choice:
		parts := strings.Split(v, "|")
		for _, c := range parts {
			if c == "" {
				return fmt.Sprintf("%q has an empty choice", v)
			}
		}
		a.Choice = parts
	case Members:
		if v == "" {
			return "needs at least one member"
		}
	case OneOf:
		if !slices.Contains(key.Values, v) {
			return fmt.Sprintf("%q is not allowed%s (one of: %s)", v, DidYouMean(v, key.Values), strings.Join(key.Values, ", "))
		}
	case ListOf:
		parts := strings.Split(v, ",")
		for i, part := range parts {
			if !slices.Contains(key.Values, part) {
				return fmt.Sprintf("%q is not allowed%s (one or more of: %s, separated by \",\")", part, DidYouMean(part, key.Values), strings.Join(key.Values, ", "))
			}
			if slices.Contains(parts[:i], part) {
				return fmt.Sprintf("%q is listed twice", part)
			}
		}
		a.List = parts
	case GroupNames:
		parts := strings.Split(v, ",")
		for i, part := range parts {
			if !isGroupName(part) {
				return fmt.Sprintf("%q is not a group name (1 to 64 lowercase letters, digits, \"-\" or \"_\"; several separated by \",\")", part)
			}
			if slices.Contains(parts[:i], part) {
				return fmt.Sprintf("%q is listed twice", part)
			}
		}
		a.List = parts
	case Duration:
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return fmt.Sprintf("%q is not a positive duration (such as 90s, 30m, 24h)", v)
		}
		a.Duration = d
	case ImageAddress:
		return checkImageAddress(v)
	case BudgetSize:
		return checkBudget(a)
	case HeaderName:
		if !isToken(v) {
			return fmt.Sprintf("%q is not a header name (letters, digits and !#$%%&'*+-.^_`|~, no spaces)", v)
		}
	}
	return ""
}

// checkBudget checks a budget value, N bytes or Nitems, and fills its
// Size and Items; it returns what is wrong, or "".
func checkBudget(a *Arg) string {
	digits, items := strings.CutSuffix(a.Value, "items")
	most := MaxBudgetBytes
	if items {
		most = MaxBudgetItems
	}
	n, err := strconv.Atoi(digits)
	if err != nil || strings.HasPrefix(digits, "+") {
		return fmt.Sprintf("%q is not a budget of //tool:method: give a positive number of bytes (budget=16000) or of items of a list output (budget=50items)", a.Value)
	}
	if n <= 0 || n > most {
		what := "bytes"
		if items {
			what = "items"
		}
		return fmt.Sprintf("%q is not a budget of //tool:method: the number of %s must be from 1 to %d", a.Value, what, most)
	}
	a.Size, a.Items = n, items
	return ""
}

// Budget returns the byte and item budgets of a method directive, zero
// for those not given.
func (d *Directive) Budget() (bytes, items int) {
	for _, a := range d.Args {
		if a.Key != "budget" {
			continue
		}
		if a.Items {
			items = a.Size
		} else {
			bytes = a.Size
		}
	}
	return bytes, items
}

// checkImageAddress returns what is wrong with an image address, or "":
// it must be an https: address with a host, or a data:image/ address.
func checkImageAddress(v string) string {
	if strings.HasPrefix(v, "data:") {
		if !strings.HasPrefix(v, "data:image/") || !strings.Contains(v, ",") {
			return fmt.Sprintf("%q is not an image: a data: address must start data:image/ and hold its data after a \",\"", short(v))
		}
		return ""
	}
	u, err := url.Parse(v)
	if err != nil || u.Scheme != "https" || u.Host == "" {
		return fmt.Sprintf("%q is not an https: or data: address", short(v))
	}
	return ""
}

// short cuts a long value for a message.
func short(v string) string {
	if len(v) > 60 {
		return v[:57] + "..."
	}
	return v
}

// isToken reports an RFC 9110 token: one or more of the visible ASCII
// characters other than the separators.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

func parseCount(v string) (*IntBounds, string) {
	lo, hi, isRange := strings.Cut(v, "..")
	if !isRange {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return nil, fmt.Sprintf("%q is not MIN..MAX (non-negative integers)", v)
		}
		return &IntBounds{Min: &n, Max: &n}, ""
	}
	var b IntBounds
	for _, s := range []struct {
		text string
		dst  **int
	}{{lo, &b.Min}, {hi, &b.Max}} {
		if s.text == "" {
			continue
		}
		n, err := strconv.Atoi(s.text)
		if err != nil || n < 0 {
			return nil, fmt.Sprintf("%q is not MIN..MAX (non-negative integers)", v)
		}
		*s.dst = &n
	}
	if b.Min == nil && b.Max == nil {
		return nil, fmt.Sprintf("%q bounds nothing", v)
	}
	if b.Min != nil && b.Max != nil && *b.Min > *b.Max {
		return nil, fmt.Sprintf("%q: MIN is above MAX", v)
	}
	return &b, ""
}

func parseRange(v string) (*NumBounds, string) {
	lo, hi, isRange := strings.Cut(v, "..")
	if !isRange {
		return nil, fmt.Sprintf("%q is not MIN..MAX", v)
	}
	var r NumBounds
	for _, s := range []struct {
		text string
		dst  **float64
	}{{lo, &r.Min}, {hi, &r.Max}} {
		if s.text == "" {
			continue
		}
		f, err := strconv.ParseFloat(s.text, 64)
		if err != nil || f != f || f > 1e308 || f < -1e308 {
			return nil, fmt.Sprintf("%q is not MIN..MAX (numbers)", v)
		}
		*s.dst = &f
	}
	if r.Min == nil && r.Max == nil {
		return nil, fmt.Sprintf("%q bounds nothing", v)
	}
	if r.Min != nil && r.Max != nil && *r.Min > *r.Max {
		return nil, fmt.Sprintf("%q: MIN is above MAX", v)
	}
	return &r, ""
}

func validKey(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// isWord reports a lower-case word (letters, digits, "_", starting with a letter).
func isWord(s string) bool { return validKey(s) }

// isTypeName reports a data type name: a lower-case word, dots allowed
// inside.
func isTypeName(s string) bool {
	if s == "" || strings.HasPrefix(s, ".") || strings.HasSuffix(s, ".") || strings.Contains(s, "..") {
		return false
	}
	return validKey(strings.ReplaceAll(s, ".", "_"))
}

// validName reports a name argument: letters, digits, "_", "." and "-",
// starting with a letter or "_".
func validName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		switch {
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '.' || c == '-'):
		default:
			return false
		}
	}
	return true
}

func sortedKeys(m map[string]Key) []string { return slices.Sorted(maps.Keys(m)) }

// rawOffsets maps each byte offset of a value (and its end) to its offset
// in the source text src, which starts with the value, quoted or not.
func rawOffsets(src string, quoted bool, n int) []int {
	raw := make([]int, 0, n+1)
	if !quoted {
		for i := 0; i <= n; i++ {
			raw = append(raw, i)
		}
		return raw
	}
	i := 1 // past the opening quote
	for len(raw) < n && i < len(src) {
		rest := src[i:]
		r, multibyte, tail, err := strconv.UnquoteChar(rest, '"')
		if err != nil {
			break
		}
		size := 1 // as strconv.Unquote appends it
		if r >= utf8.RuneSelf && multibyte {
			size = utf8.RuneLen(r)
		}
		for range size {
			raw = append(raw, i)
		}
		i += len(rest) - len(tail)
	}
	for len(raw) <= n {
		raw = append(raw, i)
	}
	return raw
}

// isGroupName reports whether s is a tool group name: 1 to 64 lowercase
// letters, digits, "-" and "_".
func isGroupName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, c := range s {
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}
