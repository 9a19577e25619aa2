package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/toolapi/toolapi/tool"
)

// anyone is the access check of a tool everybody may run.
func anyone(context.Context, *tool.Values) (bool, error) { return true, nil }

// tools returns the tools of the application.
func tools() []*tool.Tool {
	return []*tool.Tool{
		{
			ID:          "hello.greet",
			Label:       "Greet",
			Description: "Greets someone by name, once or a few times.",
			Operation:   tool.OpTransform,
			Inputs: []*tool.Definition{
				{Name: "name", Type: "string", Label: "Name", Description: "Who to greet.", Required: true,
					Examples: []any{"Ada"}, Constraints: tool.Constraints{NotBlank: true, Length: &tool.Bounds{Max: tool.Ptr(40)}}},
				{Name: "count", Type: "integer", Label: "Count", Description: "How many greetings.", Default: 1,
					Constraints: tool.Constraints{Range: &tool.Range{Min: tool.Ptr(1.0), Max: tool.Ptr(5.0)}}},
			},
			Outputs: []*tool.Definition{
				{Name: "greetings", Type: "list", Description: "One greeting per count.", Required: true,
					Items: &tool.Definition{Type: "string"}},
			},
			Access: anyone,
			Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
				var greetings []any
				for range in.Int("count") {
					greetings = append(greetings, "Hello, "+in.String("name")+"!")
				}
				return tool.Succeeded("", map[string]any{"greetings": greetings}), nil
			},
		},
		{
			ID:          "hello.sum",
			Label:       "Sum",
			Description: "Adds up a list of whole numbers.",
			Operation:   tool.OpTransform,
			Inputs: []*tool.Definition{
				{Name: "numbers", Type: "list", Label: "Numbers", Description: "The numbers to add.", Required: true,
					Items: &tool.Definition{Type: "integer"}, Constraints: tool.Constraints{NotBlank: true}},
			},
			Outputs: []*tool.Definition{
				{Name: "sum", Type: "integer", Description: "The total.", Required: true},
			},
			Access: anyone,
			Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
				var sum int64
				for _, n := range tool.ListOf[int64](in.Get("numbers")) {
					sum += n
				}
				return tool.Succeeded("", map[string]any{"sum": sum}), nil
			},
		},
		{
			ID:          "text.shout",
			Label:       "Shout",
			Description: "Turns text into a shout, loud or louder.",
			Operation:   tool.OpTransform,
			Inputs: []*tool.Definition{
				{Name: "text", Type: "string", Label: "Text", Description: "What to shout.", Required: true,
					Constraints: tool.Constraints{NotBlank: true}},
				{Name: "volume", Type: "string", Label: "Volume", Description: "How loud.", Default: "loud",
					Constraints: tool.Constraints{Choice: []any{"loud", "louder", "loudest"}}},
			},
			Outputs: []*tool.Definition{
				{Name: "result", Type: "string", Description: "The shout.", Required: true},
			},
			Access: anyone,
			Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
				s := strings.ToUpper(in.String("text"))
				switch in.String("volume") {
				case "louder":
					s += "!!"
				case "loudest":
					s = strings.Join(strings.Split(s, ""), " ") + "!!!"
				default:
					s += "!"
				}
				return tool.Succeeded("", map[string]any{"result": s}), nil
			},
		},
		{
			ID:          "rocket.launch",
			Label:       "Launch rocket",
			Description: "Launches the (pretend) rocket toward a destination. A person confirms each launch.",
			Operation:   tool.OpTrigger,
			Permission:  "launch rockets",
			Confirm:     true,
			Inputs: []*tool.Definition{
				{Name: "destination", Type: "string", Label: "Destination", Description: "Where the rocket goes.", Default: "moon",
					Constraints: tool.Constraints{Choice: []any{"moon", "mars"}}},
			},
			Outputs: []*tool.Definition{
				{Name: "destination", Type: "string", Description: "Where the rocket went.", Required: true},
			},
			Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
				for i := 3; i > 0; i-- {
					tool.Progress(ctx, float64(4-i), 3, fmt.Sprintf("T-%d", i))
				}
				dest := in.String("destination")
				return tool.Succeeded("Launched toward "+dest+".", map[string]any{"destination": dest}), nil
			},
		},
	}
}
