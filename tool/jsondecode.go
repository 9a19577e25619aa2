package tool

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"sync"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// The JSON path decodes arguments straight from the document's tokens by
// the tool's definitions, with no intermediate tree for scalars and lists
// of scalars: it is the path JSON callers (MCP, function calling) take. It accepts exactly what the tree path
// accepts; maps and any values are read as trees and decoded as such.

type jsonReader struct {
	dec jsontext.Decoder
	rd  bytes.Reader
}

var jsonReaders = sync.Pool{New: func() any { return new(jsonReader) }}

// errArgs is a problem with the arguments document as a whole.
type errArgs struct{ v Violation }

func (e errArgs) Error() string { return e.v.Message }

// decodeJSONInputs decodes a JSON arguments document by t's inputs. A
// document that is not a JSON object gives one violation about it.
func decodeJSONInputs(e *entry, data []byte) (*Values, []Violation) {
	t, p := e.tool, e
	in := newValues(e)
	data = trimSpace(data)
	if len(data) == 0 || string(data) == "null" {
		var vs violations
		for i, n := range p.inputs {
			decodeAbsent(n, i, false, in, &vs)
		}
		return in, sortViolations(p, vs)
	}
	if data[0] != '{' {
		return nil, []Violation{{Message: "arguments must be a JSON object"}}
	}
	jr := jsonReaders.Get().(*jsonReader)
	defer jsonReaders.Put(jr)
	jr.rd.Reset(data)
	jr.dec.Reset(&jr.rd)
	dec := &jr.dec
	var vs violations
	var extra []string
	var present uint64
	var presentMore []bool
	if len(p.inputs) > 64 {
		presentMore = make([]bool, len(p.inputs))
	}
	err := func() error {
		if _, err := dec.ReadToken(); err != nil { // '{'
			return err
		}
		for dec.PeekKind() == '"' {
			tok, err := dec.ReadToken()
			if err != nil {
				return err
			}
			i, ok := p.inputIndex[tok.String()]
			if !ok || t.Inputs[i].Locked {
				extra = append(extra, tok.String())
				if err := dec.SkipValue(); err != nil {
					return err
				}
				continue
			}
			if i < 64 {
				present |= 1 << i
			} else {
				presentMore[i] = true
			}
			n := p.inputs[i]
			if dec.PeekKind() == 'n' {
				if _, err := dec.ReadToken(); err != nil {
					return err
				}
				decodeAbsent(n, i, true, in, &vs)
				continue
			}
			seg := pathSeg{name: n.def.Name}
			v, err := n.decodeJSON(dec, &seg, &vs)
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
	}()
	if err != nil {
		return nil, []Violation{{Message: "arguments are not valid JSON: " + jsonProblem(err)}}
	}
	for i, n := range p.inputs {
		if (i < 64 && present&(1<<i) == 0) || (i >= 64 && !presentMore[i]) {
			decodeAbsent(n, i, false, in, &vs)
		}
	}
	addExtra(p, extra, &vs)
	return in, sortViolations(p, vs)
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
		for i := 0; dec.PeekKind() != ']'; i++ {
			if dec.PeekKind() == 0 {
				_, err := dec.ReadToken()
				return nil, err
			}
			ip := p.item(i)
			if dec.PeekKind() == 'n' {
				if _, err := dec.ReadToken(); err != nil {
					return nil, err
				}
				if !n.items.def.Nullable {
					vs.add(&ip, "must not be null")
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
		n.checkCount(len(out), "item", p, vs)
		return out, nil
	}
	// Anything else (maps, any, and every value of the wrong type) is read
	// as a tree and decoded by the general path, which says what is wrong.
	var v any
	if err := jsonv2.UnmarshalDecode(dec, &v, exactNumbers); err != nil {
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

// addExtra reports the names sent that are not inputs, or are locked.
func addExtra(p *entry, extra []string, vs *violations) {
	slices.Sort(extra)
	for _, k := range extra {
		seg := pathSeg{name: k}
		if _, ok := p.inputIndex[k]; ok {
			vs.add(&seg, "is locked and cannot be set")
		} else {
			vs.add(&seg, "is not an input of this tool")
		}
	}
}

// sortViolations orders violations by input, in definition order, and
// those about names that are not inputs last; within an input they keep
// the order they were found in.
func sortViolations(p *entry, vs violations) []Violation {
	if len(vs) < 2 {
		return vs
	}
	rank := func(v Violation) int {
		root := v.Path
		if i := indexAny(root, ".["); i >= 0 {
			root = root[:i]
		}
		if i, ok := p.inputIndex[root]; ok && !p.inputs[i].def.Locked {
			return i
		}
		return len(p.inputs)
	}
	slices.SortStableFunc(vs, func(a, b Violation) int { return rank(a) - rank(b) })
	return vs
}

func indexAny(s, chars string) int {
	for i := 0; i < len(s); i++ {
		for j := 0; j < len(chars); j++ {
			if s[i] == chars[j] {
				return i
			}
		}
	}
	return -1
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
