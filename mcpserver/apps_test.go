package mcpserver_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolapi/toolapi/explorer"
	"github.com/toolapi/toolapi/mcpserver"
	"github.com/toolapi/toolapi/tool"
)

func newAppServer(t testing.TB, f *fixture, opts *mcpserver.Options) *mcpserver.Server {
	t.Helper()
	if opts == nil {
		opts = &mcpserver.Options{}
	}
	opts.Name = "album"
	opts.Apps = explorer.NewApps(f.reg, nil)
	return mcpserver.New(f.reg, opts)
}

func resourceURIs(t testing.TB, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListResources(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range res.Resources {
		out = append(out, r.URI)
	}
	slices.Sort(out)
	return out
}

func uiMeta(mt *mcp.Tool) string {
	ui, _ := mt.Meta["ui"].(map[string]any)
	uri, _ := ui["resourceUri"].(string)
	return uri
}

// TestAppsListedAndRead checks that each tool an account may call is
// listed with its app, that the app is a resource of the app media type
// listed for that account, and that reading it gives the tool's form.
func TestAppsListedAndRead(t *testing.T) {
	f := newFixture(t)
	srv := newAppServer(t, f, nil)
	cs := connect(t, srv, editor, nil)
	if ext := cs.InitializeResult().Capabilities.Extensions[mcpserver.UIExtension]; ext == nil {
		t.Errorf("the server does not declare %s", mcpserver.UIExtension)
	}
	lr, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, mt := range lr.Tools {
		id, _ := f.reg.ToolByName(mt.Name)
		if got, want := uiMeta(mt), "ui://album/"+id.ID; got != want {
			t.Errorf("%s: _meta.ui.resourceUri = %q, want %q", mt.Name, got, want)
		}
	}
	uris := resourceURIs(t, cs)
	if !slices.Contains(uris, "ui://album/album.search") || slices.Contains(uris, "ui://album/site.publish") {
		t.Errorf("editor's resources: %v", uris)
	}
	res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "ui://album/album.search"})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Contents[0]
	if c.MIMEType != "text/html;profile=mcp-app" {
		t.Errorf("MIME type %q", c.MIMEType)
	}
	for _, want := range []string{`data-tool="album__search"`, `name="in:word"`, `name="in:limit"`, `value="10"`} {
		if !strings.Contains(c.Text, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	ui, _ := c.Meta["ui"].(map[string]any)
	csp, _ := ui["csp"].(map[string]any)
	if csp == nil || len(csp["connectDomains"].([]any)) != 0 || len(csp["resourceDomains"].([]any)) != 0 || ui["permissions"] != nil {
		t.Errorf("_meta.ui of the contents = %v, want an empty csp and no permissions", c.Meta)
	}

	// The admin sees site.publish's app.
	as := connect(t, srv, admin, nil)
	if uris := resourceURIs(t, as); !slices.Contains(uris, "ui://album/site.publish") {
		t.Errorf("admin's resources: %v", uris)
	}
	if _, err := as.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "ui://album/site.publish"}); err != nil {
		t.Errorf("admin reading site.publish's app: %v", err)
	}
}

// TestHiddenAppNotFound checks that the app of a tool the account may
// not call is answered as an unknown resource, word for word.
func TestHiddenAppNotFound(t *testing.T) {
	f := newFixture(t)
	cs := connect(t, newAppServer(t, f, nil), editor, nil)
	read := func(uri string) *jsonrpc.Error {
		_, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
		var je *jsonrpc.Error
		if !errors.As(err, &je) {
			t.Fatalf("reading %s: %v, want a JSON-RPC error", uri, err)
		}
		return je
	}
	hidden := read("ui://album/site.publish")
	unknown := read("ui://album/site.nothing")
	if hidden.Code != unknown.Code || strings.ReplaceAll(hidden.Message, "site.publish", "X") != strings.ReplaceAll(unknown.Message, "site.nothing", "X") {
		t.Errorf("hidden: %d %q; unknown: %d %q", hidden.Code, hidden.Message, unknown.Code, unknown.Message)
	}
	if hidden.Code != mcp.CodeResourceNotFound {
		t.Errorf("code %d, want %d", hidden.Code, mcp.CodeResourceNotFound)
	}
}

// TestDeclaredAppWins checks that a tool to which the application gives
// its own app is listed with it, and that the generated one steps aside.
func TestDeclaredAppWins(t *testing.T) {
	f := newFixture(t)
	srv := newAppServer(t, f, &mcpserver.Options{Advertise: func(t *tool.Tool, mt *mcp.Tool) {
		if t.ID == "album.search" {
			mt.Meta["ui"] = map[string]any{"resourceUri": "ui://album/custom-search"}
		}
	}})
	srv.MCPServer().AddResource(&mcp.Resource{URI: "ui://album/custom-search", Name: "search", MIMEType: mcpserver.AppMIMEType},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: mcpserver.AppMIMEType, Text: "<p>mine</p>"}}}, nil
		})
	cs := connect(t, srv, editor, nil)
	lr, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, mt := range lr.Tools {
		if mt.Name == "album__search" && uiMeta(mt) != "ui://album/custom-search" {
			t.Errorf("album.search lists %q", uiMeta(mt))
		}
		if mt.Name == "album__cover" && uiMeta(mt) != "ui://album/album.cover" {
			t.Errorf("album.cover lists %q", uiMeta(mt))
		}
	}
	uris := resourceURIs(t, cs)
	if slices.Contains(uris, "ui://album/album.search") || !slices.Contains(uris, "ui://album/custom-search") {
		t.Errorf("resources: %v", uris)
	}
	if _, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "ui://album/album.search"}); err == nil {
		t.Error("the generated app of album.search is still served")
	}
	res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "ui://album/custom-search"})
	if err != nil || res.Contents[0].Text != "<p>mine</p>" {
		t.Errorf("the declared app: %v %v", res, err)
	}
}

// TestNoAppsByDefault checks that a Server without Apps lists no app.
func TestNoAppsByDefault(t *testing.T) {
	f := newFixture(t)
	cs := connect(t, mcpserver.New(f.reg, nil), editor, nil)
	lr, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, mt := range lr.Tools {
		if uiMeta(mt) != "" {
			t.Errorf("%s lists an app", mt.Name)
		}
	}
}

// TestAppFollowsRegistry checks that a tool removed from the registry
// takes its app with it.
func TestAppFollowsRegistry(t *testing.T) {
	f := newFixture(t)
	cs := connect(t, newAppServer(t, f, nil), editor, nil)
	f.reg.Remove("album.cover")
	if uris := resourceURIs(t, cs); slices.Contains(uris, "ui://album/album.cover") {
		t.Errorf("resources after removal: %v", uris)
	}
	if _, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "ui://album/album.cover"}); err == nil {
		t.Error("the removed tool's app is still served")
	}
}

// TestViolationsMeta checks that an input failure carries its violations
// as data, for the app's form to place them on its fields.
func TestViolationsMeta(t *testing.T) {
	f := newFixture(t)
	cs := connect(t, newAppServer(t, f, nil), editor, nil)
	res := callTool(t, cs, "album__search", map[string]any{"word": "", "limit": 500})
	if !res.IsError {
		t.Fatal("the call succeeded")
	}
	vs, _ := res.Meta[mcpserver.ViolationsMetaKey].([]any)
	var got []string
	for _, v := range vs {
		m := v.(map[string]any)
		got = append(got, fmt.Sprint(m["path"], " ", m["rule"]))
	}
	slices.Sort(got)
	if want := []string{"limit maximum", "word minLength"}; !slices.Equal(got, want) {
		t.Errorf("violations %v, want %v", got, want)
	}
	// A success carries none.
	ok := callTool(t, cs, "album__search", map[string]any{"word": "blue"})
	if ok.Meta[mcpserver.ViolationsMetaKey] != nil {
		t.Error("a success carries violations")
	}
}

// benchTools returns a registry of 1,000 tools of three inputs that do
// nothing, and their IDs.
func benchTools(b *testing.B) (*tool.Registry, []string) {
	reg := tool.NewRegistry(nil)
	var ids []string
	for i := range 1000 {
		id := fmt.Sprintf("bench.tool_%d", i)
		ids = append(ids, id)
		if err := reg.Add(&tool.Tool{
			ID: id, Label: "Tool", Description: "Does nothing.", Operation: tool.OpRead, Permission: "access content",
			Inputs: []*tool.Definition{
				{Name: "word", Type: "string", Required: true, Description: "A word.", Constraints: tool.Constraints{NotBlank: true}},
				{Name: "limit", Type: "integer", Default: 10, Constraints: tool.Constraints{Range: &tool.Range{Min: tool.Ptr(1.0), Max: tool.Ptr(100.0)}}},
				{Name: "tags", Type: "list", Items: &tool.Definition{Type: "string"}},
			},
			Outputs: []*tool.Definition{{Name: "result", Type: "string"}},
			Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
				return tool.Succeeded("", map[string]any{"result": "x"}), nil
			},
		}); err != nil {
			b.Fatal(err)
		}
	}
	return reg, ids
}

// BenchmarkReadApp reads the app of one of 1,000 tools through an SDK
// client over in-memory transports, beside the baseline of a tools/call
// of a tool that does nothing, in the same run: compare the two as a
// ratio. Both ends encode and decode the page as JSON.
func BenchmarkReadApp(b *testing.B) {
	reg, ids := benchTools(b)
	srv := mcpserver.New(reg, &mcpserver.Options{Name: "bench", Apps: explorer.NewApps(reg, nil)})
	cs := connect(b, srv, editor, nil)
	ctx := context.Background()
	for _, id := range ids {
		if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: mcpserver.AppURI("bench", id)}); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("read-app", func(b *testing.B) {
		i := 0
		for b.Loop() {
			if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: mcpserver.AppURI("bench", ids[i%len(ids)])}); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
	b.Run("call-baseline", func(b *testing.B) {
		i := 0
		for b.Loop() {
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool.NameOf(ids[i%len(ids)]), Arguments: map[string]any{"word": "w"}}); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
}

// BenchmarkReadAppHTTP is BenchmarkReadApp as the server sees it: raw
// JSON-RPC requests over streamable HTTP without sessions, the answers
// read as bytes, beside a tools/call in the same run.
func BenchmarkReadAppHTTP(b *testing.B) {
	reg, ids := benchTools(b)
	srv := mcpserver.New(reg, &mcpserver.Options{Name: "bench", Apps: explorer.NewApps(reg, nil), Stateless: true, JSONResponse: true,
		Authenticate: func(r *http.Request) (tool.Account, error) { return editor, nil }})
	hs := httptest.NewServer(srv.Handler())
	b.Cleanup(hs.Close)
	do := func(b *testing.B, body string) {
		req, _ := http.NewRequest(http.MethodPost, hs.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		n, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || n < 100 {
			b.Fatalf("status %d, %d bytes", resp.StatusCode, n)
		}
	}
	// Each page is built once, on its first read: the reads measured are
	// those that follow.
	for _, id := range ids {
		do(b, `{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"`+mcpserver.AppURI("bench", id)+`"}}`)
	}
	b.Run("read-app", func(b *testing.B) {
		i := 0
		for b.Loop() {
			do(b, `{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"`+mcpserver.AppURI("bench", ids[i%len(ids)])+`"}}`)
			i++
		}
	})
	b.Run("call-baseline", func(b *testing.B) {
		i := 0
		for b.Loop() {
			do(b, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"`+tool.NameOf(ids[i%len(ids)])+`","arguments":{"word":"w"}}}`)
			i++
		}
	})
}

// TestValidateOnly checks that a tools/call asking to validate only
// answers the violations of its arguments, or none, without running the
// tool, and treats a tool the account may not call as one that does not
// exist.
func TestValidateOnly(t *testing.T) {
	f := newFixture(t)
	srv := newAppServer(t, f, nil)
	validate := func(cs *mcp.ClientSession, name string, args any) (*mcp.CallToolResult, error) {
		return cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args, Meta: mcp.Meta{mcpserver.ValidateMetaKey: true}})
	}
	cs := connect(t, srv, editor, nil)
	res, err := validate(cs, "album__search", map[string]any{"word": "", "limit": 500, "extra": 1})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || res.Meta[mcpserver.ValidateMetaKey] != true {
		t.Fatalf("answer %+v", res)
	}
	var got []string
	for _, v := range res.Meta[mcpserver.ViolationsMetaKey].([]any) {
		got = append(got, v.(map[string]any)["path"].(string))
	}
	slices.Sort(got)
	if want := []string{"extra", "limit", "word"}; !slices.Equal(got, want) {
		t.Errorf("violations at %v, want %v", got, want)
	}

	as := connect(t, srv, admin, nil)
	res, err = validate(as, "site.publish", map[string]any{"note": "hi"})
	if err != nil {
		t.Fatal(err)
	}
	if vs := res.Meta[mcpserver.ViolationsMetaKey].([]any); len(vs) != 0 || res.Meta[mcpserver.ValidateMetaKey] != true {
		t.Errorf("valid arguments: %+v", res)
	}
	f.mu.Lock()
	published := f.published
	f.mu.Unlock()
	if published != 0 {
		t.Errorf("site.publish ran %d times on validation", published)
	}

	_, hidden := validate(cs, "site__publish", map[string]any{})
	_, unknown := validate(cs, "site__nothing", map[string]any{})
	var hj, uj *jsonrpc.Error
	if !errors.As(hidden, &hj) || !errors.As(unknown, &uj) || hj.Code != uj.Code ||
		strings.ReplaceAll(hj.Message, "site__publish", "X") != strings.ReplaceAll(uj.Message, "site__nothing", "X") {
		t.Errorf("hidden: %v; unknown: %v", hidden, unknown)
	}

	// Without apps, the key means nothing: the call runs.
	plain := connect(t, mcpserver.New(f.reg, nil), editor, nil)
	res, err = validate(plain, "album__search", map[string]any{"word": "blue"})
	if err != nil || res.IsError || res.Meta[mcpserver.ValidateMetaKey] != nil {
		t.Errorf("without apps: %+v %v", res, err)
	}
}

// TestAppRefined checks that reading an app's address with the form's
// values in the query "args" gives the page refined from them, that a bad
// query is refused with a message naming it, and that the app of a tool
// the account may not call stays an unknown resource with a query too.
func TestAppRefined(t *testing.T) {
	f := newFixture(t)
	cities := map[string][]any{"fr": {"Paris", "Lyon"}, "it": {"Rome", "Milan"}}
	if err := f.reg.Add(&tool.Tool{
		ID: "test.travel", Label: "Travel", Description: "Picks a city.", Operation: tool.OpRead, Permission: "access content",
		Inputs: []*tool.Definition{
			{Name: "country", Type: "string", Required: true, Default: "fr", Constraints: tool.Constraints{Choice: []any{"fr", "it"}}},
			{Name: "city", Type: "string", Required: true},
		},
		Refiner: &tool.Refiner{Inputs: []string{"city"}, Refine: func(ctx context.Context, def *tool.Definition, values map[string]any) (*tool.Definition, error) {
			c, _ := values["country"].(string)
			d := *def
			d.Constraints.Choice = cities[c]
			return &d, nil
		}},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) { return tool.Succeeded("", nil), nil },
	}); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, newAppServer(t, f, nil), editor, nil)
	read := func(uri string) (string, error) {
		res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			return "", err
		}
		return res.Contents[0].Text, nil
	}
	page, err := read("ui://album/test.travel")
	if err != nil || !strings.Contains(page, `<option value="Lyon"`) || !strings.Contains(page, `data-refines`) || !strings.Contains(page, `data-address="ui://album/test.travel"`) {
		t.Fatalf("the plain page: %v\n%s", err, page)
	}
	page, err = read("ui://album/test.travel?args=" + url.QueryEscape(`{"country":"it","city":"Rome"}`))
	if err != nil || !strings.Contains(page, `<option value="Rome" selected>`) || strings.Contains(page, `Lyon`) {
		t.Errorf("the page refined for it: %v\n%s", err, page)
	}
	for _, q := range []string{"?args=[1]", "?args=nope", "?other=1", "?args=%7B%7D&x=1", "?args=" + strings.Repeat("x", mcpserver.AppArgsMaxBytes+1)} {
		_, err := read("ui://album/test.travel" + q)
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams || !strings.HasPrefix(je.Message, "args: ") {
			t.Errorf("%s: %v, want invalid params naming args", q, err)
		}
	}
	_, hidden := read("ui://album/site.publish?args=%7B%7D")
	_, unknown := read("ui://album/site.nothing?args=%7B%7D")
	var hj, uj *jsonrpc.Error
	if !errors.As(hidden, &hj) || !errors.As(unknown, &uj) || hj.Code != uj.Code || hj.Message != uj.Message {
		t.Errorf("hidden: %v; unknown: %v", hidden, unknown)
	}
}
