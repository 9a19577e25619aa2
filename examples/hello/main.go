// Hello is a small application that registers a few hand-written tools
// and runs them with the standard commands of package toolapp:
//
//	go run ./examples/hello tool info hello.greet
//	go run ./examples/hello tool run hello.greet --input name=Ada --input count=2
//	go run ./examples/hello tool run rocket.launch --user admin --yes
//	go run ./examples/hello serve --print-tokens
//
// Users: admin may launch rockets, mallory is blocked; without --user (or
// a token) the caller is anonymous.
package main

import (
	"context"

	"github.com/toolapi/toolapi/tool"
	"github.com/toolapi/toolapi/toolapp"
)

func main() {
	reg := tool.NewRegistry(nil)
	reg.Add(tools()...) // a tool that cannot be added is logged and left out
	users := toolapp.NewStaticAccounts(nil,
		&tool.User{ID: "admin", Permissions: []string{"launch rockets"}},
		&tool.User{ID: "mallory", IsBlocked: true},
	)
	toolapp.Main(func(context.Context) (*toolapp.App, error) {
		return &toolapp.App{Registry: reg, Accounts: users}, nil
	}, &toolapp.Options{Name: "hello", Title: "Hello"})
}
