package toolapp

import (
	"testing"

	"github.com/toolapi/toolapi/explorer"
	"github.com/toolapi/toolapi/mcpserver"
	"github.com/toolapi/toolapi/tool"
)

// TestMCPAppsByDefault checks that the MCP server of an application gives
// its tools apps unless the application says not to, and keeps an app
// builder of the application's own.
func TestMCPAppsByDefault(t *testing.T) {
	for _, http := range []bool{false, true} {
		app := &App{Registry: tool.NewRegistry(nil)}
		if _, ok := mcpOptions(app, &Options{}, http).Apps.(*explorer.Apps); !ok {
			t.Errorf("http %v: no apps by default", http)
		}
		app.NoMCPApps = true
		if got := mcpOptions(app, &Options{}, http).Apps; got != nil {
			t.Errorf("http %v: NoMCPApps left %T", http, got)
		}
		own := explorer.NewApps(app.Registry, nil)
		app = &App{Registry: app.Registry, MCP: &mcpserver.Options{Apps: own}}
		if got := mcpOptions(app, &Options{}, http).Apps; got != own {
			t.Errorf("http %v: the application's builder was replaced", http)
		}
	}
}
