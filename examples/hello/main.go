// Hello is a small application that registers a few hand-written tools
// and mounts the tool command line:
//
//	go run ./examples/hello tool list
//	go run ./examples/hello tool info hello.greet
//	go run ./examples/hello tool run hello.greet --input name=Ada --input count=2
//	go run ./examples/hello tool run hello.sum --input numbers=1 --input numbers=2 --json
//	go run ./examples/hello tool run text.shout --input '{"text":"hi","volume":"louder"}'
//	go run ./examples/hello tool run rocket.launch --user admin --yes
//
// It knows two users: admin, who may launch rockets, and mallory, who is
// blocked. Without --user the caller is anonymous.
package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/toolapi/toolapi/tool"
	"github.com/toolapi/toolapi/toolcli"
)

func main() {
	reg := tool.NewRegistry(nil)
	reg.Add(tools()...) // a tool that cannot be added is logged and left out
	if len(os.Args) < 2 || os.Args[1] != "tool" {
		fmt.Fprintln(os.Stderr, "usage: hello tool list|search|info|run ...")
		os.Exit(1)
	}
	os.Exit(toolcli.Run(context.Background(), reg, os.Args[2:], os.Stdout, os.Stderr, &toolcli.Options{
		Name:     "hello tool",
		Accounts: lookUpUser,
		Stdin:    os.Stdin,
	}))
}

// users are the accounts --user can name.
var users = map[string]*tool.User{
	"admin":   {ID: "admin", Permissions: []string{"launch rockets"}},
	"mallory": {ID: "mallory", IsBlocked: true},
}

func lookUpUser(_ context.Context, name string) (tool.Account, error) {
	if u, ok := users[name]; ok {
		return u, nil
	}
	return nil, fmt.Errorf("%w: %q", toolcli.ErrUnknownUser, name)
}

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
