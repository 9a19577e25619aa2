package funcall_test

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"

	"github.com/toolapi/toolapi/funcall"
	"github.com/toolapi/toolapi/tool"
)

// TestNarrowed checks that a narrowed Toolset declares only the tools its
// narrowing keeps and answers a call of any other as an unknown tool,
// running nothing, also when the caller's context narrows the run.
func TestNarrowed(t *testing.T) {
	var mu sync.Mutex
	var ran []string
	h := func(id string) tool.Handler {
		return func(context.Context, *tool.Values) (*tool.Result, error) {
			mu.Lock()
			ran = append(ran, id)
			mu.Unlock()
			return tool.Succeeded("done", nil), nil
		}
	}
	anyone := func(context.Context, *tool.Values) (bool, error) { return true, nil }
	reg := tool.NewRegistry(&tool.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	err := reg.Add(
		&tool.Tool{ID: "photo.view", Label: "View", Description: "Shows.", Operation: tool.OpRead, Access: anyone, Groups: []string{"viewer"}, Handler: h("photo.view")},
		&tool.Tool{ID: "photo.edit", Label: "Edit", Description: "Edits.", Operation: tool.OpWrite, Access: anyone, Groups: []string{"editor"}, Handler: h("photo.edit")},
	)
	if err != nil {
		t.Fatal(err)
	}
	set := funcall.New(reg, editor)
	viewer := set.Narrowed(tool.Narrowing{Groups: []string{"viewer"}})
	decls := declared[funcall.OpenAITool](t, viewer, funcall.OpenAI)
	if len(decls) != 1 || decls[0].Function.Name != "photo__view" {
		t.Errorf("viewer declares %+v, want photo__view only", decls)
	}
	ctx := context.Background()
	none := viewer.Dispatch(ctx, "photo__nothing", nil)
	if r := viewer.Dispatch(ctx, "photo__edit", nil); r.Success || r.ErrorType != none.ErrorType {
		t.Errorf("photo.edit on the viewer Toolset: %+v, want %+v", r, none)
	}
	// A caller's narrowed context narrows the runs of a Toolset that is not.
	if r := set.Dispatch(tool.Narrow(ctx, tool.Narrowing{ReadOnly: true}), "photo__edit", nil); r.Success || r.ErrorType != none.ErrorType {
		t.Errorf("photo.edit in a read-only context: %+v, want %+v", r, none)
	}
	// Narrowing a narrowed Toolset only narrows.
	if r := viewer.Narrowed(tool.Narrowing{Groups: []string{"editor"}}).Dispatch(ctx, "photo__view", nil); r.Success {
		t.Errorf("photo.view on viewer then editor ran: %+v", r)
	}
	mu.Lock()
	if len(ran) != 0 {
		t.Errorf("ran %v", ran)
	}
	mu.Unlock()
	if r := viewer.Dispatch(ctx, "photo__view", nil); !r.Success {
		t.Errorf("photo.view on the viewer Toolset: %+v", r)
	}
}
