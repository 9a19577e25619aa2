package tool

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestDefaultsAreNotShared checks that no run sees what another did to a
// list or map default, and that a list-of-entities default is loaded and
// access-checked on every run.
func TestDefaultsAreNotShared(t *testing.T) {
	loads := 0
	r := NewRegistry(&Options{Logger: slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil))})
	r.AddEntityType(albumType(&loads))
	var got *Values
	err := r.Add(
		&Tool{ID: "t.entities", Label: "E", Description: "Takes albums.", Permission: "p",
			Inputs:  []*Definition{{Name: "albums", Type: "list", Items: &Definition{Type: "entity:album"}, EntityOp: "update", Default: []any{"1"}}},
			Handler: func(_ context.Context, in *Values) (*Result, error) { got = in; return nil, nil }},
		&Tool{ID: "t.map", Label: "M", Description: "Changes its map.", Permission: "p",
			Inputs: []*Definition{{Name: "m", Type: "map", Default: map[string]any{"a": 1.0}}},
			Handler: func(_ context.Context, in *Values) (*Result, error) {
				m := in.Map("m")
				if len(m) != 1 {
					return nil, fmt.Errorf("the default has %d keys", len(m))
				}
				m["b"] = 2.0
				return nil, nil
			}},
	)
	if err != nil {
		t.Fatal(err)
	}
	if res, _ := r.RunJSON(WithAccount(context.Background(), editor), "t.entities", nil); !res.Success {
		t.Fatalf("owner: %+v", res)
	}
	other := &User{ID: "mallory", Permissions: []string{"p"}}
	res, _ := r.RunJSON(WithAccount(context.Background(), other), "t.entities", nil)
	if res.Failure != FailureAccess || loads != 2 {
		t.Errorf("another account on the default: %+v after %d loads; want an access failure after a second load", res, loads)
	}
	for range 2 {
		if res, _ := r.RunJSON(WithAccount(context.Background(), editor), "t.map", nil); !res.Success {
			t.Errorf("map default: %+v", res)
		}
	}
	_ = got
}

// TestPanicsOutsideTheHandler checks that a panic in an access method, a
// data type check or an entity type fails the run like a handler's.
func TestPanicsOutsideTheHandler(t *testing.T) {
	var logs bytes.Buffer
	r := NewRegistry(&Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	r.AddType(&DataType{Name: "boom", Base: "string", Check: func(any) string { panic("secret check state") }})
	h := func(context.Context, *Values) (*Result, error) { return nil, nil }
	err := r.Add(
		&Tool{ID: "t.access", Label: "Access", Description: "Panics in access.", Handler: h,
			Access: func(context.Context, *Values) (bool, error) { panic("secret access state") }},
		&Tool{ID: "t.check", Label: "Check", Description: "Panics in a check.", Permission: "p", Handler: h,
			Inputs: []*Definition{{Name: "x", Type: "boom", Required: true}}},
	)
	if err != nil {
		t.Fatal(err)
	}
	ctx := WithAccount(context.Background(), editor)
	for _, c := range []struct{ id, args, secret string }{{"t.access", "", "secret access state"}, {"t.check", `{"x":"a"}`, "secret check state"}} {
		res, err := r.RunJSON(ctx, c.id, []byte(c.args))
		if err != nil || res.Failure != FailureRuntime || !res.Internal || strings.Contains(res.Message, "secret") {
			t.Errorf("%s: %+v %v; want a runtime failure hiding the panic", c.id, res, err)
		}
		if !strings.Contains(logs.String(), c.secret) {
			t.Errorf("%s: the panic was not logged", c.id)
		}
	}
}

// TestRefusalsSayWhy checks that an access method, an entity type and a
// handler can refuse a run with a reason the caller sees.
func TestRefusalsSayWhy(t *testing.T) {
	r := newQuietRegistry()
	et := albumType(nil)
	et.ID = "song"
	et.Access = func(_ context.Context, acct Account, e any, op string) (bool, error) {
		return false, fmt.Errorf("checking: %w", Refuse("songs are read-only this week"))
	}
	r.AddEntityType(et)
	h := func(context.Context, *Values) (*Result, error) { return nil, Refuse("the album is locked!") }
	err := r.Add(
		&Tool{ID: "t.publish", Label: "Publish", Description: "Publishes.", Handler: h,
			Access: func(_ context.Context, in *Values) (bool, error) {
				if in.Bool("mine") {
					return true, nil
				}
				return false, Refuse("only the album's owner may publish it")
			},
			Inputs: []*Definition{{Name: "mine", Type: "boolean"}}},
		&Tool{ID: "t.song", Label: "Play", Description: "Plays.", Handler: h,
			Inputs: []*Definition{{Name: "song", Type: "entity:song", Required: true, EntityOp: "play"}}},
	)
	if err != nil {
		t.Fatal(err)
	}
	ctx := WithAccount(context.Background(), editor)
	for _, c := range []struct{ id, args, want string }{
		{"t.publish", `{}`, "You may not run Publish: only the album's owner may publish it."},
		{"t.publish", `{"mine":true}`, "You may not run Publish: the album is locked!"},
		{"t.song", `{"song":"1"}`, "You may not run Play: songs are read-only this week."},
	} {
		res, _ := r.RunJSON(ctx, c.id, []byte(c.args))
		if res.Failure != FailureAccess || res.Message != c.want {
			t.Errorf("%s %s: %+v, want an access failure %q", c.id, c.args, res, c.want)
		}
	}
}

// The errors of a service that knows nothing of toolapi.
var (
	errNoRow    = errors.New("no row")
	errTaken    = errors.New("title taken")
	errNotOwner = errors.New("not the owner")
	errLocked   = errors.New("album locked")
	errHalfway  = errors.New("disk full after some comments")
)

// TestMapError checks that Options.MapError gives a service's own errors
// their meaning on every part of the run path (entity loads, access
// methods, handlers, checks) and that an error it does not map stays
// hidden.
func TestMapError(t *testing.T) {
	var log bytes.Buffer
	r := NewRegistry(&Options{
		Logger: slog.New(slog.NewTextHandler(&log, nil)),
		MapError: func(err error) error {
			switch {
			case errors.Is(err, errNoRow):
				return fmt.Errorf("mapped: %w", ErrEntityNotFound)
			case errors.Is(err, errTaken):
				return &InputError{Input: "title", Message: "another album has this title"}
			case errors.Is(err, errNotOwner):
				return Refuse("only the album's owner may rename it")
			case errors.Is(err, errLocked):
				return &RunError{Message: "The album is locked for editing.", Err: err}
			case errors.Is(err, errHalfway):
				return &RunError{Message: "The disk filled up partway.", Partial: true, Err: err}
			}
			return nil
		},
	})
	err := r.AddEntityType(&EntityType{ID: "album", Label: "Album",
		Load: func(_ context.Context, id string) (any, error) {
			if id == "1" {
				return id, nil
			}
			return nil, fmt.Errorf("select album %s: %w", id, errNoRow)
		},
		Access:   func(context.Context, Account, any, string) (bool, error) { return true, nil },
		Describe: func(e any) (string, string, bool) { s, ok := e.(string); return s, s, ok },
	})
	if err != nil {
		t.Fatal(err)
	}
	err = r.Add(&Tool{ID: "t.rename", Label: "Rename", Description: "Renames an album.", Permission: "p",
		Inputs: []*Definition{
			{Name: "album", Type: "entity:album", EntityOp: "update", Required: true},
			{Name: "title", Type: "string", Required: true},
		},
		Outputs: []*Definition{{Name: "moved", Type: "integer", Required: true}},
		Access: func(_ context.Context, in *Values) (bool, error) {
			if in.String("title") == "theirs" {
				return false, fmt.Errorf("checking the owner: %w", errNotOwner)
			}
			return true, nil
		},
		Handler: func(_ context.Context, in *Values) (*Result, error) {
			switch in.String("title") {
			case "taken":
				return nil, fmt.Errorf("update: %w", errTaken)
			case "locked":
				return nil, errLocked
			case "half":
				return Failed("", map[string]any{"moved": 3}), errHalfway
			case "secret":
				return nil, errors.New("pq: password authentication failed for user admin")
			}
			return Succeeded("", map[string]any{"moved": 6}), nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := WithAccount(context.Background(), editor)
	tests := []struct {
		args string
		want *Result
	}{
		{`{"album":"2","title":"x"}`, &Result{Message: `Invalid input for Rename: album: no album has the ID "2"`, Failure: FailureInput,
			Violations: []Violation{{Path: "album", Rule: RuleEntityNotFound, Message: `no album has the ID "2"`, Detail: "album", Value: "2"}}}},
		{`{"album":"1","title":"taken"}`, &Result{Message: "Invalid input for Rename: title: another album has this title", Failure: FailureInput,
			Violations: []Violation{{Path: "title", Rule: RuleHandler, Message: "another album has this title"}}}},
		{`{"album":"1","title":"theirs"}`, &Result{Message: "You may not run Rename: only the album's owner may rename it.", Failure: FailureAccess}},
		{`{"album":"1","title":"locked"}`, &Result{Message: "The album is locked for editing.", Failure: FailureRuntime}},
		{`{"album":"1","title":"half"}`, &Result{Message: "The disk filled up partway.", Failure: FailureRuntime, Outputs: map[string]any{"moved": int64(3)}}},
		{`{"album":"1","title":"secret"}`, &Result{Message: "Rename failed.", Failure: FailureRuntime, Internal: true}},
		{`{"album":"1","title":"fine"}`, &Result{Success: true, Message: "Rename completed.", Outputs: map[string]any{"moved": int64(6)}}},
	}
	for _, tt := range tests {
		res, err := r.RunJSON(ctx, "t.rename", []byte(tt.args))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, res, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.args, diff)
		}
	}
	for _, cause := range []string{"album locked", "disk full after some comments", "pq: password authentication failed"} {
		if !strings.Contains(log.String(), cause) {
			t.Errorf("the log lacks the cause %q:\n%s", cause, log.String())
		}
	}
	// A check maps the entity type's error the same way.
	_, vs, err := r.ValidateJSON(ctx, "t.rename", []byte(`{"album":"2","title":"x"}`))
	if want := []Violation{{Path: "album", Rule: RuleEntityNotFound, Message: `no album has the ID "2"`, Detail: "album", Value: "2"}}; err != nil || !cmp.Equal(vs, want) {
		t.Errorf("check: %v %v, want %v", vs, err, want)
	}
	// Without MapError, a handler may return a RunError itself.
	plain := newTestRegistry(t, &Tool{ID: "t.plain", Label: "Plain", Description: "Fails.", Permission: "p",
		Handler: func(context.Context, *Values) (*Result, error) {
			return nil, &RunError{Message: "Nothing was changed.", Err: errors.New("db down")}
		}})
	if res, _ := plain.RunJSON(ctx, "t.plain", nil); res.Message != "Nothing was changed." || res.Failure != FailureRuntime {
		t.Errorf("a RunError without MapError: %+v", res)
	}
}

// asking is a Confirmer that records the questions it is asked.
type asking struct{ questions []string }

func (a *asking) Confirm(_ context.Context, _ *Tool, question string) (bool, error) {
	a.questions = append(a.questions, question)
	return true, nil
}

// TestConfirmLeavesOutSensitive checks that the question a Confirmer is
// given names the inputs the caller set, entities by ID, and never a
// sensitive value, at the top or inside a map.
func TestConfirmLeavesOutSensitive(t *testing.T) {
	r := newQuietRegistry()
	if err := r.AddEntityType(albumType(nil)); err != nil {
		t.Fatal(err)
	}
	err := r.Add(
		&Tool{ID: "t.login", Label: "Log in", Description: "Logs in.", Permission: "p", Confirm: true,
			Inputs: []*Definition{
				{Name: "user", Type: "string", Required: true},
				{Name: "password", Type: "string", Required: true, Sensitive: true},
				{Name: "album", Type: "entity:album", EntityOp: "view"},
				{Name: "opts", Type: "map", Properties: []*Definition{{Name: "pin", Type: "string", Sensitive: true}, {Name: "when", Type: "duration"}}},
			},
			Handler: func(context.Context, *Values) (*Result, error) { return nil, nil }},
		&Tool{ID: "t.wipe", Label: "Wipe", Description: "Wipes.", Permission: "p", Confirm: true,
			Inputs:  []*Definition{{Name: "key", Type: "string", Sensitive: true}},
			Handler: func(context.Context, *Values) (*Result, error) { return nil, nil }},
	)
	if err != nil {
		t.Fatal(err)
	}
	a := &asking{}
	ctx := WithConfirmer(WithAccount(context.Background(), editor), a)
	if res, _ := r.RunJSON(ctx, "t.login", []byte(`{"user":"ann","password":"hunter2","album":"1","opts":{"pin":"1234","when":"PT1M"}}`)); !res.Success {
		t.Fatalf("run: %+v", res)
	}
	if res, _ := r.Run(ctx, "t.wipe", map[string]any{"key": "k-9f2"}); !res.Success {
		t.Fatalf("run: %+v", res)
	}
	want := []string{
		`Run Log in (t.login) with {"album":"1","opts":{"when":"PT1M"},"user":"ann"}?`,
		`Run Wipe (t.wipe)?`,
	}
	if diff := cmp.Diff(want, a.questions); diff != "" {
		t.Errorf("questions (-want +got):\n%s", diff)
	}
	for _, q := range a.questions {
		for _, secret := range []string{"hunter2", "1234", "k-9f2"} {
			if strings.Contains(q, secret) {
				t.Errorf("the question %q shows the sensitive value %q", q, secret)
			}
		}
	}
}

// TestInternalFailures checks that a run's failure is internal when the
// tool did not say it (a panic, a plain error, outputs that break their
// definitions) and not when it did (Failed, a RunError, a refusal).
func TestInternalFailures(t *testing.T) {
	r := newQuietRegistry()
	handlers := map[string]func(context.Context, *Values) (*Result, error){
		"t.panic":   func(context.Context, *Values) (*Result, error) { panic("secret") },
		"t.error":   func(context.Context, *Values) (*Result, error) { return nil, errors.New("secret") },
		"t.outputs": func(context.Context, *Values) (*Result, error) { return Succeeded("", map[string]any{"n": "x"}), nil },
		"t.failed":  func(context.Context, *Values) (*Result, error) { return Failed("Out of luck.", nil), nil },
		"t.runerr": func(context.Context, *Values) (*Result, error) {
			return nil, &RunError{Message: "Out of luck.", Err: errors.New("secret")}
		},
		"t.refuse": func(context.Context, *Values) (*Result, error) { return nil, Refuse("not today") },
	}
	for id, h := range handlers {
		if err := r.Add(&Tool{ID: id, Label: "T", Description: "Fails.", Permission: "p", Handler: h,
			Outputs: []*Definition{{Name: "n", Type: "integer"}}}); err != nil {
			t.Fatal(err)
		}
	}
	ctx := WithAccount(context.Background(), editor)
	for id, internal := range map[string]bool{"t.panic": true, "t.error": true, "t.outputs": true, "t.failed": false, "t.runerr": false, "t.refuse": false} {
		res, err := r.RunJSON(ctx, id, nil)
		if err != nil || res.Success || res.Internal != internal {
			t.Errorf("%s: %+v %v, want a failure with Internal %v", id, res, err, internal)
		}
	}
}
