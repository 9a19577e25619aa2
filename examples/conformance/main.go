// Command conformance serves the tools the MCP conformance suite's server
// scenarios call (test_simple_text, test_image_content, ...), written as
// annotated methods of [Service] whose tools toolgen generates
// (tools_gen.go), through toolapi's MCP server, and beside them the
// prompts and resources the suite reads (extras.go), the tools of its
// input-required-result scenarios (inputrequired.go), those of its
// server-stateless scenario (stateless.go) and the tool of its
// routing-header scenarios (headers.go).
//
//	go run ./examples/conformance                       # stdio
//	go run ./examples/conformance -http 127.0.0.1:3001  # streamable HTTP at /mcp
//
// Every caller acts as one local tester account that may run the tools.
// scripts/conformance.sh runs the suite against it.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"syscall"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolapi/toolapi/mcpserver"
	"github.com/toolapi/toolapi/tool"
)

// tester is the account of every caller.
var tester = &tool.User{ID: "tester", Permissions: []string{"run conformance tests"}}

func main() {
	httpAddr := flag.String("http", "", "serve streamable HTTP at this address (HOST:PORT) under /mcp, instead of stdio")
	stateless := flag.Bool("stateless", false, "serve HTTP without sessions")
	flag.Parse()
	log.SetFlags(0)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv, stopTasks, err := newServer(ctx, *stateless)
	if err != nil {
		log.Fatal(err)
	}
	defer stopTasks()
	if *httpAddr == "" {
		if err := srv.RunStdio(ctx, tester); err != nil && ctx.Err() == nil {
			log.Fatal(err)
		}
		return
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", srv.Handler())
	hs := &http.Server{Addr: *httpAddr, Handler: mux}
	go func() {
		<-ctx.Done()
		hs.Close()
	}()
	slog.Info("conformance server listening", "url", fmt.Sprintf("http://%s/mcp", *httpAddr))
	if err := hs.ListenAndServe(); err != nil && err != http.ErrServerClosed {
		log.Fatal(err)
	}
}

// newServer returns the MCP server of the Service's tools, and the
// function that stops its task manager.
func newServer(ctx context.Context, stateless bool) (*mcpserver.Server, func(), error) {
	reg := tool.NewRegistry(nil)
	if err := RegisterTools(reg, &Service{}); err != nil {
		return nil, nil, err
	}
	if err := reg.Add(inputRequiredTools()...); err != nil {
		return nil, nil, err
	}
	if err := reg.Add(taskTools()...); err != nil {
		return nil, nil, err
	}
	if err := reg.Add(headerTools()...); err != nil {
		return nil, nil, err
	}
	var srv *mcpserver.Server
	if err := reg.Add(statelessTools(reg, func() *mcp.Server { return srv.MCPServer() })...); err != nil {
		return nil, nil, err
	}
	tasks, stopTasks, err := newTasks(ctx, reg)
	if err != nil {
		return nil, nil, err
	}
	srv = mcpserver.New(reg, &mcpserver.Options{
		Name:         "toolapi-conformance",
		Version:      "1.0.0",
		Authenticate: func(*http.Request) (tool.Account, error) { return tester, nil },
		Stateless:    stateless,
		Advertise:    advertise,
		SDK:          sdkOptions,
		EventStore:   mcp.NewMemoryEventStore(nil),
		Tasks:        tasks,
	})
	addExtras(srv.MCPServer())
	addInputRequiredPrompt(srv.MCPServer())
	return srv, stopTasks, nil
}

// advertise lists the address of json_schema_2020_12_tool as a shared
// definition ($defs), which the suite looks for; the schema accepts the
// same values.
func advertise(t *tool.Tool, mt *mcp.Tool) {
	if t.ID == "json_schema_2020_12_tool" {
		define(mt.InputSchema.(*jsonschema.Schema), "address", "addressDef")
	}
}

// define moves the schema of property name into $defs, with an anchor, and
// refers to it from the property.
func define(sch *jsonschema.Schema, name, anchor string) {
	p := sch.Properties[name]
	if p == nil {
		return
	}
	if sch.Defs == nil {
		sch.Defs = map[string]*jsonschema.Schema{}
	}
	p.Anchor = anchor
	sch.Defs[name] = p
	sch.Properties[name] = &jsonschema.Schema{Ref: "#/$defs/" + name}
}
