package task

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	_ "modernc.org/sqlite"

	"github.com/toolapi/toolapi/internal/testenv"
	"github.com/toolapi/toolapi/tool"
)

// backend is a database the tests run on.
type backend struct {
	name string
	open func(t testing.TB) *sql.DB
}

func openSQLite(t testing.TB) *sql.DB {
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "tasks.db")+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

func openPostgres(t testing.TB) *sql.DB {
	db, _ := testenv.PostgresSchema(t, "task_")
	// As an application's server sizes it: every connection may stay idle.
	db.SetMaxOpenConns(32)
	db.SetMaxIdleConns(32)
	return db
}

var backends = []backend{{"sqlite", openSQLite}, {"postgres", openPostgres}}

// each runs f on each backend.
func each(t *testing.T, f func(t *testing.T, db *sql.DB)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			db := b.open(t)
			if err := Migrate(context.Background(), db); err != nil {
				t.Fatal(err)
			}
			f(t, db)
		})
	}
}

// gate lets a test hold a tool's handler and see it start.
type gate struct {
	started chan struct{}
	release chan struct{}
	once    sync.Once
}

func newGate() *gate { return &gate{started: make(chan struct{}, 16), release: make(chan struct{})} }

func (g *gate) open() { g.once.Do(func() { close(g.release) }) }

// fixture is a registry of test tools and a Manager over them.
type fixture struct {
	reg  *tool.Registry
	m    *Manager
	gate *gate
	db   *sql.DB
}

var testKey = []byte("0123456789abcdef0123456789abcdef")

func ada() tool.Account { return &tool.User{ID: "ada", Permissions: []string{"export"}} }

func newRegistry(t testing.TB, g *gate) *tool.Registry {
	reg := tool.NewRegistry(nil)
	err := reg.Add(
		&tool.Tool{
			ID: "album.export", Label: "Export", Description: "Exports an album.", Permission: "export",
			Task: tool.TaskOptional,
			Inputs: []*tool.Definition{
				{Name: "album", Type: "string", Required: true, Constraints: tool.Constraints{NotBlank: true}},
				{Name: "hold", Type: "boolean"},
			},
			Outputs: []*tool.Definition{{Name: "count", Type: "integer", Required: true}},
			Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
				tool.Progress(ctx, 1, 3, "first")
				if in.Bool("hold") {
					select {
					case g.started <- struct{}{}:
					default: // no test is counting the starts
					}
					select {
					case <-g.release:
					case <-ctx.Done():
						return nil, ctx.Err()
					}
				}
				tool.Progress(ctx, 3, 3, "done")
				return tool.Succeeded("Exported "+in.String("album")+".", map[string]any{"count": 3}), nil
			},
		},
		&tool.Tool{
			ID: "album.now", Label: "Now", Description: "Runs only in the request.", Permission: "export", Operation: tool.OpRead,
			Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) { return tool.Succeeded("", nil), nil },
		},
		&tool.Tool{
			ID: "album.rename", Label: "Rename", Description: "Asks for a new name.", Permission: "export", Task: tool.TaskRequired,
			TaskTTL: 2 * time.Hour,
			Outputs: []*tool.Definition{{Name: "name", Type: "string", Required: true}},
			Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
				e, err := tool.Elicit(ctx, "New name?", &jsonschema.Schema{Type: "object",
					Properties: map[string]*jsonschema.Schema{"name": {Type: "string", MinLength: jsonschema.Ptr(1)}}, Required: []string{"name"}})
				if err != nil {
					return nil, err
				}
				if e.Action != "accept" {
					return tool.Failed("Not renamed.", nil), nil
				}
				return tool.Succeeded("", map[string]any{"name": e.Content["name"]}), nil
			},
		},
		&tool.Tool{
			ID: "album.survey", Label: "Survey", Description: "Asks two questions at once.", Permission: "export", Task: tool.TaskRequired,
			Outputs: []*tool.Definition{{Name: "said", Type: "string", Required: true}},
			Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
				as, err := tool.Ask(ctx,
					tool.Question{Kind: tool.AskPerson, Message: "Title?", Schema: &jsonschema.Schema{Type: "object",
						Properties: map[string]*jsonschema.Schema{"title": {Type: "string"}}, Required: []string{"title"}}},
					tool.Question{Kind: tool.AskPerson, Key: "rating", Message: "Rating?"})
				if err != nil {
					return nil, err
				}
				return tool.Succeeded("", map[string]any{"said": fmt.Sprint(as[0].Elicitation.Content["title"], " ", as[1].Elicitation.Action)}), nil
			},
		},
		&tool.Tool{
			ID: "album.crash", Label: "Crash", Description: "Panics, or reports its failure.", Permission: "export", Task: tool.TaskRequired,
			Inputs: []*tool.Definition{{Name: "panic", Type: "boolean"}},
			Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
				if in.Bool("panic") {
					panic("secret panic text")
				}
				return nil, &tool.RunError{Message: "Crashed as asked.", Err: errors.New("secret cause")}
			},
		},
		&tool.Tool{
			ID: "album.purge", Label: "Purge", Description: "Deletes everything.", Permission: "export", Task: tool.TaskRequired, Confirm: true,
			Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
				return tool.Succeeded("Purged.", nil), nil
			},
		},
		&tool.Tool{
			ID: "album.publish", Label: "Publish", Description: "Publishes with a secret.", Permission: "export", Task: tool.TaskOptional,
			Inputs: []*tool.Definition{
				{Name: "album", Type: "string", Required: true},
				{Name: "token", Type: "string", Required: true, Sensitive: true},
			},
			Outputs: []*tool.Definition{{Name: "token_length", Type: "integer", Required: true}, {Name: "receipt", Type: "string"}},
			Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
				// The receipt repeats the secret: the task keeps it masked.
				return tool.Succeeded("", map[string]any{"token_length": len(in.String("token")), "receipt": "published with " + in.String("token")}), nil
			},
		},
	)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// accounts is an Options.Account whose permissions a test may change.
type accounts struct {
	mu    sync.Mutex
	perms map[string][]string
}

func (a *accounts) account(ctx context.Context, id string) (tool.Account, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	p, ok := a.perms[id]
	if !ok {
		return nil, errors.New("no such account")
	}
	return &tool.User{ID: id, Permissions: p}, nil
}

func (a *accounts) set(id string, perms ...string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.perms[id] = perms
}

func newFixture(t testing.TB, db *sql.DB, opts *Options) *fixture {
	g := newGate()
	t.Cleanup(g.open)
	reg := newRegistry(t, g)
	o := Options{Key: testKey, PollInterval: 20 * time.Millisecond, ProgressEvery: time.Nanosecond}
	if opts != nil {
		o = *opts
	}
	if o.Account == nil {
		acc := &accounts{perms: map[string][]string{"ada": {"export"}, "bob": {"export"}, "admin": {"export", "see tasks"}}}
		o.Account = acc.account
	}
	m, err := New(reg, db, &o)
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{reg: reg, m: m, gate: g, db: db}
}

func (f *fixture) start(t testing.TB) {
	ctx := context.Background()
	if err := f.m.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		if err := f.m.Stop(ctx); err != nil {
			t.Error(err)
		}
	})
}

func as(acct tool.Account) context.Context {
	return tool.WithAccount(context.Background(), acct)
}

func wait(t *testing.T, m *Manager, ctx context.Context, id string) *Task {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	tk, err := m.Wait(ctx, id)
	if err != nil {
		t.Fatalf("waiting for %s: %v", id, err)
	}
	return tk
}

func countTasks(t *testing.T, db *sql.DB) int {
	t.Helper()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM toolapi_tasks`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestCreateRunsToCompletion(t *testing.T) {
	each(t, func(t *testing.T, db *sql.DB) {
		f := newFixture(t, db, nil)
		f.start(t)
		ctx := as(ada())
		tk, err := f.m.Create(ctx, "album.export", json.RawMessage(`{"album":"summer"}`))
		if err != nil {
			t.Fatal(err)
		}
		if tk.Status != Working || len(tk.ID) != 26 || tk.Account != "ada" || tk.Tool != "album.export" {
			t.Fatalf("created %+v", tk)
		}
		if got := tk.Expires.Sub(tk.Created); got != DefaultTTL {
			t.Errorf("expires after %v, want %v", got, DefaultTTL)
		}
		tk = wait(t, f.m, ctx, tk.ID)
		if tk.Status != Completed || tk.Result == nil || !tk.Result.Success || tk.Result.Message != "Exported summer." {
			t.Fatalf("ended %+v result %+v", tk, tk.Result)
		}
		if n, ok := tk.Result.Outputs["count"].(json.Number); !ok || n.String() != "3" {
			t.Errorf("count = %#v, want 3", tk.Result.Outputs["count"])
		}
		if tk.Progress == nil || tk.Progress.Done != 3 || tk.Progress.Total != 3 || tk.Progress.Message != "done" {
			t.Errorf("progress = %+v, want 3 of 3 done", tk.Progress)
		}
		// A run gives the same result.
		run, _ := f.reg.RunJSON(ctx, "album.export", []byte(`{"album":"summer"}`))
		if run.Message != tk.Result.Message || run.Success != tk.Result.Success {
			t.Errorf("run gave %+v, task %+v", run, tk.Result)
		}
	})
}

func TestOwnership(t *testing.T) {
	each(t, func(t *testing.T, db *sql.DB) {
		f := newFixture(t, db, &Options{Key: testKey, Viewers: "see tasks", PollInterval: 20 * time.Millisecond})
		tk, err := f.m.Create(as(ada()), "album.export", json.RawMessage(`{"album":"summer"}`))
		if err != nil {
			t.Fatal(err)
		}
		bob := as(&tool.User{ID: "bob", Permissions: []string{"export"}})
		if _, err := f.m.Get(bob, tk.ID); !errors.Is(err, ErrNotFound) {
			t.Errorf("bob's Get = %v, want ErrNotFound", err)
		}
		if _, err := f.m.Get(bob, "NOSUCHTASKNOSUCHTASKNOSUCH"); !errors.Is(err, ErrNotFound) {
			t.Errorf("Get of an unknown ID = %v, want ErrNotFound", err)
		}
		if _, err := f.m.Cancel(bob, tk.ID); !errors.Is(err, ErrNotFound) {
			t.Errorf("bob's Cancel = %v, want ErrNotFound", err)
		}
		if _, err := f.m.Wait(bob, tk.ID); !errors.Is(err, ErrNotFound) {
			t.Errorf("bob's Wait = %v, want ErrNotFound", err)
		}
		if err := f.m.Answer(bob, tk.ID, &tool.Elicitation{Action: "accept"}); !errors.Is(err, ErrNotFound) {
			t.Errorf("bob's Answer = %v, want ErrNotFound", err)
		}
		p, err := f.m.List(bob, nil)
		if err != nil || len(p.Tasks) != 0 {
			t.Errorf("bob's List = %v, %v; want none", p, err)
		}
		admin := as(&tool.User{ID: "admin", Permissions: []string{"see tasks"}})
		if got, err := f.m.Get(admin, tk.ID); err != nil || got.Account != "ada" {
			t.Errorf("viewer's Get = %v, %v", got, err)
		}
		p, err = f.m.List(admin, nil)
		if err != nil || len(p.Tasks) != 1 {
			t.Errorf("viewer's List = %v, %v; want ada's task", p, err)
		}
		if got, err := f.m.Cancel(admin, tk.ID); err != nil || got.Status != Cancelled {
			t.Errorf("viewer's Cancel = %v, %v", got, err)
		}
	})
}

func TestRefusedBeforeCreation(t *testing.T) {
	each(t, func(t *testing.T, db *sql.DB) {
		f := newFixture(t, db, nil)
		cases := []struct {
			name    string
			ctx     context.Context
			tool    string
			args    string
			failure tool.Failure
			rule    string
		}{
			{"invalid", as(ada()), "album.export", `{"album":""}`, tool.FailureInput, tool.RuleMinLength},
			{"missing", as(ada()), "album.export", `{}`, tool.FailureInput, tool.RuleRequired},
			{"permission", as(&tool.User{ID: "eve"}), "album.export", `{"album":"x"}`, tool.FailureAccess, ""},
			{"blocked", as(&tool.User{ID: "eve", Permissions: []string{"export"}, IsBlocked: true}), "album.export", `{"album":"x"}`, tool.FailureAccess, ""},
			{"not confirmed", tool.WithConfirmer(as(ada()), refuse{}), "album.purge", `{}`, tool.FailureAccess, ""},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				_, err := f.m.Create(c.ctx, c.tool, json.RawMessage(c.args))
				var re *RefusedError
				if !errors.As(err, &re) {
					t.Fatalf("Create = %v, want a RefusedError", err)
				}
				run, _ := f.reg.RunJSON(c.ctx, c.tool, []byte(c.args))
				if re.Result.Failure != c.failure || re.Result.Message != run.Message {
					t.Errorf("refusal %+v, want failure %s and the run's message %q", re.Result, c.failure, run.Message)
				}
				if c.rule != "" && (len(re.Result.Violations) != 1 || re.Result.Violations[0].Rule != c.rule) {
					t.Errorf("violations %+v, want one of rule %s", re.Result.Violations, c.rule)
				}
			})
		}
		if _, err := f.m.Create(as(ada()), "album.now", nil); !errors.Is(err, ErrNotTaskTool) {
			t.Errorf("Create of a tool that never runs as a task = %v, want ErrNotTaskTool", err)
		}
		if _, err := f.m.Create(as(ada()), "album.nothing", nil); !errors.Is(err, tool.ErrNotFound) {
			t.Errorf("Create of an unknown tool = %v, want tool.ErrNotFound", err)
		}
		if n := countTasks(t, db); n != 0 {
			t.Errorf("%d tasks stored, want none", n)
		}
	})
}

type refuse struct{}

func (refuse) Confirm(context.Context, *tool.Tool, string) (bool, error) { return false, nil }

func TestQuestionAndAnswer(t *testing.T) {
	each(t, func(t *testing.T, db *sql.DB) {
		f := newFixture(t, db, nil)
		f.start(t)
		ctx := as(ada())
		tk, err := f.m.Create(ctx, "album.rename", nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := tk.Expires.Sub(tk.Created); got != 2*time.Hour {
			t.Errorf("expires after %v, want the tool's TaskTTL, 2h", got)
		}
		tk = wait(t, f.m, ctx, tk.ID)
		if tk.Status != InputRequired || tk.Question == nil || tk.Question.Message != "New name?" || tk.Question.Schema == nil {
			t.Fatalf("task %+v question %+v, want it to ask for a name", tk, tk.Question)
		}
		if err := f.m.Answer(ctx, tk.ID, &tool.Elicitation{Action: "accept", Content: map[string]any{"name": ""}}); !errors.Is(err, ErrBadAnswer) {
			t.Errorf("answer breaking the schema = %v, want ErrBadAnswer", err)
		}
		if err := f.m.Answer(ctx, tk.ID, &tool.Elicitation{Action: "maybe"}); !errors.Is(err, ErrBadAnswer) {
			t.Errorf("answer with a bad action = %v, want ErrBadAnswer", err)
		}
		if err := f.m.Answer(ctx, tk.ID, &tool.Elicitation{Action: "accept", Content: map[string]any{"name": "winter"}}); err != nil {
			t.Fatal(err)
		}
		tk = wait(t, f.m, ctx, tk.ID)
		if tk.Status != Completed || tk.Result.Outputs["name"] != "winter" {
			t.Fatalf("task %+v result %+v, want it renamed winter", tk, tk.Result)
		}
		if tk.Question != nil {
			t.Errorf("finished task still asks %+v", tk.Question)
		}
		if err := f.m.Answer(ctx, tk.ID, &tool.Elicitation{Action: "accept", Content: map[string]any{"name": "x"}}); !errors.Is(err, ErrNotWaiting) {
			t.Errorf("answer to a finished task = %v, want ErrNotWaiting", err)
		}
	})
}

// TestViewerAnswers: a holder of the Viewers permission answers the
// question of another account's task, which then finishes; an account
// without it gets ErrNotFound, as for an unknown task, and its answer is
// not kept.
func TestViewerAnswers(t *testing.T) {
	each(t, func(t *testing.T, db *sql.DB) {
		f := newFixture(t, db, &Options{Key: testKey, Viewers: "see tasks", PollInterval: 20 * time.Millisecond})
		f.start(t)
		ctx := as(ada())
		tk, err := f.m.Create(ctx, "album.rename", nil)
		if err != nil {
			t.Fatal(err)
		}
		tk = wait(t, f.m, ctx, tk.ID)
		if tk.Status != InputRequired {
			t.Fatalf("task %+v, want it to ask for a name", tk)
		}
		bob := as(&tool.User{ID: "bob", Permissions: []string{"export"}})
		if err := f.m.Answer(bob, tk.ID, &tool.Elicitation{Action: "accept", Content: map[string]any{"name": "bob's"}}); !errors.Is(err, ErrNotFound) {
			t.Errorf("bob's Answer = %v, want ErrNotFound", err)
		}
		blocked := as(&tool.User{ID: "carl", Permissions: []string{"see tasks"}, IsBlocked: true})
		if err := f.m.Answer(blocked, tk.ID, &tool.Elicitation{Action: "accept", Content: map[string]any{"name": "carl's"}}); !errors.Is(err, ErrNotFound) {
			t.Errorf("a blocked viewer's Answer = %v, want ErrNotFound", err)
		}
		if got, err := f.m.Get(ctx, tk.ID); err != nil || got.Status != InputRequired {
			t.Fatalf("after the refused answers: %+v, %v; want it still waiting", got, err)
		}
		admin := as(&tool.User{ID: "admin", Permissions: []string{"see tasks"}})
		if err := f.m.Answer(admin, tk.ID, &tool.Elicitation{Action: "accept", Content: map[string]any{"name": "winter"}}); err != nil {
			t.Fatalf("the viewer's Answer: %v", err)
		}
		tk = wait(t, f.m, ctx, tk.ID)
		if tk.Status != Completed || tk.Result.Outputs["name"] != "winter" || tk.Account != "ada" {
			t.Fatalf("task %+v result %+v, want ada's task renamed winter", tk, tk.Result)
		}
	})
}

func TestConfirmationAsked(t *testing.T) {
	each(t, func(t *testing.T, db *sql.DB) {
		f := newFixture(t, db, nil)
		f.start(t)
		ctx := as(ada())
		// No Confirmer in the context: the task asks when it starts.
		tk, err := f.m.Create(ctx, "album.purge", nil)
		if err != nil {
			t.Fatal(err)
		}
		tk = wait(t, f.m, ctx, tk.ID)
		if tk.Status != InputRequired || tk.Question == nil || !tk.Question.Confirm || !strings.Contains(tk.Question.Message, "Purge") {
			t.Fatalf("task %+v question %+v, want a confirmation", tk, tk.Question)
		}
		if err := f.m.Answer(ctx, tk.ID, &tool.Elicitation{Action: "decline"}); err != nil {
			t.Fatal(err)
		}
		tk = wait(t, f.m, ctx, tk.ID)
		if tk.Status != Failed || tk.Result.Failure != tool.FailureAccess {
			t.Fatalf("declined task %+v result %+v, want an access failure", tk, tk.Result)
		}
		// A Confirmer in the context confirms before the task exists.
		tk, err = f.m.Create(tool.WithConfirmer(ctx, tool.Confirmed), "album.purge", nil)
		if err != nil {
			t.Fatal(err)
		}
		if tk = wait(t, f.m, ctx, tk.ID); tk.Status != Completed {
			t.Fatalf("confirmed task %+v result %+v", tk, tk.Result)
		}
	})
}

func TestCancelWhileRunning(t *testing.T) {
	each(t, func(t *testing.T, db *sql.DB) {
		f := newFixture(t, db, nil)
		f.start(t)
		ctx := as(ada())
		tk, err := f.m.Create(ctx, "album.export", json.RawMessage(`{"album":"summer","hold":true}`))
		if err != nil {
			t.Fatal(err)
		}
		<-f.gate.started
		got, err := f.m.Cancel(ctx, tk.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != Cancelled || got.Result == nil || got.Result.Success {
			t.Fatalf("cancelled task %+v", got)
		}
		// The method's context is cancelled: the worker ends, and the
		// task stays cancelled.
		waitRunning(t, f.m, tk.ID)
		if got, _ = f.m.Get(ctx, tk.ID); got.Status != Cancelled {
			t.Errorf("status %s after the worker ended, want cancelled", got.Status)
		}
		if _, err := f.m.Cancel(ctx, tk.ID); !errors.Is(err, ErrFinished) {
			t.Errorf("second Cancel = %v, want ErrFinished", err)
		}
		if err := f.m.Answer(ctx, tk.ID, &tool.Elicitation{Action: "accept"}); !errors.Is(err, ErrNotWaiting) {
			t.Errorf("Answer to a task not waiting = %v, want ErrNotWaiting", err)
		}
	})
}

// waitRunning waits until the task id no longer runs in m.
func waitRunning(t *testing.T, m *Manager, id string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		m.mu.Lock()
		_, ok := m.running[id]
		m.mu.Unlock()
		if !ok {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("task %s still runs", id)
}

func TestSensitiveInputsEncrypted(t *testing.T) {
	each(t, func(t *testing.T, db *sql.DB) {
		f := newFixture(t, db, nil)
		f.start(t)
		ctx := as(ada())
		const secret = "hunter2-very-secret"
		tk, err := f.m.Create(ctx, "album.publish", json.RawMessage(`{"album":"summer","token":"`+secret+`"}`))
		if err != nil {
			t.Fatal(err)
		}
		tk = wait(t, f.m, ctx, tk.ID)
		if tk.Status != Completed || tk.Result.Outputs["token_length"].(json.Number).String() != "19" || tk.Result.Outputs["receipt"] != tool.SecretMask {
			t.Fatalf("task %+v result %+v", tk, tk.Result)
		}
		rows, err := db.Query(`SELECT * FROM toolapi_tasks`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			for i, v := range vals {
				var s string
				switch v := v.(type) {
				case string:
					s = v
				case []byte:
					s = string(v)
				}
				if strings.Contains(s, secret) {
					t.Errorf("column %s holds the secret in clear: %s", cols[i], s)
				}
			}
		}
		// Without a key, such a task is refused.
		g := newFixture(t, db, &Options{PollInterval: 20 * time.Millisecond})
		if _, err := g.m.Create(ctx, "album.publish", json.RawMessage(`{"album":"summer","token":"x"}`)); !errors.Is(err, ErrNoKey) {
			t.Errorf("Create without a key = %v, want ErrNoKey", err)
		}
	})
}

func TestPermissionRevokedWhileWaiting(t *testing.T) {
	each(t, func(t *testing.T, db *sql.DB) {
		acc := &accounts{perms: map[string][]string{"ada": {"export"}}}
		f := newFixture(t, db, &Options{Key: testKey, Account: acc.account, PollInterval: 20 * time.Millisecond})
		ctx := as(ada())
		tk, err := f.m.Create(ctx, "album.export", json.RawMessage(`{"album":"summer"}`))
		if err != nil {
			t.Fatal(err)
		}
		acc.set("ada") // no permission left
		f.start(t)
		tk = wait(t, f.m, ctx, tk.ID)
		if tk.Status != Failed || tk.Result.Failure != tool.FailureAccess {
			t.Fatalf("task %+v result %+v, want an access failure", tk, tk.Result)
		}
	})
}

func TestExpiryDeletes(t *testing.T) {
	each(t, func(t *testing.T, db *sql.DB) {
		f := newFixture(t, db, &Options{Key: testKey, TTL: time.Millisecond, PollInterval: 20 * time.Millisecond, SweepEvery: time.Hour})
		ctx := as(ada())
		tk, err := f.m.Create(ctx, "album.export", json.RawMessage(`{"album":"summer"}`))
		if err != nil {
			t.Fatal(err)
		}
		keep, err := newFixture(t, db, nil).m.Create(ctx, "album.export", json.RawMessage(`{"album":"winter"}`))
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * time.Millisecond) // past the one millisecond TTL
		f.m.sweep(context.Background())
		if _, err := f.m.Get(ctx, tk.ID); !errors.Is(err, ErrNotFound) {
			t.Errorf("Get of an expired task = %v, want ErrNotFound", err)
		}
		if _, err := f.m.Get(ctx, keep.ID); err != nil {
			t.Errorf("Get of a task that has not expired = %v", err)
		}
		if n := countTasks(t, db); n != 1 {
			t.Errorf("%d tasks stored, want 1", n)
		}
	})
}

func TestList(t *testing.T) {
	each(t, func(t *testing.T, db *sql.DB) {
		f := newFixture(t, db, nil)
		ctx := as(ada())
		var ids []string
		for range 5 {
			tk, err := f.m.Create(ctx, "album.export", json.RawMessage(`{"album":"a"}`))
			if err != nil {
				t.Fatal(err)
			}
			ids = append([]string{tk.ID}, ids...)
		}
		var got []string
		cursor := ""
		for {
			p, err := f.m.List(ctx, &ListOptions{Limit: 2, Cursor: cursor})
			if err != nil {
				t.Fatal(err)
			}
			for _, tk := range p.Tasks {
				got = append(got, tk.ID)
			}
			if p.Next == "" {
				break
			}
			cursor = p.Next
		}
		if strings.Join(got, ",") != strings.Join(ids, ",") {
			t.Errorf("listed %v, want newest first %v", got, ids)
		}
		if _, err := f.m.List(ctx, &ListOptions{Cursor: "!!"}); !errors.Is(err, ErrBadCursor) {
			t.Errorf("List with a bad cursor = %v, want ErrBadCursor", err)
		}
		if _, err := f.m.List(ctx, &ListOptions{Limit: MaxListLimit + 1}); err == nil {
			t.Errorf("List over the limit succeeded")
		}
	})
}

// TestWaitLeavesNothing: waiting on tasks that do not exist, or that end
// in another process, leaves no trace in the Manager's memory.
func TestWaitLeavesNothing(t *testing.T) {
	db := openSQLite(t)
	if err := Migrate(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, db, nil)
	runner := newFixture(t, db, nil)
	runner.start(t)
	ctx := as(ada())
	for range 100 {
		if _, err := f.m.Wait(ctx, newID()); !errors.Is(err, ErrNotFound) {
			t.Fatalf("Wait of an unknown ID = %v", err)
		}
	}
	tk, err := f.m.Create(ctx, "album.export", json.RawMessage(`{"album":"a"}`))
	if err != nil {
		t.Fatal(err)
	}
	if tk = wait(t, f.m, ctx, tk.ID); tk.Status != Completed {
		t.Fatalf("task %+v", tk)
	}
	f.m.mu.Lock()
	n := len(f.m.changed)
	f.m.mu.Unlock()
	if n != 0 {
		t.Errorf("%d tasks remembered after the waits, want none", n)
	}
}

// TestProgressThrottled: progress is written at most once per
// ProgressEvery while the task runs, and the last one when it ends.
func TestProgressThrottled(t *testing.T) {
	each(t, func(t *testing.T, db *sql.DB) {
		f := newFixture(t, db, &Options{Key: testKey, PollInterval: 20 * time.Millisecond, ProgressEvery: time.Hour})
		f.start(t)
		ctx := as(ada())
		tk, err := f.m.Create(ctx, "album.export", json.RawMessage(`{"album":"a","hold":true}`))
		if err != nil {
			t.Fatal(err)
		}
		<-f.gate.started
		if tk, _ = f.m.Get(ctx, tk.ID); tk.Progress == nil || tk.Progress.Done != 1 || tk.Progress.Message != "first" {
			t.Fatalf("progress while running %+v, want the first report", tk.Progress)
		}
		f.gate.open()
		tk = wait(t, f.m, ctx, tk.ID)
		if tk.Status != Completed || tk.Progress == nil || tk.Progress.Done != 3 || tk.Progress.Message != "done" {
			t.Fatalf("progress at the end %+v, want the last report", tk.Progress)
		}
	})
}

// TestNewRefusesBadOptions: each bad option is named in New's error.
func TestNewRefusesBadOptions(t *testing.T) {
	db := openSQLite(t)
	reg := newRegistry(t, newGate())
	find := func(context.Context, string) (tool.Account, error) { return nil, nil }
	for _, c := range []struct {
		name string
		opts *Options
		want string
	}{
		{"no account", nil, "task: Account: required"},
		{"short key", &Options{Account: find, Key: []byte("short")}, "task: Key: must be 32 bytes (AES-256), got 5"},
		{"negative workers", &Options{Account: find, Workers: -1}, "task: Workers: must not be negative, got -1"},
		{"negative TTL", &Options{Account: find, TTL: -time.Second}, "task: TTL: must not be negative, got -1s"},
		{"dialect", &Options{Account: find, Dialect: "mysql"}, `task: Dialect: must be "sqlite" or "postgres", got "mysql"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := New(reg, db, c.opts)
			if err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Errorf("New = %v, want %q", err, c.want)
			}
		})
	}
}

// TestStopWithoutStart: a Manager that never ran tasks stops cleanly.
func TestStopWithoutStart(t *testing.T) {
	db := openSQLite(t)
	if err := Migrate(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, db, nil)
	if err := f.m.Stop(context.Background()); err != nil {
		t.Errorf("Stop = %v", err)
	}
}

// TestInternalFailure: a task whose tool panicked is failed and internal,
// its result generic; one whose tool reported its failure is failed and
// not internal, its result the tool's message; both read back so.
func TestInternalFailure(t *testing.T) {
	each(t, func(t *testing.T, db *sql.DB) {
		f := newFixture(t, db, nil)
		f.start(t)
		ctx := as(ada())
		for _, c := range []struct {
			args     string
			internal bool
			message  string
		}{
			{`{"panic":true}`, true, "Crash failed."},
			{`{"panic":false}`, false, "Crashed as asked."},
		} {
			tk, err := f.m.Create(ctx, "album.crash", json.RawMessage(c.args))
			if err != nil {
				t.Fatal(err)
			}
			tk = wait(t, f.m, ctx, tk.ID)
			if tk.Status != Failed || tk.Internal() != c.internal || tk.Result == nil || tk.Result.Message != c.message || tk.Result.Failure != tool.FailureRuntime {
				t.Errorf("%s: ended %+v result %+v, want failed, internal %v, saying %q", c.args, tk, tk.Result, c.internal, c.message)
			}
			if got, err := f.m.Get(ctx, tk.ID); err != nil || got.Internal() != c.internal {
				t.Errorf("%s: read back %+v %v, internal %v", c.args, got, err, c.internal)
			}
		}
		// A completed task, and one still working, are not internal failures.
		for _, tk := range []*Task{{Status: Completed, Result: &tool.Result{Success: true}}, {Status: Working}} {
			if tk.Internal() {
				t.Errorf("%s task is internal", tk.Status)
			}
		}
	})
}

// TestSeveralQuestions: a tool that asks two questions at once with
// tool.Ask makes its task ask both, keyed; the task keeps waiting, asking
// only the other, after one is answered, and resumes once both are.
func TestSeveralQuestions(t *testing.T) {
	each(t, func(t *testing.T, db *sql.DB) {
		f := newFixture(t, db, nil)
		f.start(t)
		ctx := as(ada())
		tk, err := f.m.Create(ctx, "album.survey", nil)
		if err != nil {
			t.Fatal(err)
		}
		tk = wait(t, f.m, ctx, tk.ID)
		if tk.Status != InputRequired || len(tk.Questions) != 2 || tk.Questions[0].Key != "q1" || tk.Questions[1].Key != "rating" || tk.Question != tk.Questions[0] {
			t.Fatalf("waiting task %+v, questions %+v, want q1 and rating", tk, tk.Questions)
		}
		// A question not asked, and content the schema refuses.
		if err := f.m.AnswerKey(ctx, tk.ID, "nope", &tool.Elicitation{Action: "accept"}); !errors.Is(err, ErrNotWaiting) {
			t.Errorf("answer under an unknown key: %v, want ErrNotWaiting", err)
		}
		if err := f.m.AnswerKey(ctx, tk.ID, "q1", &tool.Elicitation{Action: "accept", Content: map[string]any{"title": 3}}); !errors.Is(err, ErrBadAnswer) {
			t.Errorf("answer the schema refuses: %v, want ErrBadAnswer", err)
		}
		if err := f.m.AnswerKey(ctx, tk.ID, "rating", &tool.Elicitation{Action: "decline"}); err != nil {
			t.Fatal(err)
		}
		if err := f.m.AnswerKey(ctx, tk.ID, "rating", &tool.Elicitation{Action: "accept"}); !errors.Is(err, ErrNotWaiting) {
			t.Errorf("a second answer to rating: %v, want ErrNotWaiting", err)
		}
		got, err := f.m.Get(ctx, tk.ID)
		if err != nil || got.Status != InputRequired || len(got.Questions) != 1 || got.Question.Key != "q1" {
			t.Fatalf("after one answer: %+v %v, want still waiting for q1 alone", got, err)
		}
		// Answer answers the first question still unanswered.
		if err := f.m.Answer(ctx, tk.ID, &tool.Elicitation{Action: "accept", Content: map[string]any{"title": "Summer"}}); err != nil {
			t.Fatal(err)
		}
		tk = wait(t, f.m, ctx, tk.ID)
		for tk.Status == Working {
			tk = wait(t, f.m, ctx, tk.ID)
		}
		if tk.Status != Completed || tk.Result.Outputs["said"] != "Summer decline" || tk.Questions != nil {
			t.Fatalf("ended %+v result %+v, want completed saying both answers", tk, tk.Result)
		}
	})
}
