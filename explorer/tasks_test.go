package explorer

import (
	"context"
	"database/sql"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	_ "modernc.org/sqlite"

	"github.com/toolapi/toolapi/task"
	"github.com/toolapi/toolapi/task/tasktest"
	"github.com/toolapi/toolapi/tool"
)

// taskEnv is an explorer whose tools report.build and report.name run as
// tasks of a started Manager on SQLite. Closing release lets a held
// report.build end.
type taskEnv struct {
	*testEnv
	m       *task.Manager
	release chan struct{}
}

func newTaskEnv(t testing.TB) *taskEnv {
	t.Helper()
	env := &taskEnv{testEnv: &testEnv{reg: tool.NewRegistry(nil), presets: newMemPresets()}, release: make(chan struct{})}
	err := env.reg.Add(
		&tool.Tool{
			ID: "report.build", Label: "Build report", Description: "Builds a report.", Permission: "use demo",
			Operation: tool.OpTransform, Task: tool.TaskRequired,
			Inputs: []*tool.Definition{
				{Name: "pages", Type: "integer", Required: true, Constraints: tool.Constraints{Range: &tool.Range{Max: ptr(100.0)}}},
				{Name: "hold", Type: "boolean"},
			},
			Outputs: []*tool.Definition{{Name: "pages", Label: "Pages built", Type: "integer", Required: true}},
			Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
				tool.Progress(ctx, 1, 2, "Laying out")
				if in.Bool("hold") {
					select {
					case <-env.release:
					case <-ctx.Done():
						return nil, ctx.Err()
					}
				}
				return tool.Succeeded("Built the report.", map[string]any{"pages": in.Int("pages")}), nil
			},
		},
		&tool.Tool{
			ID: "report.name", Label: "Name report", Description: "Asks for a name.", Permission: "use demo",
			Operation: tool.OpTransform, Task: tool.TaskOptional,
			Outputs: []*tool.Definition{{Name: "name", Type: "string"}},
			Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
				e, err := tool.Elicit(ctx, "Which name shall the report have?", &jsonschema.Schema{Type: "object",
					Properties: map[string]*jsonschema.Schema{"name": {Type: "string", Title: "Name", MinLength: jsonschema.Ptr(2)}}, Required: []string{"name"}})
				if err != nil {
					return nil, err
				}
				if e.Action != "accept" {
					return tool.Failed("The report was not named.", nil), nil
				}
				return tool.Succeeded("Named the report.", map[string]any{"name": e.Content["name"]}), nil
			},
		},
	)
	if err != nil {
		t.Fatal(err)
	}
	env.m = tasktest.Start(t, env.reg, tasktest.SQLite(t), &task.Options{PollInterval: 50 * time.Millisecond, ProgressEvery: time.Nanosecond,
		Account: func(ctx context.Context, id string) (tool.Account, error) {
			if u, ok := testUsers[id]; ok {
				return u, nil
			}
			return nil, sql.ErrNoRows
		}})
	// Cleanups run last first: a held task is let go before the manager
	// stops.
	t.Cleanup(func() {
		select {
		case <-env.release:
		default:
			close(env.release)
		}
	})
	opts := &Options{Tasks: env.m, Presets: env.presets, AppName: "demo",
		Authenticate: func(_ context.Context, name, password string) (tool.Account, error) {
			u, ok := testUsers[name]
			if !ok || password != testPassword {
				return nil, sql.ErrNoRows
			}
			return u, nil
		}}
	env.exp = New(env.reg, opts).(*server)
	env.srv = newServer(t, env.exp)
	return env
}

// wait waits until the task id ends or asks something, as the user name.
func (env *taskEnv) wait(t testing.TB, name, id string) *task.Task {
	t.Helper()
	ctx, cancel := context.WithTimeout(tool.WithAccount(context.Background(), testUsers[name]), 20*time.Second)
	defer cancel()
	tk, err := env.m.Wait(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

var taskLink = regexp.MustCompile(`data-task-poll="/tasks/([A-Za-z0-9]+)/status"`)

// startTask runs the tool id's form with the inputs as b and returns the
// ID of the task whose page it opened.
func startTask(t testing.TB, b *browser, id string, inputs url.Values) (string, *response) {
	t.Helper()
	page := b.get("/tools/" + id)
	if !strings.Contains(page.body, `id="as-task"`) {
		t.Errorf("the page of %s does not say it runs as a task", id)
	}
	inputs.Set("action", "run")
	r := b.post("/tools/"+id, inputs)
	m := taskLink.FindStringSubmatch(r.body)
	if r.status != http.StatusOK || m == nil {
		t.Fatalf("running %s = %d, no task page:\n%s", id, r.status, r.body)
	}
	return m[1], r
}

// TestTaskPage follows a task from its form to its outputs: its page
// shows the status, progress, a Refresh link and a cancel button while it
// works, and the outputs rendered as a run's once it has ended.
func TestTaskPage(t *testing.T) {
	env := newTaskEnv(t)
	b := env.browser(t)
	b.signIn("alice")
	id, r := startTask(t, b, "report.build", url.Values{"in:pages": {"3"}, "in:hold": {"true"}})
	for _, want := range []string{"Working", `<a href="/tasks/` + id + `" id="task-refresh">Refresh</a>`, `value="cancel"`,
		`<meta http-equiv="refresh"`, `data-task-interval="100"`, "Build report"} {
		if !strings.Contains(r.body, want) {
			t.Errorf("the page of a working task lacks %s:\n%s", want, r.body)
		}
	}
	st := b.get("/tasks/" + id + "/status")
	var s struct{ Status, Version string }
	if err := json.Unmarshal([]byte(st.body), &s); err != nil || st.status != http.StatusOK || s.Status != "working" || s.Version == "" {
		t.Errorf("status = %d %s", st.status, st.body)
	}
	// The progress the tool reported shows once it is stored.
	ctx, cancel := context.WithTimeout(tool.WithAccount(context.Background(), testUsers["alice"]), 20*time.Second)
	defer cancel()
	for {
		tk, err := env.m.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if tk.Progress != nil {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatal("no progress stored")
		case <-time.After(20 * time.Millisecond):
		}
	}
	r = b.get("/tasks/" + id)
	if !strings.Contains(r.body, `<progress id="task-progress" max="2" value="1">`) || !strings.Contains(r.body, "Laying out") {
		t.Errorf("the page does not show the progress:\n%s", r.body)
	}
	list := b.get("/tasks")
	if !strings.Contains(list.body, `href="/tasks/`+id+`"`) {
		t.Errorf("alice's list lacks her task:\n%s", list.body)
	}
	if home := b.get("/"); !strings.Contains(home.body, `<a href="/tasks">Your tasks</a>`) {
		t.Errorf("the list of tools does not link the tasks")
	}

	close(env.release)
	if tk := env.wait(t, "alice", id); tk.Status != task.Completed {
		t.Fatalf("task = %+v", tk)
	}
	r = b.get("/tasks/" + id)
	for _, want := range []string{"Completed", "✓ Built the report.", "Pages built", `<span class="value">3</span>`, "data-task-finished"} {
		if !strings.Contains(r.body, want) {
			t.Errorf("the page of a completed task lacks %s:\n%s", want, r.body)
		}
	}
	for _, not := range []string{`value="cancel"`, "http-equiv", "task-refresh"} {
		if strings.Contains(r.body, not) {
			t.Errorf("the page of a completed task has %s", not)
		}
	}
	// Cancelling it now is a clear error.
	r = b.post("/tasks/"+id, url.Values{"action": {"cancel"}})
	if r.status != http.StatusConflict || !strings.Contains(r.body, "This task has already ended, so it cannot be cancelled.") {
		t.Errorf("cancel of an ended task = %d:\n%s", r.status, r.body)
	}
	// So is an answer to a task that does not wait for one.
	r = b.post("/tasks/"+id, url.Values{"action": {"accept"}})
	if r.status != http.StatusConflict || !strings.Contains(r.body, "This task is not waiting for an answer") {
		t.Errorf("answer to a task not waiting = %d:\n%s", r.status, r.body)
	}
}

// TestTaskCancel cancels a working task from its page.
func TestTaskCancel(t *testing.T) {
	env := newTaskEnv(t)
	b := env.browser(t)
	b.signIn("alice")
	id, _ := startTask(t, b, "report.build", url.Values{"in:pages": {"3"}, "in:hold": {"true"}})
	r := b.post("/tasks/"+id, url.Values{"action": {"cancel"}})
	if r.status != http.StatusOK || !strings.Contains(r.body, "Cancelled") || !strings.Contains(r.body, "✗ Build report was cancelled.") {
		t.Errorf("cancel = %d:\n%s", r.status, r.body)
	}
}

// TestTaskQuestion answers the question of a waiting task in a form:
// an empty required value is refused with its name and rule, a good one
// resumes the task.
func TestTaskQuestion(t *testing.T) {
	env := newTaskEnv(t)
	b := env.browser(t)
	b.signIn("alice")
	id, _ := startTask(t, b, "report.name", url.Values{})
	if tk := env.wait(t, "alice", id); tk.Status != task.InputRequired {
		t.Fatalf("task = %+v", tk)
	}
	r := b.get("/tasks/" + id)
	for _, want := range []string{"Waiting for your answer", "Which name shall the report have?", `<input type="text" id="q-name" name="q-name" value="" required>`} {
		if !strings.Contains(r.body, want) {
			t.Errorf("the page of a waiting task lacks %s:\n%s", want, r.body)
		}
	}
	if strings.Contains(r.body, "http-equiv") {
		t.Error("the page of a waiting task reloads itself, which would lose the answer typed")
	}
	r = b.post("/tasks/"+id, url.Values{"action": {"accept"}, "q-name": {""}})
	if r.status != http.StatusUnprocessableEntity || !strings.Contains(r.body, "The answer needs fixing: Name: must not be empty.") {
		t.Errorf("empty answer = %d:\n%s", r.status, r.body)
	}
	r = b.post("/tasks/"+id, url.Values{"action": {"accept"}, "q-name": {"Q"}})
	if r.status != http.StatusConflict || !strings.Contains(r.body, "The answer does not fit the question") {
		t.Errorf("answer the schema refuses = %d:\n%s", r.status, r.body)
	}
	r = b.post("/tasks/"+id, url.Values{"action": {"accept"}, "q-name": {"Q3 report"}})
	if r.status != http.StatusOK {
		t.Errorf("answer = %d:\n%s", r.status, r.body)
	}
	if tk := env.wait(t, "alice", id); tk.Status != task.Completed {
		t.Fatalf("task after the answer = %+v", tk)
	}
	if r = b.get("/tasks/" + id); !strings.Contains(r.body, "Q3 report") {
		t.Errorf("the outputs lack the answer:\n%s", r.body)
	}
}

// TestTaskBadInput: another account's task is not found, exactly as an
// unknown one; a visitor who is not signed in sees no tasks; bad inputs
// start no task and show on the form.
func TestTaskBadInput(t *testing.T) {
	env := newTaskEnv(t)
	alice := env.browser(t)
	alice.signIn("alice")
	id, _ := startTask(t, alice, "report.build", url.Values{"in:pages": {"3"}, "in:hold": {"true"}})

	bob := env.browser(t)
	bob.signIn("bob")
	for _, tid := range []string{id, "NOSUCHTASK0000000000000000"} {
		r := bob.get("/tasks/" + tid)
		if r.status != http.StatusNotFound || !strings.Contains(r.body, "There is no task &#34;"+tid+"&#34; among your tasks.") {
			t.Errorf("bob's GET of %s = %d:\n%s", tid, r.status, r.body)
		}
		r = bob.post("/tasks/"+tid, url.Values{"action": {"cancel"}})
		if r.status != http.StatusNotFound || !strings.Contains(r.body, "There is no task") {
			t.Errorf("bob's cancel of %s = %d", tid, r.status)
		}
		if r := bob.get("/tasks/" + tid + "/status"); r.status != http.StatusNotFound || strings.Contains(r.body, "working") {
			t.Errorf("bob's status of %s = %d %s", tid, r.status, r.body)
		}
	}
	if list := bob.get("/tasks"); strings.Contains(list.body, id) || !strings.Contains(list.body, "You have no tasks.") {
		t.Errorf("bob's list shows alice's task:\n%s", list.body)
	}
	if tk, err := env.m.Get(tool.WithAccount(context.Background(), testUsers["alice"]), id); err != nil || tk.Status != task.Working {
		t.Errorf("alice's task after bob's cancel: %+v %v", tk, err)
	}

	anon := env.browser(t)
	if r := anon.get("/tasks"); r.status != http.StatusUnauthorized || !strings.Contains(r.body, "sign in with your own account") {
		t.Errorf("anonymous /tasks = %d", r.status)
	}
	if r := anon.get("/tasks/" + id); r.status != http.StatusUnauthorized || strings.Contains(r.body, "Working") {
		t.Errorf("anonymous task page = %d", r.status)
	}

	alice.get("/tools/report.build")
	r := alice.post("/tools/report.build", url.Values{"action": {"run"}, "in:pages": {"1000"}})
	if r.status != http.StatusUnprocessableEntity || taskLink.MatchString(r.body) || !strings.Contains(r.body, "1 value needs fixing") {
		t.Errorf("bad inputs = %d:\n%s", r.status, r.body)
	}
	page, err := env.m.List(tool.WithAccount(context.Background(), testUsers["alice"]), nil)
	if err != nil || len(page.Tasks) != 1 {
		t.Errorf("alice's tasks after bad inputs: %v %v", page, err)
	}
	r = alice.post("/tasks/"+id, url.Values{"action": {"pause"}})
	if r.status != http.StatusBadRequest || !strings.Contains(r.body, "The form asked for something this page does not do.") {
		t.Errorf("unknown action = %d", r.status)
	}
	if r := alice.get("/tasks?after=nonsense"); r.status != http.StatusBadRequest || !strings.Contains(r.body, "after: must be") {
		t.Errorf("bad cursor = %d:\n%s", r.status, r.body)
	}
}

// TestTaskFormOnce: the same form submitted twice starts one task, and
// both submissions open its page; the history links the run to it.
func TestTaskFormOnce(t *testing.T) {
	env := newTaskEnv(t)
	b := env.browser(t)
	b.signIn("alice")
	form := formValues(b.get("/tools/report.build").body)
	if form.Get("once") == "" {
		t.Fatal("the form has no one-time token")
	}
	form.Set("in:pages", "2")
	form.Set("in:hold", "true")
	form.Set("action", "run")
	var ids []string
	for range 2 {
		r := b.post("/tools/report.build", form)
		m := taskLink.FindStringSubmatch(r.body)
		if r.status != http.StatusOK || m == nil {
			t.Fatalf("submission = %d, no task page:\n%s", r.status, r.body)
		}
		ids = append(ids, m[1])
	}
	if ids[0] != ids[1] {
		t.Errorf("two submissions of one form opened tasks %s and %s", ids[0], ids[1])
	}
	page, err := env.m.List(tool.WithAccount(context.Background(), testUsers["alice"]), nil)
	if err != nil || len(page.Tasks) != 1 {
		t.Errorf("alice has %d tasks after one form sent twice (%v), want 1", len(page.Tasks), err)
	}
	if r := b.get("/tools/report.build"); !strings.Contains(r.body, "started a task") {
		t.Errorf("the history does not show the run that started a task:\n%s", r.body)
	}
}
