package tool

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var editor = &User{ID: "editor", Permissions: []string{"p"}}

// echoTool returns a tool with the given inputs whose handler records the
// values it received.
func echoTool(got **Values, inputs ...*Definition) *Tool {
	return &Tool{
		ID: "test.echo", Label: "Echo", Description: "Echoes its inputs.", Permission: "p",
		Inputs: inputs,
		Handler: func(_ context.Context, in *Values) (*Result, error) {
			*got = in
			return nil, nil
		},
	}
}

// newQuietRegistry returns a registry whose log goes nowhere.
func newQuietRegistry() *Registry {
	return NewRegistry(&Options{Logger: slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil))})
}

func newTestRegistry(t *testing.T, tools ...*Tool) *Registry {
	t.Helper()
	r := newQuietRegistry()
	if err := r.Add(tools...); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestInputValues checks the values rules of inputs: required, null,
// defaults, empty values, NotBlank, NotNull and the constraints, with the
// Go values that reach the handler.
func TestInputValues(t *testing.T) {
	tests := []struct {
		name  string
		def   *Definition
		args  string // JSON; empty means {}
		want  any    // value received, when valid
		viols []Violation
	}{
		{"required present", &Definition{Name: "x", Type: "string", Required: true}, `{"x":"a"}`, "a", nil},
		{"required absent", &Definition{Name: "x", Type: "string", Required: true}, `{}`, nil, []Violation{{Path: "x", Message: "is required"}}},
		{"required null", &Definition{Name: "x", Type: "string", Required: true}, `{"x":null}`, nil, []Violation{{Path: "x", Message: "is required"}}},
		{"empty list is a value", &Definition{Name: "x", Type: "list", Required: true, Items: &Definition{Type: "string"}}, `{"x":[]}`, []any{}, nil},
		{"empty map is a value", &Definition{Name: "x", Type: "map", Required: true}, `{"x":{}}`, map[string]any{}, nil},
		{"optional absent reads default", &Definition{Name: "x", Type: "integer", Default: 10}, `{}`, int64(10), nil},
		{"optional null reads default", &Definition{Name: "x", Type: "integer", Default: 10}, `{"x":null}`, int64(10), nil},
		{"optional absent without default is nil", &Definition{Name: "x", Type: "integer"}, `{}`, nil, nil},
		{"notnull rejects null", &Definition{Name: "x", Type: "integer", Default: 10, Constraints: Constraints{NotNull: true}}, `{"x":null}`, nil, []Violation{{Path: "x", Message: "must not be null"}}},
		{"notblank string", &Definition{Name: "x", Type: "string", Constraints: Constraints{NotBlank: true}}, `{"x":""}`, nil, []Violation{{Path: "x", Message: "must not be blank"}}},
		{"notblank list", &Definition{Name: "x", Type: "list", Items: &Definition{Type: "string"}, Constraints: Constraints{NotBlank: true}}, `{"x":[]}`, nil, []Violation{{Path: "x", Message: "must not be empty"}}},
		{"notblank map", &Definition{Name: "x", Type: "map", Constraints: Constraints{NotBlank: true}}, `{"x":{}}`, nil, []Violation{{Path: "x", Message: "must not be empty"}}},
		{"count binds the list", &Definition{Name: "x", Type: "list", Items: &Definition{Type: "integer"}, Constraints: Constraints{Count: &Bounds{Max: Ptr(2)}}}, `{"x":[1,2,3]}`, nil, []Violation{{Path: "x", Message: "must have at most 2 items"}}},
		{"count binds a map", &Definition{Name: "x", Type: "map", Constraints: Constraints{Count: &Bounds{Min: Ptr(2)}}}, `{"x":{"a":1}}`, nil, []Violation{{Path: "x", Message: "must have at least 2 properties"}}},
		{"choice binds each item", &Definition{Name: "tags", Type: "list", Items: &Definition{Type: "string"}, Constraints: Constraints{Choice: []any{"a", "b"}}}, `{"tags":["a","b","c"]}`, nil, []Violation{{Path: "tags[2]", Message: "must be one of: a, b"}}},
		{"length binds each item", &Definition{Name: "x", Type: "list", Items: &Definition{Type: "string"}, Constraints: Constraints{Length: &Bounds{Max: Ptr(2)}}}, `{"x":["ab","abc"]}`, nil, []Violation{{Path: "x[1]", Message: "must be at most 2 characters long"}}},
		{"null item", &Definition{Name: "x", Type: "list", Items: &Definition{Type: "string"}}, `{"x":["a",null]}`, nil, []Violation{{Path: "x[1]", Message: "must not be null"}}},
		{"nullable item", &Definition{Name: "x", Type: "list", Items: &Definition{Type: "string", Nullable: true}}, `{"x":["a",null]}`, []any{"a", nil}, nil},
		{"range", &Definition{Name: "x", Type: "integer", Constraints: Constraints{Range: &Range{Min: Ptr(1.0), Max: Ptr(100.0)}}}, `{"x":101}`, nil, []Violation{{Path: "x", Message: "must be at most 100"}}},
		{"integer from integral float", &Definition{Name: "x", Type: "integer"}, `{"x":3.0}`, int64(3), nil},
		{"integer rejects fraction", &Definition{Name: "x", Type: "integer"}, `{"x":3.5}`, nil, []Violation{{Path: "x", Message: "must be an integer"}}},
		{"integer rejects string", &Definition{Name: "x", Type: "integer"}, `{"x":"3"}`, nil, []Violation{{Path: "x", Message: "must be an integer"}}},
		{"float", &Definition{Name: "x", Type: "float"}, `{"x":2}`, 2.0, nil},
		{"boolean", &Definition{Name: "x", Type: "boolean"}, `{"x":"true"}`, nil, []Violation{{Path: "x", Message: "must be true or false"}}},
		{"pattern", &Definition{Name: "x", Type: "string", Constraints: Constraints{Pattern: "^[a-z]+$"}}, `{"x":"A1"}`, nil, []Violation{{Path: "x", Message: "must match the pattern ^[a-z]+$"}}},
		{"length counts characters", &Definition{Name: "x", Type: "string", Constraints: Constraints{Length: &Bounds{Max: Ptr(2)}}}, `{"x":"éé"}`, "éé", nil},
		{"email", &Definition{Name: "x", Type: "email"}, `{"x":"not-an-email"}`, nil, []Violation{{Path: "x", Message: "must be an email address"}}},
		{"email constraint", &Definition{Name: "x", Type: "string", Constraints: Constraints{Email: true}}, `{"x":"ann@"}`, nil, []Violation{{Path: "x", Message: "must be an email address"}}},
		{"uri", &Definition{Name: "x", Type: "uri"}, `{"x":"/relative"}`, nil, []Violation{{Path: "x", Message: "must be an absolute URI"}}},
		{"datetime in UTC", &Definition{Name: "x", Type: "datetime_iso8601"}, `{"x":"2024-05-01T12:00:00+02:00"}`, time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC), nil},
		{"dateonly", &Definition{Name: "x", Type: "datetime_iso8601", Constraints: Constraints{DateOnly: true}}, `{"x":"2024-05-01"}`, time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC), nil},
		{"dateonly rejects time", &Definition{Name: "x", Type: "datetime_iso8601", Constraints: Constraints{DateOnly: true}}, `{"x":"2024-05-01T00:00:00Z"}`, nil, []Violation{{Path: "x", Message: "must be a date such as 2024-05-01"}}},
		{"duration", &Definition{Name: "x", Type: "duration"}, `{"x":"PT1H30M"}`, 90 * time.Minute, nil},
		{"map properties", &Definition{Name: "settings", Type: "map", Properties: []*Definition{
			{Name: "limit", Type: "integer", Required: true, Constraints: Constraints{Range: &Range{Max: Ptr(100.0)}}},
			{Name: "label", Type: "string"},
		}}, `{"settings":{"limit":500,"other":1}}`, nil, []Violation{{Path: "settings.limit", Message: "must be at most 100"}, {Path: "settings.other", Message: "is not a known property"}}},
		{"map property required", &Definition{Name: "s", Type: "map", Properties: []*Definition{{Name: "a", Type: "string", Required: true}}}, `{"s":{}}`, nil, []Violation{{Path: "s.a", Message: "is required"}}},
		{"map values", &Definition{Name: "m", Type: "map", Values: &Definition{Type: "integer"}}, `{"m":{"a":1,"b":"x"}}`, nil, []Violation{{Path: "m.b", Message: "must be an integer"}}},
		{"entity id must be a string", &Definition{Name: "a", Type: "entity:album", Required: true, EntityOp: "view"}, `{"a":12}`, nil, []Violation{{Path: "a", Message: "must be the ID of an album as a string"}}},
		{"several problems at once", &Definition{Name: "x", Type: "list", Items: &Definition{Type: "integer", Constraints: Constraints{Range: &Range{Min: Ptr(0.0)}}}}, `{"x":[-1,"a",3]}`, nil, []Violation{{Path: "x[0]", Message: "must be at least 0"}, {Path: "x[1]", Message: "must be an integer"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got *Values
			r := NewRegistry(&Options{Logger: slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil))})
			r.AddEntityType(&EntityType{ID: "album",
				Load:     func(context.Context, string) (any, error) { return nil, ErrEntityNotFound },
				Access:   func(context.Context, Account, any, string) (bool, error) { return true, nil },
				Describe: func(any) (string, string, bool) { return "", "", false }})
			if err := r.Add(echoTool(&got, tt.def)); err != nil {
				t.Fatal(err)
			}
			res, err := r.RunJSON(WithAccount(context.Background(), editor), "test.echo", []byte(tt.args))
			if err != nil {
				t.Fatal(err)
			}
			if tt.viols != nil {
				if res.Success || res.Failure != FailureInput {
					t.Fatalf("got success=%v failure=%q, want an input failure", res.Success, res.Failure)
				}
				if diff := cmp.Diff(tt.viols, res.Violations, wordsOnly); diff != "" {
					t.Errorf("violations (-want +got):\n%s", diff)
				}
				return
			}
			if !res.Success {
				t.Fatalf("run failed: %s %v", res.Message, res.Violations)
			}
			if diff := cmp.Diff(tt.want, got.At(0)); diff != "" {
				t.Errorf("value (-want +got):\n%s", diff)
			}
		})
	}
}

// TestUnknownAndLockedInputs checks that inputs the tool does not declare,
// and locked inputs, cannot be sent, and that a locked input has its
// default.
func TestUnknownAndLockedInputs(t *testing.T) {
	var got *Values
	r := newTestRegistry(t, echoTool(&got, &Definition{Name: "mode", Type: "string", Default: "safe", Locked: true}))
	ctx := WithAccount(context.Background(), editor)
	res, _ := r.RunJSON(ctx, "test.echo", []byte(`{"mode":"fast","zeta":1,"alpha":2}`))
	want := []Violation{{Path: "alpha", Message: "is not an input of this tool"}, {Path: "mode", Message: "is locked and cannot be set"}, {Path: "zeta", Message: "is not an input of this tool"}}
	if diff := cmp.Diff(want, res.Violations, wordsOnly); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
	res, _ = r.RunJSON(ctx, "test.echo", nil)
	if !res.Success || got.At(0) != "safe" {
		t.Errorf("locked input: success=%v value=%v, want the default", res.Success, got.At(0))
	}
}

// TestCoercion checks that text typed by a person is coerced to the
// input's type, the same way for every caller, and that JSON callers get
// no coercion.
func TestCoercion(t *testing.T) {
	var got *Values
	r := newTestRegistry(t, echoTool(&got,
		&Definition{Name: "n", Type: "integer"},
		&Definition{Name: "f", Type: "float"},
		&Definition{Name: "b", Type: "boolean"},
		&Definition{Name: "when", Type: "datetime_iso8601"},
		&Definition{Name: "d", Type: "duration"},
		&Definition{Name: "tags", Type: "list", Items: &Definition{Type: "integer"}},
		&Definition{Name: "m", Type: "map", Properties: []*Definition{{Name: "limit", Type: "integer"}}},
	))
	ctx := WithAccount(context.Background(), editor)
	res, _ := r.Run(ctx, "test.echo", map[string]any{
		"n": Text("10"), "f": Text("2.5"), "b": Text("yes"), "when": Text("2024-05-01T10:30"),
		"d": Text("1h30m"), "tags": []any{Text("1"), Text("2")}, "m": map[string]any{"limit": Text("5")},
	})
	if !res.Success {
		t.Fatalf("run failed: %s", res.Message)
	}
	want := []any{int64(10), 2.5, true, time.Date(2024, 5, 1, 10, 30, 0, 0, time.UTC), 90 * time.Minute, []any{int64(1), int64(2)}, map[string]any{"limit": int64(5)}}
	if diff := cmp.Diff(want, got.values); diff != "" {
		t.Errorf("values (-want +got):\n%s", diff)
	}
	res, _ = r.Run(ctx, "test.echo", map[string]any{"n": Text("ten")})
	if diff := cmp.Diff([]Violation{{Path: "n", Message: "must be an integer"}}, res.Violations, wordsOnly); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
}

// TestOutputs checks the output rules: required is key presence, nullable
// says null is a value, an optional non-nullable nil is left out, only
// declared outputs are published, and invalid outputs fail the run without
// showing why.
func TestOutputs(t *testing.T) {
	tests := []struct {
		name    string
		defs    []*Definition
		outputs map[string]any
		want    map[string]any // nil: the run must fail as runtime
	}{
		{"required present", []*Definition{{Name: "a", Type: "string", Required: true}}, map[string]any{"a": "x"}, map[string]any{"a": "x"}},
		{"required missing", []*Definition{{Name: "a", Type: "string", Required: true}}, map[string]any{}, nil},
		{"required nil", []*Definition{{Name: "a", Type: "string", Required: true}}, map[string]any{"a": nil}, nil},
		{"required nullable nil", []*Definition{{Name: "a", Type: "string", Required: true, Nullable: true}}, map[string]any{"a": nil}, map[string]any{"a": nil}},
		{"optional nil left out", []*Definition{{Name: "a", Type: "string"}}, map[string]any{"a": nil}, map[string]any{}},
		{"optional nullable nil kept", []*Definition{{Name: "a", Type: "string", Nullable: true}}, map[string]any{"a": nil}, map[string]any{"a": nil}},
		{"undeclared dropped", []*Definition{{Name: "a", Type: "integer", Required: true}}, map[string]any{"a": 1, "secret": "x"}, map[string]any{"a": int64(1)}},
		{"null list item", []*Definition{{Name: "a", Type: "list", Required: true, Items: &Definition{Type: "string"}}}, map[string]any{"a": []any{"x", nil}}, nil},
		{"nullable list item", []*Definition{{Name: "a", Type: "list", Required: true, Items: &Definition{Type: "string", Nullable: true}}}, map[string]any{"a": []string{"x"}}, map[string]any{"a": []any{"x"}}},
		{"wrong type", []*Definition{{Name: "a", Type: "integer", Required: true}}, map[string]any{"a": "x"}, nil},
		{"time in wire form", []*Definition{{Name: "a", Type: "timestamp", Required: true}, {Name: "d", Type: "duration"}}, map[string]any{"a": time.Date(2024, 1, 2, 3, 4, 5, 0, time.FixedZone("", 3600)), "d": 90 * time.Minute}, map[string]any{"a": "2024-01-02T02:04:05Z", "d": "PT1H30M"}},
		{"bytes as base64", []*Definition{{Name: "img", Type: "string", Required: true, Constraints: Constraints{Media: "image/png"}}}, map[string]any{"img": []byte{1, 2, 3}}, map[string]any{"img": "AQID"}},
		{"map property optional nil left out", []*Definition{{Name: "m", Type: "map", Required: true, Properties: []*Definition{{Name: "a", Type: "string"}, {Name: "b", Type: "string", Required: true}}}}, map[string]any{"m": map[string]any{"a": nil, "b": "x", "c": "dropped"}}, map[string]any{"m": map[string]any{"b": "x"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			r := NewRegistry(&Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			err := r.Add(&Tool{ID: "t.out", Label: "Out", Description: "Returns outputs.", Permission: "p", Outputs: tt.defs,
				Handler: func(context.Context, *Values) (*Result, error) { return Succeeded("", tt.outputs), nil }})
			if err != nil {
				t.Fatal(err)
			}
			res, _ := r.RunJSON(WithAccount(context.Background(), editor), "t.out", nil)
			if tt.want == nil {
				if res.Success || res.Failure != FailureRuntime || res.Outputs != nil || res.Message != "Out failed." {
					t.Errorf("got %+v, want a runtime failure with no outputs", res)
				}
				if !strings.Contains(logs.String(), "invalid outputs") {
					t.Errorf("the invalid outputs were not logged: %s", logs.String())
				}
				return
			}
			if !res.Success {
				t.Fatalf("run failed: %s", res.Message)
			}
			if diff := cmp.Diff(tt.want, res.Outputs); diff != "" {
				t.Errorf("outputs (-want +got):\n%s", diff)
			}
		})
	}
}

// TestErrors checks the error model: an InputError reaches the caller, any
// other error or a panic is logged and hidden.
func TestErrors(t *testing.T) {
	secret := "pq: relation users does not exist"
	var logs bytes.Buffer
	r := NewRegistry(&Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	mk := func(id string, h Handler) *Tool {
		return &Tool{ID: id, Label: "Thing", Description: "Does a thing.", Permission: "p", Handler: h}
	}
	r.Add(
		mk("t.input", func(context.Context, *Values) (*Result, error) {
			return nil, fmt.Errorf("wrapped: %w", &InputError{Input: "word", Message: "no such word"})
		}),
		mk("t.err", func(context.Context, *Values) (*Result, error) { return nil, errors.New(secret) }),
		mk("t.panic", func(context.Context, *Values) (*Result, error) { panic(secret) }),
		mk("t.failed", func(context.Context, *Values) (*Result, error) {
			return Failed("Exported 2 of 3 files.", map[string]any{"undeclared": 1}), nil
		}),
	)
	ctx := WithAccount(context.Background(), editor)
	res, _ := r.RunJSON(ctx, "t.input", nil)
	if res.Failure != FailureInput || !cmp.Equal(res.Violations, []Violation{{Path: "word", Rule: RuleHandler, Message: "no such word"}}) {
		t.Errorf("InputError: got %+v", res)
	}
	for _, id := range []string{"t.err", "t.panic"} {
		logs.Reset()
		res, _ = r.RunJSON(ctx, id, nil)
		if res.Failure != FailureRuntime || res.Message != "Thing failed." {
			t.Errorf("%s: got %+v, want a runtime failure saying only that it failed", id, res)
		}
		if !strings.Contains(logs.String(), secret) || !strings.Contains(logs.String(), id) {
			t.Errorf("%s: the error was not logged with the tool ID: %s", id, logs.String())
		}
	}
	res, _ = r.RunJSON(ctx, "t.failed", nil)
	if res.Success || res.Message != "Exported 2 of 3 files." || res.Failure != FailureRuntime {
		t.Errorf("failed result: got %+v", res)
	}
	if _, err := r.RunJSON(ctx, "t.nope", nil); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown tool: err = %v, want ErrNotFound", err)
	}
}

// TestMalformedArguments checks JSON arguments that are not an object.
func TestMalformedArguments(t *testing.T) {
	var got *Values
	r := newTestRegistry(t, echoTool(&got, &Definition{Name: "x", Type: "string"}))
	ctx := WithAccount(context.Background(), editor)
	for _, args := range []string{`{"x":`, `[1]`, `"x"`, `{"x":"a","x":"b"}`} {
		res, _ := r.RunJSON(ctx, "test.echo", []byte(args))
		if res.Failure != FailureInput || len(res.Violations) != 1 {
			t.Errorf("%s: got %+v, want one input violation", args, res)
		}
	}
}

// TestOptionalMapDefault checks that an optional map input whose default
// is {} reads, when left out or null, as its properties' defaults, nested
// maps of the same kind included, on both decoding paths; and that its
// default is not echoed in the canonical arguments.
func TestOptionalMapDefault(t *testing.T) {
	var got *Values
	paging := &Definition{Name: "paging", Type: "map", Default: map[string]any{}, Properties: []*Definition{
		{Name: "limit", Type: "integer", Default: 20},
		{Name: "cursor", Type: "string"},
	}}
	r := newTestRegistry(t, echoTool(&got, &Definition{Name: "window", Type: "map", Default: map[string]any{}, Properties: []*Definition{
		paging,
		{Name: "sort", Type: "string", Default: "newest"},
	}}))
	ctx := WithAccount(context.Background(), editor)
	want := map[string]any{"paging": map[string]any{"limit": int64(20)}, "sort": "newest"}
	for _, args := range []string{``, `{}`, `{"window":null}`, `{"window":{}}`, `{"window":{"paging":null}}`} {
		if res, _ := r.RunJSON(ctx, "test.echo", []byte(args)); !res.Success {
			t.Fatalf("%s: %+v", args, res)
		}
		if diff := cmp.Diff(want, got.Get("window")); diff != "" {
			t.Errorf("%s (-want +got):\n%s", args, diff)
		}
	}
	if res, _ := r.Run(ctx, "test.echo", map[string]any{}); !res.Success || !cmp.Equal(want, got.Get("window")) {
		t.Errorf("Run without the input: %+v %v", res, got.Get("window"))
	}
	if canonical, vs, err := r.ValidateJSON(ctx, "test.echo", []byte(`{}`)); err != nil || len(vs) > 0 || string(canonical) != `{}` {
		t.Errorf("check: %s %v %v", canonical, vs, err)
	}
}

// Under WithEntityAccess, a check asks the tool's access method as a run
// does: a no, an AccessError and an InputError refuse as the run would,
// another error is the check's error; without it, the method is not asked.
func TestValidateAsksAccess(t *testing.T) {
	r := NewRegistry(nil)
	asked := 0
	err := r.Add(&Tool{
		ID: "t.refund", Label: "Refund", Description: "Refunds.", Permission: "p",
		Inputs: []*Definition{{Name: "n", Type: "integer", Required: true}},
		Access: func(_ context.Context, in *Values) (bool, error) {
			asked++
			switch in.Int("n") {
			case 1:
				return false, nil
			case 2:
				return false, Refuse("the order is closed")
			case 3:
				return false, &InputError{Input: "n", Message: "no such order"}
			case 4:
				return false, errors.New("ledger down")
			}
			return true, nil
		},
		Handler: func(context.Context, *Values) (*Result, error) { return Succeeded("", nil), nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := WithEntityAccess(WithAccount(context.Background(), editor))
	check := func(n int) ([]Violation, error) {
		_, vs, err := r.ValidateJSON(ctx, "t.refund", []byte(fmt.Sprintf(`{"n":%d}`, n)))
		return vs, err
	}
	var ae *AccessError
	if _, err := check(1); !errors.As(err, &ae) || ae.Reason != "You may not run Refund with these inputs." {
		t.Errorf("a no: %v", err)
	}
	if _, err := check(2); !errors.As(err, &ae) || ae.Reason != "You may not run Refund: the order is closed." {
		t.Errorf("an AccessError: %v", err)
	}
	if vs, err := check(3); err != nil || len(vs) != 1 || vs[0].Path != "n" || vs[0].Message != "no such order" {
		t.Errorf("an InputError: %v, %v", vs, err)
	}
	if _, err := check(4); err == nil || errors.As(err, &ae) {
		t.Errorf("another error: %v", err)
	}
	if vs, err := check(5); err != nil || len(vs) != 0 {
		t.Errorf("a yes: %v, %v", vs, err)
	}
	before := asked
	if _, vs, err := r.ValidateJSON(WithAccount(context.Background(), editor), "t.refund", []byte(`{"n":1}`)); err != nil || len(vs) != 0 || asked != before {
		t.Errorf("without WithEntityAccess: %v, %v, asked %d times", vs, err, asked-before)
	}
}
