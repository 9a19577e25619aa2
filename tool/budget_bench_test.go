package tool

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkBudget measures what an item budget adds to the run path: the
// same tool over a list of 1,000 items, run through RunJSON without a
// budget of its own (the registry's default byte budget is measured, and
// passes) and with budget=50items, first page and a later one (its
// cursor checked), against the run path doing no budget work at all
// ("unmeasured", as with WithFullOutputs). Compare the ns/op of the sub-benchmarks of one run:
//
//	go test ./tool -run '^$' -bench BenchmarkBudget -count 5
func BenchmarkBudget(b *testing.B) {
	items := make([]any, 1000)
	for i := range items {
		items[i] = map[string]any{"n": int64(i), "name": fmt.Sprintf("item %d", i)}
	}
	mk := func(id string, budget Budget) *Tool {
		return &Tool{ID: id, Label: "List", Description: "Lists items.", Operation: OpRead, Permission: "p", Budget: budget,
			Inputs: []*Definition{{Name: "word", Type: "string"}},
			Outputs: []*Definition{{Name: "result", Type: "list", Required: true,
				Items: &Definition{Type: "map", Properties: []*Definition{{Name: "n", Type: "integer", Required: true}, {Name: "name", Type: "string", Required: true}}}}},
			Handler: func(context.Context, *Values) (*Result, error) {
				return Succeeded("", map[string]any{"result": items}), nil
			}}
	}
	r := quietRegistry(nil)
	if err := r.Add(mk("t.plain", Budget{}), mk("t.paged", Budget{Items: 50})); err != nil {
		b.Fatal(err)
	}
	ctx := WithAccount(context.Background(), &User{ID: "ann", Permissions: []string{"p"}})
	first, _ := r.RunJSON(ctx, "t.paged", []byte(`{"word":"x"}`))
	cursor := first.Outputs[NextCursorOutput].(string)
	for range 9 { // the 11th page
		res, _ := r.RunJSON(ctx, "t.paged", []byte(`{"word":"x","cursor":"`+cursor+`"}`))
		cursor = res.Outputs[NextCursorOutput].(string)
	}
	later := []byte(`{"word":"x","cursor":"` + cursor + `"}`)
	var runIn func(ctx context.Context, id string, args []byte, want int) func(b *testing.B)
	run := func(id string, args []byte, want int) func(b *testing.B) {
		return runIn(ctx, id, args, want)
	}
	runIn = func(ctx context.Context, id string, args []byte, want int) func(b *testing.B) {
		return func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				res, _ := r.RunJSON(ctx, id, args)
				if !res.Success || len(res.Outputs["result"].([]any)) != want {
					b.Fatalf("%+v", res)
				}
			}
		}
	}
	// Without any budget work: the byte budget is not measured either,
	// as for the command line. This is the run path as it was before
	// budgets.
	b.Run("unmeasured", runIn(WithFullOutputs(ctx), "t.plain", []byte(`{"word":"x"}`), 1000))
	b.Run("none", run("t.plain", []byte(`{"word":"x"}`), 1000))
	b.Run("50items/first", run("t.paged", []byte(`{"word":"x"}`), 50))
	b.Run("50items/later", run("t.paged", later, 50))
}

// BenchmarkBudgetStep measures the budget step of the run path alone, on
// the published result of the 1,000-item tool of BenchmarkBudget: the
// byte budget measured (no budget of its own), and a page of 50 items cut
// and its cursor signed, first page and a later one (its cursor opened).
//
//	go test ./tool -run '^$' -bench BenchmarkBudgetStep -count 5
func BenchmarkBudgetStep(b *testing.B) {
	items := make([]any, 1000)
	for i := range items {
		items[i] = map[string]any{"n": int64(i), "name": fmt.Sprintf("item %d", i)}
	}
	r := quietRegistry(nil)
	mk := func(id string, budget Budget) *Tool {
		return &Tool{ID: id, Label: "List", Description: "Lists items.", Operation: OpRead, Permission: "p", Budget: budget,
			Inputs:  []*Definition{{Name: "word", Type: "string"}},
			Outputs: []*Definition{{Name: "result", Type: "list", Required: true, Items: &Definition{Type: "any"}}},
			Handler: func(context.Context, *Values) (*Result, error) { return nil, nil }}
	}
	if err := r.Add(mk("t.plain", Budget{}), mk("t.paged", Budget{Items: 50})); err != nil {
		b.Fatal(err)
	}
	acct := &User{ID: "ann", Permissions: []string{"p"}}
	ctx := WithAccount(context.Background(), acct)
	out := &Result{Success: true, Message: "done", Outputs: map[string]any{"result": items}}
	step := func(id string, cursor bool) func(b *testing.B) {
		e := r.entry(id)
		args := `{"word":"x"}`
		offset := 0
		if cursor {
			in, _ := r.decode(ctx, e, arguments{doc: []byte(args), isDoc: true})
			args = `{"word":"x","cursor":"` + r.signCursor(acct, e, in, 500) + `"}`
		}
		in, vs := r.decode(ctx, e, arguments{doc: []byte(args), isDoc: true})
		if len(vs) > 0 {
			b.Fatal(vs)
		}
		return func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if cursor {
					var ok bool
					if offset, ok = r.openCursor(acct, e, in, in.String(CursorInput)); !ok {
						b.Fatal("cursor refused")
					}
				}
				if res := r.budgeted(ctx, e, acct, in, offset, out); res.Overflow != nil {
					b.Fatal("overflow")
				}
			}
		}
	}
	b.Run("none", step("t.plain", false))
	b.Run("50items/first", step("t.paged", false))
	b.Run("50items/later", step("t.paged", true))
}
