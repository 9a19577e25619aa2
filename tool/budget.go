package tool

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"maps"
	"strconv"
	"time"
	"unicode/utf8"
)

// A Budget bounds what one result of a tool carries to its caller, so that
// a model is never handed more than it can read.
//
// A read, explain or transform tool whose only output is a list and that
// has an item budget is paged: the registry gives it an optional input [CursorInput] and an
// optional output [NextCursorOutput], its handler still returns the whole
// list, and each run answers one page of at most Items items (fewer when
// they would break the byte budget, never none while items are left),
// with the cursor of the next page while items follow. A cursor is signed
// (see [Options.CursorKey]) and bound to the account, the tool and the
// other inputs: any other cursor is an input failure of [CursorInput],
// with the rule [RuleCursorInvalid], and nothing runs.
//
// Any other result whose outputs are more than Bytes bytes of JSON (a
// success, or a failure that carries outputs) is not cut: its outputs are kept whole, for the same account only,
// and the result carries none, only an [Overflow] saying where they are
// (see [Registry.ReadOverflow]). Callers that protect no model context
// run with [WithFullOutputs].
type Budget struct {
	// Bytes is the most bytes of the JSON of the outputs of one result.
	// Zero means the registry's ([Options.Budget]), else
	// [DefaultBudgetBytes].
	Bytes int `json:"bytes,omitempty"`
	// Items is the most items of one page of a tool whose only output is
	// a list. Zero means the registry's (none unless [Options.Budget]
	// sets one): the tool is not paged.
	Items int `json:"items,omitempty"`
}

// Budget defaults and limits.
const (
	// DefaultBudgetBytes is the byte budget of a tool that declares none,
	// in a registry that sets none: 100,000 bytes of JSON, about 25,000
	// tokens of a model.
	DefaultBudgetBytes = 100_000
	// DefaultOverflowTTL is how long outputs over their budget are kept.
	DefaultOverflowTTL = 15 * time.Minute
	// DefaultOverflowBytes is the most bytes of outputs over their budget
	// that a registry keeps at once: 64 MiB.
	DefaultOverflowBytes = 64 << 20
	// MaxCursorLength is the most characters of a cursor.
	MaxCursorLength = 200
)

// The names of what the registry adds to a paged tool.
const (
	// CursorInput is the optional input that asks for the page after the
	// one whose [NextCursorOutput] it holds.
	CursorInput = "cursor"
	// NextCursorOutput is the output holding the cursor of the next page,
	// left out on the last page.
	NextCursorOutput = "next_cursor"
)

// cursorContext separates the signatures of cursors from any other use of
// the key.
const cursorContext = "toolapi/tool cursor\x00"

// cursorRoom is the most bytes the next cursor adds to a page's JSON:
// ,"next_cursor":"..." with a cursor of at most 30 characters.
const cursorRoom = 50

// cursorMACBytes is how much of the HMAC-SHA256 a cursor carries.
const cursorMACBytes = 16

// Paged reports whether t is paged: the registry gave it [CursorInput]
// and [NextCursorOutput] (see [Budget]).
func Paged(t *Tool) bool {
	if len(t.Inputs) == 0 || len(t.Outputs) != 2 {
		return false
	}
	last := t.Inputs[len(t.Inputs)-1]
	return last.Name == CursorInput && last.Label == "Cursor" && t.Outputs[1].Name == NextCursorOutput
}

// pageable reports whether t may be paged: its operation is read,
// explain or transform (each page runs it again), its only output is a
// list and no input is named [CursorInput].
func pageable(t *Tool) bool {
	if !t.EffectiveOperation().Idempotent() || len(t.Outputs) != 1 || t.Outputs[0] == nil || t.Outputs[0].Type != "list" || t.Outputs[0].Name == NextCursorOutput {
		return false
	}
	for _, d := range t.Inputs {
		if d != nil && d.Name == CursorInput {
			return false
		}
	}
	return true
}

// withPaging returns a copy of t with the input [CursorInput] last and
// the output [NextCursorOutput] after its list. The list loses its least
// number of items (notblank, count=MIN..), which a page, the last one
// say, may not reach: the schema must describe every page.
func withPaging(t *Tool) *Tool {
	c := *t
	one, most := 1, MaxCursorLength
	c.Inputs = append(t.Inputs[:len(t.Inputs):len(t.Inputs)], &Definition{
		Name:  CursorInput,
		Type:  "string",
		Label: "Cursor",
		Description: "Optional. The next_cursor of the previous page, to get the page after it, with the same other inputs; " +
			"leave it out for the first page.",
		Constraints: Constraints{NotBlank: true, Length: &Bounds{Min: &one, Max: &most}, Pattern: `^[A-Za-z0-9_-]+$`},
	})
	list := t.Outputs[0].clone()
	list.Constraints.NotBlank = false
	if b := list.Constraints.Count; b != nil {
		list.Constraints.Count = nil
		if b.Max != nil {
			list.Constraints.Count = &Bounds{Max: b.Max}
		}
	}
	c.Outputs = append([]*Definition{list}, &Definition{
		Name:        NextCursorOutput,
		Type:        "string",
		Label:       "Next cursor",
		Description: "Present when more items follow: call again with it as cursor, and the same other inputs, for the next page.",
	})
	return &c
}

// budgetOf returns t's budget as r applies it: its own limits, else r's.
func (r *Registry) budgetOf(t *Tool) Budget {
	b := t.Budget
	if b.Bytes == 0 {
		b.Bytes = r.budget.Bytes
	}
	if b.Items == 0 {
		b.Items = r.budget.Items
	}
	return b
}

// checkBudget checks a tool's own budget.
func checkBudget(t *Tool, errs *definitionErrors) {
	b := t.Budget
	if b.Bytes < 0 {
		errs.add("", "budget", "a byte budget must be a positive number of bytes, not %d", b.Bytes)
	}
	if b.Items < 0 {
		errs.add("", "budget", "an item budget must be a positive number of items, not %d", b.Items)
	}
	switch {
	case b.Items <= 0 || pageable(t) || Paged(t):
	case !t.EffectiveOperation().Idempotent():
		errs.add("", "budget", "budget of %d items: each page runs the tool again, so an item budget needs op read, explain or transform, not %s", b.Items, t.EffectiveOperation())
	default:
		errs.add("", "budget", "budget of %d items: an item budget pages a list, so it needs a tool whose only output is a list, and no input named %q", b.Items, CursorInput)
	}
}

type fullOutputsKey struct{}

// WithFullOutputs returns ctx for runs whose caller protects no model
// context (a command line writing to a terminal or a file): their outputs
// are never kept aside for being over the byte budget. Lists are still
// paged.
func WithFullOutputs(ctx context.Context) context.Context {
	return context.WithValue(ctx, fullOutputsKey{}, true)
}

func fullOutputs(ctx context.Context) bool {
	b, _ := ctx.Value(fullOutputsKey{}).(bool)
	return b
}

// openCursor returns the offset a cursor of e's tool holds, if it was
// signed for acct and the inputs in (but the cursor).
func (r *Registry) openCursor(acct Account, e *entry, in *Values, cursor string) (int, bool) {
	raw, err := base64.RawURLEncoding.Strict().DecodeString(cursor)
	if err != nil || len(raw) <= cursorMACBytes {
		return 0, false
	}
	body, mac := raw[:len(raw)-cursorMACBytes], raw[len(raw)-cursorMACBytes:]
	off, n := binary.Uvarint(body)
	if n <= 0 || n != len(body) || off > 1<<40 {
		return 0, false
	}
	if !hmac.Equal(mac, r.cursorMAC(acct, e, in, body)) {
		return 0, false
	}
	return int(off), true
}

// signCursor returns the cursor of the page of e's tool that starts at
// offset, for acct and the inputs in.
func (r *Registry) signCursor(acct Account, e *entry, in *Values, offset int) string {
	body := binary.AppendUvarint(nil, uint64(offset))
	return base64.RawURLEncoding.EncodeToString(append(body, r.cursorMAC(acct, e, in, body)...))
}

// cursorMAC returns the signature of a cursor's body for acct, e's tool
// and the inputs in but the cursor (sensitive ones included: they are
// hashed, never sent).
func (r *Registry) cursorMAC(acct Account, e *entry, in *Values, body []byte) []byte {
	args := in.canonical(false)
	delete(args, CursorInput)
	b, err := json.Marshal(args)
	if err != nil {
		b = nil // the inputs were checked: cannot happen
	}
	m := hmac.New(sha256.New, r.cursorKey)
	m.Write([]byte(cursorContext))
	var acctID string
	if acct != nil {
		acctID = acct.AccountID()
	}
	for _, part := range [][]byte{[]byte(acctID), []byte(e.tool.ID), b, body} {
		m.Write(binary.AppendUvarint(nil, uint64(len(part))))
		m.Write(part)
	}
	return m.Sum(nil)[:cursorMACBytes]
}

// budgeted applies e's budget to a result out of a run for acct with
// inputs in, asked for the page at offset: a success is paged, and a
// success or a failure carrying outputs over the byte budget keeps them
// aside.
func (r *Registry) budgeted(ctx context.Context, e *entry, acct Account, in *Values, offset int, out *Result) *Result {
	if len(out.Outputs) == 0 {
		return out
	}
	full := fullOutputs(ctx)
	if e.paged && out.Success {
		out = r.page(e, acct, in, offset, out, full)
	}
	if full {
		return out
	}
	if jsonSize(out.Outputs, e.budget.Bytes) <= e.budget.Bytes {
		return out
	}
	return r.overflow(e, acct, out)
}

// page returns out with its list cut to the page at offset, and the
// cursor of the next page while items follow.
func (r *Registry) page(e *entry, acct Account, in *Values, offset int, out *Result, full bool) *Result {
	name := e.tool.Outputs[0].Name
	list, _ := out.Outputs[name].([]any)
	offset = min(offset, len(list))
	end := min(offset+e.budget.Items, len(list))
	if !full {
		// The page's own bytes: the list's key and brackets, room for
		// the next cursor, and its items while they fit, one at least.
		size := stringSize(name) + 4 + cursorRoom
		for i := offset; i < end; i++ {
			s := jsonSize(list[i], e.budget.Bytes) + 1
			if i > offset && size+s > e.budget.Bytes {
				end = i
				break
			}
			size += s
		}
	}
	outputs := maps.Clone(out.Outputs)
	outputs[name] = list[offset:end:end]
	delete(outputs, NextCursorOutput)
	if end < len(list) {
		outputs[NextCursorOutput] = r.signCursor(acct, e, in, end)
	}
	page := *out
	page.Outputs = outputs
	return &page
}

// jsonSize returns the length of the JSON of v as [json.Marshal] writes
// it, or a number over limit once it is known to be over it.
func jsonSize(v any, limit int) int {
	s := sizer{limit: limit}
	s.add(v)
	return s.n
}

type sizer struct {
	n, limit int
	scratch  [32]byte
}

func (s *sizer) add(v any) {
	if s.n > s.limit {
		return
	}
	switch v := v.(type) {
	case nil:
		s.n += 4
	case bool:
		if v {
			s.n += 4
		} else {
			s.n += 5
		}
	case string:
		s.n += stringSize(v)
	case int64:
		s.n += len(strconv.AppendInt(s.scratch[:0], v, 10))
	case int:
		s.n += len(strconv.AppendInt(s.scratch[:0], int64(v), 10))
	case json.Number:
		s.n += len(v)
	case map[string]any:
		s.n += 2
		if len(v) > 0 {
			s.n += len(v) - 1
		}
		for k, x := range v {
			s.n += stringSize(k) + 1
			s.add(x)
			if s.n > s.limit {
				return
			}
		}
	case []any:
		s.n += 2
		if len(v) > 0 {
			s.n += len(v) - 1
		}
		for _, x := range v {
			s.add(x)
			if s.n > s.limit {
				return
			}
		}
	default:
		b, err := json.Marshal(v)
		if err != nil {
			s.n = s.limit + 1 // what cannot be measured is not sent whole
			return
		}
		s.n += len(b)
	}
}

// stringSize returns the length of the JSON string of s as json.Marshal
// writes it (HTML characters escaped).
func stringSize(s string) int {
	n := 2
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t' || c == '\b' || c == '\f':
				n += 2
			case c < 0x20 || c == '<' || c == '>' || c == '&':
				n += 6
			default:
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			n += 6 // \ufffd
		case r == '\u2028' || r == '\u2029':
			n += 6
		default:
			n += size
		}
		i += size
	}
	return n
}

// newCursorKey returns a random key for cursors.
func newCursorKey() []byte {
	k := make([]byte, 32)
	rand.Read(k) // never fails
	return k
}
