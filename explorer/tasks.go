package explorer

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/toolapi/toolapi/task"
	"github.com/toolapi/toolapi/tool"
)

// tasksPageSize is the most tasks the list of a visitor's tasks shows on
// one page.
const tasksPageSize = 50

// A taskView is a task as its page shows it.
type taskView struct {
	ID, ToolID, ToolLabel, ToolURL, URL string
	Status                              string
	StatusText                          string
	StatusMessage                       string
	Created, Updated                    string
	Finished, Waiting                   bool
	Progress                            *task.Progress
	// ProgressMax is the progress bar's maximum; 0 without a total.
	ProgressMax float64
	Question    *questionView
	Result      *resultView
	// Approval is where the approval of the task's call stands, when it
	// needed one.
	Approval *task.Approval
	// Poll is the address of the task's status, which the page's script
	// asks every PollMillis; Version changes whenever the task does.
	Poll       string
	PollMillis int64
	// RefreshSeconds is how often the page reloads itself without
	// JavaScript while the task works.
	RefreshSeconds int
	Version        string
	Problem        string
}

// A questionView is what a waiting task asks, as a form.
type questionView struct {
	Message string
	Confirm bool
	Fields  []questionField
}

// A questionField is one value a question asks for.
type questionField struct {
	Name, Label, Description, Kind, Value string
	Required                              bool
	Choices                               []string
}

// A tasksView is the list of a visitor's tasks.
type tasksView struct {
	Tasks []*taskView
	Next  string
}

// statusText words each status for a person.
var statusText = map[task.Status]string{
	task.Working:       "Working",
	task.InputRequired: "Waiting for your answer",
	task.Completed:     "Completed",
	task.Failed:        "Failed",
	task.Cancelled:     "Cancelled",
}

// runsAsTask reports whether a run of t from a form starts a task.
func (e *server) runsAsTask(t *tool.Tool) bool {
	return e.opts.Tasks != nil && t.Task != tool.TaskNever
}

// taskOwner reports whether the visitor keeps tasks: a signed-in account,
// not a guest, whose tasks are the account's alone.
func taskOwner(v *visit) bool {
	return v.sess != nil && !v.sess.guest
}

func (e *server) taskURL(id string) string { return e.path("/tasks/" + url.PathEscape(id)) }

// startTask starts a task of t with args (the canonical JSON of the
// checked inputs) for the form submission r, and returns the outcome its
// run record keeps: the task's ID, or the failure a run would have shown
// when the task is refused. The run record makes a second submission of
// the same form open the same task instead of starting another; confirmed
// says that the person ticked the confirmation box.
func (e *server) startTask(r *http.Request, v *visit, t *tool.Tool, args json.RawMessage, confirmed bool) *outcome {
	ctx := tool.WithAccount(r.Context(), v.acct)
	if confirmed && t.MayConfirm() {
		// The person ticked the box: that is the confirmation.
		ctx = tool.WithConfirmer(ctx, tool.Confirmed)
	}
	tk, err := e.opts.Tasks.Create(ctx, t.ID, args)
	var re *task.RefusedError
	switch {
	case errors.As(err, &re):
		oc := &outcome{Result: re.Result, Status: http.StatusInternalServerError}
		switch re.Result.Failure {
		case tool.FailureInput:
			oc.Status = http.StatusUnprocessableEntity
		case tool.FailureAccess:
			oc.Status = http.StatusForbidden
		}
		return oc
	case errors.Is(err, tool.ErrNotFound):
		return &outcome{Status: http.StatusNotFound, Problems: []string{"The tool is gone."}}
	case err != nil:
		e.logger.Error("explorer: starting a task", "tool", t.ID, "error", err.Error())
		return &outcome{Status: http.StatusServiceUnavailable, Problems: []string{"The task could not be started; try again."}}
	}
	return &outcome{Status: http.StatusSeeOther, Task: tk.ID}
}

// taskView returns the view of tk for the visitor.
func (e *server) taskView(v *visit, tk *task.Task) *taskView {
	tv := &taskView{ID: tk.ID, ToolID: tk.Tool, ToolLabel: tk.Tool, URL: e.taskURL(tk.ID), Status: string(tk.Status),
		StatusText: statusText[tk.Status], StatusMessage: tk.StatusMessage,
		Created: tk.Created.Format(time.DateTime) + " UTC", Updated: tk.Updated.Format(time.DateTime) + " UTC",
		Finished: tk.Status.Finished(), Waiting: tk.Status == task.InputRequired, Progress: tk.Progress,
		Poll: e.taskURL(tk.ID) + "/status", PollMillis: max(tk.PollInterval.Milliseconds(), 100),
		RefreshSeconds: int(math.Ceil(max(tk.PollInterval.Seconds(), 2))), Version: taskVersion(tk)}
	tv.Approval = tk.Approval
	if tk.Progress != nil && tk.Progress.Total > 0 {
		tv.ProgressMax = tk.Progress.Total
	}
	t, ok := e.visibleTool(tk.Tool, v)
	if ok {
		tv.ToolLabel = humanLabel(t)
		tv.ToolURL = e.toolURL(t.ID)
	}
	if tv.Waiting && tk.Question != nil {
		tv.Question = questionOf(tk.Question)
	}
	if tv.Finished && tk.Result != nil {
		if t == nil {
			t = &tool.Tool{ID: tk.Tool}
		}
		tv.Result = e.result(t, tk.Result, v.acct)
	}
	return tv
}

// humanLabel is t's label, or its ID.
func humanLabel(t *tool.Tool) string {
	if t.Label != "" {
		return t.Label
	}
	return t.ID
}

// taskVersion changes whenever tk's status, progress or question does.
func taskVersion(tk *task.Task) string {
	return string(tk.Status) + "-" + strconv.FormatInt(tk.Updated.UnixNano(), 36)
}

// questionOf turns a question into its form: one field per property of
// its schema, or none for a confirmation.
func questionOf(q *task.Question) *questionView {
	qv := &questionView{Message: q.Message, Confirm: q.Confirm}
	if q.Schema == nil {
		return qv
	}
	for _, name := range slices.Sorted(mapsKeys(q.Schema.Properties)) {
		p := q.Schema.Properties[name]
		f := questionField{Name: name, Label: name, Description: p.Description, Kind: "text", Required: slices.Contains(q.Schema.Required, name)}
		if p.Title != "" {
			f.Label = p.Title
		}
		switch p.Type {
		case "integer":
			f.Kind = "integer"
		case "number":
			f.Kind = "number"
		case "boolean":
			f.Kind = "checkbox"
		}
		for _, c := range p.Enum {
			if s, ok := c.(string); ok {
				f.Kind = "select"
				f.Choices = append(f.Choices, s)
			}
		}
		if p.Default != nil {
			var d any
			if json.Unmarshal(p.Default, &d) == nil {
				f.Value = fmt.Sprint(d)
			}
		}
		qv.Fields = append(qv.Fields, f)
	}
	return qv
}

func mapsKeys(m map[string]*jsonschema.Schema) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// answerOf reads the answer to q from a submitted form, or says what is
// wrong with it: each problem names the value and the rule.
func answerOf(q *questionView, form url.Values) (map[string]any, []string) {
	content := map[string]any{}
	var problems []string
	for i := range q.Fields {
		f := &q.Fields[i]
		raw := form.Get("q-" + f.Name)
		f.Value = raw
		if f.Kind == "checkbox" {
			content[f.Name] = raw != ""
			continue
		}
		if raw == "" {
			if f.Required {
				problems = append(problems, f.Label+": must not be empty")
			}
			continue
		}
		switch f.Kind {
		case "integer":
			n, err := strconv.ParseInt(raw, 10, 64)
			if err != nil {
				problems = append(problems, f.Label+": must be a whole number")
				continue
			}
			content[f.Name] = n
		case "number":
			n, err := strconv.ParseFloat(raw, 64)
			if err != nil || math.IsInf(n, 0) || math.IsNaN(n) {
				problems = append(problems, f.Label+": must be a number")
				continue
			}
			content[f.Name] = n
		case "select":
			if !slices.Contains(f.Choices, raw) {
				problems = append(problems, f.Label+": must be one of the choices")
				continue
			}
			content[f.Name] = raw
		default:
			content[f.Name] = raw
		}
	}
	return content, problems
}

// loadTask returns the visitor's task of the request's path, or answers
// the request itself and returns nil: a sign-in page for a visitor who
// keeps no tasks, 404 for a task that is not the account's (as for one
// that never was).
func (e *server) loadTask(w http.ResponseWriter, r *http.Request, v *visit) *task.Task {
	if e.opts.Tasks == nil {
		e.serveNotFound(w, r)
		return nil
	}
	if !taskOwner(v) {
		e.renderStatus(w, r, http.StatusUnauthorized, "message", &page{Title: "Sign in",
			Message: "Tasks are kept for an account: sign in with your own account to see yours."}, v)
		return nil
	}
	id := r.PathValue("id")
	tk, err := e.opts.Tasks.Get(tool.WithAccount(r.Context(), v.acct), id)
	switch {
	case errors.Is(err, task.ErrNotFound):
		e.renderStatus(w, r, http.StatusNotFound, "message", &page{Title: "No such task",
			Message: fmt.Sprintf("There is no task %q among your tasks.", id)}, v)
		return nil
	case err != nil:
		e.logger.Error("explorer: loading a task", "task", id, "error", err.Error())
		e.unavailable(w, r, v)
		return nil
	}
	return tk
}

// serveTask serves a task's page.
func (e *server) serveTask(w http.ResponseWriter, r *http.Request) {
	v := e.visit(r)
	tk := e.loadTask(w, r, v)
	if tk == nil {
		return
	}
	tv := e.taskView(v, tk)
	e.renderStatus(w, r, http.StatusOK, "task", &page{Title: taskTitle(tv), Task: tv}, v)
}

// serveTaskStatus serves how a task stands as JSON, for the page's
// script: {"status", "version"}.
func (e *server) serveTaskStatus(w http.ResponseWriter, r *http.Request) {
	v := e.visit(r)
	if e.opts.Tasks == nil || !taskOwner(v) {
		writeJSONStatus(w, http.StatusNotFound, map[string]string{"error": "no such task"})
		return
	}
	tk, err := e.opts.Tasks.Get(tool.WithAccount(r.Context(), v.acct), r.PathValue("id"))
	switch {
	case errors.Is(err, task.ErrNotFound):
		writeJSONStatus(w, http.StatusNotFound, map[string]string{"error": "no such task"})
		return
	case err != nil:
		e.logger.Error("explorer: loading a task", "task", r.PathValue("id"), "error", err.Error())
		writeJSONStatus(w, http.StatusServiceUnavailable, map[string]string{"error": "unavailable"})
		return
	}
	writeJSONStatus(w, http.StatusOK, map[string]string{"status": string(tk.Status), "version": taskVersion(tk)})
}

func writeJSONStatus(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// postTask cancels or answers a task: action cancel, accept or decline.
func (e *server) postTask(w http.ResponseWriter, r *http.Request) {
	v := e.visit(r)
	if !e.checkToken(w, r, v) {
		e.forbidden(w, r, "The form did not carry this session's token: sign in, open the task again and resubmit.")
		return
	}
	tk := e.loadTask(w, r, v)
	if tk == nil {
		return
	}
	ctx := tool.WithAccount(r.Context(), v.acct)
	tv := e.taskView(v, tk)
	var err error
	switch action := r.PostForm.Get("action"); action {
	case "cancel":
		_, err = e.opts.Tasks.Cancel(ctx, tk.ID)
	case "accept", "decline":
		a := &tool.Elicitation{Action: action}
		if action == "accept" && tv.Question != nil {
			var problems []string
			a.Content, problems = answerOf(tv.Question, r.PostForm)
			if len(problems) > 0 {
				tv.Problem = "The answer needs fixing: " + joinProblems(problems) + "."
				e.renderStatus(w, r, http.StatusUnprocessableEntity, "task", &page{Title: taskTitle(tv), Task: tv}, v)
				return
			}
		}
		key := "" // the first question still unanswered
		if tk.Question != nil {
			key = tk.Question.Key // the one the form showed and checked
		}
		err = e.opts.Tasks.AnswerKey(ctx, tk.ID, key, a)
	default:
		tv.Problem = "The form asked for something this page does not do."
		e.renderStatus(w, r, http.StatusBadRequest, "task", &page{Title: taskTitle(tv), Task: tv}, v)
		return
	}
	switch {
	case err == nil:
		http.Redirect(w, r, e.taskURL(tk.ID), http.StatusSeeOther)
		return
	case errors.Is(err, task.ErrNotFound):
		e.renderStatus(w, r, http.StatusNotFound, "message", &page{Title: "No such task",
			Message: fmt.Sprintf("There is no task %q among your tasks.", tk.ID)}, v)
		return
	case errors.Is(err, task.ErrFinished):
		tv.Problem = "This task has already ended, so it cannot be cancelled."
	case errors.Is(err, task.ErrNotWaiting):
		tv.Problem = "This task is not waiting for an answer (it may have been answered already), so the answer was not given."
	case errors.Is(err, task.ErrBadAnswer):
		tv.Problem = "The answer does not fit the question: check each value and answer again."
	default:
		e.logger.Error("explorer: acting on a task", "task", tk.ID, "error", err.Error())
		tv.Problem = "That could not be done; try again."
	}
	if now, err := e.opts.Tasks.Get(ctx, tk.ID); err == nil {
		problem := tv.Problem
		tv = e.taskView(v, now)
		tv.Problem = problem
	}
	e.renderStatus(w, r, http.StatusConflict, "task", &page{Title: taskTitle(tv), Task: tv}, v)
}

func joinProblems(ps []string) string {
	out := ""
	for i, p := range ps {
		if i > 0 {
			out += "; "
		}
		out += p
	}
	return out
}

// serveTasks serves the list of the visitor's own tasks, newest first,
// a page at a time (?after=CURSOR).
func (e *server) serveTasks(w http.ResponseWriter, r *http.Request) {
	v := e.visit(r)
	if e.opts.Tasks == nil {
		e.serveNotFound(w, r)
		return
	}
	if !taskOwner(v) {
		e.renderStatus(w, r, http.StatusUnauthorized, "message", &page{Title: "Sign in",
			Message: "Tasks are kept for an account: sign in with your own account to see yours."}, v)
		return
	}
	p, err := e.opts.Tasks.List(tool.WithAccount(r.Context(), v.acct), &task.ListOptions{Limit: tasksPageSize, Cursor: r.URL.Query().Get("after")})
	switch {
	case errors.Is(err, task.ErrBadCursor):
		e.renderStatus(w, r, http.StatusBadRequest, "message", &page{Title: "Your tasks",
			Message: "after: must be the address of a next page that the list gave."}, v)
		return
	case err != nil:
		e.logger.Error("explorer: listing tasks", "error", err.Error())
		e.unavailable(w, r, v)
		return
	}
	tv := &tasksView{}
	for _, tk := range p.Tasks {
		tv.Tasks = append(tv.Tasks, e.taskView(v, tk))
	}
	if p.Next != "" {
		tv.Next = e.path("/tasks") + "?" + url.Values{"after": {p.Next}}.Encode()
	}
	e.renderStatus(w, r, http.StatusOK, "tasks", &page{Title: "Your tasks", Tasks: tv}, v)
}

// taskTitle is the title of a task's page: where the task stands first,
// as the title of a run's page does.
func taskTitle(tv *taskView) string {
	return tv.StatusText + ": " + tv.ToolLabel + " (task)"
}
