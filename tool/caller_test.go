package tool_test

import (
	"context"
	"testing"

	"github.com/toolapi/toolapi/tool"
)

type agented struct {
	tool.User
	agent string
}

func (a *agented) Agent() string { return a.agent }

// TestCaller checks that WithCaller keeps the fields an outer caller set
// when an inner one leaves them empty, and that the agent comes from an
// Agented account when no caller names one.
func TestCaller(t *testing.T) {
	ctx := tool.WithCaller(context.Background(), tool.Caller{CallID: "call_1", Agent: "planner"})
	ctx = tool.WithCaller(ctx, tool.Caller{Channel: tool.ChannelFuncall})
	got := tool.CallerFrom(ctx)
	if want := (tool.Caller{Channel: "funcall", Agent: "planner", CallID: "call_1"}); got != want {
		t.Errorf("merged caller %+v, want %+v", got, want)
	}
	ctx = tool.WithAccount(context.Background(), &agented{tool.User{ID: "ada"}, "claude-desktop"})
	if got := tool.CallerFrom(ctx); got.Agent != "claude-desktop" {
		t.Errorf("agent of an Agented account: %q", got.Agent)
	}
	if got := tool.CallerFrom(context.Background()); got != (tool.Caller{}) {
		t.Errorf("no caller: %+v", got)
	}
}
