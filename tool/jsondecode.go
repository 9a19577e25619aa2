package tool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// The JSON path decodes arguments straight from the document's tokens by
// the tool's definitions, with no intermediate tree for scalars and lists
// of scalars: it is the path JSON callers (MCP, function calling) take. It accepts exactly what the tree path
// accepts; maps and any values are read as trees and decoded as such.

// A jsonReader decodes one arguments document. Its decoder reads from a
// bytes.Buffer over the document itself, which jsontext parses in place:
// the document is never copied into the decoder's own buffer.
type jsonReader struct {
	dec jsontext.Decoder
	rd  bytes.Buffer
}

var jsonReaders = sync.Pool{New: func() any { return new(jsonReader) }}

// allowDuplicateNames is the decoder option of the arguments document,
// made once: an option made per call costs an allocation.
var allowDuplicateNames = jsontext.AllowDuplicateNames(true)

// errArgs is a problem with the arguments document as a whole.
type errArgs struct{ v Violation }

func (e errArgs) Error() string { return e.v.Message }

// decodeJSONInputs decodes a JSON arguments document by e's inputs. A
// document that is not a JSON object gives one violation about it, and no
// Values.
func decodeJSONInputs(e *entry, data []byte) (*Values, []Violation) {
	var vs violations
	in := decodeJSONInputsInto(e, data, &vs)
	return in, sortedViolations(e, &vs)
}

// decodeJSONInputsInto decodes a JSON arguments document by e's inputs,
// adding the violations to vs; it returns nil when data is not a JSON
// object.
func decodeJSONInputsInto(e *entry, data []byte, vs *violations) *Values {
	in := newValues(e)
	data = trimSpace(data)
	if len(data) == 0 || string(data) == "null" {
		for i, n := range e.inputs {
			decodeAbsent(n, i, false, in, vs)
		}
		return in
	}
	if data[0] != '{' {
		vs.add(nil, Violation{Rule: RuleType, Detail: "object"})
		return nil
	}
	jr := jsonReaders.Get().(*jsonReader)
	defer func() {
		// The pool keeps no reference to the caller's document.
		jr.rd = bytes.Buffer{}
		jr.dec.Reset(&jr.rd)
		jsonReaders.Put(jr)
	}()
	jr.rd = *bytes.NewBuffer(data)
	// Duplicate names are found below, where they matter: a name sent
	// twice among the inputs, and within each map or any value (decoded
	// strictly). The decoder's own check would keep every name of the
	// document, however many unknown names a caller sends.
	jr.dec.Reset(&jr.rd, allowDuplicateNames)
	var extra extraNames
	sent := newPresence(len(e.inputs))
	if err := decodeJSONObject(e, &jr.dec, in, &sent, &extra, vs); err != nil {
		*vs = violations{}
		vs.add(nil, Violation{Rule: RuleJSON, Detail: jsonProblem(err)})
		return nil
	}
	for i, n := range e.inputs {
		if !sent.has(i) {
			decodeAbsent(n, i, false, in, vs)
		}
	}
	extra.report(e, vs)
	return in
}

// decodeJSONObject decodes the arguments object dec holds into in,
// recording the inputs sent and the names that are none.
func decodeJSONObject(e *entry, dec *jsontext.Decoder, in *Values, sent *presence, extra *extraNames, vs *violations) error {
	if _, err := dec.ReadToken(); err != nil { // '{'
		return err
	}
	var buf []byte
	for dec.PeekKind() == '"' {
		name, err := readName(dec, &buf)
		if err != nil {
			return err
		}
		i, ok := e.inputIndex[string(name)] // no allocation
		if !ok || e.tool.Inputs[i].Locked {
			extra.add(string(name))
			if err := dec.SkipValue(); err != nil {
				return err
			}
			continue
		}
		if sent.mark(i) {
			return fmt.Errorf("duplicate object member name %q", name)
		}
		n := e.inputs[i]
		if dec.PeekKind() == 'n' {
			if _, err := dec.ReadToken(); err != nil {
				return err
			}
			decodeAbsent(n, i, true, in, vs)
			continue
		}
		seg := pathSeg{name: n.def.Name}
		v, err := n.decodeJSON(dec, &seg, vs)
		if err != nil {
			return err
		}
		in.values[i] = v
		in.set[i] = true
	}
	if _, err := dec.ReadToken(); err != nil { // '}'
		return err
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		return errors.New("unexpected data after the top-level value")
	}
	return nil
}

// readName reads an object member name without allocating, unquoting it
// into *buf only when it has escapes: a document may hold very many names
// no input has. The name is valid until the next read.
func readName(dec *jsontext.Decoder, buf *[]byte) ([]byte, error) {
	quoted, err := dec.ReadValue()
	if err != nil {
		return nil, err
	}
	name := quoted[1 : len(quoted)-1]
	if bytes.IndexByte(name, '\\') < 0 {
		return name, nil
	}
	*buf, err = jsontext.AppendUnquote((*buf)[:0], quoted)
	return *buf, err
}

// presence records which inputs a document sent, without allocating for
// tools of up to 64 inputs.
type presence struct {
	bits uint64
	more []bool // for tools of more inputs
}

func newPresence(inputs int) presence {
	if inputs > 64 {
		return presence{more: make([]bool, inputs)}
	}
	return presence{}
}

// mark records input i, reporting whether it was already recorded.
func (p *presence) mark(i int) (again bool) {
	if p.more != nil {
		again, p.more[i] = p.more[i], true
		return again
	}
	again = p.bits&(1<<i) != 0
	p.bits |= 1 << i
	return again
}

func (p *presence) has(i int) bool {
	if p.more != nil {
		return p.more[i]
	}
	return p.bits&(1<<i) != 0
}

// decodeJSON decodes the next value of dec by n.
func (n *node) decodeJSON(dec *jsontext.Decoder, p *pathSeg, vs *violations) (any, error) {
	kind := dec.PeekKind()
	switch {
	case kind == '"' && n.takesString():
		tok, err := dec.ReadToken()
		if err != nil {
			return nil, err
		}
		return n.decode(tok.String(), p, vs), nil
	case kind == '0' && (n.kind == kInteger || n.kind == kFloat):
		lit, err := dec.ReadValue()
		if err != nil {
			return nil, err
		}
		if n.kind == kInteger {
			if i, ok := parseInt(lit); ok {
				return n.decode(i, p, vs), nil
			}
		}
		// The literal, not a float64: integers keep every digit and a
		// number out of range is refused, not clamped.
		return n.decode(json.Number(lit), p, vs), nil
	case (kind == 't' || kind == 'f') && n.kind == kBoolean:
		tok, err := dec.ReadToken()
		if err != nil {
			return nil, err
		}
		if tok.Bool() {
			return n.decode(true, p, vs), nil
		}
		return n.decode(false, p, vs), nil
	case kind == '[' && n.kind == kList && n.items.kind != kMap && n.items.kind != kAny:
		if _, err := dec.ReadToken(); err != nil {
			return nil, err
		}
		out := make([]any, 0, 4)
		past := 0 // items past the list's maximum, counted, not decoded
		for i := 0; dec.PeekKind() != ']'; i++ {
			if dec.PeekKind() == 0 {
				_, err := dec.ReadToken()
				return nil, err
			}
			if n.maxCount >= 0 && i >= n.maxCount {
				if err := dec.SkipValue(); err != nil {
					return nil, err
				}
				past++
				continue
			}
			ip := p.item(i)
			if dec.PeekKind() == 'n' {
				if _, err := dec.ReadToken(); err != nil {
					return nil, err
				}
				if !n.items.def.Nullable {
					vs.add(&ip, rule(RuleNotNull))
				}
				out = append(out, nil)
				continue
			}
			v, err := n.items.decodeJSON(dec, &ip, vs)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		if _, err := dec.ReadToken(); err != nil {
			return nil, err
		}
		n.checkCount(len(out)+past, RuleMinItems, RuleMaxItems, p, vs)
		return out, nil
	}
	// Anything else (maps, any, and every value of the wrong type) is read
	// as a tree and decoded by the general path, which says what is wrong.
	raw, err := dec.ReadValue()
	if err != nil {
		return nil, err
	}
	var v any
	if err := jsonv2.Unmarshal(raw, &v, exactNumbers); err != nil {
		return nil, err
	}
	return n.decode(v, p, vs), nil
}

// takesString reports whether n's values are JSON strings.
func (n *node) takesString() bool {
	switch n.kind {
	case kString, kEmail, kURI, kDateTime, kTimestamp, kDuration, kEntity:
		return true
	}
	return false
}

// parseInt parses a JSON number literal that is a plain integer (no
// fraction, no exponent) within int64.
func parseInt(lit []byte) (int64, bool) {
	neg := len(lit) > 0 && lit[0] == '-'
	if neg {
		lit = lit[1:]
	}
	if len(lit) == 0 || len(lit) > 18 {
		return 0, false // longer literals take the exact slow path
	}
	var n int64
	for _, c := range lit {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// decodeArgs parses a JSON arguments document into a map.
func decodeArgs(data []byte) (map[string]any, []Violation) {
	data = trimSpace(data)
	if len(data) == 0 || string(data) == "null" {
		return nil, nil
	}
	if data[0] != '{' {
		return nil, []Violation{newViolation(Violation{Rule: RuleType, Detail: "object"})}
	}
	var m map[string]any
	if err := jsonv2.Unmarshal(data, &m, exactNumbers); err != nil {
		return nil, []Violation{newViolation(Violation{Rule: RuleJSON, Detail: jsonProblem(err)})}
	}
	return m, nil
}

// jsonProblem says what is wrong with a JSON document without echoing
// library internals: the problem the parser found, where (the JSON
// Pointer of the value) and after which byte. It reads the parser's error
// values, never their text.
func jsonProblem(err error) string {
	var syn *jsontext.SyntacticError
	var sem *jsonv2.SemanticError
	switch {
	case errors.As(err, &syn):
		return locatedProblem(syn.Err, "a syntax error", syn.JSONPointer, syn.ByteOffset)
	case errors.As(err, &sem):
		return locatedProblem(sem.Err, "a value of the wrong kind", sem.JSONPointer, sem.ByteOffset)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "unexpected end of the document"
	}
	return err.Error()
}

// locatedProblem says cause (or otherwise, when there is none) within the
// value at ptr, after the byte offset.
func locatedProblem(cause error, otherwise string, ptr jsontext.Pointer, offset int64) string {
	s := otherwise
	if cause != nil {
		s = cause.Error()
	}
	if ptr != "" {
		s += " within " + strconv.Quote(shorten(string(ptr), maxPathBytes))
	}
	if offset > 0 {
		s += " after offset " + strconv.FormatInt(offset, 10)
	}
	return s
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\n' || b[0] == '\r') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t' || b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// exactNumbers makes numbers decoded into any values json.Numbers, so that
// integers keep every digit until an integer definition reads them.
var exactNumbers = jsonv2.WithUnmarshalers(jsonv2.UnmarshalFromFunc(func(dec *jsontext.Decoder, v *any) error {
	if dec.PeekKind() != '0' {
		return jsonv2.SkipFunc
	}
	tok, err := dec.ReadToken()
	if err != nil {
		return err
	}
	*v = json.Number(tok.String())
	return nil
}))
