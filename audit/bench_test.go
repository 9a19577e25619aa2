package audit_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/toolapi/toolapi/audit"
	"github.com/toolapi/toolapi/tool"
)

// BenchmarkWriteUnderRefusals measures a permitted write run on SQLite
// while four goroutines send refused runs, each about one a millisecond:
// with refusals counted (the default), with each refusal written (the old
// way), and with no refusals at all (the baseline). Compare the ns/op as
// ratios to the baseline:
//
//	go test -run '^$' -bench WriteUnderRefusals ./audit
func BenchmarkWriteUnderRefusals(b *testing.B) {
	for _, c := range []struct {
		name   string
		window int // RefusalWindow: 0 counts, -1 writes each
		flood  bool
	}{{"no-refusals", 0, false}, {"each-refusal-written", -1, true}, {"refusals-counted", 0, true}} {
		b.Run(c.name, func(b *testing.B) {
			store := newSQLite(b)
			reg := tool.NewRegistry(&tool.Options{Logger: quiet})
			err := reg.Add(&tool.Tool{
				ID: "site.publish", Label: "Publish", Description: "Publishes the site.", Operation: tool.OpWrite, Permission: "administer",
				Inputs:  []*tool.Definition{{Name: "note", Type: "string", Required: true}},
				Handler: func(context.Context, *tool.Values) (*tool.Result, error) { return nil, nil },
			})
			if err != nil {
				b.Fatal(err)
			}
			trail := audit.New(store, &audit.Options{Logger: quiet, RefusalWindow: time.Duration(c.window)})
			reg.Use(trail.Middleware())
			ctx, cancel := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			for range 4 {
				if !c.flood {
					break
				}
				wg.Go(func() {
					tick := time.NewTicker(time.Millisecond)
					defer tick.Stop()
					for ctx.Err() == nil {
						reg.RunJSON(tool.WithAccount(ctx, nobody), "site.publish", []byte(`{"note":"x"}`))
						<-tick.C
					}
				})
			}
			actx := tool.WithAccount(context.Background(), admin)
			b.ResetTimer()
			for b.Loop() {
				if r, _ := reg.RunJSON(actx, "site.publish", []byte(`{"note":"spring"}`)); !r.Success {
					b.Fatalf("the permitted write: %s", r.Message)
				}
			}
			b.StopTimer()
			cancel()
			wg.Wait()
			trail.Close(context.Background())
		})
	}
}
