package tool

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// numbersTool returns a read tool listing the numbers 0..n-1 whose names
// start with its input prefix, with the given budget; runs counts its
// runs.
func numbersTool(id string, n int, b Budget, runs *int) *Tool {
	return &Tool{ID: id, Label: "Numbers", Description: "Lists numbers.", Operation: OpRead, Permission: "p", Budget: b,
		Inputs: []*Definition{{Name: "prefix", Type: "string"}, {Name: "secret", Type: "string", Sensitive: true}},
		Outputs: []*Definition{{Name: "result", Type: "list", Required: true,
			Items: &Definition{Type: "map", Properties: []*Definition{{Name: "n", Type: "integer", Required: true}, {Name: "name", Type: "string", Required: true}}}}},
		Handler: func(_ context.Context, in *Values) (*Result, error) {
			*runs++
			var out []any
			for i := range n {
				name := fmt.Sprintf("number %d", i)
				if strings.HasPrefix(name, in.String("prefix")) {
					out = append(out, map[string]any{"n": int64(i), "name": name})
				}
			}
			return Succeeded("", map[string]any{"result": out}), nil
		}}
}

func quietRegistry(opts *Options) *Registry {
	if opts == nil {
		opts = &Options{}
	}
	opts.Logger = slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil))
	return NewRegistry(opts)
}

// pageAll runs id from the first page to the last with args, returning
// the numbers seen in order and the number of pages.
func pageAll(t *testing.T, r *Registry, ctx context.Context, id string, args map[string]any) ([]int64, int) {
	t.Helper()
	var seen []int64
	pages := 0
	cursor := ""
	for {
		a := map[string]any{}
		for k, v := range args {
			a[k] = v
		}
		if cursor != "" {
			a[CursorInput] = cursor
		}
		res, err := r.Run(ctx, id, a)
		if err != nil || !res.Success {
			t.Fatalf("page %d: %v %+v", pages, err, res)
		}
		pages++
		for _, it := range res.Outputs["result"].([]any) {
			seen = append(seen, it.(map[string]any)["n"].(int64))
		}
		next, more := res.Outputs[NextCursorOutput]
		if !more {
			return seen, pages
		}
		cursor = next.(string)
		if pages > 1000 {
			t.Fatal("endless paging")
		}
	}
}

// TestPaging checks that a list tool with an item budget gets the cursor
// input and the next_cursor output in its schemas, that its pages hold
// every item once, in order, and that the last page carries no cursor.
func TestPaging(t *testing.T) {
	runs := 0
	r := quietRegistry(nil)
	if err := r.Add(numbersTool("t.numbers", 95, Budget{Items: 10}, &runs)); err != nil {
		t.Fatal(err)
	}
	tl, _ := r.Tool("t.numbers")
	if !Paged(tl) {
		t.Fatalf("not paged: inputs %v outputs %v", tl.Inputs, tl.Outputs)
	}
	in, out := r.InputSchemaJSON("t.numbers"), r.OutputSchemaJSON("t.numbers")
	if !strings.Contains(string(in), `"cursor"`) || !strings.Contains(string(out), `"next_cursor"`) {
		t.Errorf("schemas lack the cursor:\n%s\n%s", in, out)
	}
	ctx := WithAccount(context.Background(), &User{ID: "ann", Permissions: []string{"p"}})
	seen, pages := pageAll(t, r, ctx, "t.numbers", nil)
	if pages != 10 || runs != 10 {
		t.Errorf("%d pages, %d runs; want 10 each", pages, runs)
	}
	want := make([]int64, 95)
	for i := range want {
		want[i] = int64(i)
	}
	if diff := cmp.Diff(want, seen); diff != "" {
		t.Errorf("items seen (-want +got):\n%s", diff)
	}
	// A short list: one page, no cursor.
	res, _ := r.Run(ctx, "t.numbers", map[string]any{"prefix": "number 9"})
	if _, more := res.Outputs[NextCursorOutput]; more || len(res.Outputs["result"].([]any)) != 6 {
		t.Errorf("short list: %+v", res.Outputs)
	}
}

// TestPagingByteBudget checks that a page holds fewer items than the item
// budget when they would break the byte budget, and still every item
// once.
func TestPagingByteBudget(t *testing.T) {
	runs := 0
	r := quietRegistry(nil)
	if err := r.Add(numbersTool("t.numbers", 200, Budget{Items: 50, Bytes: 400}, &runs)); err != nil {
		t.Fatal(err)
	}
	ctx := WithAccount(context.Background(), &User{ID: "ann", Permissions: []string{"p"}})
	res, _ := r.Run(ctx, "t.numbers", nil)
	b, _ := json.Marshal(res.Outputs)
	if len(b) > 400 || res.Overflow != nil {
		t.Errorf("first page is %d bytes (overflow %v); want at most 400", len(b), res.Overflow)
	}
	seen, pages := pageAll(t, r, ctx, "t.numbers", nil)
	if len(seen) != 200 || pages <= 4 {
		t.Errorf("%d items in %d pages; want 200 in more than 4", len(seen), pages)
	}
	for i, n := range seen {
		if n != int64(i) {
			t.Fatalf("item %d is %d", i, n)
		}
	}
}

// TestCursorRefused checks that a cursor of another account, another
// tool, other inputs, or a changed one, is an input failure of the cursor
// with the rule cursor_invalid, and that the tool does not run.
func TestCursorRefused(t *testing.T) {
	runs := 0
	r := quietRegistry(nil)
	if err := r.Add(numbersTool("t.numbers", 30, Budget{Items: 10}, &runs), numbersTool("t.others", 30, Budget{Items: 10}, &runs)); err != nil {
		t.Fatal(err)
	}
	ann := WithAccount(context.Background(), &User{ID: "ann", Permissions: []string{"p"}})
	bob := WithAccount(context.Background(), &User{ID: "bob", Permissions: []string{"p"}})
	first, _ := r.Run(ann, "t.numbers", map[string]any{"prefix": "n", "secret": "s1"})
	cursor := first.Outputs[NextCursorOutput].(string)
	raw, _ := base64.RawURLEncoding.DecodeString(cursor)
	raw[0]++
	tampered := base64.RawURLEncoding.EncodeToString(raw)
	// The last character of unpadded base64 carries bits that a lenient
	// decoder drops: flipping its lowest bit must still be refused.
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	lastChanged := cursor[:len(cursor)-1] + string(alphabet[strings.IndexByte(alphabet, cursor[len(cursor)-1])^1])
	other := quietRegistry(nil) // another key
	other.Add(numbersTool("t.numbers", 30, Budget{Items: 10}, &runs))

	cases := []struct {
		name string
		r    *Registry
		ctx  context.Context
		id   string
		args map[string]any
	}{
		{"another account", r, bob, "t.numbers", map[string]any{"prefix": "n", "secret": "s1"}},
		{"another tool", r, ann, "t.others", map[string]any{"prefix": "n", "secret": "s1"}},
		{"other inputs", r, ann, "t.numbers", map[string]any{"prefix": "nu", "secret": "s1"}},
		{"another sensitive input", r, ann, "t.numbers", map[string]any{"prefix": "n", "secret": "s2"}},
		{"tampered", r, ann, "t.numbers", map[string]any{"prefix": "n", "secret": "s1", CursorInput: tampered}},
		{"last character changed", r, ann, "t.numbers", map[string]any{"prefix": "n", "secret": "s1", CursorInput: lastChanged}},
		{"not base64", r, ann, "t.numbers", map[string]any{"prefix": "n", "secret": "s1", CursorInput: "AAAA"}},
		{"another key", other, ann, "t.numbers", map[string]any{"prefix": "n", "secret": "s1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, ok := c.args[CursorInput]; !ok {
				c.args[CursorInput] = cursor
			}
			before := runs
			res, err := c.r.Run(c.ctx, c.id, c.args)
			if err != nil {
				t.Fatal(err)
			}
			if res.Failure != FailureInput || len(res.Violations) != 1 || res.Violations[0].Path != CursorInput || res.Violations[0].Rule != RuleCursorInvalid {
				t.Fatalf("got %+v; want an input failure of %s with rule %s", res, CursorInput, RuleCursorInvalid)
			}
			if runs != before {
				t.Errorf("the tool ran")
			}
		})
	}
	// Validate refuses it as a run does.
	if _, vs, err := r.Validate(bob, "t.numbers", map[string]any{"prefix": "n", "secret": "s1", CursorInput: cursor}); err != nil ||
		len(vs) != 1 || vs[0].Rule != RuleCursorInvalid {
		t.Errorf("Validate of another account's cursor: %v %v", vs, err)
	}
	if _, vs, err := r.Validate(ann, "t.numbers", map[string]any{"prefix": "n", "secret": "s1", CursorInput: cursor}); err != nil || len(vs) != 0 {
		t.Errorf("Validate of the cursor's own call: %v %v", vs, err)
	}
	// The cursor works for its own account, tool and inputs.
	res, _ := r.Run(ann, "t.numbers", map[string]any{"prefix": "n", "secret": "s1", CursorInput: cursor})
	if !res.Success || res.Outputs["result"].([]any)[0].(map[string]any)["n"] != int64(10) {
		t.Errorf("own cursor: %+v", res)
	}
}

// TestOverflow checks that a result over its byte budget carries no
// outputs but an Overflow, that the same account reads the outputs whole,
// and that another account, an unknown ID or an expired one reads
// nothing.
func TestOverflow(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r := quietRegistry(&Options{Budget: Budget{Bytes: 1000}})
	r.overflows.now = func() time.Time { return now }
	big := strings.Repeat("<word> ", 500)
	err := r.Add(&Tool{ID: "t.big", Label: "Big", Description: "Says a lot.", Operation: OpRead, Permission: "p",
		Inputs:  []*Definition{{Name: "n", Type: "integer"}},
		Outputs: []*Definition{{Name: "text", Type: "string", Required: true}, {Name: "count", Type: "integer", Required: true}},
		Handler: func(_ context.Context, in *Values) (*Result, error) {
			if in.Int("n") < 0 {
				return Failed("Big stopped partway.", map[string]any{"text": big, "count": int64(1)}), nil
			}
			return Succeeded("", map[string]any{"text": big[:in.Int("n")], "count": int64(7)}), nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	ann := WithAccount(context.Background(), &User{ID: "ann", Permissions: []string{"p"}})
	bob := WithAccount(context.Background(), &User{ID: "bob", Permissions: []string{"p"}})

	small, _ := r.Run(ann, "t.big", map[string]any{"n": int64(100)})
	if small.Overflow != nil || small.Outputs["text"] != big[:100] {
		t.Fatalf("small result: %+v", small)
	}
	res, _ := r.Run(ann, "t.big", map[string]any{"n": int64(len(big))})
	if !res.Success || res.Overflow == nil || len(res.Outputs) != 0 {
		t.Fatalf("big result: %+v", res)
	}
	want, _ := json.Marshal(map[string]any{"text": big, "count": 7})
	if res.Overflow.Bytes != len(want) || res.Overflow.Budget != 1000 || res.Overflow.Tool != "t.big" {
		t.Errorf("overflow %+v; want %d bytes over 1000", res.Overflow, len(want))
	}
	got, o, err := r.ReadOverflow(ann, res.Overflow.ID)
	if err != nil || !bytes.Equal(got, want) || o.ID != res.Overflow.ID {
		t.Errorf("read by its account: %v, %d bytes", err, len(got))
	}
	if _, _, err := r.ReadOverflow(bob, res.Overflow.ID); !errors.Is(err, ErrOverflowNotFound) {
		t.Errorf("read by another account: %v; want ErrOverflowNotFound", err)
	}
	if _, _, err := r.ReadOverflow(ann, "nope"); !errors.Is(err, ErrOverflowNotFound) {
		t.Errorf("unknown ID: %v", err)
	}
	// A failure carrying outputs over the budget keeps them aside too.
	failed, _ := r.Run(ann, "t.big", map[string]any{"n": int64(-1)})
	if failed.Success || failed.Failure != FailureRuntime || failed.Overflow == nil || len(failed.Outputs) != 0 ||
		!strings.HasPrefix(failed.Message, "Big stopped partway. Its outputs are") {
		t.Errorf("failure over the budget: %+v", failed)
	}
	// The CLI's runs keep all their outputs.
	full, _ := r.Run(WithFullOutputs(ann), "t.big", map[string]any{"n": int64(len(big))})
	if full.Overflow != nil || full.Outputs["text"] != big {
		t.Errorf("full outputs: overflow %+v", full.Overflow)
	}
	now = now.Add(DefaultOverflowTTL + time.Second)
	if _, _, err := r.ReadOverflow(ann, res.Overflow.ID); !errors.Is(err, ErrOverflowNotFound) {
		t.Errorf("expired: %v", err)
	}
}

// TestOverflowBound checks that the store forgets the oldest outputs to
// stay within its bound of bytes, and refuses outputs over the bound.
func TestOverflowBound(t *testing.T) {
	s := newOverflowStore(time.Hour, 100)
	a, _ := s.put("ann", Overflow{}, make([]byte, 60))
	b, _ := s.put("ann", Overflow{}, make([]byte, 30))
	c, _ := s.put("ann", Overflow{}, make([]byte, 30))
	if _, ok := s.get("ann", a.ID); ok {
		t.Error("the oldest was kept over the bound")
	}
	for _, o := range []Overflow{b, c} {
		if _, ok := s.get("ann", o.ID); !ok {
			t.Error("a newer one was dropped")
		}
	}
	if s.used != 60 {
		t.Errorf("used %d; want 60", s.used)
	}
	if _, ok := s.put("ann", Overflow{}, make([]byte, 101)); ok {
		t.Error("kept outputs over the whole bound")
	}
}

// TestBudgetDefinitionErrors checks the budgets a registry refuses.
func TestBudgetDefinitionErrors(t *testing.T) {
	runs := 0
	for _, c := range []struct {
		name string
		tool *Tool
	}{
		{"negative bytes", numbersTool("t.a", 1, Budget{Bytes: -1}, &runs)},
		{"negative items", numbersTool("t.b", 1, Budget{Items: -5}, &runs)},
		{"items on a write", &Tool{ID: "t.w", Label: "W", Description: "Writes.", Permission: "p", Budget: Budget{Items: 5},
			Outputs: []*Definition{{Name: "r", Type: "list", Items: &Definition{Type: "integer"}}},
			Handler: func(context.Context, *Values) (*Result, error) { return nil, nil }}},
		{"items without a list", &Tool{ID: "t.c", Label: "C", Description: "One.", Permission: "p", Budget: Budget{Items: 5},
			Outputs: []*Definition{{Name: "n", Type: "integer"}},
			Handler: func(context.Context, *Values) (*Result, error) { return nil, nil }}},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := quietRegistry(nil).Add(c.tool)
			var de *DefinitionError
			if !errors.As(err, &de) || de.Rule != "budget" {
				t.Errorf("got %v; want a definition error of budget", err)
			}
		})
	}
	// A registry's item budget pages only the tools it fits.
	r := quietRegistry(&Options{Budget: Budget{Items: 5}})
	err := r.Add(numbersTool("t.list", 20, Budget{}, &runs), &Tool{ID: "t.one", Label: "One", Description: "One.", Permission: "p",
		Outputs: []*Definition{{Name: "n", Type: "integer"}},
		Handler: func(context.Context, *Values) (*Result, error) { return nil, nil }})
	if err != nil {
		t.Fatal(err)
	}
	if l, _ := r.Tool("t.list"); !Paged(l) {
		t.Error("the list tool is not paged by the registry's budget")
	}
	if o, _ := r.Tool("t.one"); Paged(o) || len(o.Inputs) != 0 {
		t.Error("a tool without a list got a cursor")
	}
	w := numbersTool("t.write", 20, Budget{}, &runs)
	w.Operation = OpWrite
	if err := r.Add(w); err != nil {
		t.Fatal(err)
	}
	if w, _ := r.Tool("t.write"); Paged(w) {
		t.Error("a write tool is paged by the registry's budget")
	}
}

// TestJSONSize checks the size the budget measures against json.Marshal.
func TestJSONSize(t *testing.T) {
	for _, v := range []any{
		nil, true, false, "", "plain", "quote\" back\\ nl\n tab\t ctl\x01 html<>& bell\b ff\f", "é€𝄞 \u2028\u2029", "bad \xff utf8",
		int64(-12345), 3, json.Number("1.5e3"), 2.5, 1e21, float64(1) / 3,
		map[string]any{}, []any{}, map[string]any{"a": []any{int64(1), "x", nil, map[string]any{"k<": true}}, "b": 0.1},
		[]string{"typed", "fallback"},
	} {
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if got := jsonSize(v, 1<<30); got != len(want) {
			t.Errorf("jsonSize(%#v) = %d; json.Marshal writes %d: %s", v, got, len(want), want)
		}
	}
	if got := jsonSize(map[string]any{"a": strings.Repeat("x", 1000)}, 10); got <= 10 {
		t.Errorf("over the limit: %d", got)
	}
}

// TestOverflowConcurrent runs a tool over its byte budget and reads its
// outputs back from many goroutines at once, within a store bound that
// forgets older outputs meanwhile (run with -race).
func TestOverflowConcurrent(t *testing.T) {
	r := quietRegistry(&Options{Budget: Budget{Bytes: 100}, OverflowBytes: 20_000})
	err := r.Add(&Tool{ID: "t.big", Label: "Big", Description: "Says a lot.", Operation: OpRead, Permission: "p",
		Inputs:  []*Definition{{Name: "n", Type: "integer"}},
		Outputs: []*Definition{{Name: "text", Type: "string", Required: true}},
		Handler: func(_ context.Context, in *Values) (*Result, error) {
			return Succeeded("", map[string]any{"text": fmt.Sprintf("%0500d", in.Int("n"))}), nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	for g := range 8 {
		go func() {
			ctx := WithAccount(context.Background(), &User{ID: fmt.Sprint("user", g%2), Permissions: []string{"p"}})
			for i := range 50 {
				n := int64(g*1000 + i)
				res, _ := r.Run(ctx, "t.big", map[string]any{"n": n})
				if res.Overflow == nil {
					done <- fmt.Errorf("run %d: no overflow", n)
					return
				}
				data, _, err := r.ReadOverflow(ctx, res.Overflow.ID)
				if err == nil && !bytes.Contains(data, []byte(fmt.Sprintf("%0500d", n))) {
					done <- fmt.Errorf("run %d read another's outputs", n)
					return
				}
			}
			done <- nil
		}()
	}
	for range 8 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
	if r.overflows.used > 20_000 {
		t.Errorf("the store holds %d bytes, over its bound", r.overflows.used)
	}
}
