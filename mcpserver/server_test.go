package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	sjs "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/toolapi/toolapi/mcpserver"
	"github.com/toolapi/toolapi/tool"
)

// Accounts of the tests.
var (
	editor = &tool.User{ID: "editor", Permissions: []string{"access content"}}
	admin  = &tool.User{ID: "admin", Permissions: []string{"access content", "administer"}}
)

// pixel is a 1x1 PNG.
var pixel = []byte{
	0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
	0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
	0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0xda, 0x63, 0xfc, 0xcf, 0xc0, 0xf0,
	0x1f, 0x00, 0x05, 0x05, 0x02, 0x00, 0x5f, 0xc8, 0xf1, 0xd2, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
	0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
}

// A fixture is a registry of test tools and what its tools saw.
type fixture struct {
	reg *tool.Registry

	mu        sync.Mutex
	published int           // runs of site.publish
	asked     []error       // errors of tool.Sample and tool.Elicit in test.ask
	started   chan struct{} // test.wait has started
	stopped   chan error    // test.wait saw its context end
}

// anyone is the access check of tools that anyone may run.
func anyone(context.Context, *tool.Values) (bool, error) { return true, nil }

var titles = []string{"Autumn Leaves", "Blue in Green", "So What", "Naima", "Giant Steps"}

func newFixture(t testing.TB) *fixture {
	f := &fixture{
		reg:     tool.NewRegistry(&tool.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}),
		started: make(chan struct{}, 1),
		stopped: make(chan error, 1),
	}
	search := &tool.Tool{
		ID: "album.search", Label: "Search", Description: "Finds albums whose title contains a word.",
		Operation: tool.OpRead, Permission: "access content",
		Inputs: []*tool.Definition{
			{Name: "word", Type: "string", Description: "A word.", Required: true, Constraints: tool.Constraints{NotBlank: true}},
			{Name: "limit", Type: "integer", Default: 10, Constraints: tool.Constraints{Range: &tool.Range{Min: tool.Ptr(1.0), Max: tool.Ptr(100.0)}}},
		},
		Outputs: []*tool.Definition{{
			Name: "result", Type: "list", Required: true,
			Items: &tool.Definition{Type: "map", Properties: []*tool.Definition{
				{Name: "title", Type: "string", Required: true},
				{Name: "position", Type: "integer", Required: true},
			}},
		}},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			word := strings.ToLower(in.String("word"))
			out := []any{}
			for i, title := range titles {
				if strings.Contains(strings.ToLower(title), word) && int64(len(out)) < in.Int("limit") {
					out = append(out, map[string]any{"title": title, "position": i + 1})
				}
			}
			return tool.Succeeded("", map[string]any{"result": out}), nil
		},
	}
	publish := &tool.Tool{
		ID: "site.publish", Label: "Publish", Description: "Publishes the site.",
		Operation: tool.OpWrite, Permission: "administer", Confirm: true,
		Inputs: []*tool.Definition{{Name: "note", Type: "string"}, {Name: "token", Type: "string", Sensitive: true}},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			f.mu.Lock()
			f.published++
			f.mu.Unlock()
			return tool.Succeeded("Site published.", nil), nil
		},
	}
	picture := &tool.Tool{
		ID: "album.cover", Label: "Cover", Description: "Returns the cover of an album.",
		Operation: tool.OpRead, Permission: "access content",
		Outputs: []*tool.Definition{
			{Name: "caption", Type: "string", Required: true},
			{Name: "image", Type: "string", Required: true, Constraints: tool.Constraints{Media: "image/png"}},
			{Name: "sleeve", Type: "string", Required: true, Constraints: tool.Constraints{Media: "audio/wav"}},
			tool.ResourceDefinition("notes", "The liner notes."),
		},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			return tool.Succeeded("", map[string]any{
				"caption": "Kind of Blue",
				"image":   pixel,
				"sleeve":  []byte("RIFF"),
				"notes":   tool.Resource{URI: "album://1/notes", MediaType: "text/plain", Text: "Recorded in 1959."},
			}), nil
		},
	}
	report := &tool.Tool{
		ID: "test.report", Access: anyone, Label: "Report", Description: "Reports progress and logs.",
		Operation: tool.OpRead,
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			for i := range 3 {
				tool.Progress(ctx, float64(i*50), 100, "step")
				tool.Log(ctx, "info", "step "+string(rune('1'+i)))
			}
			tool.Log(ctx, "debug", "details")
			return nil, nil
		},
	}
	boom := &tool.Tool{
		ID: "test.panic", Access: anyone, Label: "Panic", Description: "Panics.", Operation: tool.OpRead,
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			panic("secret internal state")
		},
	}
	wait := &tool.Tool{
		ID: "test.wait", Access: anyone, Label: "Wait", Description: "Waits until cancelled.", Operation: tool.OpRead,
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			f.started <- struct{}{}
			<-ctx.Done()
			f.stopped <- ctx.Err()
			return nil, ctx.Err()
		},
	}
	ask := &tool.Tool{
		ID: "test.ask", Access: anyone, Label: "Ask", Description: "Asks the client's model and person.", Operation: tool.OpRead,
		Inputs:  []*tool.Definition{{Name: "prompt", Type: "string", Required: true}},
		Outputs: []*tool.Definition{{Name: "answer", Type: "string"}, {Name: "action", Type: "string"}, {Name: "name", Type: "string"}},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			answer, serr := tool.Sample(ctx, in.String("prompt"), 50)
			el, eerr := tool.Elicit(ctx, "Your name?", nil)
			f.mu.Lock()
			f.asked = []error{serr, eerr}
			f.mu.Unlock()
			out := map[string]any{"answer": answer}
			if el != nil {
				out["action"] = el.Action
				out["name"], _ = el.Content["name"].(string)
			}
			return tool.Succeeded("", out), nil
		},
	}
	if err := f.reg.Add(search, publish, picture, report, boom, wait, ask); err != nil {
		t.Fatal(err)
	}
	return f
}

// The protocol versions clients negotiate: before 2026-07-28 the server asks
// the client through requests of the session, from it through multi
// round-trip requests.
const (
	legacy = "2025-11-25"
	latest = "2026-07-28"
)

// connect connects a client with opts to srv over in-memory transports, for
// acct, on the latest protocol version.
func connect(t testing.TB, srv *mcpserver.Server, acct tool.Account, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	return connectVersion(t, srv, acct, opts, latest)
}

// connectVersion is connect on the given protocol version.
func connectVersion(t testing.TB, srv *mcpserver.Server, acct tool.Account, opts *mcp.ClientOptions, version string) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, acct)
	if err != nil {
		t.Fatal(err)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, opts)
	cs, err := c.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	if got := cs.InitializeResult().ProtocolVersion; got != version {
		t.Fatalf("negotiated protocol version %s, want %s", got, version)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}

func toolNames(t testing.TB, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, mt := range res.Tools {
		names = append(names, mt.Name)
	}
	return names
}

func TestListFilteredByAccount(t *testing.T) {
	f := newFixture(t)
	srv := mcpserver.New(f.reg, nil)
	tests := []struct {
		acct tool.Account
		want []string
	}{
		{tool.Anonymous, []string{"test__ask", "test__panic", "test__report", "test__wait"}},
		{editor, []string{"album__cover", "album__search", "test__ask", "test__panic", "test__report", "test__wait"}},
		{admin, []string{"album__cover", "album__search", "site__publish", "test__ask", "test__panic", "test__report", "test__wait"}},
		{&tool.User{ID: "blocked", Permissions: admin.Permissions, IsBlocked: true}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.acct.AccountID(), func(t *testing.T) {
			cs := connect(t, srv, tc.acct, nil)
			if diff := cmp.Diff(tc.want, toolNames(t, cs)); diff != "" {
				t.Errorf("tools/list (-want +got):\n%s", diff)
			}
		})
	}
}

// A slowAccount is an account whose first permission check waits until
// it is released, as one that asks a slow store would.
type slowAccount struct {
	tool.User
	checking chan struct{} // closed when the first check starts
	release  chan struct{} // closed to let it finish

	once sync.Once
}

func (a *slowAccount) HasPermission(name string) bool {
	a.once.Do(func() {
		close(a.checking)
		<-a.release
	})
	return a.User.HasPermission(name)
}

// TestListChecksPermissionsUnlocked checks that while tools/list waits for
// the permission checks of one account, other clients' calls go on.
func TestListChecksPermissionsUnlocked(t *testing.T) {
	f := newFixture(t)
	srv := mcpserver.New(f.reg, nil)
	slow := &slowAccount{
		User:     tool.User{ID: "slow", Permissions: []string{"access content"}},
		checking: make(chan struct{}),
		release:  make(chan struct{}),
	}
	listing := connect(t, srv, slow, nil)
	calling := connect(t, srv, editor, nil)
	var releaseOnce sync.Once
	release := func() { releaseOnce.Do(func() { close(slow.release) }) }
	t.Cleanup(release) // before the sessions close

	listed := make(chan []string, 1)
	go func() {
		res, err := listing.ListTools(context.Background(), nil)
		if err != nil {
			t.Error(err)
			res = &mcp.ListToolsResult{}
		}
		var names []string
		for _, mt := range res.Tools {
			names = append(names, mt.Name)
		}
		listed <- names
	}()
	waitFor(t, slow.checking, "permission check of tools/list")
	called := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := calling.CallTool(context.Background(), &mcp.CallToolParams{Name: "album.search", Arguments: map[string]any{"word": "blue"}})
		if err != nil {
			t.Error(err)
		}
		called <- res
	}()
	if res := waitFor(t, called, "answer to tools/call while tools/list checks permissions"); res == nil || res.IsError {
		t.Errorf("tools/call: %s", mustJSON(t, res))
	}
	release()
	if names := waitFor(t, listed, "answer to tools/list"); !slices.Contains(names, "album__search") || slices.Contains(names, "site__publish") {
		t.Errorf("tools/list = %v", names)
	}
}

func TestListDescribesTools(t *testing.T) {
	f := newFixture(t)
	srv := mcpserver.New(f.reg, nil)
	cs := connect(t, srv, admin, nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*mcp.Tool{}
	for _, mt := range res.Tools {
		byName[mt.Name] = mt
	}
	type hints struct {
		Title                             string
		ReadOnly, Destructive, Idempotent bool
	}
	for name, want := range map[string]hints{
		"album__search": {"Search", true, false, true},
		"site__publish": {"Publish", false, true, false},
	} {
		mt := byName[name]
		a := mt.Annotations
		got := hints{mt.Title, a.ReadOnlyHint, a.DestructiveHint != nil && *a.DestructiveHint, a.IdempotentHint}
		if got != want || a.Title != want.Title {
			t.Errorf("%s: hints %+v (annotation title %q), want %+v", name, got, a.Title, want)
		}
	}
	search := byName["album__search"]
	if search.Description != "Finds albums whose title contains a word." {
		t.Errorf("description %q", search.Description)
	}
	in := search.InputSchema.(map[string]any)
	if in["$schema"] != "https://json-schema.org/draft/2020-12/schema" || in["type"] != "object" || in["additionalProperties"] != false {
		t.Errorf("input schema %v", in)
	}
	if got := in["required"]; !cmp.Equal(got, []any{"word"}) {
		t.Errorf("required %v, want [word]", got)
	}
	if search.OutputSchema == nil {
		t.Errorf("no output schema")
	}
}

func TestListChanges(t *testing.T) {
	f := newFixture(t)
	srv := mcpserver.New(f.reg, nil)
	changed := make(chan struct{}, 10)
	cs := connect(t, srv, editor, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	extra := &tool.Tool{
		ID: "album.count", Label: "Count", Description: "Counts albums.", Operation: tool.OpRead,
		Permission: "access content",
		Outputs:    []*tool.Definition{{Name: "result", Type: "integer", Required: true}},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			return tool.Succeeded("", map[string]any{"result": len(titles)}), nil
		},
	}
	if err := f.reg.Add(extra); err != nil {
		t.Fatal(err)
	}
	waitFor(t, changed, "tools/list_changed after Add")
	if names := toolNames(t, cs); !slices.Contains(names, "album__count") {
		t.Errorf("after Add, tools/list = %v, want album.count in it", names)
	}
	res := callTool(t, cs, "album.count", nil)
	if res.IsError || string(mustJSON(t, res.StructuredContent)) != `{"result":5}` {
		t.Errorf("album.count: %s", mustJSON(t, res))
	}
	f.reg.Remove("album.search")
	waitFor(t, changed, "tools/list_changed after Remove")
	if names := toolNames(t, cs); slices.Contains(names, "album__search") {
		t.Errorf("after Remove, tools/list = %v", names)
	}
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "album.search", Arguments: map[string]any{"word": "so"}})
	if err == nil || !strings.Contains(err.Error(), "unknown tool") {
		t.Errorf("calling a removed tool: %v, want an unknown tool error", err)
	}
}

func waitFor[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(30 * time.Second):
		t.Fatalf("no %s", what)
		panic("unreachable")
	}
}

func callTool(t testing.TB, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func texts(res *mcp.CallToolResult) []string {
	var out []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			out = append(out, tc.Text)
		}
	}
	return out
}

// validate checks v against the JSON Schema sch (as a client received it)
// with an independent validator.
func validate(t testing.TB, sch, v any) error {
	t.Helper()
	c := sjs.NewCompiler()
	var doc any
	if err := json.Unmarshal(mustJSON(t, sch), &doc); err != nil {
		t.Fatal(err)
	}
	if err := c.AddResource("schema.json", doc); err != nil {
		t.Fatal(err)
	}
	compiled, err := c.Compile("schema.json")
	if err != nil {
		t.Fatalf("advertised schema does not compile: %v", err)
	}
	var inst any
	if err := json.Unmarshal(mustJSON(t, v), &inst); err != nil {
		t.Fatal(err)
	}
	return compiled.Validate(inst)
}

func TestCallSuccess(t *testing.T) {
	f := newFixture(t)
	srv := mcpserver.New(f.reg, nil)
	cs := connect(t, srv, editor, nil)
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var search *mcp.Tool
	for _, mt := range list.Tools {
		if mt.Name == "album__search" {
			search = mt
		}
	}
	args := map[string]any{"word": "A", "limit": 2}
	if err := validate(t, search.InputSchema, args); err != nil {
		t.Fatalf("valid arguments fail the advertised input schema: %v", err)
	}
	res := callTool(t, cs, "album.search", args)
	if res.IsError {
		t.Fatalf("isError: %v", texts(res))
	}
	want := `{"result":[{"position":1,"title":"Autumn Leaves"},{"position":3,"title":"So What"}]}`
	if got := string(mustJSON(t, res.StructuredContent)); got != want {
		t.Errorf("structuredContent = %s, want %s", got, want)
	}
	if err := validate(t, search.OutputSchema, res.StructuredContent); err != nil {
		t.Errorf("structuredContent fails the advertised output schema: %v", err)
	}
	if got := texts(res); len(got) != 1 || got[0] != want {
		t.Errorf("text content = %q, want the JSON of the outputs", got)
	}
}

func TestCallFailures(t *testing.T) {
	f := newFixture(t)
	srv := mcpserver.New(f.reg, nil)
	cs := connect(t, srv, editor, nil)
	tests := []struct {
		name    string
		tool    string
		args    any
		want    []string // substrings of the text content, in order
		notWant string
	}{
		{
			name: "missing input", tool: "album.search", args: map[string]any{"limit": 500},
			want: []string{"Invalid input for Search", "Violations:\n- word: is required (rule: required)\n- limit: must be at most 100 (rule: maximum)", "Input schema:\n{", `"word"`},
		},
		{
			name: "unknown input", tool: "album.search", args: map[string]any{"word": "so", "genre": "jazz"},
			want: []string{"genre: is not an input of this tool", "Input schema:"},
		},
		{
			name: "arguments not an object", tool: "album.search", args: []any{"so"},
			want: []string{"Invalid input for Search", "Input schema:"},
		},
		{
			name: "panic", tool: "test.panic", args: nil,
			want: []string{"Panic failed."}, notWant: "secret",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := callTool(t, cs, tc.tool, tc.args)
			if !res.IsError {
				t.Fatalf("isError false: %s", mustJSON(t, res))
			}
			text := strings.Join(texts(res), "\n")
			rest := text
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("content lacks %q (in order):\n%s", w, text)
				}
				rest = rest[i+len(w):]
			}
			if tc.notWant != "" && strings.Contains(text, tc.notWant) {
				t.Errorf("content has %q:\n%s", tc.notWant, text)
			}
			if res.StructuredContent != nil {
				t.Errorf("structuredContent on failure: %s", mustJSON(t, res.StructuredContent))
			}
		})
	}
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "no.such.tool"}); err == nil || !strings.Contains(err.Error(), `unknown tool "no.such.tool"`) {
		t.Errorf("unknown tool: %v, want an unknown tool protocol error", err)
	}
}

func TestCallMediaContent(t *testing.T) {
	f := newFixture(t)
	srv := mcpserver.New(f.reg, nil)
	cs := connect(t, srv, editor, nil)
	res := callTool(t, cs, "album.cover", map[string]any{})
	if res.IsError {
		t.Fatalf("isError: %v", texts(res))
	}
	if len(res.Content) != 4 {
		t.Fatalf("%d content blocks, want text, image, audio, resource: %s", len(res.Content), mustJSON(t, res.Content))
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); !ok || tc.Text != `{"caption":"Kind of Blue"}` {
		t.Errorf("content[0] = %s, want the JSON of the outputs that are not media", mustJSON(t, res.Content[0]))
	}
	if ic, ok := res.Content[1].(*mcp.ImageContent); !ok || ic.MIMEType != "image/png" || !bytes.Equal(ic.Data, pixel) {
		t.Errorf("content[1] = %s, want the PNG", mustJSON(t, res.Content[1]))
	}
	if ac, ok := res.Content[2].(*mcp.AudioContent); !ok || ac.MIMEType != "audio/wav" || string(ac.Data) != "RIFF" {
		t.Errorf("content[2] = %s, want the WAV", mustJSON(t, res.Content[2]))
	}
	want := &mcp.ResourceContents{URI: "album://1/notes", MIMEType: "text/plain", Text: "Recorded in 1959."}
	if er, ok := res.Content[3].(*mcp.EmbeddedResource); !ok || !cmp.Equal(er.Resource, want) {
		t.Errorf("content[3] = %s, want the embedded notes", mustJSON(t, res.Content[3]))
	}
	sc := res.StructuredContent.(map[string]any)
	if sc["image"] != "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==" {
		t.Errorf("structuredContent.image = %v, want the PNG in base64", sc["image"])
	}
}

func TestProgressAndLogs(t *testing.T) {
	f := newFixture(t)
	srv := mcpserver.New(f.reg, nil)
	progress := make(chan *mcp.ProgressNotificationParams, 10)
	logs := make(chan *mcp.LoggingMessageParams, 10)
	// logging/setLevel sets the level of a session before 2026-07-28.
	cs := connectVersion(t, srv, editor, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) { progress <- r.Params },
		LoggingMessageHandler:       func(_ context.Context, r *mcp.LoggingMessageRequest) { logs <- r.Params },
	}, legacy)
	if err := cs.SetLoggingLevel(context.Background(), &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	params := &mcp.CallToolParams{Name: "test.report"}
	params.SetProgressToken("tok-1")
	res, err := cs.CallTool(context.Background(), params)
	if err != nil || res.IsError {
		t.Fatalf("test.report: %v %v", err, res)
	}
	for i, want := range []float64{0, 50, 100} {
		p := waitFor(t, progress, "progress notification")
		if p.ProgressToken != "tok-1" || p.Progress != want || p.Total != 100 || p.Message != "step" {
			t.Errorf("progress %d = %+v", i, p)
		}
	}
	for i := range 3 {
		l := waitFor(t, logs, "log notification")
		if l.Level != "info" || l.Data != "step "+string(rune('1'+i)) || l.Logger != "test.report" {
			t.Errorf("log %d = %+v", i, l)
		}
	}
	// The debug message is below the level set; the next call's logs come
	// after it, so nothing else may arrive in between.
	params = &mcp.CallToolParams{Name: "test.report"} // no progress token: no progress
	if _, err := cs.CallTool(context.Background(), params); err != nil {
		t.Fatal(err)
	}
	if l := waitFor(t, logs, "log notification"); l.Data != "step 1" {
		t.Errorf("after the first call, log %+v, want the second call's first step", l)
	}
	select {
	case p := <-progress:
		t.Errorf("progress without a progress token: %+v", p)
	default:
	}
}

func TestClientRequests(t *testing.T) {
	for _, version := range []string{legacy, latest} {
		t.Run(version, func(t *testing.T) {
			f := newFixture(t)
			addAskModel(t, f)
			srv := mcpserver.New(f.reg, nil)
			var samples, elicitations int
			asking := connectVersion(t, srv, editor, &mcp.ClientOptions{
				CreateMessageHandler: func(_ context.Context, r *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
					samples++
					prompt := r.Params.Messages[0].Content.(*mcp.TextContent).Text
					return &mcp.CreateMessageResult{Role: "assistant", Model: "m", Content: &mcp.TextContent{Text: "echo: " + prompt}}, nil
				},
				ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					elicitations++
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
				},
			}, version)
			// From 2026-07-28 on, sampling is deprecated: a tool that does not
			// declare it needs it is not offered it.
			res := callTool(t, asking, "test.ask", map[string]any{"prompt": "hi"})
			want, wantSamples := `{"action":"accept","answer":"echo: hi","name":"Ada"}`, 1
			if version == latest {
				want, wantSamples = `{"action":"accept","answer":"","name":"Ada"}`, 0
			}
			if got := string(mustJSON(t, res.StructuredContent)); got != want {
				t.Errorf("with a capable client: %s, want %s", mustJSON(t, res), want)
			}
			if samples != wantSamples || elicitations != 1 {
				t.Errorf("the client was asked %d times to sample and %d to elicit, want %d and 1", samples, elicitations, wantSamples)
			}
			f.mu.Lock()
			if version == latest && !errors.Is(f.asked[0], tool.ErrUnsupported) {
				t.Errorf("tool.Sample of a tool that does not declare it: %v, want ErrUnsupported", f.asked[0])
			}
			f.mu.Unlock()
			res = callTool(t, asking, "test.askmodel", map[string]any{"prompt": "hi"})
			if got := string(mustJSON(t, res.StructuredContent)); got != `{"answer":"echo: hi"}` {
				t.Errorf("a tool that declares it needs sampling: %s", mustJSON(t, res))
			}
			mute := connectVersion(t, srv, editor, nil, version)
			res = callTool(t, mute, "test.ask", map[string]any{"prompt": "hi"})
			if res.IsError {
				t.Fatalf("isError: %v", texts(res))
			}
			f.mu.Lock()
			asked := f.asked
			f.mu.Unlock()
			for i, err := range asked {
				if !errors.Is(err, tool.ErrUnsupported) {
					t.Errorf("request %d to a client without the capability: %v, want ErrUnsupported", i, err)
				}
			}
		})
	}
}

func TestConfirm(t *testing.T) {
	f := newFixture(t)
	srv := mcpserver.New(f.reg, nil)
	answering := func(action string, messages chan<- string) *mcp.ClientOptions {
		return &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			messages <- r.Params.Message
			return &mcp.ElicitResult{Action: action}, nil
		}}
	}
	tests := []struct {
		name      string
		opts      func(chan<- string) *mcp.ClientOptions
		asked     bool
		wantError string // "" for success
		published int
	}{
		{"accept", func(m chan<- string) *mcp.ClientOptions { return answering("accept", m) }, true, "", 1},
		{"decline", func(m chan<- string) *mcp.ClientOptions { return answering("decline", m) }, true, "Publish was not confirmed, so it did not run.", 0},
		{"cancel", func(m chan<- string) *mcp.ClientOptions { return answering("cancel", m) }, true, "Publish was not confirmed, so it did not run.", 0},
		{"no elicitation", func(chan<- string) *mcp.ClientOptions { return nil }, false, "Publish runs only when a person confirms it, and this caller cannot ask for confirmation.", 0},
	}
	for _, version := range []string{legacy, latest} {
		for _, tc := range tests {
			t.Run(version+"/"+tc.name, func(t *testing.T) {
				f.mu.Lock()
				f.published = 0
				f.mu.Unlock()
				messages := make(chan string, 1)
				cs := connectVersion(t, srv, admin, tc.opts(messages), version)
				// The sensitive token is never shown in the question.
				res := callTool(t, cs, "site.publish", map[string]any{"note": "spring", "token": "s3cret"})
				if tc.wantError == "" {
					if res.IsError || texts(res)[0] != "Site published." {
						t.Errorf("result %s, want success", mustJSON(t, res))
					}
				} else if !res.IsError || texts(res)[0] != tc.wantError {
					t.Errorf("result %s, want the error %q", mustJSON(t, res), tc.wantError)
				}
				select {
				case m := <-messages:
					if !tc.asked {
						t.Errorf("asked %q", m)
					} else if want := `Run Publish (site.publish) with {"note":"spring"}?`; m != want {
						t.Errorf("asked %q, want %q", m, want)
					}
				default:
					if tc.asked {
						t.Errorf("the person was not asked")
					}
				}
				f.mu.Lock()
				defer f.mu.Unlock()
				if f.published != tc.published {
					t.Errorf("ran %d times, want %d", f.published, tc.published)
				}
			})
		}
	}
}

func TestCancellation(t *testing.T) {
	f := newFixture(t)
	srv := mcpserver.New(f.reg, nil)
	cs := connect(t, srv, editor, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test.wait"})
		done <- err
	}()
	waitFor(t, f.started, "start of test.wait")
	cancel()
	if err := waitFor(t, f.stopped, "end of test.wait's context"); !errors.Is(err, context.Canceled) {
		t.Errorf("the tool's context ended with %v, want context.Canceled", err)
	}
	if err := waitFor(t, done, "return of CallTool"); !errors.Is(err, context.Canceled) {
		t.Errorf("CallTool returned %v, want context.Canceled", err)
	}
}

// A success without outputs answers the tool's message as its text (and
// an empty object as its structured content), not "{}".
func TestSuccessWithoutOutputs(t *testing.T) {
	reg := tool.NewRegistry(&tool.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	err := reg.Add(
		&tool.Tool{ID: "site.flush", Label: "Flush", Description: "Flushes the caches.", Operation: tool.OpTrigger,
			Permission: "access content", Destructive: new(bool),
			Handler: func(context.Context, *tool.Values) (*tool.Result, error) {
				return tool.Succeeded("Flushed 3 caches.", nil), nil
			}},
		&tool.Tool{ID: "site.ping", Label: "Ping", Description: "Answers.", Operation: tool.OpRead, Permission: "access content",
			Handler: func(context.Context, *tool.Values) (*tool.Result, error) { return nil, nil }},
	)
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, mcpserver.New(reg, nil), editor, nil)
	for name, want := range map[string]string{"site__flush": "Flushed 3 caches.", "site__ping": "Ping completed."} {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name})
		if err != nil || res.IsError || len(res.Content) != 1 {
			t.Fatalf("%s: %+v, %v", name, res, err)
		}
		if got := res.Content[0].(*mcp.TextContent).Text; got != want {
			t.Errorf("%s: text %q, want %q", name, got, want)
		}
		if m, ok := res.StructuredContent.(map[string]any); !ok || len(m) != 0 {
			t.Errorf("%s: structured content %#v, want an empty object", name, res.StructuredContent)
		}
	}
}
