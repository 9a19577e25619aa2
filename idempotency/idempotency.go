// Package idempotency makes the runs of tools that change things safe to
// repeat: a write or trigger tool takes an optional input, the
// idempotency key, and a run repeated with the same key, for the same
// account, with the same inputs, answers what the first run answered
// without running again.
//
//	keys, err := idempotency.NewSQLStore(db, nil) // the application's database
//	if err != nil { ... }
//	if err := keys.Migrate(ctx); err != nil { ... }
//	reg := tool.NewRegistry(&tool.Options{Adjust: idempotency.AddInput})
//	reg.Use(idempotency.Middleware(keys, nil))
//
// [AddInput] gives every write and trigger tool the input [Input]
// ("idempotency_key"), optional, so that it is in every caller's schema:
// MCP's input schemas, function-calling exports, the explorer's form and
// the command line (--idempotency-key). A tool that declares an input of
// that name itself keeps its own, and runs without this package's keys:
// its input is its business.
//
// A key is 1 to [MaxKeyLength] visible ASCII characters (no spaces). The
// first run with a key claims it, with one INSERT that the database's
// unique key settles, so that among processes sharing the database one
// run, and only one, runs. A repeat:
//
//   - with the same inputs, once the first run ended, answers the first
//     run's result, without running;
//   - with the same inputs while the first still runs, waits for it, at
//     most [Options.Wait], then answers its result, or fails saying the
//     first still runs; it never runs the tool a second time;
//   - with other inputs (or for another tool) fails as an input failure,
//     a violation of [Input] with the rule [RuleKeyReused].
//
// What is kept of a run: its account, its key, the SHA-256 of its tool
// and inputs (sensitive inputs included in the hash, never stored) and,
// once it ended, its result (the message and the outputs the caller was
// sent). Results of runs refused before the tool ran (bad inputs, access
// refused, a confirmation asked) are not kept: the key is released, and a
// repeat runs. A key expires [Options.TTL] after its run started (24
// hours by default); expired keys are deleted.
//
// A process that stops after a run's changes are committed but before its
// result is kept leaves the key claimed as running. Once the claim's
// lease ([Options.Lease]) has passed, a repeat takes the key over and
// runs the tool again: for a tool whose method is not itself idempotent,
// such a crash can still make a second change.
package idempotency

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"time"

	"github.com/toolapi/toolapi/tool"
)

// Input is the name of the idempotency key's input.
const Input = "idempotency_key"

// MaxKeyLength is the most characters of a key.
const MaxKeyLength = 200

// RuleKeyReused is the rule key of the violation of a key repeated with
// other inputs, or for another tool, than its first run's.
const RuleKeyReused = "idempotency_key_reused"

// keyInput returns the definition of the key's input.
func keyInput() *tool.Definition {
	one, most := 1, MaxKeyLength
	return &tool.Definition{
		Name:  Input,
		Type:  "string",
		Label: "Idempotency key",
		Description: "Optional. A key of your choosing (1 to 200 visible ASCII characters) that makes this run safe to repeat: " +
			"a repeat with the same key and inputs answers the first run's result without running again.",
		Constraints: tool.Constraints{
			NotBlank: true,
			Length:   &tool.Bounds{Min: &one, Max: &most},
			Pattern:  `^[!-~]+$`,
		},
	}
}

// Keyed reports whether t takes this package's idempotency key: it is a
// write or trigger tool whose last input is [Input], as [AddInput] made
// it.
func Keyed(t *tool.Tool) bool {
	op := t.EffectiveOperation()
	if op != tool.OpWrite && op != tool.OpTrigger || len(t.Inputs) == 0 {
		return false
	}
	last := t.Inputs[len(t.Inputs)-1]
	return last.Name == Input && last.Label == "Idempotency key" && !last.Required
}

// AddInput is a [tool.Options.Adjust] function: it appends the input
// [Input] to a write or trigger tool that has no input of that name, and
// returns other tools as they are. The input goes last, so the tool's own
// inputs keep their positions.
func AddInput(t *tool.Tool) (*tool.Tool, error) {
	op := t.EffectiveOperation()
	if op != tool.OpWrite && op != tool.OpTrigger {
		return t, nil
	}
	for _, d := range t.Inputs {
		if d.Name == Input {
			return t, nil
		}
	}
	t.Inputs = append(t.Inputs[:len(t.Inputs):len(t.Inputs)], keyInput())
	return t, nil
}

// A Claim is a run's hold on its key.
type Claim struct {
	Account, Key string
	// Request is the hex SHA-256 of the run's tool and inputs.
	Request string
	// Owner is a random token naming the run that holds the claim.
	Owner string
	// Started is when the claim was made; Expires when the key expires;
	// Lease when a running claim may be taken over.
	Started, Expires, Lease time.Time
}

// A Kept is what a store holds of a key claimed already.
type Kept struct {
	// Request is the hex SHA-256 of the first run's tool and inputs.
	Request string
	// Done is whether the first run ended; Result its result, as JSON.
	Done   bool
	Result []byte
	// Lease is when a claim still running may be taken over.
	Lease time.Time
}

// A Store keeps idempotency keys. Its methods must be safe for concurrent
// use, and Claim atomic among all the processes that share the store.
type Store interface {
	// Claim claims c's key for c's account: it reports true when the key
	// was free (or expired, or held by a claim running past its lease),
	// else what is kept of the key.
	Claim(ctx context.Context, c *Claim, now time.Time) (bool, *Kept, error)
	// Finish keeps result as the outcome of c's claim.
	Finish(ctx context.Context, c *Claim, result []byte) error
	// Release deletes c's claim: its run did not run the tool.
	Release(ctx context.Context, c *Claim) error
	// Look returns what is kept of the key, or nil.
	Look(ctx context.Context, account, key string) (*Kept, error)
	// Purge deletes the keys expired at now.
	Purge(ctx context.Context, now time.Time) error
}

// Options configure [Middleware]; nil means the defaults of each field.
type Options struct {
	// TTL is how long a key is kept after its run started. Zero means
	// [DefaultTTL].
	TTL time.Duration
	// Wait is the longest a repeat waits for the first run still running.
	// Zero means [DefaultWait]; negative means not at all.
	Wait time.Duration
	// Lease is how long a run's claim holds before a repeat may take it
	// over (its process is taken to have died). Zero means
	// [DefaultLease]; it should exceed the longest run.
	Lease time.Duration
	// Logger receives the failures of the store. Nil means slog.Default.
	Logger *slog.Logger
	// Now is the clock. Nil means time.Now.
	Now func() time.Time
}

// Defaults of [Options].
const (
	DefaultTTL   = 24 * time.Hour
	DefaultWait  = 30 * time.Second
	DefaultLease = 15 * time.Minute
)

// purgeEvery is how often, at most, a middleware deletes expired keys.
const purgeEvery = time.Minute

// Middleware returns the [tool.Middleware] that makes the runs of
// [Keyed] tools carrying a key repeat-safe, keeping keys in store.
func Middleware(store Store, opts *Options) tool.Middleware {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.TTL <= 0 {
		o.TTL = DefaultTTL
	}
	if o.Wait == 0 {
		o.Wait = DefaultWait
	}
	if o.Lease <= 0 {
		o.Lease = DefaultLease
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	p := &purger{}
	return func(next tool.RunFunc) tool.RunFunc {
		return func(ctx context.Context, c *tool.Call) *tool.Result {
			if c.Check || !Keyed(c.Tool) {
				return next(ctx, c)
			}
			wctx := context.WithoutCancel(ctx)
			var claim *Claim
			prev := c.Decoded
			c.Decoded = func(ctx context.Context, c *tool.Call) *tool.Result {
				if prev != nil {
					if r := prev(ctx, c); r != nil {
						return r
					}
				}
				key := c.Inputs.String(Input)
				if key == "" {
					return nil
				}
				now := o.Now()
				p.maybe(wctx, store, now, o.Logger)
				cl := &Claim{Account: c.Account.AccountID(), Key: key, Request: requestHash(c), Owner: rand.Text(),
					Started: now, Expires: now.Add(o.TTL), Lease: now.Add(o.Lease)}
				deadline := now.Add(max(o.Wait, 0))
				for {
					won, kept, err := store.Claim(wctx, cl, o.Now())
					if err != nil {
						o.Logger.Error("idempotency key cannot be claimed", "tool", c.Tool.ID, "error", err.Error())
						return tool.Failed(c.Tool.Label+" did not run: its idempotency key could not be checked. Try again.", nil)
					}
					if won {
						claim = cl
						return nil
					}
					if r := answer(ctx, store, c, cl, kept, deadline, &o); r != nil {
						return r
					}
					// The first run ended without a result to keep (it
					// was refused), so its key was released: claim it.
				}
			}
			r := next(ctx, c)
			if claim == nil {
				return r
			}
			if keep(r) {
				b, err := json.Marshal(r)
				if err == nil {
					err = store.Finish(wctx, claim, b)
				}
				if err != nil {
					o.Logger.Error("the result of a run cannot be kept under its idempotency key; a repeat will run again once the lease ends",
						"tool", c.Tool.ID, "error", err.Error())
				}
				return r
			}
			if err := store.Release(wctx, claim); err != nil {
				o.Logger.Error("an idempotency key cannot be released", "tool", c.Tool.ID, "error", err.Error())
			}
			return r
		}
	}
}

// keep reports whether r is the outcome of a run that ran the tool: a
// success or a failure while running. Refusals and bad inputs are not.
func keep(r *tool.Result) bool {
	return r != nil && (r.Success || r.Failure == tool.FailureRuntime)
}

// answer answers a repeat of a key claimed already: the kept result, once
// the first run ended, waiting for it until deadline. It returns nil when
// the key was released meanwhile, to be claimed anew.
func answer(ctx context.Context, store Store, c *tool.Call, cl *Claim, kept *Kept, deadline time.Time, o *Options) *tool.Result {
	pause := 10 * time.Millisecond
	for {
		if kept == nil {
			return nil
		}
		if kept.Request != cl.Request {
			return &tool.Result{
				Message: "Invalid input for " + c.Tool.Label + ": " + Input + ": this key was used with other inputs; use a new key for new inputs.",
				Failure: tool.FailureInput,
				Violations: []tool.Violation{{Path: Input, Rule: RuleKeyReused,
					Message: "this key was used with other inputs; use a new key for new inputs"}},
			}
		}
		if kept.Done {
			var r tool.Result
			if err := decodeResult(kept.Result, &r); err != nil {
				o.Logger.Error("a kept result cannot be read", "tool", c.Tool.ID, "error", err.Error())
				return tool.Failed(c.Tool.Label+" ran already with this idempotency key, but its result cannot be read.", nil)
			}
			c.Replayed = true
			return &r
		}
		if !o.Now().Before(deadline) {
			return tool.Failed(c.Tool.Label+" is still running with this idempotency key; repeat the call later for its result.", nil)
		}
		select {
		case <-ctx.Done():
			return &tool.Result{Message: c.Tool.Label + " was cancelled while waiting for the run with this idempotency key.", Failure: tool.FailureRuntime}
		case <-time.After(pause):
		}
		pause = min(pause*2, 250*time.Millisecond)
		var err error
		if kept, err = store.Look(context.WithoutCancel(ctx), cl.Account, cl.Key); err != nil {
			o.Logger.Error("idempotency key cannot be read", "tool", c.Tool.ID, "error", err.Error())
			return tool.Failed(c.Tool.Label+" did not run: its idempotency key could not be checked. Try again.", nil)
		}
	}
}

func decodeResult(b []byte, r *tool.Result) error {
	dec := json.NewDecoder(bytesReader(b))
	dec.UseNumber()
	return dec.Decode(r)
}

// requestHash returns the hex SHA-256 of the run's tool and inputs but
// the key, sensitive inputs included: they are hashed, never kept.
func requestHash(c *tool.Call) string {
	in := make(map[string]any)
	for name, v := range c.Inputs.All() {
		if name != Input {
			in[name] = v
		}
	}
	b, err := json.Marshal(struct {
		Tool   string         `json:"tool"`
		Inputs map[string]any `json:"inputs"`
	}{c.Tool.ID, in})
	if err != nil {
		b = append([]byte(c.Tool.ID+"\n"), c.InputsJSON()...)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// ErrNoClaim is returned by Finish when the run no longer holds its claim
// (another took it over after its lease).
var ErrNoClaim = errors.New("idempotency: the claim is no longer held")
