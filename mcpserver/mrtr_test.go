package mcpserver_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolapi/toolapi/mcpserver"
	"github.com/toolapi/toolapi/tool"
)

// addAskModel adds test.askmodel to f: it asks the client's model, and
// declares that it needs to (tool.NeedsSampling).
func addAskModel(t testing.TB, f *fixture) {
	t.Helper()
	err := f.reg.Add(&tool.Tool{
		ID: "test.askmodel", Access: anyone, Label: "Ask model", Description: "Asks the client's model, which it needs.", Operation: tool.OpRead,
		Needs:   []tool.ClientFeature{tool.NeedsSampling},
		Inputs:  []*tool.Definition{{Name: "prompt", Type: "string", Required: true}},
		Outputs: []*tool.Definition{{Name: "answer", Type: "string"}},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			answer, err := tool.Sample(ctx, in.String("prompt"), 50)
			if err != nil {
				return nil, err
			}
			return tool.Succeeded("", map[string]any{"answer": answer}), nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
}

// An mrtrFixture is a fixture whose registry also holds the tools of the
// multi round-trip tests, and counts their runs.
type mrtrFixture struct {
	*fixture
	key []byte

	mu           sync.Mutex
	started, ran int // runs of test.steps that began, and that got both answers
	guarded      int // runs of test.guarded
}

func newMRTRFixture(t *testing.T) *mrtrFixture {
	m := &mrtrFixture{fixture: newFixture(t), key: []byte("a key of the multi round-trip tests")}
	addAskModel(t, m.fixture)
	word := func(key string) *jsonschema.Schema {
		return &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{key: {Type: "string"}}, Required: []string{key}}
	}
	err := m.reg.Add(&tool.Tool{
		ID: "test.steps", Access: anyone, Label: "Steps", Description: "Asks a name, then a colour.", Operation: tool.OpRead,
		Inputs:  []*tool.Definition{{Name: "n", Type: "integer"}},
		Outputs: []*tool.Definition{{Name: "said", Type: "string"}},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			m.mu.Lock()
			m.started++
			m.mu.Unlock()
			name, err := tool.Ask(ctx, tool.Question{Key: "step1", Kind: tool.AskPerson, Message: "Your name?", Schema: word("name")})
			if err != nil {
				return nil, err
			}
			color, err := tool.Ask(ctx, tool.Question{Key: "step2", Kind: tool.AskPerson, Message: "Your colour?", Schema: word("color")})
			if err != nil {
				return nil, err
			}
			m.mu.Lock()
			m.ran++
			m.mu.Unlock()
			return tool.Succeeded("", map[string]any{"said": fmt.Sprintf("%v likes %v", name[0].Elicitation.Content["name"], color[0].Elicitation.Content["color"])}), nil
		},
	}, &tool.Tool{
		ID: "test.together", Access: anyone, Label: "Together", Description: "Asks a name and the roots at once.", Operation: tool.OpRead,
		Outputs: []*tool.Definition{{Name: "said", Type: "string"}},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			a, err := tool.Ask(ctx,
				tool.Question{Key: "name", Kind: tool.AskPerson, Message: "Your name?", Schema: word("name")},
				tool.Question{Kind: tool.AskRoots},
			)
			if err != nil {
				return nil, err
			}
			return tool.Succeeded("", map[string]any{"said": fmt.Sprintf("%v in %s", a[0].Elicitation.Content["name"], strings.Join(a[1].Roots, " "))}), nil
		},
	}, &tool.Tool{
		ID: "test.guarded", Access: anyone, Label: "Guarded", Description: "Runs once a person confirms it.", Operation: tool.OpWrite, Confirm: true,
		Inputs: []*tool.Definition{{Name: "n", Type: "integer"}},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			m.mu.Lock()
			m.guarded++
			m.mu.Unlock()
			return tool.Succeeded("Guarded ran.", nil), nil
		},
	}, &tool.Tool{
		ID: "test.logs", Access: anyone, Label: "Logs", Description: "Logs to the client, which it needs.", Operation: tool.OpRead,
		Needs: []tool.ClientFeature{tool.NeedsLogging},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			tool.Log(ctx, "info", "hello")
			return tool.Succeeded("Logged.", nil), nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func (m *mrtrFixture) counts() (started, ran, guarded int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.started, m.ran, m.guarded
}

// An mrtrMode connects 2026-07-28 clients to a server of the fixture's
// registry: through an HTTP server without sessions, or a session.
type mrtrMode struct {
	name    string
	connect func(t *testing.T, acct tool.Account, opts *mcp.ClientOptions) *mcp.ClientSession
	srv     *mcpserver.Server
}

// mrtrModes returns both modes, each with a server of its own signing with
// m's key; later shifts the servers' clocks.
func mrtrModes(t *testing.T, m *mrtrFixture, later *atomic.Int64) []mrtrMode {
	clock := func() time.Time { return time.Now().Add(time.Duration(later.Load())) }
	tokenOf := map[string]string{"editor": "editor-token", "admin": "admin-token"}

	stateless := mcpserver.New(m.reg, &mcpserver.Options{Stateless: true, StateKey: m.key, Authenticate: mcpserver.Bearer(lookupToken)})
	mcpserver.SetClock(stateless, clock)
	ts := httptest.NewServer(stateless.Handler())
	t.Cleanup(ts.Close)

	sessions := mcpserver.New(m.reg, &mcpserver.Options{StateKey: m.key})
	mcpserver.SetClock(sessions, clock)
	return []mrtrMode{
		{"stateless", func(t *testing.T, acct tool.Account, opts *mcp.ClientOptions) *mcp.ClientSession {
			cs, err := connectHTTP(t, ts.URL, tokenOf[acct.AccountID()], opts, latest)
			if err != nil {
				t.Fatal(err)
			}
			return cs
		}, stateless},
		{"session", func(t *testing.T, acct tool.Account, opts *mcp.ClientOptions) *mcp.ClientSession {
			return connect(t, sessions, acct, opts)
		}, sessions},
	}
}

// byHand are the options of a client that answers the server's questions
// by hand, and offers elicitation, sampling and roots.
func byHand(t *testing.T) *mcp.ClientOptions {
	return &mcp.ClientOptions{
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			t.Error("the server sent an elicitation request")
			return &mcp.ElicitResult{Action: "decline"}, nil
		},
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			t.Error("the server sent a sampling request")
			return nil, errors.New("no")
		},
	}
}

func accepted(content map[string]any) *mcp.ElicitResult {
	return &mcp.ElicitResult{Action: "accept", Content: content}
}

// TestInputRequiredRounds drives a tool that asks two questions in turn,
// round by round, with and without sessions: each round answers with the
// next question and a new signed state, the tool runs again from the start
// each round (the code before its questions runs each time), and runs to
// the end once, with both answers.
func TestInputRequiredRounds(t *testing.T) {
	m := newMRTRFixture(t)
	var later atomic.Int64
	for _, mode := range mrtrModes(t, m, &later) {
		t.Run(mode.name, func(t *testing.T) {
			cs := mode.connect(t, editor, byHand(t))
			started0, ran0, _ := m.counts()
			args := map[string]any{"n": 1}
			call := func(answers mcp.InputResponseMap, state string) (*mcp.CallToolResult, error) {
				return cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "test.steps", Arguments: args, InputResponses: answers, RequestState: state})
			}
			r1, err := call(nil, "")
			if err != nil {
				t.Fatal(err)
			}
			if !r1.NeedsInput() || len(r1.InputRequests) != 1 || r1.InputRequests["step1"] == nil || r1.RequestState == "" {
				t.Fatalf("round 1: %s, want step1 and a state", mustJSON(t, r1))
			}
			r2, err := call(mcp.InputResponseMap{"step1": accepted(map[string]any{"name": "Ada"})}, r1.RequestState)
			if err != nil {
				t.Fatal(err)
			}
			if !r2.NeedsInput() || len(r2.InputRequests) != 1 || r2.InputRequests["step2"] == nil || r2.RequestState == "" || r2.RequestState == r1.RequestState {
				t.Fatalf("round 2: %s, want step2 and a new state", mustJSON(t, r2))
			}
			// step1 was asked in round 1, not in round 2: answering it
			// again with round 2's state is refused, and nothing runs.
			res, err := call(mcp.InputResponseMap{"step1": accepted(map[string]any{"name": "Bob"})}, r2.RequestState)
			wantInvalidParams(t, res, err, "not asked")
			r3, err := call(mcp.InputResponseMap{"step2": accepted(map[string]any{"color": "blue"})}, r2.RequestState)
			if err != nil {
				t.Fatal(err)
			}
			if r3.IsError || r3.NeedsInput() || string(mustJSON(t, r3.StructuredContent)) != `{"said":"Ada likes blue"}` {
				t.Fatalf("round 3: %s, want Ada likes blue", mustJSON(t, r3))
			}
			started, ran, _ := m.counts()
			if started-started0 != 3 || ran-ran0 != 1 {
				t.Errorf("the tool started %d times and ran to the end %d times, want 3 and 1", started-started0, ran-ran0)
			}
			// Round 1's state was used by round 2: it runs nothing again.
			res, err = call(mcp.InputResponseMap{"step1": accepted(map[string]any{"name": "Ada"})}, r1.RequestState)
			wantInvalidParams(t, res, err, "used by an earlier call")
		})
	}
}

// TestInputRequiredTogether checks that the questions of one tool.Ask reach
// a 2026-07-28 client in one round, and that a keyed answer sent without a
// request state is taken while answers to questions the run does not ask
// are ignored.
func TestInputRequiredTogether(t *testing.T) {
	m := newMRTRFixture(t)
	var later atomic.Int64
	for _, mode := range mrtrModes(t, m, &later) {
		t.Run(mode.name, func(t *testing.T) {
			opts := byHand(t)
			opts.Capabilities = &mcp.ClientCapabilities{RootsV2: &mcp.RootCapabilities{}}
			cs := mode.connect(t, editor, opts)
			r1, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "test.together"})
			if err != nil {
				t.Fatal(err)
			}
			if !r1.NeedsInput() || len(r1.InputRequests) != 2 {
				t.Fatalf("round 1: %s, want two questions", mustJSON(t, r1))
			}
			if _, ok := r1.InputRequests["name"].(*mcp.ElicitParams); !ok {
				t.Errorf("question name: %s, want an elicitation", mustJSON(t, r1.InputRequests["name"]))
			}
			if _, ok := r1.InputRequests["q1"].(*mcp.ListRootsParams); !ok {
				t.Errorf("question q1: %s, want roots/list", mustJSON(t, r1.InputRequests["q1"]))
			}
			answers := mcp.InputResponseMap{
				"name":  accepted(map[string]any{"name": "Ada"}),
				"q1":    &mcp.ListRootsResult{Roots: []*mcp.Root{{URI: "file:///work"}}},
				"extra": accepted(map[string]any{"x": 1}),
			}
			// Without the state, the answers are taken by key; extra is ignored.
			for _, state := range []string{"", r1.RequestState} {
				if state != "" {
					delete(answers, "extra") // with a state, it would be an answer to a question not asked
				}
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "test.together", InputResponses: answers, RequestState: state})
				if err != nil {
					t.Fatal(err)
				}
				if res.IsError || res.NeedsInput() || string(mustJSON(t, res.StructuredContent)) != `{"said":"Ada in file:///work"}` {
					t.Errorf("with state %q: %s", state, mustJSON(t, res))
				}
			}
			// Only some of the answers, without a state: asked again.
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "test.together", InputResponses: mcp.InputResponseMap{"wrong": accepted(nil)}})
			if err != nil {
				t.Fatal(err)
			}
			if !res.NeedsInput() || len(res.InputRequests) != 2 {
				t.Errorf("a wrong answer without a state: %s, want both questions again", mustJSON(t, res))
			}
			// The ignored answer is not carried into the signed state, where
			// it could later answer a question of that key never asked.
			payload, _, _ := strings.Cut(res.RequestState, ".")
			decoded, err := base64.RawURLEncoding.DecodeString(payload)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(decoded), "wrong") {
				t.Errorf("request state %s carries the ignored answer", decoded)
			}
		})
	}
}

// TestInputRequiredRefused checks, with and without sessions, that a
// confirmation answered with a changed state, the state of another tool,
// of another account or an expired one is refused as invalid params and
// the tool does not run; and that the right answer runs it once.
func TestInputRequiredRefused(t *testing.T) {
	m := newMRTRFixture(t)
	var later atomic.Int64
	for _, mode := range mrtrModes(t, m, &later) {
		t.Run(mode.name, func(t *testing.T) {
			ed := mode.connect(t, editor, byHand(t))
			ad := mode.connect(t, admin, byHand(t))
			args := map[string]any{"n": 7}
			ask := func(t *testing.T) string {
				t.Helper()
				later.Store(0)
				r := callTool(t, ed, "test.guarded", args)
				if !r.NeedsInput() || r.InputRequests["confirm"] == nil || r.RequestState == "" {
					t.Fatalf("first call: %s, want the confirmation", mustJSON(t, r))
				}
				return r.RequestState
			}
			yes := mcp.InputResponseMap{"confirm": accepted(nil)}
			_, _, before := m.counts()
			for _, tc := range []struct {
				name  string
				cs    *mcp.ClientSession
				tool  string
				args  any
				state func(string) string
				later time.Duration
				want  string
			}{
				{"tampered", ed, "test.guarded", args, func(s string) string { return s + "-TAMPERED" }, 0, "does not belong to this call"},
				{"other tool", ed, "test.steps", args, func(s string) string { return s }, 0, "does not belong to this call"},
				{"other arguments", ed, "test.guarded", map[string]any{"n": 8}, func(s string) string { return s }, 0, "does not belong to this call"},
				{"other account", ad, "test.guarded", args, func(s string) string { return s }, 0, "does not belong to this call"},
				{"expired", ed, "test.guarded", args, func(s string) string { return s }, 16 * time.Minute, "too late"},
			} {
				t.Run(tc.name, func(t *testing.T) {
					state := tc.state(ask(t))
					later.Store(int64(tc.later))
					answers := yes
					if tc.tool == "test.steps" {
						answers = nil
					}
					res, err := tc.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args, InputResponses: answers, RequestState: state})
					wantInvalidParams(t, res, err, tc.want)
				})
			}
			later.Store(0)
			if _, _, after := m.counts(); after != before {
				t.Fatalf("the tool ran %d times", after-before)
			}
			res, err := ed.CallTool(context.Background(), &mcp.CallToolParams{Name: "test.guarded", Arguments: args, InputResponses: yes, RequestState: ask(t)})
			if err != nil || res.IsError || texts(res)[0] != "Guarded ran." {
				t.Fatalf("confirmed: %v %s, want it run", err, mustJSON(t, res))
			}
			if _, _, after := m.counts(); after != before+1 {
				t.Errorf("the tool ran %d times, want once", after-before)
			}
		})
	}
}

// TestInputRequiredNeeds checks what a tool that declares it needs sampling
// or logging ([tool.Tool.Needs]) gets from a 2026-07-28 client that does not
// offer it: a JSON-RPC error before the tool runs (MissingRequiredClient
// Capability, -32021, naming sampling; invalid params for a request that
// sets no log level), while an older client in a session is asked as
// before; and that a tool that does not declare sampling is not offered it.
func TestInputRequiredNeeds(t *testing.T) {
	m := newMRTRFixture(t)
	var later atomic.Int64
	for _, mode := range mrtrModes(t, m, &later) {
		t.Run(mode.name, func(t *testing.T) {
			mute := mode.connect(t, editor, &mcp.ClientOptions{MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}})
			res, err := mute.CallTool(context.Background(), &mcp.CallToolParams{Name: "test.askmodel", Arguments: map[string]any{"prompt": "hi"}})
			var jerr *jsonrpc.Error
			if !errors.As(err, &jerr) || jerr.Code != mcp.CodeMissingRequiredClientCapabilities || !strings.Contains(jerr.Message, "sampling") {
				t.Fatalf("test.askmodel from a client without sampling: %v %s, want error %d", err, mustJSON(t, res), mcp.CodeMissingRequiredClientCapabilities)
			}
			var data mcp.MissingRequiredClientCapabilityData
			if err := json.Unmarshal(jerr.Data, &data); err != nil || data.RequiredCapabilities == nil || data.RequiredCapabilities.Sampling == nil {
				t.Errorf("error data %s, want requiredCapabilities.sampling", jerr.Data)
			}

			// A tool asking the person of a client without elicitation gets
			// ErrUnsupported; test.ask records it.
			res = callTool(t, mute, "test.ask", map[string]any{"prompt": "hi"})
			if res.IsError || res.NeedsInput() {
				t.Errorf("test.ask from a mute client: %s", mustJSON(t, res))
			}
			m.fixture.mu.Lock()
			asked := m.fixture.asked
			m.fixture.mu.Unlock()
			for i, err := range asked {
				if !errors.Is(err, tool.ErrUnsupported) {
					t.Errorf("question %d to a mute client: %v, want ErrUnsupported", i, err)
				}
			}

			res, err = mute.CallTool(context.Background(), &mcp.CallToolParams{Name: "test.logs"})
			if !errors.As(err, &jerr) || jerr.Code != jsonrpc.CodeInvalidParams || !strings.Contains(jerr.Message, mcp.MetaKeyLogLevel) {
				t.Errorf("test.logs without a log level: %v %s, want invalid params naming %s", err, mustJSON(t, res), mcp.MetaKeyLogLevel)
			}
			res, err = mute.CallTool(context.Background(), &mcp.CallToolParams{Name: "test.logs", Meta: mcp.Meta{mcp.MetaKeyLogLevel: "info"}})
			if err != nil || res.IsError || texts(res)[0] != "Logged." {
				t.Errorf("test.logs with a log level: %v %s, want it run", err, mustJSON(t, res))
			}
		})
	}
	t.Run("legacy session", func(t *testing.T) {
		srv := mcpserver.New(m.reg, nil)
		logs := make(chan string, 1)
		cs := connectVersion(t, srv, editor, &mcp.ClientOptions{
			LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) { logs <- fmt.Sprint(r.Params.Data) },
		}, legacy)
		if err := cs.SetLoggingLevel(context.Background(), &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
			t.Fatal(err)
		}
		if res := callTool(t, cs, "test.logs", nil); res.IsError {
			t.Errorf("test.logs: %s", mustJSON(t, res))
		}
		if got := waitFor(t, logs, "log message"); got != "hello" {
			t.Errorf("log %q, want hello", got)
		}
		// A session client without sampling: the call fails, without running.
		res := callTool(t, cs, "test.askmodel", map[string]any{"prompt": "hi"})
		if !res.IsError || !strings.Contains(texts(res)[0], "sampling") {
			t.Errorf("test.askmodel from a client without sampling: %s, want a failure naming sampling", mustJSON(t, res))
		}
	})
}

// TestInputRequiredSDKClient checks that the SDK client, which answers
// input-required results itself from its handlers, runs tools that ask
// through multi round-trip requests, with and without sessions: the person
// is asked (never through a request of the server), and a confirmed tool
// runs once.
func TestInputRequiredSDKClient(t *testing.T) {
	m := newMRTRFixture(t)
	var later atomic.Int64
	for _, mode := range mrtrModes(t, m, &later) {
		t.Run(mode.name, func(t *testing.T) {
			var mu sync.Mutex
			var messages []string
			cs := mode.connect(t, editor, &mcp.ClientOptions{
				ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					mu.Lock()
					messages = append(messages, r.Params.Message)
					mu.Unlock()
					return accepted(map[string]any{"name": "Ada", "color": "red"}), nil
				},
			})
			res := callTool(t, cs, "test.steps", map[string]any{"n": 2})
			if res.IsError || string(mustJSON(t, res.StructuredContent)) != `{"said":"Ada likes red"}` {
				t.Errorf("test.steps: %s", mustJSON(t, res))
			}
			_, _, before := m.counts()
			res = callTool(t, cs, "test.guarded", map[string]any{"n": 2})
			if res.IsError || texts(res)[0] != "Guarded ran." {
				t.Errorf("test.guarded: %s", mustJSON(t, res))
			}
			if _, _, after := m.counts(); after != before+1 {
				t.Errorf("test.guarded ran %d times, want once", after-before)
			}
			mu.Lock()
			defer mu.Unlock()
			want := []string{"Your name?", "Your colour?", `Run Guarded (test.guarded) with {"n":2}?`}
			if !slices.Equal(messages, want) {
				t.Errorf("the person was asked %q, want %q", messages, want)
			}
		})
	}
}

// TestAskKeys checks that tool.Ask refuses a key that is malformed or
// reserved, and a key asked twice in one run, failing the run with the
// error logged rather than sent; and that an older client in a session is
// asked the questions of one tool.Ask in turn, by requests of the server.
func TestAskKeys(t *testing.T) {
	m := newMRTRFixture(t)
	var errs []error
	for _, key := range []string{"confirm", "q1", "two words", strings.Repeat("k", 65), "twice"} {
		err := m.reg.Add(&tool.Tool{
			ID: "test.key_" + fmt.Sprint(len(errs)), Access: anyone, Label: "Key", Description: "Asks under a key.", Operation: tool.OpRead,
			Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
				q := tool.Question{Key: key, Kind: tool.AskPerson, Message: "?"}
				qs := []tool.Question{q}
				if key == "twice" {
					qs = append(qs, q)
				}
				_, err := tool.Ask(ctx, qs...)
				m.mu.Lock()
				errs = append(errs, err)
				m.mu.Unlock()
				return nil, err
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		errs = append(errs, nil)
	}
	errs = nil
	cs := connect(t, mcpserver.New(m.reg, nil), editor, byHand(t))
	for i := range 5 {
		res := callTool(t, cs, fmt.Sprintf("test.key_%d", i), nil)
		if !res.IsError || res.NeedsInput() || texts(res)[0] != "Key failed." {
			t.Errorf("test.key_%d: %s, want a failure without a question", i, mustJSON(t, res))
		}
	}
	m.mu.Lock()
	if len(errs) != 5 || slices.Contains(errs, nil) {
		t.Errorf("tool.Ask errors %v, want 5", errs)
	}
	m.mu.Unlock()

	t.Run("legacy session", func(t *testing.T) {
		var asked []string
		c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
			ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				asked = append(asked, "elicit")
				return accepted(map[string]any{"name": "Ada"}), nil
			},
		})
		c.AddRoots(&mcp.Root{URI: "file:///home"})
		st, ct := mcp.NewInMemoryTransports()
		ss, err := mcpserver.New(m.reg, nil).Connect(context.Background(), st, editor)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := c.Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: legacy})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			cs.Close()
			ss.Wait()
		})
		res := callTool(t, cs, "test.together", nil)
		if res.IsError || string(mustJSON(t, res.StructuredContent)) != `{"said":"Ada in file:///home"}` {
			t.Errorf("test.together: %s", mustJSON(t, res))
		}
		if !slices.Equal(asked, []string{"elicit"}) {
			t.Errorf("elicitation requests %v, want one", asked)
		}
	})
}
