package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolapi/toolapi/mcpserver"
	"github.com/toolapi/toolapi/secrets"
	"github.com/toolapi/toolapi/tool"
)

// secretFixture serves bank.link, whose password is sensitive, with a
// desk that collects it out of band.
type secretFixture struct {
	reg    *tool.Registry
	desk   *secrets.Desk
	ran    atomic.Int64
	gotPwd atomic.Value
}

func newSecretFixture(t *testing.T) *secretFixture {
	f := &secretFixture{
		reg:  tool.NewRegistry(&tool.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}),
		desk: secrets.New("https://photos.example.com", nil),
	}
	err := f.reg.Add(&tool.Tool{
		ID: "bank.link", Label: "Link bank", Description: "Links a bank account.", Operation: tool.OpWrite, Access: anyone,
		Inputs: []*tool.Definition{
			{Name: "user", Type: "string", Required: true, Description: "The bank's user name."},
			{Name: "password", Label: "Bank password", Type: "string", Required: true, Sensitive: true, Description: "The bank's password."},
		},
		Outputs: []*tool.Definition{{Name: "linked", Type: "string", Required: true}},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			f.ran.Add(1)
			f.gotPwd.Store(in.String("password"))
			return tool.Succeeded("", map[string]any{"linked": in.String("user")}), nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// person enters password on the page of the request the desk holds for
// acct at url, as the explorer's page does.
func (f *secretFixture) person(t *testing.T, acct tool.Account, url, password string) {
	t.Helper()
	if err := f.enter(acct, url, password); err != nil {
		t.Fatal(err)
	}
}

// enter is person for another goroutine than the test's.
func (f *secretFixture) enter(acct tool.Account, url, password string) error {
	if !strings.HasPrefix(url, "https://photos.example.com/secrets/") {
		return fmt.Errorf("the page is at %q", url)
	}
	id := url[strings.LastIndex(url, "/")+1:]
	if err := f.desk.Answer(acct, id, map[string]string{"password": password}); err != nil {
		return fmt.Errorf("entering the password: %w", err)
	}
	return nil
}

func (f *secretFixture) linked(t *testing.T, res *mcp.CallToolResult, want string) {
	t.Helper()
	if res.IsError || res.NeedsInput() || string(mustJSON(t, res.StructuredContent)) != `{"linked":"ada"}` {
		t.Fatalf("result %s, want linked ada", mustJSON(t, res))
	}
	if got, _ := f.gotPwd.Load().(string); got != want {
		t.Fatalf("the tool got password %q, want %q", got, want)
	}
	for _, s := range texts(res) {
		if strings.Contains(s, want) {
			t.Fatalf("the result repeats the password: %q", s)
		}
	}
}

var urlElicitation = &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}}

// TestSecretOverSession: a client of 2025-11-25 that offers URL
// elicitation is sent the page's address; the call waits until the person
// enters the password there, is told the page is done, and runs with it.
func TestSecretOverSession(t *testing.T) {
	f := newSecretFixture(t)
	srv := mcpserver.New(f.reg, &mcpserver.Options{Secrets: f.desk})
	ada := &tool.User{ID: "ada"}
	completed := make(chan string, 1)
	var asked atomic.Int64
	cs := connectVersion(t, srv, ada, &mcp.ClientOptions{
		Capabilities: urlElicitation,
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked.Add(1)
			p := req.Params
			if p.Mode != "url" || p.ElicitationID == "" || !strings.Contains(p.Message, "Bank password") {
				t.Errorf("elicitation %+v, want url mode naming the Bank password", p)
			}
			// The person opens the page and enters it, after consenting.
			go func() {
				if err := f.enter(ada, p.URL, "hunter2"); err != nil {
					t.Error(err)
				}
			}()
			return &mcp.ElicitResult{Action: "accept"}, nil
		},
		ElicitationCompleteHandler: func(ctx context.Context, req *mcp.ElicitationCompleteNotificationRequest) {
			completed <- req.Params.ElicitationID
		},
	}, legacy)
	res := callTool(t, cs, "bank__link", map[string]any{"user": "ada"})
	f.linked(t, res, "hunter2")
	if asked.Load() != 1 {
		t.Fatalf("asked %d times, want 1", asked.Load())
	}
	if id := waitFor(t, completed, "notifications/elicitation/complete"); id == "" {
		t.Fatal("completed an empty elicitation ID")
	}
	if f.desk.Len() != 0 {
		t.Fatalf("the desk still holds %d requests", f.desk.Len())
	}

	// A person who declines: the tool does not run.
	cs2 := connectVersion(t, srv, ada, &mcp.ClientOptions{
		Capabilities: urlElicitation,
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "decline"}, nil
		},
	}, legacy)
	ran := f.ran.Load()
	res = callTool(t, cs2, "bank__link", map[string]any{"user": "ada"})
	if !res.IsError || f.ran.Load() != ran || !strings.Contains(strings.Join(texts(res), " "), "did not give the Bank password") {
		t.Fatalf("declined: %s, ran %d more", mustJSON(t, res), f.ran.Load()-ran)
	}
	if f.desk.Len() != 0 {
		t.Fatalf("the declined call's page is still open (%d)", f.desk.Len())
	}
}

// TestSecretInRounds: a client of 2026-07-28 gets the page's address as
// the question "secret" of an input-required result, and its call with the
// answer and the state runs once the person has entered the password; on
// both modes.
func TestSecretInRounds(t *testing.T) {
	f := newSecretFixture(t)
	key := []byte("0123456789abcdef0123456789abcdef")
	ada := &tool.User{ID: "ada"}
	stateless := mcpserver.New(f.reg, &mcpserver.Options{Stateless: true, StateKey: key, Secrets: f.desk,
		Authenticate: mcpserver.Bearer(func(context.Context, string) (tool.Account, error) { return ada, nil })})
	ts := httptest.NewServer(stateless.Handler())
	t.Cleanup(ts.Close)
	sessions := mcpserver.New(f.reg, &mcpserver.Options{StateKey: key, Secrets: f.desk})
	opts := &mcp.ClientOptions{
		Capabilities:   urlElicitation,
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			t.Error("the server sent an elicitation request")
			return &mcp.ElicitResult{Action: "decline"}, nil
		},
	}
	for _, mode := range []struct {
		name string
		cs   func() *mcp.ClientSession
	}{
		{"stateless", func() *mcp.ClientSession {
			cs, err := connectHTTP(t, ts.URL, "t", opts, latest)
			if err != nil {
				t.Fatal(err)
			}
			return cs
		}},
		{"session", func() *mcp.ClientSession { return connect(t, sessions, ada, opts) }},
	} {
		t.Run(mode.name, func(t *testing.T) {
			cs := mode.cs()
			args := map[string]any{"user": "ada"}
			ran := f.ran.Load()
			r1, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "bank__link", Arguments: args})
			if err != nil {
				t.Fatal(err)
			}
			q, _ := r1.InputRequests["secret"].(*mcp.ElicitParams)
			if !r1.NeedsInput() || q == nil || q.Mode != "url" || q.URL == "" || r1.RequestState == "" || f.ran.Load() != ran {
				t.Fatalf("round 1: %s, want the question secret (a URL elicitation) and a state, nothing run", mustJSON(t, r1))
			}
			f.person(t, ada, q.URL, "s3cret-"+mode.name)
			r2, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "bank__link", Arguments: args,
				InputResponses: mcp.InputResponseMap{"secret": &mcp.ElicitResult{Action: "accept"}}, RequestState: r1.RequestState})
			if err != nil {
				t.Fatal(err)
			}
			f.linked(t, r2, "s3cret-"+mode.name)
			if f.ran.Load() != ran+1 {
				t.Fatalf("ran %d times, want once", f.ran.Load()-ran)
			}
		})
	}
}

// TestSecretLink: a client that offers no URL elicitation gets a failed
// result whose text gives the page's address; once the person entered the
// password there, the same call runs with it, once. The listed schema asks
// models to leave the password out.
func TestSecretLink(t *testing.T) {
	f := newSecretFixture(t)
	srv := mcpserver.New(f.reg, &mcpserver.Options{Secrets: f.desk})
	ada := &tool.User{ID: "ada"}
	cs := connect(t, srv, ada, nil)

	lt, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var sch jsonschema.Schema
	b, _ := json.Marshal(lt.Tools[0].InputSchema)
	json.Unmarshal(b, &sch)
	if slices.Contains(sch.Required, "password") || !slices.Contains(sch.Required, "user") ||
		!strings.HasSuffix(sch.Properties["password"].Description, tool.SecretNote) {
		t.Fatalf("input schema %s: want password optional and described as left out", b)
	}

	args := map[string]any{"user": "ada"}
	res := callTool(t, cs, "bank__link", args)
	text := strings.Join(texts(res), " ")
	i := strings.Index(text, "https://photos.example.com/secrets/")
	if !res.IsError || i < 0 || f.ran.Load() != 0 {
		t.Fatalf("first call: %s, want a failure giving the page's address", mustJSON(t, res))
	}
	url := strings.TrimRight(strings.Fields(text[i:])[0], ".,")
	// The same call again before the person has: the same page.
	res = callTool(t, cs, "bank__link", map[string]any{"user": "ada"})
	if !strings.Contains(strings.Join(texts(res), " "), url) || f.desk.Len() != 1 {
		t.Fatalf("second call: %s, want the same page %s (desk holds %d)", mustJSON(t, res), url, f.desk.Len())
	}
	// A call with other inputs, or the same call by another account, does
	// not take ada's page.
	other := callTool(t, cs, "bank__link", map[string]any{"user": "bob"})
	if !other.IsError || strings.Contains(strings.Join(texts(other), " "), url) {
		t.Fatalf("a call with other inputs: %s, want another page", mustJSON(t, other))
	}
	bobs := callTool(t, connect(t, srv, &tool.User{ID: "bob"}, nil), "bank__link", args)
	if !bobs.IsError || strings.Contains(strings.Join(texts(bobs), " "), url) || !strings.Contains(strings.Join(texts(bobs), " "), "/secrets/") {
		t.Fatalf("bob's same call: %s, want a page of bob's own", mustJSON(t, bobs))
	}
	// The anonymous account is shared: its call must carry the value.
	anon := callTool(t, connect(t, srv, tool.Anonymous, nil), "bank__link", args)
	if !anon.IsError || strings.Contains(strings.Join(texts(anon), " "), "/secrets/") || !strings.Contains(strings.Join(texts(anon), " "), "password") {
		t.Fatalf("the anonymous call: %s, want the password required, without a page", mustJSON(t, anon))
	}
	f.person(t, ada, url, "hunter2")
	f.linked(t, callTool(t, cs, "bank__link", args), "hunter2")
	// Used once: the next call asks again.
	res = callTool(t, cs, "bank__link", args)
	if !res.IsError || f.ran.Load() != 1 {
		t.Fatalf("after use: %s, ran %d, want a new page and one run", mustJSON(t, res), f.ran.Load())
	}
	// A model that sends the password runs as before.
	res = callTool(t, cs, "bank__link", map[string]any{"user": "ada", "password": "given"})
	f.linked(t, res, "given")
}
