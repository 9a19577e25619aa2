package explorer

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"html/template"
	"io/fs"
	"mime"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/toolapi/toolapi/tool"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed assets
var assetFS embed.FS

var (
	fieldTemplates = template.Must(template.New("fields").ParseFS(templateFS, "templates/fields.html"))
	outputTemplate = "templates/outputs.html"
	pages          = map[string]*template.Template{}
	// assetVersion changes whenever an asset does, so that the pages'
	// links to assets can be cached for long.
	assetVersion string
)

func init() {
	for _, name := range []string{"list", "tool", "signin", "message", "audit", "task", "tasks", "approvals", "secret"} {
		pages[name] = template.Must(template.New(name).Funcs(template.FuncMap{
			"inc": func(i int) int { return i + 1 },
		}).ParseFS(templateFS,
			"templates/layout.html", outputTemplate, "templates/"+name+".html"))
	}
	h := sha256.New()
	fs.WalkDir(assetFS, "assets", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := assetFS.ReadFile(p)
			h.Write(b)
		}
		return nil
	})
	assetVersion = hex.EncodeToString(h.Sum(nil))[:12]
}

// A page is what a page template shows.
type page struct {
	Title    string
	Site     string
	Prefix   string
	Version  string
	Account  string
	SignedIn bool
	CSRF     string
	Here     string

	Message string

	List   *listView
	Audit  *auditView
	Tool   *toolView
	Form   *formView
	Result *resultView
	Task   *taskView
	Tasks  *tasksView

	Approvals *approvalsView
	Secret    *secretView

	SignInToken   string
	Problem       string
	Next          string
	Guest         string
	PasswordLabel string
	SignInNote    string
	CanSignIn     bool
}

// A listView is the list of tools.
type listView struct {
	Query      string
	Operation  string
	MatchAll   bool
	Operations []string
	Tools      []listRow
	Total      int
	AuditURL   string // the audit trail's page, for an account that may see it
	TasksURL   string // the list of the account's tasks, when it keeps tasks
	// ApprovalsURL is the page of the calls waiting for the account's
	// approval, when it may approve any.
	ApprovalsURL string
}

// A listRow is one tool of the list.
type listRow struct {
	ID, Label, Operation, Summary, URL string
	Destructive, Confirm               bool
	// Deprecated is the tool's deprecation note, "" when none.
	Deprecated string
}

// A formView is the execute form of a tool page.
type formView struct {
	fm       *form
	Action   string
	Fields   []*field
	Problems []string
	// Summary lists every value that needs fixing, linked to its field.
	Summary        []summaryItem
	NeedsConfirm   bool
	Confirmed      bool
	ConfirmProblem string
	Refines        bool
	CanRun         bool
	SignInURL      string
	Notice         string
	// Focus is the ID of the element that gets the focus when the page
	// comes back from an action that did not run the tool, so that it is
	// not lost to the page's start.
	Focus string
	// Share is the address of this form filled in as it is.
	Share string
	// History lists the visitor's latest runs of the tool.
	History []historyView
	// JSONInputs and JSONProblem are the inputs given as JSON, and what is
	// wrong with them.
	JSONInputs, JSONProblem string
	// Once is the form's one-time token: a second submission of the same
	// form shows the run of the first instead of running again.
	Once string

	// AsTask is set when a run starts a task, followed on its own page.
	AsTask bool

	PresetsEnabled bool
	Presets        []presetView
	PresetName     string
	PresetProblem  string
}

// Datalists returns the suggestions of the entity fields; the template
// calls it after rendering the fields.
func (fv *formView) Datalists() []datalist { return fv.fm.datalists() }

// SummaryHeading heads the error summary: how many of its items need
// fixing. It repeats none of their messages, which say in plain words
// what each needs, and no message of the run's.
func (fv *formView) SummaryHeading() string {
	if len(fv.Summary) == 1 {
		return "1 value needs fixing"
	}
	return strconv.Itoa(len(fv.Summary)) + " values need fixing"
}

// A presetView is one saved preset.
type presetView struct {
	Name    string
	Updated string
	FillURL string
}

func (e *server) renderStatus(w http.ResponseWriter, r *http.Request, status int, name string, p *page, v *visit) {
	p.Site = e.opts.Title
	p.Prefix = e.prefix
	p.Version = assetVersion
	p.Here = r.URL.RequestURI()
	if v != nil {
		p.Account = v.acct.AccountID()
		p.SignedIn = v.signedIn()
		p.CSRF = v.csrf()
	}
	var b bytes.Buffer
	if err := pages[name].ExecuteTemplate(&b, "layout", p); err != nil {
		e.logger.Error("explorer: rendering a page", "page", name, "error", err.Error())
		http.Error(w, "The page cannot be shown.", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(b.Bytes())
}

// serveList serves the list of tools, searched and filtered by the query:
// q (words), op (an operation) and match=all (every word, not any).
func (e *server) serveList(w http.ResponseWriter, r *http.Request) {
	v := e.visit(r)
	q := r.URL.Query()
	lv := &listView{
		Query:      q.Get("q"),
		MatchAll:   q.Get("match") == "all",
		Operations: []string{"read", "write", "trigger", "transform", "explain"},
	}
	f := &tool.Filter{Account: v.acct, Words: strings.Fields(lv.Query), MatchAll: lv.MatchAll, Narrowing: v.narrowing}
	if op := tool.Operation(q.Get("op")); op.Valid() {
		f.Operation = op
		lv.Operation = string(op)
	}
	tools := e.reg.List(f)
	lv.Tools = make([]listRow, len(tools))
	for i, t := range tools {
		label := t.Label
		if label == "" {
			label = t.ID
		}
		lv.Tools[i] = listRow{
			ID: t.ID, Label: label, Operation: string(t.EffectiveOperation()), Summary: firstLine(t.Description),
			URL: keepNarrowing(e.toolURL(t.ID), r), Destructive: t.IsDestructive(), Confirm: t.MayConfirm(),
			Deprecated: t.Deprecated,
		}
	}
	lv.Total = len(tools)
	if e.mayAudit(v) {
		lv.AuditURL = e.path("/audit")
	}
	if e.opts.Tasks != nil && taskOwner(v) {
		lv.TasksURL = e.path("/tasks")
	}
	if e.mayApproveAny(v) {
		lv.ApprovalsURL = e.path("/approvals")
	}
	e.renderStatus(w, r, http.StatusOK, "list", &page{Title: "Tools", List: lv}, v)
}

func (e *server) toolURL(id string) string { return e.path("/tools/" + url.PathEscape(id)) }

// visibleTool returns the tool with the given ID or name (as
// [tool.Registry.ToolByName] finds it) when v's account may see it and
// v's narrowing keeps it.
func (e *server) visibleTool(id string, v *visit) (*tool.Tool, bool) {
	t, ok := e.reg.ToolByName(id)
	if !ok || !t.Allowed(v.acct) || !v.narrowing.Allows(t) {
		return nil, false
	}
	return t, true
}

func (e *server) serveNotFound(w http.ResponseWriter, r *http.Request) {
	e.renderStatus(w, r, http.StatusNotFound, "message", &page{Title: "Not found", Message: "There is no page at this address."}, e.visit(r))
}

func (e *server) toolNotFound(w http.ResponseWriter, r *http.Request, v *visit) {
	msg := "There is no tool with this ID that your account may see."
	if !v.signedIn() {
		msg += " Signing in may show it."
	}
	e.renderStatus(w, r, http.StatusNotFound, "message", &page{Title: "No such tool", Message: msg}, v)
}

// serveTool serves a tool's page. The form starts from the inputs'
// defaults, from a preset (?preset=NAME) or from values in the query
// (in:NAME=VALUE, as the links of entities in outputs give them).
func (e *server) serveTool(w http.ResponseWriter, r *http.Request) {
	v := e.visit(r)
	t, ok := e.visibleTool(r.PathValue("id"), v)
	if !ok {
		e.toolNotFound(w, r, v)
		return
	}
	fm := e.newForm(r.Context(), v, t)
	fv := e.newFormView(fm, r)
	q := r.URL.Query()
	switch {
	case q.Get("run") != "" && v.signedIn():
		run, oc := e.loadRun(r, v, t, q.Get("run"))
		if run == nil {
			fm.defaults()
			fm.refine()
			fv.Notice = "The result of this run is no longer kept; the form starts afresh."
			break
		}
		var state map[string]any
		if err := json.Unmarshal(run.Inputs, &state); err == nil && state != nil {
			fm.state = state
		}
		if oc == nil {
			fm.refine()
			fv.Notice = "This run is still under way; reload the page to see its result."
			break
		}
		if oc.Task != "" {
			http.Redirect(w, r, e.taskURL(oc.Task), http.StatusSeeOther)
			return
		}
		fm.refine()
		fv.Problems = append(fv.Problems, oc.Problems...)
		var vs []tool.Violation
		var res *resultView
		if oc.Result != nil {
			res = e.result(t, oc.Result, v.acct)
			res.Copy = e.copies(r, v.acct, t, fm.args())
			res.NextPage = e.nextPageURL(fm, oc.Result)
			if oc.Result.Failure == tool.FailureInput {
				vs = oc.Result.Violations
			}
		}
		fm.build(vs)
		e.renderTool(w, r, oc.Status, v, t, fv, res)
		return
	case q.Get("preset") != "" && fv.PresetsEnabled:
		name := q.Get("preset")
		if args, err := e.loadPreset(r, v, t, name); err != nil {
			fm.defaults()
			fv.Notice = err.Error()
		} else {
			fm.fill(args)
			fv.Notice = "Filled in from the preset “" + name + "”."
		}
	case hasInputs(q):
		fm.read(q)
	default:
		fm.defaults()
		fm.refine()
	}
	fm.build(nil)
	e.renderTool(w, r, http.StatusOK, v, t, fv, nil)
}

func hasInputs(q url.Values) bool {
	for k := range q {
		if strings.HasPrefix(k, "in:") {
			return true
		}
	}
	return false
}

// fill sets the state from JSON values (a preset's), over the defaults.
func (fm *form) fill(args map[string]any) {
	fm.defaults()
	for _, def := range fm.defs {
		if v, ok := args[def.Name]; ok && !def.Locked {
			if v, ok := withoutSensitive(def, v); ok {
				fm.state[def.Name] = fromJSON(def, v)
			}
		}
	}
	fm.refine()
}

func (e *server) newFormView(fm *form, r *http.Request) *formView {
	t := fm.t
	return &formView{
		fm:             fm,
		Action:         keepNarrowing(e.toolURL(t.ID), r),
		NeedsConfirm:   t.IsDestructive() || t.MayConfirm(),
		Refines:        t.Refiner != nil,
		CanRun:         fm.v.signedIn(),
		SignInURL:      e.path("/signin") + "?" + url.Values{"next": {r.URL.RequestURI()}}.Encode(),
		Once:           randomID()[:22],
		PresetsEnabled: e.opts.Presets != nil && fm.v.signedIn() && !fm.v.sess.guest,
		AsTask:         e.runsAsTask(t),
	}
}

func (e *server) renderTool(w http.ResponseWriter, r *http.Request, status int, v *visit, t *tool.Tool, fv *formView, res *resultView) {
	fm := fv.fm
	fv.Fields = fm.fields
	fv.Problems = append(fv.Problems, fm.problems...)
	fv.Summary = fm.summary
	if fv.JSONProblem != "" {
		fv.Summary = append(fv.Summary, summaryItem{ID: "json-inputs", Label: "Inputs as JSON", Message: fv.JSONProblem})
	}
	if len(fm.defs) > 0 {
		fv.Share = e.shareURL(fm)
	}
	if v.signedIn() {
		fv.History = e.history(r.Context(), v, t)
	}
	if fv.ConfirmProblem != "" {
		fv.Summary = append(fv.Summary, summaryItem{ID: "confirm", Label: "Confirmation", Message: fv.ConfirmProblem})
	}
	if fv.PresetsEnabled {
		presets, err := e.opts.Presets.Presets(r.Context(), v.acct.AccountID(), t.ID)
		if err != nil {
			e.logger.Error("explorer: listing presets", "tool", t.ID, "error", err.Error())
			fv.PresetProblem = "The presets cannot be listed now."
		}
		for _, p := range presets {
			fv.Presets = append(fv.Presets, presetView{
				Name:    p.Name,
				Updated: p.Updated.UTC().Format("2006-01-02 15:04 UTC"),
				FillURL: e.toolURL(t.ID) + "?" + url.Values{"preset": {p.Name}}.Encode(),
			})
		}
	}
	tv := e.describe(t, v.acct)
	title := tv.Label
	switch {
	case res != nil && res.Success:
		title = "Completed: " + title
	case res != nil || len(fv.Summary) > 0 || fv.ConfirmProblem != "" || fv.JSONProblem != "":
		title = "Failed: " + title
	}
	e.renderStatus(w, r, status, "tool", &page{Title: title, Tool: tv, Form: fv, Result: res}, v)
}

// postTool handles the execute form: run, refresh, rows, entity
// searches and presets. Every action needs the session's CSRF token.
func (e *server) postTool(w http.ResponseWriter, r *http.Request) {
	v := e.visit(r)
	if !e.checkToken(w, r, v) {
		e.forbidden(w, r, "The form did not carry this session's token: sign in, open the tool again and resubmit.")
		return
	}
	t, ok := e.visibleTool(r.PathValue("id"), v)
	if !ok {
		e.toolNotFound(w, r, v)
		return
	}
	fm := e.newForm(r.Context(), v, t)
	fv := e.newFormView(fm, r)
	fm.read(r.PostForm)
	fv.PresetName = r.PostForm.Get("preset_name")
	action := r.PostForm.Get("action")
	// The tick confirms one run: only the actions that run read it, and
	// every other action shows the box unticked again.
	fv.Confirmed = r.PostForm.Get("confirm") == "yes" && (action == "run" || action == "" || action == "run-json" || strings.HasPrefix(action, "preset-run:"))
	status := http.StatusOK
	var vs []tool.Violation
	switch {
	case action == "run" || action == "":
		var ran bool
		if ran, vs = e.startRun(w, r, v, t, fm, fv, nil); ran {
			return
		}
		status = http.StatusUnprocessableEntity
	case action == "run-json":
		fv.JSONInputs = r.PostForm.Get("json_inputs")
		args, err := jsonInputs(fv.JSONInputs)
		if err != nil {
			fv.JSONProblem = err.Error()
			status = http.StatusUnprocessableEntity
			break
		}
		fm.fill(args)
		var ran bool
		if ran, vs = e.startRun(w, r, v, t, fm, fv, args); ran {
			return
		}
		status = http.StatusUnprocessableEntity
	case action == "refresh":
		// read refined the inputs already. The script says where the
		// focus was going when it asked for the refresh.
		fv.Focus = r.PostForm.Get("focus")
		if fv.Focus == "" {
			fv.Focus = "refresh"
		}
	case strings.HasPrefix(action, "add:"):
		p := strings.TrimPrefix(action, "add:")
		if n := fm.addRow(p); n > 0 {
			fv.Focus = "f-" + htmlID(p+"["+strconv.Itoa(n-1)+"]")
		}
	case strings.HasPrefix(action, "remove:"):
		p := strings.TrimPrefix(action, "remove:")
		fm.removeRow(p)
		fv.Focus = "f-" + htmlID(p) + "-add"
	case strings.HasPrefix(action, "delete:"):
		p := strings.TrimPrefix(action, "delete:")
		fm.deleteRow(p)
		fv.Focus = "f-" + htmlID(parentPath(p)) + "-add"
	case strings.HasPrefix(action, "find:"):
		p := strings.TrimPrefix(action, "find:")
		fm.find(p)
		fv.Focus = "f-" + htmlID(p)
		if len(fm.matches[p]) > 0 {
			fv.Focus += "-pick-0"
		}
	case strings.HasPrefix(action, "pick:"):
		p, id, _ := strings.Cut(strings.TrimPrefix(action, "pick:"), "=")
		fm.pick(p, id)
		fm.refine()
		fv.Focus = "f-" + htmlID(p)
	case action == "save" && fv.PresetsEnabled:
		vs, status = e.savePreset(r, v, t, fm, fv)
	case strings.HasPrefix(action, "preset-run:") && fv.PresetsEnabled:
		name := strings.TrimPrefix(action, "preset-run:")
		args, err := e.loadPreset(r, v, t, name)
		if err != nil {
			fv.Notice = err.Error()
			break
		}
		fm.fill(args)
		if fv.NeedsConfirm && !fv.Confirmed {
			fv.Notice = "Filled in from the preset “" + name + "”: tick the box to confirm, then run."
			break
		}
		var ran bool
		if ran, vs = e.startRun(w, r, v, t, fm, fv, args); ran {
			return
		}
		status = http.StatusUnprocessableEntity
	case strings.HasPrefix(action, "preset-delete:") && fv.PresetsEnabled:
		name := strings.TrimPrefix(action, "preset-delete:")
		if err := e.opts.Presets.DeletePreset(r.Context(), v.acct.AccountID(), t.ID, name); err != nil {
			e.logger.Error("explorer: deleting a preset", "tool", t.ID, "preset", name, "error", err.Error())
			fv.PresetProblem = "The preset could not be deleted; try again."
		} else {
			fv.Notice = "Deleted the preset “" + name + "”."
			fv.Focus = "notice"
		}
	default:
		fv.Problems = append(fv.Problems, "The form asked for something this page does not do.")
		status = http.StatusBadRequest
	}
	fm.build(vs)
	e.renderTool(w, r, status, v, t, fv, nil)
}

// savePreset stores the form's values as a preset, once they pass the
// preset schema.
func (e *server) savePreset(r *http.Request, v *visit, t *tool.Tool, fm *form, fv *formView) ([]tool.Violation, int) {
	name, err := presetName(fv.PresetName)
	if err != nil {
		fv.PresetProblem = "The preset was not saved: " + err.Error() + "."
		return nil, http.StatusUnprocessableEntity
	}
	fm.compact()
	// A label typed for an entity is saved as its ID, as a run takes it.
	fm.resolveLabels()
	args := fm.args()
	for _, def := range fm.defs {
		// A preset keeps no secret.
		if v, ok := args[def.Name]; ok {
			if v, ok := withoutSensitive(def, v); ok {
				args[def.Name] = v
			} else {
				delete(args, def.Name)
			}
		}
	}
	values, vs, err := e.presetValues(r.Context(), v.acct, t, args)
	if err != nil {
		e.logger.Error("explorer: checking a preset", "tool", t.ID, "error", err.Error())
		fv.PresetProblem = "The preset could not be checked, so it was not saved."
		return nil, http.StatusInternalServerError
	}
	if len(vs) > 0 {
		fv.PresetProblem = "The preset was not saved: the values marked break the preset schema " + PresetSchemaID(t.ID) + "."
		return vs, http.StatusUnprocessableEntity
	}
	p := &Preset{Tool: t.ID, Name: name, Values: values, Updated: time.Now().UTC()}
	if err := e.opts.Presets.SavePreset(r.Context(), v.acct.AccountID(), p); err != nil {
		e.logger.Error("explorer: saving a preset", "tool", t.ID, "preset", name, "error", err.Error())
		fv.PresetProblem = "The preset could not be saved; try again."
		return nil, http.StatusInternalServerError
	}
	fv.Notice = "Saved the preset “" + name + "”."
	fv.Focus = "notice"
	fv.PresetName = ""
	return nil, http.StatusOK
}

// loadPreset returns the arguments a preset of the visitor holds. They are
// not checked here: a run of them goes through the registry's validation
// like any other (the tool may have changed since the preset was saved).
func (e *server) loadPreset(r *http.Request, v *visit, t *tool.Tool, name string) (map[string]any, error) {
	p, err := e.opts.Presets.Preset(r.Context(), v.acct.AccountID(), t.ID, name)
	if errors.Is(err, ErrNoPreset) {
		return nil, errors.New("There is no preset named “" + name + "”.")
	}
	if err != nil {
		e.logger.Error("explorer: loading a preset", "tool", t.ID, "preset", name, "error", err.Error())
		return nil, errors.New("The preset could not be loaded; try again.")
	}
	args, err := presetArgs(p)
	if err != nil {
		e.logger.Error("explorer: loading a preset", "tool", t.ID, "error", err.Error())
		return nil, errors.New("The preset “" + name + "” is damaged.")
	}
	return args, nil
}

// serveEntities answers the script that suggests entities while a person
// types: {"entities":[{"id","label"}...]} of the type that the visitor may
// view, whose label contains q.
func (e *server) serveEntities(w http.ResponseWriter, r *http.Request) {
	v := e.visit(r)
	et, ok := e.reg.EntityType(r.PathValue("type"))
	if !ok || et.Search == nil {
		http.Error(w, "no such entity type", http.StatusNotFound)
		return
	}
	refs, err := et.Search(tool.WithAccount(r.Context(), v.acct), v.acct, strings.TrimSpace(r.URL.Query().Get("q")), maxSuggestions)
	if err != nil {
		e.logger.Error("explorer: searching entities", "type", et.ID, "error", err.Error())
		http.Error(w, "the search failed", http.StatusInternalServerError)
		return
	}
	type entity struct {
		ID    string `json:"id"`
		Label string `json:"label"`
	}
	out := struct {
		Entities []entity `json:"entities"`
	}{Entities: []entity{}}
	for _, ref := range refs {
		out.Entities = append(out.Entities, entity{ref.ID, ref.Label})
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	json.NewEncoder(w).Encode(out)
}

// serveAsset serves the embedded style sheet and script.
func serveAsset(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("file")
	b, err := assetFS.ReadFile("assets/" + name)
	if err != nil || strings.Contains(name, "/") {
		http.NotFound(w, r)
		return
	}
	ctype := mime.TypeByExtension(path.Ext(name))
	if ctype == "" {
		ctype = "application/octet-stream"
	}
	w.Header().Set("Content-Type", ctype)
	if r.URL.Query().Get("v") == assetVersion {
		w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		w.Header().Set("Cache-Control", "no-cache")
	}
	w.Write(b)
}
