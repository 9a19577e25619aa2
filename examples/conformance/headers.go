package main

import (
	"context"
	"fmt"

	"github.com/toolapi/toolapi/tool"
)

// The tool of the suite's routing-header scenarios (protocol version
// 2026-07-28): its region input is marked Header "Region", so that it is
// listed with x-mcp-header and clients mirror it in an Mcp-Param-Region
// header, which the MCP server checks against the body before the tool
// runs. A generated tool says the same with
//
//	//tool:input region header=Region

// headerTools returns the tools of the routing-header scenarios.
func headerTools() []*tool.Tool {
	return []*tool.Tool{{
		ID: "test_x_mcp_header", Label: "Routing headers",
		Description: "Runs a query in a region; the region travels in the Mcp-Param-Region header too, for gateways that route by it.",
		Operation:   tool.OpRead, Permission: "run conformance tests",
		Inputs: []*tool.Definition{
			{Name: "region", Type: "string", Description: "The region to run the query in.", Header: "Region"},
			{Name: "level", Type: "integer", Description: "A level the header does not carry."},
		},
		Handler: func(_ context.Context, in *tool.Values) (*tool.Result, error) {
			return tool.Succeeded(fmt.Sprintf("region=%s", in.String("region")), nil), nil
		},
	}}
}
