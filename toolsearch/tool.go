package toolsearch

import (
	"context"
	"encoding/json"

	"github.com/toolapi/toolapi/tool"
)

// Tool returns the meta-tool that searches this index: it takes words and
// returns the tools the calling account may run that match them, best
// first, each with its input schema, so an agent can call a tool it was not
// shown. Every account that is not blocked may run it; what it returns is
// filtered by the account. Add it to the same registry:
//
//	reg.Add(idx.Tool())
func (ix *Index) Tool() *tool.Tool {
	return &tool.Tool{
		ID:    ix.opts.ToolID,
		Label: "Search tools",
		Description: "Finds the tools you may run by words in their names and descriptions, best first, " +
			"each with its input schema. Use it when no tool you were shown fits the task.",
		Operation: tool.OpRead,
		Groups:    ix.opts.Groups,
		Access:    func(context.Context, *tool.Values) (bool, error) { return true, nil },
		Inputs: []*tool.Definition{
			{Name: "query", Type: "string", Required: true,
				Description: "Words that describe what you want to do, such as \"add a track to an album\".",
				Constraints: tool.Constraints{NotBlank: true, Length: &tool.Bounds{Max: tool.Ptr(500)}}},
			{Name: "limit", Type: "integer", Default: DefaultLimit,
				Description: "How many tools to return at most.",
				Constraints: tool.Constraints{Range: &tool.Range{Min: tool.Ptr(1.0), Max: tool.Ptr(float64(MaxLimit))}}},
		},
		Outputs: []*tool.Definition{{
			Name: "result", Type: "list", Required: true,
			Description: "The tools found, best first.",
			Items: &tool.Definition{Type: "map", Required: true, Properties: []*tool.Definition{
				{Name: "name", Type: "string", Required: true, Description: "The tool's name, to call it by in MCP and function calling."},
				{Name: "id", Type: "string", Required: true, Description: "The tool's ID."},
				{Name: "label", Type: "string", Required: true, Description: "The tool's short name."},
				{Name: "description", Type: "string", Required: true, Description: "What the tool does."},
				{Name: "operation", Type: "string", Required: true, Description: "What the tool does to the world: read, write, trigger, transform or explain."},
				{Name: "input_schema", Type: "any", Required: true, Description: "The JSON Schema of the tool's arguments."},
			}},
		}},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			hits := ix.search(tool.AccountFrom(ctx), tool.NarrowingFrom(ctx), in.String("query"), int(in.Int("limit")))
			found := make([]any, 0, len(hits))
			for _, h := range hits {
				found = append(found, map[string]any{
					"name":         tool.NameOf(h.Tool.ID),
					"id":           h.Tool.ID,
					"label":        h.Tool.Label,
					"description":  h.Tool.Description,
					"operation":    string(h.Tool.EffectiveOperation()),
					"input_schema": schemaValue(ix.reg, h.Tool.ID),
				})
			}
			return tool.Succeeded("", map[string]any{"result": found}), nil
		},
	}
}

// schemaValue returns the input schema of the tool with the given ID as a
// JSON value (map[string]any).
func schemaValue(reg *tool.Registry, id string) any {
	var v any
	if json.Unmarshal(reg.InputSchemaJSON(id), &v) != nil {
		return map[string]any{}
	}
	return v
}
