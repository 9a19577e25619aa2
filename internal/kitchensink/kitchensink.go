// Package kitchensink builds a registry whose tools use every data type
// and constraint, nested maps and lists, values of any type and IDs that
// model APIs refuse as names, for the tests that take every schema
// dialect and every client through them.
//
// Every tool answers with its ID and the names of the inputs it received,
// so a test can tell which tool ran with what.
package kitchensink

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"

	"github.com/toolapi/toolapi/tool"
)

// LongID is the longest an ID may be: its name, with "." written "__",
// has the 64 characters that model APIs take at most.
const LongID = "kitchen.a_tool_whose_name_is_as_long_as_model_apis_take_it_abcd"

// IDs lists the IDs of the registry's tools, in the order they are added.
var IDs = []string{
	"kitchen.types", "kitchen.nested", "kitchen.clash", "Kitchen-Dash.v2", "kitchen.no_inputs", LongID,
}

// Samples holds, by tool ID, arguments the tool accepts, as JSON.
var Samples = map[string]string{
	"kitchen.types": `{"text":"hello","code":"AB-12","count":3,"ratio":0.5,"flag":true,` +
		`"mail":"ada@example.com","link":"https://example.com/a","when":"2024-05-01T10:00:00Z",` +
		`"day":"2024-05-01","stamp":"2024-05-01T10:00:00Z","wait":"PT5M","blob":"aGVsbG8=",` +
		`"picture":"<svg/>","color":"#00ff00","size":"m","level":2,"thing":"1","node":"thing:2"}`,
	"kitchen.nested": `{"settings":{"name":"x","limits":{"low":1,"high":9},"tags":["a","b"],` +
		`"pairs":[{"key":"k","value":1}],"maybe":null},"grid":[[1,2],[3]],"scores":{"ada":1,"bob":2},` +
		`"extra":{"anything":[1,"two",null]},"payload":{"deep":true},"anything_list":[1,"a",{"b":2}]}`,
	"kitchen.clash":     `{"note":"dotted"}`,
	"Kitchen-Dash.v2":   `{"note":"dashed"}`,
	"kitchen.no_inputs": `{}`,
	LongID:              `{"word":"w"}`,
}

// New returns the kitchen-sink registry, logging to logger (nil discards).
func New(logger *slog.Logger) (*tool.Registry, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	reg := tool.NewRegistry(&tool.Options{Logger: logger})
	things := map[string]string{"1": "First thing", "2": "Second thing"}
	err := reg.AddEntityType(&tool.EntityType{
		ID: "thing", Label: "Thing",
		Load: func(ctx context.Context, id string) (any, error) {
			if _, ok := things[id]; !ok {
				return nil, tool.ErrEntityNotFound
			}
			return id, nil
		},
		Access: func(context.Context, tool.Account, any, string) (bool, error) { return true, nil },
		Describe: func(e any) (string, string, bool) {
			id, ok := e.(string)
			return id, things[id], ok
		},
	})
	if err != nil {
		return nil, err
	}
	err = reg.AddType(&tool.DataType{Name: "color", Base: "string", Format: "color", Check: func(v any) string {
		if s, _ := v.(string); len(s) != 7 || !strings.HasPrefix(s, "#") {
			return "must be a color as #rrggbb"
		}
		return ""
	}})
	if err != nil {
		return nil, err
	}
	word := []*tool.Definition{{Name: "word", Type: "string", Description: "A word.", Required: true}}
	tools := []*tool.Tool{
		newTool("kitchen.types", "Every scalar type and constraint.", typesInputs()),
		newTool("kitchen.nested", "Nested maps and lists, typed and free-form maps, values of any type.", nestedInputs()),
		newTool("kitchen.clash", "Named kitchen__clash, with its dot written as two underscores.", []*tool.Definition{{Name: "note", Type: "string"}}),
		newTool("Kitchen-Dash.v2", "A capital, a dash and a dot in its ID.", []*tool.Definition{{Name: "note", Type: "string"}}),
		newTool("kitchen.no_inputs", "Takes nothing.", nil),
		newTool(LongID, "An ID whose name has 64 characters, the most a name may have.", word),
	}
	return reg, reg.Add(tools...)
}

func newTool(id, description string, inputs []*tool.Definition) *tool.Tool {
	names := make([]string, len(inputs))
	for i, in := range inputs {
		names[i] = in.Name
	}
	return &tool.Tool{
		ID: id, Label: "Kitchen tool", Description: description, Operation: tool.OpRead,
		Access: func(context.Context, *tool.Values) (bool, error) { return true, nil },
		Inputs: inputs,
		Outputs: []*tool.Definition{
			{Name: "tool", Type: "string", Required: true, Description: "The ID of the tool that ran."},
			{Name: "received", Type: "list", Required: true, Description: "The inputs that were set.", Items: &tool.Definition{Type: "string"}},
		},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			if in == nil {
				return nil, errors.New("no values")
			}
			received := []any{}
			for _, name := range names {
				if in.IsSet(name) {
					received = append(received, name)
				}
			}
			slices.SortFunc(received, func(a, b any) int { return strings.Compare(a.(string), b.(string)) })
			return tool.Succeeded("", map[string]any{"tool": id, "received": received}), nil
		},
	}
}

func typesInputs() []*tool.Definition {
	return []*tool.Definition{
		{Name: "text", Type: "string", Label: "Text", Description: "Some text.", Required: true,
			Examples: []any{"hello"}, Constraints: tool.Constraints{NotBlank: true, Length: &tool.Bounds{Max: tool.Ptr(40)}}},
		{Name: "code", Type: "string", Description: "A code.", Constraints: tool.Constraints{Pattern: "^[A-Z]{2}-[0-9]{2}$"}},
		{Name: "count", Type: "integer", Default: 1, Constraints: tool.Constraints{Range: &tool.Range{Min: tool.Ptr(1.0), Max: tool.Ptr(10.0)}}},
		{Name: "ratio", Type: "float", Constraints: tool.Constraints{Range: &tool.Range{Min: tool.Ptr(0.0), Max: tool.Ptr(1.0)}}},
		{Name: "flag", Type: "boolean", Default: false},
		{Name: "mail", Type: "email", Examples: []any{"ada@example.com"}},
		{Name: "link", Type: "uri"},
		{Name: "when", Type: "datetime_iso8601"},
		{Name: "day", Type: "datetime_iso8601", Constraints: tool.Constraints{DateOnly: true}},
		{Name: "stamp", Type: "timestamp"},
		{Name: "wait", Type: "duration"},
		{Name: "blob", Type: "string", Description: "Bytes.", Constraints: tool.Constraints{Encoding: "base64"}},
		{Name: "picture", Type: "string", Constraints: tool.Constraints{Media: "image/svg+xml"}},
		{Name: "color", Type: "color", Examples: []any{"#ff0000"}},
		{Name: "size", Type: "string", Constraints: tool.Constraints{Choice: []any{"s", "m", "l"}}},
		{Name: "level", Type: "integer", Constraints: tool.Constraints{Choice: []any{1, 2, 3}}},
		{Name: "thing", Type: "entity:thing", EntityOp: "view"},
		{Name: "node", Type: "entity", EntityOp: "view"},
		{Name: "fixed", Type: "string", Default: "always", Locked: true},
		{Name: "strict_null", Type: "string", Constraints: tool.Constraints{NotNull: true}},
	}
}

func nestedInputs() []*tool.Definition {
	return []*tool.Definition{
		{Name: "settings", Type: "map", Description: "Settings with declared properties.", Required: true, Properties: []*tool.Definition{
			{Name: "name", Type: "string", Required: true},
			{Name: "limits", Type: "map", Properties: []*tool.Definition{
				{Name: "low", Type: "integer", Required: true},
				{Name: "high", Type: "integer"},
			}},
			{Name: "tags", Type: "list", Items: &tool.Definition{Type: "string", Constraints: tool.Constraints{NotBlank: true}},
				Constraints: tool.Constraints{Count: &tool.Bounds{Min: tool.Ptr(1), Max: tool.Ptr(5)}}},
			{Name: "pairs", Type: "list", Items: &tool.Definition{Type: "map", Properties: []*tool.Definition{
				{Name: "key", Type: "string", Required: true},
				{Name: "value", Type: "integer", Nullable: true},
			}}},
			{Name: "maybe", Type: "any", Description: "Any value, null too.", Nullable: true},
		}, Constraints: tool.Constraints{NotBlank: true}},
		{Name: "grid", Type: "list", Items: &tool.Definition{Type: "list", Items: &tool.Definition{Type: "integer"}}},
		{Name: "scores", Type: "map", Description: "Scores by name.", Values: &tool.Definition{Type: "integer", Constraints: tool.Constraints{Range: &tool.Range{Min: tool.Ptr(0.0)}}}},
		{Name: "extra", Type: "map", Description: "Anything by name."},
		{Name: "payload", Type: "any", Description: "Any value but null."},
		{Name: "anything_list", Type: "list", Items: &tool.Definition{Type: "any"}},
	}
}
