package mcpserver_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolapi/toolapi/mcpserver"
	"github.com/toolapi/toolapi/tool"
)

// completionRegistry holds tools whose inputs complete from each source:
// choices, choices refined from other arguments, and albums by label,
// the drafts only for accounts with "administer".
func completionRegistry(t *testing.T) *tool.Registry {
	t.Helper()
	reg := tool.NewRegistry(&tool.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	albums := []struct {
		id, title string
		draft     bool
	}{{"1", "Blue Hours", false}, {"2", "Blue Note", true}, {"3", "Red", false}}
	err := reg.AddEntityType(&tool.EntityType{
		ID: "album", Label: "Album",
		Load:     func(context.Context, string) (any, error) { return nil, tool.ErrEntityNotFound },
		Access:   func(context.Context, tool.Account, any, string) (bool, error) { return true, nil },
		Describe: func(any) (string, string, bool) { return "", "", false },
		Search: func(_ context.Context, acct tool.Account, q string, limit int) ([]tool.EntityRef, error) {
			var out []tool.EntityRef
			for _, a := range albums {
				if (!a.draft || acct.HasPermission("administer")) && strings.Contains(strings.ToLower(a.title), strings.ToLower(q)) && len(out) < limit {
					out = append(out, tool.EntityRef{EntityType: "album", ID: a.id, Label: a.title})
				}
			}
			return out, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string][]any{"fruit": {"apple", "apricot", "avocado", "pear"}, "tool": {"hammer"}}
	many := make([]any, 150)
	for i := range many {
		many[i] = fmt.Sprintf("n%03d", i)
	}
	noop := func(context.Context, *tool.Values) (*tool.Result, error) { return nil, nil }
	for _, tl := range []*tool.Tool{{
		ID: "shop.pick", Label: "Pick", Description: "Picks things of a kind.", Permission: "access content",
		Inputs: []*tool.Definition{
			{Name: "kind", Type: "string", Required: true, Constraints: tool.Constraints{Choice: []any{"fruit", "tool"}}},
			{Name: "most", Type: "integer"},
			{Name: "thing", Type: "string", Required: true},
			{Name: "albums", Type: "list", EntityOp: "view", Items: &tool.Definition{Type: "entity:album"}},
			{Name: "number", Type: "string", Constraints: tool.Constraints{Choice: many}},
			{Name: "note", Type: "string"},
		},
		// thing chooses among the things of the kind, at most most of them.
		Refiner: &tool.Refiner{Inputs: []string{"thing"}, Refine: func(_ context.Context, def *tool.Definition, values map[string]any) (*tool.Definition, error) {
			kind, _ := values["kind"].(string)
			choices := kinds[kind]
			if choices == nil {
				return def, nil
			}
			if most, ok := values["most"].(int64); ok {
				choices = choices[:min(int(most), len(choices))]
			}
			d := *def
			d.Constraints.Choice = choices
			return &d, nil
		}},
		Handler: noop,
	}, {
		ID: "shop.close", Label: "Close", Description: "Closes the shop.", Permission: "administer",
		Inputs:  []*tool.Definition{{Name: "when", Type: "string", Constraints: tool.Constraints{Choice: []any{"now", "tonight"}}}},
		Handler: noop,
	}} {
		if err := reg.Add(tl); err != nil {
			t.Fatal(err)
		}
	}
	return reg
}

// completion is a completion/complete request for an argument of a tool.
type completion struct {
	uri, arg, value string
	context         map[string]string
}

func (c completion) params() *mcp.CompleteParams {
	p := &mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: "ref/resource", URI: c.uri},
		Argument: mcp.CompleteParamsArgument{Name: c.arg, Value: c.value},
	}
	if c.context != nil {
		p.Context = &mcp.CompleteContext{Arguments: c.context}
	}
	return p
}

// completed is what a completion answers: its values and their labels.
type completed struct {
	Values, Labels []string
	HasMore        bool
	Total          int
}

func complete(t *testing.T, cs *mcp.ClientSession, c completion) (completed, error) {
	t.Helper()
	res, err := cs.Complete(context.Background(), c.params())
	if err != nil {
		return completed{}, err
	}
	got := completed{Values: res.Completion.Values, HasMore: res.Completion.HasMore, Total: res.Completion.Total}
	if labels, ok := res.Meta[mcpserver.MetaLabels].([]any); ok {
		for _, l := range labels {
			got.Labels = append(got.Labels, l.(string))
		}
	}
	return got, nil
}

// completion/complete with a ref/resource of URI tool://NAME completes an
// argument of the tool NAME from the input's choices, from the choices the
// refiner makes of the other arguments (context.arguments, as text), and
// from the entities the entity type's search finds by label.
func TestCompleteToolArguments(t *testing.T) {
	reg := completionRegistry(t)
	srv := mcpserver.New(reg, nil)
	editorSession := connect(t, srv, editor, nil)
	adminSession := connect(t, srv, admin, nil)
	if cs := editorSession.InitializeResult().Capabilities; cs.Completions == nil {
		t.Errorf("capabilities %+v advertise no completions", cs)
	}
	var numbers []string
	for i := range 100 {
		numbers = append(numbers, fmt.Sprintf("n%03d", i))
	}
	pick := "tool://" + tool.NameOf("shop.pick")
	for _, tc := range []struct {
		name string
		cs   *mcp.ClientSession
		c    completion
		want completed
	}{
		{"choices", editorSession, completion{pick, "kind", "", nil},
			completed{Values: []string{"fruit", "tool"}, Labels: []string{"fruit", "tool"}, Total: 2}},
		{"choices by prefix", editorSession, completion{pick, "kind", "T", nil},
			completed{Values: []string{"tool"}, Labels: []string{"tool"}, Total: 1}},
		{"by ID", editorSession, completion{"tool://shop.pick", "kind", "f", nil},
			completed{Values: []string{"fruit"}, Labels: []string{"fruit"}, Total: 1}},
		{"refined choices", editorSession, completion{pick, "thing", "ap", map[string]string{"kind": "fruit"}},
			completed{Values: []string{"apple", "apricot"}, Labels: []string{"apple", "apricot"}, Total: 2}},
		{"refined by an integer as text", editorSession, completion{pick, "thing", "a", map[string]string{"kind": "fruit", "most": "2"}},
			completed{Values: []string{"apple", "apricot"}, Labels: []string{"apple", "apricot"}, Total: 2}},
		{"refined, other kind", editorSession, completion{pick, "thing", "", map[string]string{"kind": "tool"}},
			completed{Values: []string{"hammer"}, Labels: []string{"hammer"}, Total: 1}},
		{"nothing to refine from", editorSession, completion{pick, "thing", "", nil},
			completed{Values: []string{}}},
		{"entities by label", editorSession, completion{pick, "albums", "blue", nil},
			completed{Values: []string{"1"}, Labels: []string{"Blue Hours"}, Total: 1}},
		{"entities the account may view", adminSession, completion{pick, "albums", "blue", nil},
			completed{Values: []string{"1", "2"}, Labels: []string{"Blue Hours", "Blue Note"}, Total: 2}},
		{"no choices, no search", editorSession, completion{pick, "note", "x", nil},
			completed{Values: []string{}}},
		{"at most 100", editorSession, completion{pick, "number", "n", nil},
			completed{Values: numbers, Labels: numbers, HasMore: true}},
		{"a tool of the account's", adminSession, completion{"tool://shop__close", "when", "", nil},
			completed{Values: []string{"now", "tonight"}, Labels: []string{"now", "tonight"}, Total: 2}},
	} {
		got, err := complete(t, tc.cs, tc.c)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}

// Completing an argument of a tool the account may not call is refused as
// for a tool that does not exist; so are arguments the tool lacks and
// references that are neither a tool nor the application's.
func TestCompleteToolRefused(t *testing.T) {
	reg := completionRegistry(t)
	auth := mcpserver.Bearer(lookupToken)
	ts := httptest.NewServer(mcpserver.New(reg, &mcpserver.Options{Authenticate: auth}).Handler())
	t.Cleanup(ts.Close)
	overHTTP, err := connectHTTP(t, ts.URL, "editor-token", nil, "2025-11-25")
	if err != nil {
		t.Fatal(err)
	}
	inMemory := connect(t, mcpserver.New(reg, nil), editor, nil)
	for _, tc := range []struct {
		name string
		c    completion
		ref  *mcp.CompleteReference
		want string
	}{
		{"not the account's", completion{"tool://shop__close", "when", "", nil}, nil, `unknown tool "shop__close"`},
		{"not the account's, by ID", completion{"tool://shop.close", "when", "", nil}, nil, `unknown tool "shop.close"`},
		{"no such tool", completion{"tool://shop__none", "when", "", nil}, nil, `unknown tool "shop__none"`},
		{"no such input", completion{"tool://shop__pick", "colour", "", nil}, nil, `tool "shop__pick" has no input "colour"`},
		{"no name", completion{"tool://", "kind", "", nil}, nil, `must be tool://NAME`},
		{"a prompt", completion{arg: "kind"}, &mcp.CompleteReference{Type: "ref/prompt", Name: "greet"}, `no completions for ref/prompt "greet"`},
	} {
		for _, cs := range []*mcp.ClientSession{overHTTP, inMemory} {
			p := tc.c.params()
			if tc.ref != nil {
				p.Ref = tc.ref
			}
			res, err := cs.Complete(context.Background(), p)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: got %+v, %v; want an error with %q", tc.name, res, err, tc.want)
			}
		}
	}
}

// An application's own completion handler answers the references that are
// not tools, beside the Server's.
func TestCompleteComposes(t *testing.T) {
	reg := completionRegistry(t)
	var seen []string
	srv := mcpserver.New(reg, &mcpserver.Options{SDK: &mcp.ServerOptions{
		CompletionHandler: func(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			seen = append(seen, req.Params.Ref.Type+" "+req.Params.Ref.Name+req.Params.Ref.URI)
			return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{"from the application"}}}, nil
		},
	}})
	cs := connect(t, srv, editor, nil)
	for _, ref := range []*mcp.CompleteReference{{Type: "ref/prompt", Name: "greet"}, {Type: "ref/resource", URI: "file:///{path}"}} {
		res, err := cs.Complete(context.Background(), &mcp.CompleteParams{Ref: ref, Argument: mcp.CompleteParamsArgument{Name: "x"}})
		if err != nil || !cmp.Equal(res.Completion.Values, []string{"from the application"}) {
			t.Errorf("%+v: got %+v, %v; want the application's answer", ref, res, err)
		}
	}
	got, err := complete(t, cs, completion{"tool://shop__pick", "kind", "", nil})
	if err != nil || !cmp.Equal(got.Values, []string{"fruit", "tool"}) {
		t.Errorf("tool reference: got %+v, %v; want the tool's choices", got, err)
	}
	if want := []string{"ref/prompt greet", "ref/resource file:///{path}"}; !cmp.Equal(seen, want) {
		t.Errorf("the application's handler saw %q, want %q", seen, want)
	}
}
