package mcpserver_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	_ "modernc.org/sqlite"

	"github.com/toolapi/toolapi/mcpserver"
	"github.com/toolapi/toolapi/task"
	"github.com/toolapi/toolapi/task/tasktest"
	"github.com/toolapi/toolapi/tool"
)

// taskFixture serves task tools over HTTP, with a task manager on SQLite.
type taskFixture struct {
	url string
	// sessions makes rpc open a session per token and call at the
	// protocol version 2025-11-25, declaring capabilities in initialize.
	sessions bool
	opened   map[string]string // session IDs by token and extension use
	runs     atomic.Int64      // runs of job.greet that reached their end
	purges   atomic.Int64      // runs of job.purge
	releases atomic.Int64      // runs of job.release
	welcomes atomic.Int64      // runs of job.welcome
	mgr      *task.Manager
}

var taskTokens = map[string]tool.Account{
	"ada-token": &tool.User{ID: "ada", Permissions: []string{"jobs"}},
	"bob-token": &tool.User{ID: "bob", Permissions: []string{"jobs"}},
	"ops-token": &tool.User{ID: "ops", Permissions: []string{"jobs", "tasks.view"}},
	"rel-token": &tool.User{ID: "rel", Permissions: []string{"jobs", "release"}},
}

func newTaskFixture(t *testing.T, stateless bool) *taskFixture {
	t.Helper()
	f := &taskFixture{}
	reg := tool.NewRegistry(nil)
	reg.Add(&tool.Tool{
		ID: "job.greet", Label: "Greet", Description: "Asks a name, then greets.", Permission: "jobs",
		Task:    tool.TaskOptional,
		Outputs: []*tool.Definition{{Name: "greeting", Type: "string", Required: true}},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			a, err := tool.Elicit(ctx, "Your name?", &jsonschema.Schema{Type: "object",
				Properties: map[string]*jsonschema.Schema{"name": {Type: "string"}}, Required: []string{"name"}})
			if err != nil {
				return nil, err
			}
			if a.Action != "accept" {
				return tool.Failed("No name, no greeting.", nil), nil
			}
			f.runs.Add(1)
			return tool.Succeeded("", map[string]any{"greeting": "Hello, " + a.Content["name"].(string) + "!"}), nil
		},
	})
	reg.Add(&tool.Tool{
		ID: "job.quick", Label: "Quick", Description: "Runs only as a task.", Permission: "jobs",
		Task:    tool.TaskRequired,
		Outputs: []*tool.Definition{{Name: "n", Type: "integer", Required: true}},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			return tool.Succeeded("", map[string]any{"n": 7}), nil
		},
	})
	reg.Add(&tool.Tool{
		ID: "job.purge", Label: "Purge", Description: "Purges, once confirmed.", Permission: "jobs",
		Task: tool.TaskRequired, Confirm: true,
		Inputs: []*tool.Definition{{Name: "what", Type: "string", Required: true}},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			f.purges.Add(1)
			return tool.Succeeded("Purged "+in.String("what")+".", nil), nil
		},
	})
	reg.Add(&tool.Tool{
		ID: "job.pair", Label: "Pair", Description: "Asks two questions at once.", Permission: "jobs",
		Task: tool.TaskRequired,
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			as, err := tool.Ask(ctx,
				tool.Question{Kind: tool.AskPerson, Message: "First?"},
				tool.Question{Kind: tool.AskPerson, Key: "second", Message: "Second?"})
			if err != nil {
				return nil, err
			}
			return tool.Succeeded(as[0].Elicitation.Action+" "+as[1].Elicitation.Action, nil), nil
		},
	})
	reg.Add(&tool.Tool{
		ID: "job.welcome", Label: "Welcome", Description: "Asks a name before its task, then welcomes.", Permission: "jobs",
		Task: tool.TaskRequired, AskFirst: []tool.Question{yourName},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			as, err := tool.Ask(ctx, yourName)
			if err != nil {
				return nil, err
			}
			f.welcomes.Add(1)
			return tool.Succeeded(fmt.Sprintf("Welcome, %v!", as[0].Elicitation.Content["name"]), nil), nil
		},
	})
	reg.Add(&tool.Tool{
		ID: "job.twice", Label: "Twice", Description: "Asks a name before its task, and again in it.", Permission: "jobs",
		Task: tool.TaskRequired, AskFirst: []tool.Question{yourName},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			first, err := tool.Ask(ctx, yourName)
			if err != nil {
				return nil, err
			}
			again, err := tool.Ask(ctx, yourName)
			if err != nil {
				return nil, err
			}
			return tool.Succeeded(fmt.Sprintf("%v, then %v", first[0].Elicitation.Content["name"], again[0].Elicitation.Content["name"]), nil), nil
		},
	})
	reg.Add(&tool.Tool{
		ID: "job.release", Label: "Release", Description: "Releases, once someone with release approves.", Permission: "jobs",
		Task: tool.TaskRequired, Approver: "release",
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			f.releases.Add(1)
			return tool.Succeeded("Released.", nil), nil
		},
	})
	reg.Add(&tool.Tool{
		ID: "job.refuse", Label: "Refuse", Description: "Reports its own failure.", Permission: "jobs",
		Task: tool.TaskRequired,
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			return nil, &tool.RunError{Message: "The job refuses to work today.", Err: errors.New("secret cause")}
		},
	})
	reg.Add(&tool.Tool{
		ID: "job.panic", Label: "Panic", Description: "Panics.", Permission: "jobs",
		Task: tool.TaskRequired,
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			panic("secret panic text")
		},
	})
	byID := map[string]tool.Account{}
	for _, a := range taskTokens {
		byID[a.AccountID()] = a
	}
	f.mgr = tasktest.Start(t, reg, tasktest.SQLite(t), &task.Options{
		Account:      func(ctx context.Context, id string) (tool.Account, error) { return byID[id], nil },
		Viewers:      "tasks.view",
		PollInterval: 50 * time.Millisecond,
	})
	srv := mcpserver.New(reg, &mcpserver.Options{
		Stateless: stateless,
		Tasks:     f.mgr,
		Authenticate: mcpserver.Bearer(func(_ context.Context, token string) (tool.Account, error) {
			return taskTokens[token], nil
		}),
	})
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	f.url = ts.URL
	f.sessions = !stateless
	f.opened = map[string]string{}
	return f
}

// rpcReply is a JSON-RPC answer.
type rpcReply struct {
	Result map[string]any  `json:"result"`
	Error  *jsonrpc.Error  `json:"error"`
	Raw    json.RawMessage `json:"-"`
}

// rpc sends one 2026-07-28 request (no session) to f's server as the
// account of token, declaring the tasks extension if tasks is true.
func (f *taskFixture) rpc(t *testing.T, token, method string, params map[string]any, tasks bool) rpcReply {
	t.Helper()
	caps := map[string]any{"elicitation": map[string]any{}}
	if tasks {
		caps["extensions"] = map[string]any{mcpserver.TasksExtension: map[string]any{}}
	}
	if params == nil {
		params = map[string]any{}
	}
	version, session := latest, ""
	if f.sessions {
		version = "2025-11-25"
		key := token + fmt.Sprint(tasks)
		if session = f.opened[key]; session == "" {
			session = f.open(t, token, caps)
			f.opened[key] = session
		}
	} else {
		params["_meta"] = map[string]any{
			mcp.MetaKeyProtocolVersion:    latest,
			mcp.MetaKeyClientInfo:         map[string]any{"name": "raw", "version": "1"},
			mcp.MetaKeyClientCapabilities: caps,
		}
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	req, err := http.NewRequest(http.MethodPost, f.url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Mcp-Protocol-Version", version)
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	} else {
		req.Header.Set("Mcp-Method", method)
		if name, ok := params["name"].(string); ok {
			req.Header.Set("Mcp-Name", name)
		}
		if id, ok := params["taskId"].(string); ok {
			req.Header.Set("Mcp-Name", id)
			if id == "MISMATCH" {
				req.Header.Set("Mcp-Name", "another")
			}
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var raw []byte
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok && strings.Contains(d, `"id"`) {
				raw = []byte(d)
			}
		}
	} else {
		var b bytes.Buffer
		b.ReadFrom(resp.Body)
		raw = b.Bytes()
	}
	var r rpcReply
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("%s: status %d, answer %q: %v", method, resp.StatusCode, raw, err)
	}
	r.Raw = raw
	return r
}

// open opens a session for token declaring caps and returns its ID.
func (f *taskFixture) open(t *testing.T, token string, caps map[string]any) string {
	t.Helper()
	send := func(body any, session string) *http.Response {
		b, _ := json.Marshal(body)
		req, _ := http.NewRequest(http.MethodPost, f.url, bytes.NewReader(b))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+token)
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var b2 bytes.Buffer
		b2.ReadFrom(resp.Body)
		resp.Body.Close()
		return resp
	}
	resp := send(map[string]any{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-11-25", "capabilities": caps, "clientInfo": map[string]any{"name": "raw", "version": "1"}}}, "")
	id := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || id == "" {
		t.Fatalf("initialize: status %d, session %q", resp.StatusCode, id)
	}
	send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"}, id)
	return id
}

// poll gets the task id until its status is want or it has ended.
func (f *taskFixture) poll(t *testing.T, token, id, want string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		r := f.rpc(t, token, "tasks/get", map[string]any{"taskId": id}, true)
		if r.Error != nil {
			t.Fatalf("tasks/get %s: %v", id, r.Error)
		}
		st, _ := r.Result["status"].(string)
		if st == want || st == "completed" || st == "failed" || st == "cancelled" {
			return r.Result
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %s still %s, want %s", id, st, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestTasksOverMCP starts a task, polls it to its question, answers it
// through tasks/update and collects the result with tasks/get; the task is
// invisible to another account, visible to a viewer, and bad requests get
// their specific errors without running anything twice.
func TestTasksOverMCP(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		name := "sessions"
		if stateless {
			name = "stateless"
		}
		t.Run(name, func(t *testing.T) {
			f := newTaskFixture(t, stateless)
			created := f.rpc(t, "ada-token", "tools/call", map[string]any{"name": "job.greet", "arguments": map[string]any{}}, true)
			if created.Error != nil {
				t.Fatalf("tools/call: %v", created.Error)
			}
			res := created.Result
			id, _ := res["taskId"].(string)
			if res["resultType"] != "task" || id == "" || res["status"] != "working" || res["ttlMs"] == nil || res["pollIntervalMs"] != float64(50) {
				t.Fatalf("tools/call of a task tool: %s, want a CreateTaskResult", created.Raw)
			}
			if _, ok := res["content"]; ok {
				t.Errorf("CreateTaskResult carries content: %s", created.Raw)
			}

			waiting := f.poll(t, "ada-token", id, "input_required")
			reqs, _ := waiting["inputRequests"].(map[string]any)
			q, _ := reqs["q"].(map[string]any)
			if waiting["status"] != "input_required" || q["method"] != "elicitation/create" {
				t.Fatalf("waiting task: %v, want input_required asking elicitation/create under q", waiting)
			}

			// Another account sees no task, as for an ID that never existed;
			// it cannot answer nor cancel it either.
			unknown := f.rpc(t, "ada-token", "tasks/get", map[string]any{"taskId": "NOSUCHTASK"}, true)
			for _, m := range []string{"tasks/get", "tasks/cancel", "tasks/update"} {
				r := f.rpc(t, "bob-token", m, map[string]any{"taskId": id, "inputResponses": map[string]any{"q": map[string]any{"action": "accept", "content": map[string]any{"name": "Bob"}}}}, true)
				if r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidParams || r.Error.Message != strings.Replace(unknown.Error.Message, "NOSUCHTASK", id, 1) && m == "tasks/get" {
					t.Errorf("%s of ada's task by bob: %s, want the unknown task error (%v)", m, r.Raw, unknown.Error)
				}
			}
			if unknown.Error == nil || unknown.Error.Code != jsonrpc.CodeInvalidParams || !strings.Contains(unknown.Error.Message, "taskId") {
				t.Errorf("tasks/get of an unknown ID: %s", unknown.Raw)
			}
			if stateless { // requests of older protocol versions carry no Mcp-Name
				if r := f.rpc(t, "ada-token", "tasks/get", map[string]any{"taskId": "MISMATCH"}, true); r.Error == nil || r.Error.Code != mcp.CodeHeaderMismatch {
					t.Errorf("tasks/get whose Mcp-Name is not its taskId: %s, want %d", r.Raw, mcp.CodeHeaderMismatch)
				}
			}
			long := strings.Repeat("A", 65)
			if r := f.rpc(t, "ada-token", "tasks/get", map[string]any{"taskId": long}, true); r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidParams || strings.Contains(r.Error.Message, long) || !strings.Contains(r.Error.Message, "at most 64") {
				t.Errorf("tasks/get of a 65-byte taskId: %s, want invalid params naming the limit", r.Raw)
			}
			// A viewer sees it.
			if r := f.rpc(t, "ops-token", "tasks/get", map[string]any{"taskId": id}, true); r.Error != nil || r.Result["taskId"] != id {
				t.Errorf("tasks/get by a viewer: %s", r.Raw)
			}

			// An answer under another key is ignored; one of the wrong shape is refused.
			if r := f.rpc(t, "ada-token", "tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{"other": map[string]any{"ignored": true}}}, true); r.Error != nil || r.Result["resultType"] != "complete" {
				t.Errorf("tasks/update under another key: %s, want it ignored", r.Raw)
			}
			if still := f.poll(t, "ada-token", id, "input_required"); still["status"] != "input_required" {
				t.Errorf("after an answer under another key: %v, want still input_required", still)
			}
			if r := f.rpc(t, "ada-token", "tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{"q": 12}}, true); r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidParams || !strings.Contains(r.Error.Message, "elicitation result") {
				t.Errorf("tasks/update with a number under q: %s, want invalid params", r.Raw)
			}
			if r := f.rpc(t, "ada-token", "tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{"q": map[string]any{"action": "accept", "content": map[string]any{"name": 3}}}}, true); r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidParams || !strings.Contains(r.Error.Message, "inputResponses") {
				t.Errorf("tasks/update with content the schema refuses: %s", r.Raw)
			}

			ack := f.rpc(t, "ada-token", "tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{"q": map[string]any{"action": "accept", "content": map[string]any{"name": "Ada"}}}}, true)
			delete(ack.Result, "_meta") // the server's info
			if ack.Error != nil || ack.Result["resultType"] != "complete" || len(ack.Result) != 1 {
				t.Fatalf("tasks/update: %s, want an empty complete ack", ack.Raw)
			}
			// A second answer finds the task no longer waiting.
			if r := f.rpc(t, "ada-token", "tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{"q": map[string]any{"action": "accept", "content": map[string]any{"name": "Eve"}}}}, true); r.Error == nil || !strings.Contains(r.Error.Message, "not waiting") {
				t.Errorf("a second tasks/update: %s, want not waiting", r.Raw)
			}

			done := f.poll(t, "ada-token", id, "completed")
			result, _ := done["result"].(map[string]any)
			sc, _ := result["structuredContent"].(map[string]any)
			if done["status"] != "completed" || sc["greeting"] != "Hello, Ada!" {
				t.Fatalf("finished task: %v, want completed with the greeting", done)
			}
			if _, ok := done["inputRequests"]; ok {
				t.Errorf("finished task still asks: %v", done)
			}
			// Cancelling a finished task is acknowledged and changes nothing.
			if r := f.rpc(t, "ada-token", "tasks/cancel", map[string]any{"taskId": id}, true); r.Error != nil || r.Result["resultType"] != "complete" {
				t.Errorf("tasks/cancel of a finished task: %s", r.Raw)
			}
			if again := f.poll(t, "ada-token", id, "completed"); again["status"] != "completed" {
				t.Errorf("after cancel: %v", again)
			}
			if n := f.runs.Load(); n != 1 {
				t.Errorf("job.greet ran to its end %d times, want 1", n)
			}

			// A required-task tool called by a client that cannot poll: -32021,
			// and no task is created.
			r := f.rpc(t, "ada-token", "tools/call", map[string]any{"name": "job.quick", "arguments": map[string]any{}}, false)
			if r.Error == nil || r.Error.Code != mcp.CodeMissingRequiredClientCapabilities || !strings.Contains(string(r.Error.Data), mcpserver.TasksExtension) {
				t.Errorf("job.quick without the tasks extension: %s, want error %d naming the extension", r.Raw, mcp.CodeMissingRequiredClientCapabilities)
			}
			page, err := f.mgr.List(tool.WithAccount(context.Background(), taskTokens["ada-token"]), nil)
			if err != nil || len(page.Tasks) != 1 {
				t.Errorf("ada's tasks: %v %v, want only the greeting", page, err)
			}
			// An optional task tool runs in the request of such a client
			// (without a session, it asks its question in the result).
			if stateless {
				r = f.rpc(t, "ada-token", "tools/call", map[string]any{"name": "job.greet", "arguments": map[string]any{}}, false)
				if r.Error != nil || r.Result["resultType"] != "input_required" {
					t.Errorf("job.greet without the tasks extension: %s, want a run in the request", r.Raw)
				}
			}
		})
	}
}

// TestTasksCancel cancels a task that waits for an answer.
func TestTasksCancel(t *testing.T) {
	f := newTaskFixture(t, true)
	created := f.rpc(t, "ada-token", "tools/call", map[string]any{"name": "job.greet", "arguments": map[string]any{}}, true)
	id, _ := created.Result["taskId"].(string)
	if id == "" {
		t.Fatalf("tools/call: %s", created.Raw)
	}
	f.poll(t, "ada-token", id, "input_required")
	if r := f.rpc(t, "bob-token", "tasks/cancel", map[string]any{"taskId": id}, true); r.Error == nil {
		t.Errorf("bob cancelled ada's task: %s", r.Raw)
	}
	if r := f.rpc(t, "ada-token", "tasks/cancel", map[string]any{"taskId": id}, true); r.Error != nil || r.Result["resultType"] != "complete" {
		t.Fatalf("tasks/cancel: %s", r.Raw)
	}
	got := f.poll(t, "ada-token", id, "cancelled")
	if got["status"] != "cancelled" {
		t.Errorf("cancelled task: %v", got)
	}
	if r := f.rpc(t, "ada-token", "tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{"q": map[string]any{"action": "accept", "content": map[string]any{"name": "Ada"}}}}, true); r.Error == nil || !strings.Contains(r.Error.Message, "not waiting") {
		t.Errorf("answer to a cancelled task: %s", r.Raw)
	}
	if f.runs.Load() != 0 {
		t.Errorf("the cancelled task ran to its end")
	}
}

// TestTasksFailureShapes: a task whose tool reported its failure completes
// with an error result; one whose tool panicked fails with an error object
// that says only that it failed, and carries no result.
func TestTasksFailureShapes(t *testing.T) {
	f := newTaskFixture(t, true)
	start := func(name string) string {
		t.Helper()
		r := f.rpc(t, "ada-token", "tools/call", map[string]any{"name": name, "arguments": map[string]any{}}, true)
		id, _ := r.Result["taskId"].(string)
		if id == "" {
			t.Fatalf("tools/call %s: %s, want a task", name, r.Raw)
		}
		return id
	}
	refused := f.poll(t, "ada-token", start("job.refuse"), "completed")
	res, _ := refused["result"].(map[string]any)
	if refused["status"] != "completed" || res["isError"] != true || refused["error"] != nil {
		t.Errorf("task of a tool that reported its failure: %v, want completed with an error result", refused)
	}
	if b, _ := json.Marshal(res); !strings.Contains(string(b), "The job refuses to work today.") || strings.Contains(string(b), "secret") {
		t.Errorf("its result %s, want the tool's message and not its cause", b)
	}
	panicked := f.poll(t, "ada-token", start("job.panic"), "failed")
	e, _ := panicked["error"].(map[string]any)
	if panicked["status"] != "failed" || panicked["result"] != nil || e["code"] != float64(jsonrpc.CodeInternalError) || e["message"] != "Panic failed." {
		t.Errorf("task of a tool that panicked: %v, want failed with the error \"Panic failed.\" and no result", panicked)
	}
}

// TestTaskConfirmedBeforeCreation: a 2026-07-28 client is asked to confirm
// a task tool marked Confirm in input-required rounds of the tools/call;
// the task is created only by the round that brings the accepted
// confirmation with its request state, and runs without asking again. A
// declined confirmation creates no task; an older client is asked inside
// the task.
func TestTaskConfirmedBeforeCreation(t *testing.T) {
	f := newTaskFixture(t, true)
	ada := tool.WithAccount(context.Background(), taskTokens["ada-token"])
	count := func() int {
		t.Helper()
		page, err := f.mgr.List(ada, nil)
		if err != nil {
			t.Fatal(err)
		}
		return len(page.Tasks)
	}
	args := map[string]any{"what": "logs"}
	round1 := f.rpc(t, "ada-token", "tools/call", map[string]any{"name": "job.purge", "arguments": args}, true)
	reqs, _ := round1.Result["inputRequests"].(map[string]any)
	confirm, _ := reqs["confirm"].(map[string]any)
	state, _ := round1.Result["requestState"].(string)
	if round1.Error != nil || round1.Result["resultType"] != "input_required" || confirm["method"] != "elicitation/create" || state == "" || round1.Result["taskId"] != nil {
		t.Fatalf("round 1: %s, want input_required asking the confirmation, with a request state and no task", round1.Raw)
	}
	if n := count(); n != 0 {
		t.Fatalf("%d tasks after round 1, want none", n)
	}
	accept := map[string]any{"confirm": map[string]any{"action": "accept"}}
	// The confirmation without its request state is not taken: asked again.
	again := f.rpc(t, "ada-token", "tools/call", map[string]any{"name": "job.purge", "arguments": args, "inputResponses": accept}, true)
	if again.Result["resultType"] != "input_required" || count() != 0 {
		t.Fatalf("a confirmation without its state: %s, want asked again and no task", again.Raw)
	}
	// Declined: no task, the refusal a run gives.
	declined := f.rpc(t, "ada-token", "tools/call", map[string]any{"name": "job.purge", "arguments": args,
		"inputResponses": map[string]any{"confirm": map[string]any{"action": "decline"}}, "requestState": again.Result["requestState"]}, true)
	if declined.Error != nil || declined.Result["isError"] != true || !strings.Contains(string(declined.Raw), "not confirmed") || count() != 0 {
		t.Fatalf("declined: %s, want an error result and no task", declined.Raw)
	}
	round2 := f.rpc(t, "ada-token", "tools/call", map[string]any{"name": "job.purge", "arguments": args, "inputResponses": accept, "requestState": state}, true)
	id, _ := round2.Result["taskId"].(string)
	if round2.Error != nil || round2.Result["resultType"] != "task" || id == "" {
		t.Fatalf("round 2: %s, want a CreateTaskResult", round2.Raw)
	}
	for _, k := range []string{"requestState", "inputRequests"} {
		if _, ok := round2.Result[k]; ok {
			t.Errorf("round 2 carries %s: %s", k, round2.Raw)
		}
	}
	done := f.poll(t, "ada-token", id, "completed")
	if done["status"] != "completed" || !strings.Contains(fmt.Sprint(done["result"]), "Purged logs.") || f.purges.Load() != 1 {
		t.Errorf("task: %v after %d runs, want completed once without a question", done, f.purges.Load())
	}
	// The state is good for one call.
	if r := f.rpc(t, "ada-token", "tools/call", map[string]any{"name": "job.purge", "arguments": args, "inputResponses": accept, "requestState": state}, true); r.Error == nil || count() != 1 {
		t.Errorf("the state replayed: %s, want refused and still one task", r.Raw)
	}

	// A client of 2025-11-25 (sessions) gets its task at once, which asks.
	old := newTaskFixture(t, false)
	created := old.rpc(t, "ada-token", "tools/call", map[string]any{"name": "job.purge", "arguments": args}, true)
	oid, _ := created.Result["taskId"].(string)
	if oid == "" {
		t.Fatalf("older client: %s, want a task", created.Raw)
	}
	waiting := old.poll(t, "ada-token", oid, "input_required")
	if reqs, _ := waiting["inputRequests"].(map[string]any); reqs["confirm"] == nil {
		t.Errorf("older client's task: %v, want it to ask the confirmation", waiting)
	}
	if r := old.rpc(t, "ada-token", "tasks/cancel", map[string]any{"taskId": oid}, true); r.Error != nil {
		t.Errorf("tasks/cancel: %s", r.Raw)
	}
}

// yourName is job.welcome's question, asked before its task.
var yourName = tool.Question{Key: "your_name", Kind: tool.AskPerson, Message: "Your name?",
	Schema: &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"name": {Type: "string"}}, Required: []string{"name"}}}

// TestTaskAskedBeforeCreation: a tool's AskFirst question reaches a client
// of 2026-07-28 in an input-required round of its tools/call, without a
// task; the round that answers it creates the task (no requestState in
// its result), and the task's run finds the answer without asking. A
// client of 2025-11-25 gets its task at once, and the task asks.
func TestTaskAskedBeforeCreation(t *testing.T) {
	f := newTaskFixture(t, true)
	round1 := f.rpc(t, "ada-token", "tools/call", map[string]any{"name": "job.welcome", "arguments": map[string]any{}}, true)
	reqs, _ := round1.Result["inputRequests"].(map[string]any)
	state, _ := round1.Result["requestState"].(string)
	if round1.Error != nil || round1.Result["resultType"] != "input_required" || reqs["your_name"] == nil || state == "" || round1.Result["taskId"] != nil {
		t.Fatalf("round 1: %s, want input_required asking your_name, with a state and no task", round1.Raw)
	}
	round2 := f.rpc(t, "ada-token", "tools/call", map[string]any{"name": "job.welcome", "arguments": map[string]any{},
		"inputResponses": map[string]any{"your_name": map[string]any{"action": "accept", "content": map[string]any{"name": "Alice"}}}, "requestState": state}, true)
	id, _ := round2.Result["taskId"].(string)
	if round2.Error != nil || round2.Result["resultType"] != "task" || id == "" || round2.Result["requestState"] != nil {
		t.Fatalf("round 2: %s, want a CreateTaskResult without requestState", round2.Raw)
	}
	done := f.poll(t, "ada-token", id, "completed")
	if done["status"] != "completed" || !strings.Contains(fmt.Sprint(done["result"]), "Welcome, Alice!") || f.welcomes.Load() != 1 {
		t.Fatalf("task: %v after %d runs, want completed with Alice's name", done, f.welcomes.Load())
	}

	// The answer given before the task answers the run's first question of
	// its key only: asked again, the task asks the person.
	r1 := f.rpc(t, "ada-token", "tools/call", map[string]any{"name": "job.twice", "arguments": map[string]any{}}, true)
	r2 := f.rpc(t, "ada-token", "tools/call", map[string]any{"name": "job.twice", "arguments": map[string]any{},
		"inputResponses": map[string]any{"your_name": map[string]any{"action": "accept", "content": map[string]any{"name": "Alice"}}}, "requestState": r1.Result["requestState"]}, true)
	tid, _ := r2.Result["taskId"].(string)
	if tid == "" {
		t.Fatalf("job.twice: %s then %s, want a task", r1.Raw, r2.Raw)
	}
	if w := f.poll(t, "ada-token", tid, "input_required"); w["inputRequests"].(map[string]any)["your_name"] == nil {
		t.Fatalf("job.twice's second question: %v", w)
	}
	f.rpc(t, "ada-token", "tasks/update", map[string]any{"taskId": tid, "inputResponses": map[string]any{
		"your_name": map[string]any{"action": "accept", "content": map[string]any{"name": "Carol"}}}}, true)
	if done := f.poll(t, "ada-token", tid, "completed"); !strings.Contains(fmt.Sprint(done["result"]), "Alice, then Carol") {
		t.Fatalf("job.twice: %v, want Alice, then Carol", done)
	}

	old := newTaskFixture(t, false)
	created := old.rpc(t, "ada-token", "tools/call", map[string]any{"name": "job.welcome", "arguments": map[string]any{}}, true)
	oid, _ := created.Result["taskId"].(string)
	if oid == "" {
		t.Fatalf("older client: %s, want a task", created.Raw)
	}
	waiting := old.poll(t, "ada-token", oid, "input_required")
	if reqs, _ := waiting["inputRequests"].(map[string]any); reqs["your_name"] == nil {
		t.Fatalf("older client's task: %v, want it to ask your_name", waiting)
	}
	if r := old.rpc(t, "ada-token", "tasks/update", map[string]any{"taskId": oid, "inputResponses": map[string]any{
		"your_name": map[string]any{"action": "accept", "content": map[string]any{"name": "Bob"}}}}, true); r.Error != nil {
		t.Fatalf("tasks/update: %s", r.Raw)
	}
	if done := old.poll(t, "ada-token", oid, "completed"); !strings.Contains(fmt.Sprint(done["result"]), "Welcome, Bob!") {
		t.Fatalf("older client's task: %v", done)
	}
}

// TestTaskSeveralQuestions: a task whose tool asks two questions at once
// asks both in inputRequests; answering one keeps it waiting for the
// other alone, and answering that one completes it.
func TestTaskSeveralQuestions(t *testing.T) {
	f := newTaskFixture(t, true)
	created := f.rpc(t, "ada-token", "tools/call", map[string]any{"name": "job.pair", "arguments": map[string]any{}}, true)
	id, _ := created.Result["taskId"].(string)
	if id == "" {
		t.Fatalf("tools/call: %s", created.Raw)
	}
	keys := func(r map[string]any) []string {
		reqs, _ := r["inputRequests"].(map[string]any)
		var ks []string
		for k := range reqs {
			ks = append(ks, k)
		}
		slices.Sort(ks)
		return ks
	}
	waiting := f.poll(t, "ada-token", id, "input_required")
	if got := keys(waiting); !slices.Equal(got, []string{"q1", "second"}) {
		t.Fatalf("waiting task asks %v, want q1 and second: %v", got, waiting)
	}
	if r := f.rpc(t, "ada-token", "tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{"second": map[string]any{"action": "decline"}}}, true); r.Error != nil || r.Result["resultType"] != "complete" {
		t.Fatalf("partial tasks/update: %s", r.Raw)
	}
	still := f.rpc(t, "ada-token", "tasks/get", map[string]any{"taskId": id}, true)
	if still.Result["status"] != "input_required" || !slices.Equal(keys(still.Result), []string{"q1"}) {
		t.Fatalf("after one answer: %s, want input_required asking q1 alone", still.Raw)
	}
	if r := f.rpc(t, "ada-token", "tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{"q1": map[string]any{"action": "accept"}}}, true); r.Error != nil {
		t.Fatalf("second tasks/update: %s", r.Raw)
	}
	done := f.poll(t, "ada-token", id, "completed")
	if done["status"] != "completed" || !strings.Contains(fmt.Sprint(done["result"]), "accept decline") {
		t.Errorf("task: %v, want completed with both answers", done)
	}
}

// TestApprovalOverMCP: a call of a tool with an approver is a task that
// waits; a client that polls sees it working "awaiting approval" and then
// its outcome once approved; one that cannot poll is told, in an error
// result, that the call has not run and which task waits, and nothing runs
// before the approval. A standing approval lets the next call of a client
// that cannot poll run in the request.
func TestApprovalOverMCP(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		t.Run(map[bool]string{false: "sessions", true: "stateless"}[stateless], func(t *testing.T) {
			f := newTaskFixture(t, stateless)
			ada, rel := tool.WithAccount(context.Background(), taskTokens["ada-token"]), tool.WithAccount(context.Background(), taskTokens["rel-token"])

			created := f.rpc(t, "ada-token", "tools/call", map[string]any{"name": "job.release", "arguments": map[string]any{}}, true)
			id, _ := created.Result["taskId"].(string)
			if id == "" || created.Result["status"] != "working" || created.Result["statusMessage"] != task.AwaitingApproval {
				t.Fatalf("tools/call by a client that polls: %s", created.Raw)
			}
			got := f.rpc(t, "ada-token", "tasks/get", map[string]any{"taskId": id}, true)
			if got.Result["status"] != "working" || got.Result["statusMessage"] != task.AwaitingApproval {
				t.Errorf("tasks/get while it waits: %s", got.Raw)
			}

			plain := f.rpc(t, "ada-token", "tools/call", map[string]any{"name": "job.release", "arguments": map[string]any{}}, false)
			text := fmt.Sprint(plain.Result["content"])
			if plain.Error != nil || plain.Result["isError"] != true || !strings.Contains(text, `Release has not run: it waits for the approval of an account with the permission "release"`) {
				t.Fatalf("tools/call by a client that cannot poll: %s", plain.Raw)
			}
			// A client of 2026-07-28 reads every result's resultType.
			if want := map[bool]any{true: "complete", false: nil}[stateless]; plain.Result["resultType"] != want {
				t.Errorf("resultType %v, want %v: %s", plain.Result["resultType"], want, plain.Raw)
			}
			ps, err := f.mgr.Approvals(rel)
			if err != nil || len(ps) != 2 {
				t.Fatalf("waiting for approval: %d, %v; want both calls", len(ps), err)
			}
			if f.releases.Load() != 0 {
				t.Fatal("a call ran before its approval")
			}
			if _, err := f.mgr.Approve(rel, id, nil); err != nil {
				t.Fatal(err)
			}
			if done := f.poll(t, "ada-token", id, "completed"); done["status"] != "completed" {
				t.Errorf("the approved task: %v", done)
			}
			if f.releases.Load() != 1 {
				t.Errorf("%d runs after one approval", f.releases.Load())
			}

			if _, err := f.mgr.Grant(rel, &task.Grant{Tool: "job.release", Account: "ada"}); err != nil {
				t.Fatal(err)
			}
			plain = f.rpc(t, "ada-token", "tools/call", map[string]any{"name": "job.release", "arguments": map[string]any{}}, false)
			if plain.Error != nil || plain.Result["isError"] == true || !strings.Contains(fmt.Sprint(plain.Result["content"]), "Released.") {
				t.Errorf("a call under a standing approval by a client that cannot poll: %s", plain.Raw)
			}
			if _, err := f.mgr.Approve(ada, id, nil); !errors.Is(err, task.ErrNotFound) {
				t.Errorf("ada approving: %v", err)
			}
		})
	}
}
