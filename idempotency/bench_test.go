package idempotency_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/toolapi/toolapi/idempotency"
	"github.com/toolapi/toolapi/tool"
)

// BenchmarkRun measures what a key adds to a run of a write tool that
// inserts a row, on SQLite: plain is the run without the middleware,
// nokey the run through the middleware without a key, newkey a run with
// a new key each time (claim, run, keep the result), repeat a repeat of
// one key (answered from the database, the tool not run). Compare each
// with plain of the same run:
//
//	go test ./idempotency -run '^$' -bench Run -benchtime 2000x
func BenchmarkRun(b *testing.B) {
	for _, name := range []string{"plain", "nokey", "newkey", "repeat"} {
		b.Run(name, func(b *testing.B) {
			db := databases()["sqlite"](b)
			f := newFixture(b, db, nil)
			if name == "plain" {
				f.reg = plainRegistry(b, f)
			}
			ctx := tool.WithAccount(context.Background(), alice)
			if name == "repeat" {
				f.reg.RunJSON(ctx, "shop.order", []byte(`{"item":"tea","idempotency_key":"same"}`))
			}
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				args := `{"item":"tea"}`
				switch name {
				case "newkey":
					args = fmt.Sprintf(`{"item":"tea","idempotency_key":"k%d"}`, i)
				case "repeat":
					args = `{"item":"tea","idempotency_key":"same"}`
				}
				r, err := f.reg.RunJSON(ctx, "shop.order", []byte(args))
				if err != nil || !r.Success {
					b.Fatalf("%v %+v", err, r)
				}
			}
		})
	}
}

// plainRegistry returns a registry of f's tools without the middleware.
func plainRegistry(b *testing.B, f *fixture) *tool.Registry {
	reg := tool.NewRegistry(&tool.Options{Logger: quiet, Adjust: idempotency.AddInput})
	for _, t := range f.reg.List(nil) {
		if err := reg.Add(t); err != nil {
			b.Fatal(err)
		}
	}
	return reg
}
