package toolanthropic_test

import (
	"context"
	"testing"

	toolanthropic "github.com/toolapi/toolapi/contrib/anthropic"
	"github.com/toolapi/toolapi/funcall"
	"github.com/toolapi/toolapi/funcall/funcalltest"
	"github.com/toolapi/toolapi/tool"
)

// TestTasks: the adapter serves tasks as funcalltest.TestTasks checks,
// through its Declarations and its Call.
func TestTasks(t *testing.T) {
	funcalltest.TestTasks(t, func(reg *tool.Registry, acct tool.Account, tasks funcall.Tasks) funcalltest.Adapter {
		return adapter{toolanthropic.New(reg, acct, &toolanthropic.Options{Tasks: tasks})}
	})
}

type adapter struct{ tools *toolanthropic.Tools }

func (a adapter) Declared() []string {
	var names []string
	for _, d := range a.tools.Declarations() {
		names = append(names, d.OfTool.Name)
	}
	return names
}

func (a adapter) Call(ctx context.Context, name, args string) *funcall.Response {
	return a.tools.Call(ctx, name, []byte(args))
}
