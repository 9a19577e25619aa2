package tool

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMiddleware checks that middleware wraps every run, first added
// outermost, sees refusals and decoded inputs, and may answer in the
// run's place.
func TestMiddleware(t *testing.T) {
	ran := 0
	r := newQuietRegistry()
	r.AddEntityType(albumType(nil))
	err := r.Add(&Tool{ID: "t.login", Label: "Log in", Description: "Logs in.", Permission: "p",
		Inputs: []*Definition{
			{Name: "user", Type: "string", Required: true},
			{Name: "password", Type: "string", Required: true, Sensitive: true},
			{Name: "album", Type: "entity:album", EntityOp: "view"},
			{Name: "limit", Type: "integer", Default: 5},
			{Name: "mode", Type: "string", Default: "safe", Locked: true},
			{Name: "opts", Type: "map", Properties: []*Definition{{Name: "pin", Type: "string", Sensitive: true}, {Name: "when", Type: "duration"}}},
		},
		Handler: func(context.Context, *Values) (*Result, error) { ran++; return nil, nil }})
	if err != nil {
		t.Fatal(err)
	}
	var trace []string
	var seen []*Call
	var results []*Result
	tracer := func(name string) Middleware {
		return func(next RunFunc) RunFunc {
			return func(ctx context.Context, c *Call) *Result {
				trace = append(trace, name+">")
				if name == "outer" && c.Inputs != nil {
					t.Error("the inputs were set before the run decoded them")
				}
				res := next(ctx, c)
				trace = append(trace, "<"+name)
				if name == "outer" {
					seen = append(seen, c)
					results = append(results, res)
				}
				return res
			}
		}
	}
	r.Use(tracer("outer"))
	r.Use(tracer("inner"))
	ctx := WithAccount(context.Background(), editor)

	res, _ := r.RunJSON(ctx, "t.login", []byte(`{"user":"ann","password":"hunter2","album":"1","opts":{"pin":"1234","when":"PT1M"}}`))
	if !res.Success || ran != 1 {
		t.Fatalf("run: %+v", res)
	}
	if diff := cmp.Diff([]string{"outer>", "inner>", "<inner", "<outer"}, trace); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	c := seen[0]
	if c.Tool.ID != "t.login" || c.Account != editor || c.Inputs.String("user") != "ann" {
		t.Errorf("call: %+v", c)
	}
	if got, want := string(c.InputsJSON()), `{"album":"1","opts":{"when":"PT1M"},"user":"ann"}`; got != want {
		t.Errorf("InputsJSON = %s, want %s", got, want)
	}
	if strings.Contains(string(c.InputsJSON()), "hunter2") {
		t.Error("InputsJSON holds a sensitive input")
	}

	// A refusal, through Run: the middleware sees it, with no inputs.
	res, _ = r.Run(context.Background(), "t.login", map[string]any{"user": "ann"})
	if res.Failure != FailureAccess || results[1] != res || seen[1].Inputs != nil || seen[1].Account != Anonymous {
		t.Errorf("refused run: %+v, seen %+v", res, seen[1])
	}
	// An input failure: no inputs either.
	res, _ = r.RunJSON(ctx, "t.login", []byte(`{"user":1}`))
	if res.Failure != FailureInput || results[2] != res || seen[2].Inputs != nil || seen[2].InputsJSON() != nil {
		t.Errorf("invalid run: %+v, seen %+v", res, seen[2])
	}
	if ran != 1 {
		t.Errorf("the handler ran %d times, want 1", ran)
	}

	// Middleware may answer in the run's place.
	r.Use(func(next RunFunc) RunFunc {
		return func(ctx context.Context, c *Call) *Result {
			return &Result{Message: "Closed for maintenance.", Failure: FailureAccess}
		}
	})
	res, _ = r.RunJSON(ctx, "t.login", []byte(`{"user":"ann","password":"x"}`))
	if res.Message != "Closed for maintenance." || ran != 1 {
		t.Errorf("short-circuit: %+v, handler ran %d times", res, ran)
	}
}

// TestInputsJSONRoundTrips checks that InputsJSON is what RunJSON accepts:
// run again with it, a tool gets the same inputs.
func TestInputsJSONRoundTrips(t *testing.T) {
	var got []map[string]any
	r := newQuietRegistry()
	r.AddEntityType(albumType(nil))
	err := r.Add(&Tool{ID: "t.every", Label: "Every", Description: "Takes everything.", Permission: "p",
		Inputs: []*Definition{
			{Name: "s", Type: "string"}, {Name: "i", Type: "integer"}, {Name: "f", Type: "float"}, {Name: "b", Type: "boolean"},
			{Name: "dt", Type: "datetime_iso8601"}, {Name: "d", Type: "datetime_iso8601", Constraints: Constraints{DateOnly: true}},
			{Name: "ts", Type: "timestamp"}, {Name: "dur", Type: "duration"},
			{Name: "album", Type: "entity:album", EntityOp: "view"},
			{Name: "albums", Type: "list", Items: &Definition{Type: "entity"}, EntityOp: "view"},
			{Name: "m", Type: "map", Properties: []*Definition{{Name: "n", Type: "integer"}}},
			{Name: "free", Type: "map"}, {Name: "x", Type: "any"},
		},
		Handler: func(_ context.Context, in *Values) (*Result, error) {
			got = append(got, in.byName())
			return nil, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	var last []byte
	r.Use(func(next RunFunc) RunFunc {
		return func(ctx context.Context, c *Call) *Result {
			res := next(ctx, c)
			last = c.InputsJSON()
			return res
		}
	})
	ctx := WithAccount(context.Background(), editor)
	res, _ := r.Run(ctx, "t.every", map[string]any{
		"s": Text("hi"), "i": Text("7"), "f": Text("2.5"), "b": Text("yes"),
		"dt": Text("2024-05-01 10:30"), "d": Text("2024-05-01"), "ts": "2024-05-01T10:30:00.5+02:00",
		"dur": Text("1h30m"), "album": Text("1"), "albums": []any{"album:1", "album:2"},
		"m": map[string]any{"n": Text("3")}, "free": map[string]any{"k": []any{1.0}}, "x": 1.5,
	})
	if !res.Success {
		t.Fatalf("first run: %+v", res)
	}
	first := last
	res, _ = r.RunJSON(ctx, "t.every", first)
	if !res.Success {
		t.Fatalf("the canonical JSON %s does not run: %+v", first, res)
	}
	if diff := cmp.Diff(got[0], got[1], cmp.AllowUnexported(album{})); diff != "" {
		t.Errorf("inputs differ between the run and its canonical JSON %s (-first +second):\n%s", first, diff)
	}
	if string(last) != string(first) {
		t.Errorf("canonical JSON is not stable: %s then %s", first, last)
	}
	var m map[string]any
	if err := json.Unmarshal(first, &m); err != nil || m["dur"] != "PT1H30M" || m["album"] != "1" {
		t.Errorf("canonical JSON %s", first)
	}
}

// TestMiddlewarePanic checks that a panic in middleware fails the run.
func TestMiddlewarePanic(t *testing.T) {
	var got *Values
	r := newTestRegistry(t, echoTool(&got))
	r.Use(func(next RunFunc) RunFunc {
		return func(ctx context.Context, c *Call) *Result { panic("secret") }
	})
	res, err := r.RunJSON(WithAccount(context.Background(), editor), "test.echo", nil)
	if err != nil || res.Failure != FailureRuntime || strings.Contains(res.Message, "secret") {
		t.Errorf("%+v %v", res, err)
	}
}

type tenantKey struct{}

// TestCheckThroughMiddleware checks that Validate goes through the
// middleware, marked as a check, so that an entity type whose Load needs
// what middleware puts in the context loads when checking as when
// running; and that a check runs no entity access check or handler.
func TestCheckThroughMiddleware(t *testing.T) {
	albums := map[string]string{"7": "Spring"}
	accessChecks, ran := 0, 0
	r := newQuietRegistry()
	err := r.AddEntityType(&EntityType{ID: "album", Label: "Album",
		Load: func(ctx context.Context, id string) (any, error) {
			if ctx.Value(tenantKey{}) != "acme" {
				return nil, errors.New("no tenant in the context")
			}
			if title, ok := albums[id]; ok {
				return title, nil
			}
			return nil, ErrEntityNotFound
		},
		Access:   func(context.Context, Account, any, string) (bool, error) { accessChecks++; return true, nil },
		Describe: func(e any) (string, string, bool) { s, ok := e.(string); return s, s, ok },
	})
	if err != nil {
		t.Fatal(err)
	}
	err = r.Add(&Tool{ID: "t.rename", Label: "Rename", Description: "Renames an album.", Permission: "p",
		Inputs:  []*Definition{{Name: "album", Type: "entity:album", EntityOp: "update", Required: true}},
		Handler: func(context.Context, *Values) (*Result, error) { ran++; return nil, nil }})
	if err != nil {
		t.Fatal(err)
	}
	var checks []bool
	refuse := false
	r.Use(func(next RunFunc) RunFunc {
		return func(ctx context.Context, c *Call) *Result {
			checks = append(checks, c.Check)
			if refuse {
				return &Result{Message: "No tenant.", Failure: FailureAccess}
			}
			return next(context.WithValue(ctx, tenantKey{}, "acme"), c)
		}
	})
	ctx := WithAccount(context.Background(), editor)

	canonical, vs, err := r.Validate(ctx, "t.rename", map[string]any{"album": Text("7")})
	if err != nil || len(vs) > 0 || string(canonical) != `{"album":"7"}` {
		t.Errorf("check of an album that exists: %s %v %v", canonical, vs, err)
	}
	_, vs, err = r.ValidateJSON(ctx, "t.rename", []byte(`{"album":"8"}`))
	if want := []Violation{{Path: "album", Rule: RuleEntityNotFound, Message: `no album has the ID "8"`, Detail: "album", Value: "8"}}; err != nil || !cmp.Equal(vs, want) {
		t.Errorf("check of an album that does not exist: %v %v, want %v", vs, err, want)
	}
	if accessChecks != 0 || ran != 0 {
		t.Errorf("checks ran %d entity access checks and %d handlers, want none", accessChecks, ran)
	}
	if res, _ := r.RunJSON(ctx, "t.rename", []byte(`{"album":"7"}`)); !res.Success || ran != 1 || accessChecks != 1 {
		t.Errorf("run: %+v, ran %d, access checks %d", res, ran, accessChecks)
	}
	if diff := cmp.Diff([]bool{true, true, false}, checks); diff != "" {
		t.Errorf("Call.Check as the middleware saw it (-want +got):\n%s", diff)
	}

	// Middleware that answers a check itself: Validate says the check
	// did not happen.
	refuse = true
	if canonical, vs, err := r.Validate(ctx, "t.rename", map[string]any{"album": "7"}); err == nil || canonical != nil || vs != nil {
		t.Errorf("check refused by middleware: %s %v %v, want an error", canonical, vs, err)
	}
}
