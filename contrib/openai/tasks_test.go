package toolopenai_test

import (
	"context"
	"testing"

	toolopenai "github.com/toolapi/toolapi/contrib/openai"
	"github.com/toolapi/toolapi/funcall"
	"github.com/toolapi/toolapi/funcall/funcalltest"
	"github.com/toolapi/toolapi/tool"
)

// TestTasks: the adapter serves tasks as funcalltest.TestTasks checks,
// through its Chat Completions declarations and its Run.
func TestTasks(t *testing.T) {
	funcalltest.TestTasks(t, func(reg *tool.Registry, acct tool.Account, tasks funcall.Tasks) funcalltest.Adapter {
		return adapter{toolopenai.New(reg, acct, &toolopenai.Options{Tasks: tasks})}
	})
}

type adapter struct{ tools *toolopenai.Tools }

func (a adapter) Declared() []string {
	var names []string
	for _, d := range a.tools.Chat() {
		names = append(names, d.GetFunction().Name)
	}
	return names
}

func (a adapter) Call(ctx context.Context, name, args string) *funcall.Response {
	return a.tools.Run(ctx, name, args)
}
