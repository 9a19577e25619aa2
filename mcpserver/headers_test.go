package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolapi/toolapi/funcall"
	"github.com/toolapi/toolapi/mcpserver"
	"github.com/toolapi/toolapi/tool"
)

// routed returns a registry holding geo.query, whose region, shard and
// dry_run inputs travel in routing headers too, and a counter of its runs.
// With headers false, the same tool has no Header.
func routed(t testing.TB, headers bool) (*tool.Registry, *atomic.Int64) {
	t.Helper()
	var runs atomic.Int64
	header := func(name string) string {
		if headers {
			return name
		}
		return ""
	}
	reg := tool.NewRegistry(&tool.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	err := reg.Add(&tool.Tool{
		ID: "geo.query", Label: "Query", Description: "Runs a query in a region.",
		Operation: tool.OpRead, Permission: "access content",
		Inputs: []*tool.Definition{
			{Name: "region", Type: "string", Description: "The region.", Header: header("Region")},
			{Name: "shard", Type: "integer", Header: header("Shard")},
			{Name: "dry_run", Type: "boolean", Header: header("Dry-Run")},
			{Name: "query", Type: "string"},
		},
		Outputs: []*tool.Definition{{Name: "region", Type: "string"}},
		Handler: func(_ context.Context, in *tool.Values) (*tool.Result, error) {
			runs.Add(1)
			return tool.Succeeded("", map[string]any{"region": in.String("region")}), nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return reg, &runs
}

// TestHeaderMarks: an input with a Header is listed with x-mcp-header on
// its property of the MCP input schema, and no other; the function-calling
// declarations of the same tool are those of the tool without headers.
func TestHeaderMarks(t *testing.T) {
	for _, fold := range []bool{false, true} {
		reg, _ := routed(t, true)
		cs := connect(t, mcpserver.New(reg, &mcpserver.Options{FoldAnnotations: fold}), editor, nil)
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Tools) != 1 {
			t.Fatalf("listed %d tools, want 1", len(res.Tools))
		}
		b, _ := json.Marshal(res.Tools[0].InputSchema)
		var sch struct {
			Properties map[string]map[string]any `json:"properties"`
		}
		if err := json.Unmarshal(b, &sch); err != nil {
			t.Fatal(err)
		}
		got := map[string]any{}
		for name, p := range sch.Properties {
			if h, ok := p["x-mcp-header"]; ok {
				got[name] = h
			}
		}
		want := map[string]any{"region": "Region", "shard": "Shard", "dry_run": "Dry-Run"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("fold=%v: x-mcp-header marks (-want +got):\n%s", fold, diff)
		}
	}

	with, _ := routed(t, true)
	without, _ := routed(t, false)
	for _, f := range funcall.Formats() {
		a, err := funcall.New(with, editor).Declarations(f)
		if err != nil {
			t.Fatal(err)
		}
		b, err := funcall.New(without, editor).Declarations(f)
		if err != nil {
			t.Fatal(err)
		}
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if !bytes.Equal(ja, jb) {
			t.Errorf("%v declarations change with headers:\n%s\n%s", f, ja, jb)
		}
		if bytes.Contains(ja, []byte("x-mcp-header")) {
			t.Errorf("%v declarations carry x-mcp-header: %s", f, ja)
		}
	}
}

// callBody is a tools/call of protocol version 2026-07-28 naming name,
// with the arguments args (a JSON object).
func callBody(name, args string) string {
	return `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args +
		`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
}

// rpcAnswer is what a raw request was answered.
type rpcAnswer struct {
	status int
	code   int64  // the JSON-RPC error code, 0 for none
	result string // the JSON of the result
}

// postCall posts body with the headers to url (a header whose value is
// a list is sent once per value) and returns what was answered.
func postCall(t *testing.T, url, body string, header map[string][]string) rpcAnswer {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer editor-token")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	for k, vs := range header {
		req.Header.Del(k)
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	var msg struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code int64 `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(lastEvent(string(b))), &msg); err != nil {
		t.Fatalf("answer %d is no JSON-RPC message: %s", res.StatusCode, b)
	}
	a := rpcAnswer{status: res.StatusCode, result: string(msg.Result)}
	if msg.Error != nil {
		a.code = msg.Error.Code
	}
	return a
}

// lastEvent returns the data of the last event of an event stream body,
// or body itself when it is plain JSON.
func lastEvent(body string) string {
	data := body
	for _, line := range strings.Split(body, "\n") {
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			data = d
		}
	}
	return data
}

// TestRoutingHeaders: a tools/call of protocol version 2026-07-28 whose
// routing headers disagree with its body (method, tool name, or the value
// of an input listed with x-mcp-header, sent, missing or unexpected) is
// refused with 400 and -32020, and the tool does not run, whether the call
// names the tool by the name it is listed under or by its ID, with
// sessions or without, and whether tools are listed by name or by ID.
func TestRoutingHeaders(t *testing.T) {
	type h = map[string][]string
	call := func(name string) h { return h{"Mcp-Method": {"tools/call"}, "Mcp-Name": {name}} }
	with := func(base h, kv ...string) h {
		out := h{}
		for k, v := range base {
			out[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			out[kv[i]] = append(out[kv[i]], kv[i+1])
		}
		return out
	}
	cases := []struct {
		name   string
		args   string
		header func(name string) h
		ok     bool
	}{
		{"all headers agree", `{"region":"eu-west","shard":42,"dry_run":true,"query":"q"}`,
			func(n string) h {
				return with(call(n), "Mcp-Param-Region", "eu-west", "Mcp-Param-Shard", "42", "Mcp-Param-Dry-Run", "true")
			}, true},
		{"no header inputs sent", `{"query":"q"}`, call, true},
		{"null inputs need no header", `{"region":null,"shard":null,"query":"q"}`, call, true},
		{"header names ignore case", `{"region":"eu"}`, func(n string) h { return with(call(n), "mcp-param-region", "eu") }, true},
		{"integer compared as a number", `{"shard":42}`, func(n string) h { return with(call(n), "Mcp-Param-Shard", "42.0") }, true},
		{"Base64 value", `{"region":"Zürich"}`, func(n string) h { return with(call(n), "Mcp-Param-Region", "=?base64?WsO8cmljaA==?=") }, true},
		{"value without the whole Base64 wrapper is literal", `{"region":"=?base64?WsO8cmljaA=="}`,
			func(n string) h { return with(call(n), "Mcp-Param-Region", "=?base64?WsO8cmljaA==") }, true},
		{"empty header for an absent input", `{"query":"q"}`, func(n string) h { return with(call(n), "Mcp-Param-Region", "") }, true},
		{"header of an input without a mark is ignored", `{"query":"q"}`, func(n string) h { return with(call(n), "Mcp-Param-Query", "other") }, true},

		{"region differs", `{"region":"eu-west"}`, func(n string) h { return with(call(n), "Mcp-Param-Region", "us-east") }, false},
		{"region header missing", `{"region":"eu-west"}`, call, false},
		{"region header for an absent input", `{"query":"q"}`, func(n string) h { return with(call(n), "Mcp-Param-Region", "eu-west") }, false},
		{"region header for a null input", `{"region":null}`, func(n string) h { return with(call(n), "Mcp-Param-Region", "eu-west") }, false},
		{"region header sent twice", `{"region":"eu"}`, func(n string) h { return with(call(n), "Mcp-Param-Region", "eu", "Mcp-Param-Region", "us") }, false},
		{"region in the body twice", `{"region":"eu","region":"us"}`, func(n string) h { return with(call(n), "Mcp-Param-Region", "eu") }, false},
		{"region not plain ASCII", `{"region":"Zürich"}`, func(n string) h { return with(call(n), "Mcp-Param-Region", "Zürich") }, false},
		{"region in invalid Base64", `{"region":"Hello"}`, func(n string) h { return with(call(n), "Mcp-Param-Region", "=?base64?SGVsbG8?=") }, false},
		{"region is no primitive", `{"region":{"name":"eu"}}`, func(n string) h { return with(call(n), "Mcp-Param-Region", "eu") }, false},
		{"region differs but for a no-break space", `{"region":"eu"}`, func(n string) h { return with(call(n), "Mcp-Param-Region", "\u00a0eu") }, false},
		{"empty region cannot be mirrored", `{"region":""}`, func(n string) h { return with(call(n), "Mcp-Param-Region", "") }, false},
		{"region differs, invalid UTF-8 elsewhere", "{\"region\":\"eu\",\"query\":\"\xff\"}", func(n string) h { return with(call(n), "Mcp-Param-Region", "us") }, false},
		{"shard differs", `{"shard":42}`, func(n string) h { return with(call(n), "Mcp-Param-Shard", "43") }, false},
		{"shard header missing", `{"shard":42}`, call, false},
		{"boolean in capitals", `{"dry_run":true}`, func(n string) h { return with(call(n), "Mcp-Param-Dry-Run", "True") }, false},
		{"method differs", `{"query":"q"}`, func(n string) h { return h{"Mcp-Method": {"tools/list"}, "Mcp-Name": {n}} }, false},
		{"method missing", `{"query":"q"}`, func(n string) h { return h{"Mcp-Name": {n}} }, false},
		{"name differs", `{"query":"q"}`, func(string) h { return call("other") }, false},
		{"name missing", `{"query":"q"}`, func(string) h { return h{"Mcp-Method": {"tools/call"}} }, false},
	}
	for _, mode := range []struct {
		name   string
		opts   mcpserver.Options
		listed string // the name tools/list gives
		other  string // the other spelling tools/call takes
	}{
		{"sessions", mcpserver.Options{}, "geo__query", "geo.query"},
		{"stateless", mcpserver.Options{Stateless: true}, "geo__query", "geo.query"},
		{"raw IDs", mcpserver.Options{RawIDs: true}, "geo.query", "geo__query"},
	} {
		reg, runs := routed(t, true)
		opts := mode.opts
		opts.Authenticate = mcpserver.Bearer(lookupToken)
		ts := httptest.NewServer(mcpserver.New(reg, &opts).Handler())
		t.Cleanup(ts.Close)
		for _, spelling := range []string{mode.listed, mode.other} {
			for _, c := range cases {
				t.Run(mode.name+"/"+spelling+"/"+c.name, func(t *testing.T) {
					before := runs.Load()
					a := postCall(t, ts.URL, callBody(spelling, c.args), c.header(spelling))
					ran := runs.Load() - before
					if c.ok {
						if a.status != http.StatusOK || a.code != 0 || ran != 1 || strings.Contains(a.result, `"isError":true`) {
							t.Errorf("answered %d, error %d, result %s, ran %d times; want a success", a.status, a.code, a.result, ran)
						}
						return
					}
					if a.status != http.StatusBadRequest || a.code != mcp.CodeHeaderMismatch || ran != 0 {
						t.Errorf("answered %d, error %d, ran %d times; want 400, %d and no run", a.status, a.code, ran, mcp.CodeHeaderMismatch)
					}
				})
			}
		}
	}
}

// TestRoutingHeadersOlderVersions: routing headers belong to protocol
// versions from 2026-07-28 on; a session of an older version is not
// checked for them, as the SDK does not check them.
func TestRoutingHeadersOlderVersions(t *testing.T) {
	reg, runs := routed(t, true)
	ts := httptest.NewServer(mcpserver.New(reg, &mcpserver.Options{Authenticate: mcpserver.Bearer(lookupToken)}).Handler())
	t.Cleanup(ts.Close)
	id := openSession(t, ts.URL, "editor-token")
	res, body := postBody(t, ts.URL,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"geo.query","arguments":{"region":"eu"}}}`,
		map[string]string{"Authorization": "Bearer editor-token", "Mcp-Session-Id": id, "Mcp-Protocol-Version": legacy,
			"Mcp-Method": "tools/call", "Mcp-Name": "geo.query", "Mcp-Param-Region": "us"})
	if res.StatusCode != http.StatusOK || runs.Load() != 1 {
		t.Errorf("a call of a %s session answered %d, ran %d times: %s", legacy, res.StatusCode, runs.Load(), body)
	}
}

// TestRoutingHeadersSDKClient: the SDK's client mirrors the inputs of a
// tool that its listing marks when it calls the tool by its listed name,
// and the call runs; a call by the ID, which the client cannot match to a
// listing, carries no Mcp-Param-* header and is refused as the revision
// asks for a value in the body that its header does not carry.
func TestRoutingHeadersSDKClient(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		reg, runs := routed(t, true)
		ts := httptest.NewServer(mcpserver.New(reg, &mcpserver.Options{
			Authenticate: mcpserver.Bearer(lookupToken), Stateless: stateless,
		}).Handler())
		t.Cleanup(ts.Close)
		cs, err := connectHTTP(t, ts.URL, "editor-token", nil, latest)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		if _, err := cs.ListTools(ctx, nil); err != nil {
			t.Fatal(err)
		}
		args := map[string]any{"region": "Zürich", "shard": 7, "dry_run": false}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "geo__query", Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("stateless=%v: call by name: %v %+v", stateless, err, res)
		}
		if got := res.StructuredContent.(map[string]any)["region"]; got != "Zürich" {
			t.Errorf("stateless=%v: region %v, want Zürich", stateless, got)
		}
		_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "geo.query", Arguments: args})
		var rpcErr *jsonrpc.Error
		if !errors.As(err, &rpcErr) || rpcErr.Code != mcp.CodeHeaderMismatch {
			t.Errorf("stateless=%v: call by ID without the headers: %v, want error %d", stateless, err, mcp.CodeHeaderMismatch)
		}
		if runs.Load() != 1 {
			t.Errorf("stateless=%v: the tool ran %d times, want 1", stateless, runs.Load())
		}
	}
}

// TestInvalidHeaderMarks: a tool whose listing Advertise marks with
// x-mcp-header where no header can go (an object property, a header
// named twice) is not served, and the others are; the SDK would refuse
// the listing outright.
func TestInvalidHeaderMarks(t *testing.T) {
	for name, mark := range map[string]func(*jsonschema.Schema){
		"object property": func(s *jsonschema.Schema) {
			s.Properties["nested"] = &jsonschema.Schema{Type: "object", Extra: map[string]any{"x-mcp-header": "Nested"}}
		},
		"header named twice": func(s *jsonschema.Schema) {
			s.Properties["query"].Extra = map[string]any{"x-mcp-header": "region"}
		},
		"no header name": func(s *jsonschema.Schema) {
			s.Properties["query"].Extra = map[string]any{"x-mcp-header": "Two Words"}
		},
	} {
		t.Run(name, func(t *testing.T) {
			reg, _ := routed(t, true)
			err := reg.Add(&tool.Tool{
				ID: "album.search", Label: "Search", Description: "Finds albums.", Operation: tool.OpRead, Access: anyone,
				Handler: func(context.Context, *tool.Values) (*tool.Result, error) { return nil, nil },
			})
			if err != nil {
				t.Fatal(err)
			}
			srv := mcpserver.New(reg, &mcpserver.Options{Advertise: func(t *tool.Tool, mt *mcp.Tool) {
				if t.ID == "geo.query" {
					mark(mt.InputSchema.(*jsonschema.Schema))
				}
			}})
			if got := strings.Join(toolNames(t, connect(t, srv, editor, nil)), " "); got != "album__search" {
				t.Errorf("listed %s, want album__search alone", got)
			}
		})
	}
}

// TestHintsAndIcons: a trigger tool is listed with openWorldHint true,
// any other with false, and a tool's icon as its icons list, with the
// media type its address tells.
func TestHintsAndIcons(t *testing.T) {
	reg := tool.NewRegistry(&tool.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	noop := func(context.Context, *tool.Values) (*tool.Result, error) { return nil, nil }
	add := func(id string, op tool.Operation, icon string) {
		t.Helper()
		if err := reg.Add(&tool.Tool{ID: id, Label: id, Description: "Does " + id + ".", Operation: op, Access: anyone, Icon: icon, Handler: noop}); err != nil {
			t.Fatal(err)
		}
	}
	add("x.trigger", tool.OpTrigger, "https://example.com/icons/bell.png?v=2")
	add("x.read", tool.OpRead, "data:image/svg+xml;base64,PHN2Zy8+")
	add("x.write", tool.OpWrite, "https://example.com/icon")
	add("x.transform", tool.OpTransform, "")
	cs := connect(t, mcpserver.New(reg, nil), editor, nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	type listed struct {
		OpenWorld bool
		Icons     []mcp.Icon
	}
	got := map[string]listed{}
	for _, mt := range res.Tools {
		l := listed{Icons: mt.Icons}
		if mt.Annotations == nil || mt.Annotations.OpenWorldHint == nil {
			t.Errorf("%s is listed without openWorldHint", mt.Name)
		} else {
			l.OpenWorld = *mt.Annotations.OpenWorldHint
		}
		got[mt.Name] = l
	}
	want := map[string]listed{
		"x__trigger":   {true, []mcp.Icon{{Source: "https://example.com/icons/bell.png?v=2", MIMEType: "image/png"}}},
		"x__read":      {false, []mcp.Icon{{Source: "data:image/svg+xml;base64,PHN2Zy8+", MIMEType: "image/svg+xml"}}},
		"x__write":     {false, []mcp.Icon{{Source: "https://example.com/icon"}}},
		"x__transform": {false, nil},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("listing (-want +got):\n%s", diff)
	}
}
