package explorer

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolapi/toolapi/tool"
)

// The tools of these tests cover every built-in adapter and every kind of
// output; they run over plain values, with albums as the entity type.

type testAlbum struct {
	ID, Title string
	Public    bool
}

var testAlbums = []*testAlbum{
	{"1", "Blue Hours", true},
	{"2", "Night Studies", false},
	{"3", "Harbour Lights", true},
}

func albumType() *tool.EntityType {
	return &tool.EntityType{
		ID:    "album",
		Label: "Album",
		Load: func(_ context.Context, id string) (any, error) {
			for _, a := range testAlbums {
				if a.ID == id {
					return a, nil
				}
			}
			return nil, fmt.Errorf("album %s: %w", id, tool.ErrEntityNotFound)
		},
		Access: func(_ context.Context, acct tool.Account, e any, op string) (bool, error) {
			a := e.(*testAlbum)
			return a.Public || acct.HasPermission("see drafts"), nil
		},
		Describe: func(e any) (string, string, bool) {
			a, ok := e.(*testAlbum)
			if !ok {
				return "", "", false
			}
			return a.ID, a.Title, true
		},
		Search: func(_ context.Context, acct tool.Account, q string, limit int) ([]tool.EntityRef, error) {
			var out []tool.EntityRef
			for _, a := range testAlbums {
				if (a.Public || acct.HasPermission("see drafts")) && strings.Contains(strings.ToLower(a.Title), strings.ToLower(q)) {
					out = append(out, tool.EntityRef{EntityType: "album", ID: a.ID, Label: a.Title})
				}
			}
			if len(out) > limit {
				out = out[:limit]
			}
			return out, nil
		},
	}
}

// pngPixel is a 1x1 PNG.
var pngPixel = base64.StdEncoding.EncodeToString([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\xcf\xc0\xf0\x1f\x00\x05\x00\x01\xff\x89\x99=\x1d\x00\x00\x00\x00IEND\xaeB`\x82"))

func ptr[T any](v T) *T { return &v }

// everyInput is a tool taking an input of each kind the form knows.
func everyInput() *tool.Tool {
	return &tool.Tool{
		ID:          "demo.every",
		Label:       "Every input",
		Description: "Takes one input of each kind and echoes them.\nThe second line is not in the list.",
		Operation:   tool.OpTransform,
		Permission:  "use demo",
		Inputs: []*tool.Definition{
			{Name: "title", Type: "string", Label: "Title", Description: "A short title.", Required: true, Examples: []any{"Hello"},
				Constraints: tool.Constraints{NotBlank: true, Length: &tool.Bounds{Min: ptr(2), Max: ptr(40)}}},
			{Name: "notes", Type: "string", Description: "Longer notes.", Constraints: tool.Constraints{Media: "text/plain"}},
			{Name: "count", Type: "integer", Description: "How many.", Constraints: tool.Constraints{Range: &tool.Range{Min: ptr(1.0), Max: ptr(10.0)}}},
			{Name: "ratio", Type: "float", Description: "A ratio."},
			{Name: "flag", Type: "boolean", Description: "A flag.", Default: true},
			{Name: "mail", Type: "email", Description: "An address."},
			{Name: "site", Type: "uri", Description: "A site."},
			{Name: "day", Type: "datetime_iso8601", Description: "A day.", Constraints: tool.Constraints{DateOnly: true}},
			{Name: "at", Type: "datetime_iso8601", Description: "A moment."},
			{Name: "stamp", Type: "timestamp", Description: "A timestamp."},
			{Name: "wait", Type: "duration", Description: "A wait."},
			{Name: "color", Type: "string", Description: "A color.", Constraints: tool.Constraints{Choice: []any{"red", "green", "blue"}}},
			{Name: "tags", Type: "list", Description: "Some tags.", Items: &tool.Definition{Type: "string", Constraints: tool.Constraints{NotBlank: true, Length: &tool.Bounds{Max: ptr(5)}}},
				Constraints: tool.Constraints{Count: &tool.Bounds{Max: ptr(3)}}},
			{Name: "settings", Type: "map", Description: "Settings.", Properties: []*tool.Definition{
				{Name: "limit", Type: "integer", Required: true, Constraints: tool.Constraints{Range: &tool.Range{Max: ptr(100.0)}}},
				{Name: "label", Type: "string"},
			}},
			{Name: "meta", Type: "map", Description: "Free-form metadata.", Values: &tool.Definition{Type: "string"}},
			{Name: "extra", Type: "any", Description: "Anything."},
			{Name: "album", Type: "entity:album", Description: "An album.", EntityOp: "view"},
			{Name: "mode", Type: "string", Description: "Fixed.", Default: "safe", Locked: true},
		},
		Outputs: []*tool.Definition{
			{Name: "echo", Type: "any", Description: "The inputs as the tool received them.", Required: true},
		},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			echo := map[string]any{}
			for k, v := range in.All() {
				switch x := v.(type) {
				case time.Time:
					echo[k] = x.Format(time.RFC3339)
				case time.Duration:
					echo[k] = x.String()
				case *testAlbum:
					echo[k] = x.Title
				case int64:
					echo[k] = float64(x)
				case nil:
				default:
					echo[k] = x
				}
			}
			return tool.Succeeded("", map[string]any{"echo": echo}), nil
		},
	}
}

// showcase is a read tool whose outputs are of every kind the result
// shows; its caption carries markup, a script among it when asked.
func showcase() *tool.Tool {
	return &tool.Tool{
		ID:          "demo.showcase",
		Label:       "Showcase",
		Description: "Returns outputs of every kind.",
		Operation:   tool.OpRead,
		Permission:  "use demo",
		Inputs: []*tool.Definition{
			{Name: "caption", Type: "string", Description: "The caption to return.", Default: "<em>fine</em>"},
		},
		Outputs: []*tool.Definition{
			{Name: "caption", Type: "string", Description: "Markup.", Required: true, Constraints: tool.Constraints{Media: "text/html"}},
			{Name: "picture", Type: "string", Description: "A picture.", Required: true, Constraints: tool.Constraints{Media: "image/png"}},
			{Name: "album", Type: "entity:album", Description: "An album.", Required: true},
			{Name: "rows", Type: "list", Description: "Rows.", Required: true, Items: &tool.Definition{Type: "map", Properties: []*tool.Definition{
				{Name: "name", Type: "string", Required: true},
				{Name: "home", Type: "uri", Required: true},
			}}},
			{Name: "words", Type: "list", Description: "Words.", Required: true, Items: &tool.Definition{Type: "string"}},
			{Name: "info", Type: "map", Description: "Info.", Required: true, Properties: []*tool.Definition{
				{Name: "size", Type: "integer", Required: true},
			}},
		},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			return tool.Succeeded("", map[string]any{
				"caption": in.String("caption"),
				"picture": pngPixel,
				"album":   testAlbums[0],
				"rows": []any{
					map[string]any{"name": "one", "home": "https://example.com/one"},
					map[string]any{"name": "two", "home": "javascript:alert(1)"},
				},
				"words": []string{"alpha", "beta"},
				"info":  map[string]any{"size": 3},
			}), nil
		},
	}
}

// summarize takes an album only: the explorer links albums in outputs to
// its form.
func summarize() *tool.Tool {
	return &tool.Tool{
		ID: "demo.summarize", Label: "Summarize", Description: "Describes an album.", Operation: tool.OpRead, Permission: "use demo",
		Inputs:  []*tool.Definition{{Name: "album", Type: "entity:album", Required: true, EntityOp: "view"}},
		Outputs: []*tool.Definition{{Name: "title", Type: "string", Required: true}},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			return tool.Succeeded("", map[string]any{"title": in.Get("album").(*testAlbum).Title}), nil
		},
	}
}

// wipe is destructive and asks for confirmation; it counts its runs.
func wipe(runs *int) *tool.Tool {
	var mu sync.Mutex
	return &tool.Tool{
		ID: "demo.wipe", Label: "Wipe", Description: "Wipes everything.", Operation: tool.OpWrite, Confirm: true,
		Permission: "use demo",
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			mu.Lock()
			*runs++
			mu.Unlock()
			return tool.Succeeded("Wiped.", nil), nil
		},
	}
}

var cities = map[string][]any{"fr": {"Paris", "Lyon"}, "it": {"Rome", "Milan"}}

// travel refines its city's choices from its country.
func travel() *tool.Tool {
	return &tool.Tool{
		ID: "demo.travel", Label: "Travel", Description: "Picks a city in a country.", Operation: tool.OpRead, Permission: "use demo",
		Inputs: []*tool.Definition{
			{Name: "country", Type: "string", Required: true, Constraints: tool.Constraints{Choice: []any{"fr", "it"}}},
			{Name: "city", Type: "string", Required: true},
		},
		Outputs: []*tool.Definition{{Name: "trip", Type: "string", Required: true}},
		Refiner: &tool.Refiner{
			Inputs: []string{"city"},
			Refine: func(ctx context.Context, def *tool.Definition, values map[string]any) (*tool.Definition, error) {
				c, _ := values["country"].(string)
				choices, ok := cities[c]
				if !ok {
					return def, nil
				}
				d := *def
				d.Constraints.Choice = choices
				return &d, nil
			},
		},
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
			return tool.Succeeded("", map[string]any{"trip": in.String("city") + ", " + in.String("country")}), nil
		},
	}
}

// secret needs a permission nobody in these tests has.
func secret() *tool.Tool {
	return &tool.Tool{
		ID: "demo.secret", Label: "Secret", Description: "Hidden from everyone here.", Operation: tool.OpRead, Permission: "root",
		Handler: func(ctx context.Context, in *tool.Values) (*tool.Result, error) { return nil, nil },
	}
}

type testEnv struct {
	reg     *tool.Registry
	exp     *server
	srv     *httptest.Server
	presets *memPresets
	wipes   int
}

var testUsers = map[string]*tool.User{
	"alice": {ID: "alice", Permissions: []string{"use demo"}},
	"bob":   {ID: "bob", Permissions: []string{"use demo", "see drafts"}},
	"eve":   {ID: "eve", Permissions: []string{"use demo"}, IsBlocked: true},
}

const testPassword = "correct horse"

func newTestEnv(t testing.TB, opts *Options) *testEnv {
	t.Helper()
	env := &testEnv{reg: tool.NewRegistry(nil), presets: newMemPresets()}
	if err := env.reg.AddEntityType(albumType()); err != nil {
		t.Fatal(err)
	}
	if err := env.reg.Add(everyInput(), showcase(), summarize(), wipe(&env.wipes), travel(), secret()); err != nil {
		t.Fatal(err)
	}
	if opts == nil {
		opts = &Options{}
	}
	if opts.Authenticate == nil {
		opts.Authenticate = func(_ context.Context, name, password string) (tool.Account, error) {
			u, ok := testUsers[name]
			if !ok || password != testPassword {
				return nil, errors.New("wrong")
			}
			return u, nil
		}
	}
	if opts.Presets == nil {
		opts.Presets = env.presets
	}
	opts.AppName = "demo"
	env.exp = New(env.reg, opts).(*server)
	env.srv = newServer(t, env.exp)
	return env
}

func newServer(t testing.TB, h http.Handler) *httptest.Server {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// A browser is an HTTP client with cookies, like a person's browser.
type browser struct {
	t    testing.TB
	env  *testEnv
	c    *http.Client
	csrf string
}

func (env *testEnv) browser(t testing.TB) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, env: env, c: &http.Client{Jar: jar}}
}

type response struct {
	status int
	header http.Header
	body   string
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

func (b *browser) do(req *http.Request) *response {
	b.t.Helper()
	resp, err := b.c.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	// The last form's token: on the sign-in page, the sign-in form's
	// rather than the sign-out form's.
	if ms := csrfField.FindAllStringSubmatch(string(body), -1); ms != nil {
		b.csrf = html.UnescapeString(ms[len(ms)-1][1])
	}
	return &response{status: resp.StatusCode, header: resp.Header, body: string(body)}
}

func (b *browser) get(path string) *response {
	b.t.Helper()
	req, _ := http.NewRequest("GET", b.env.srv.URL+path, nil)
	return b.do(req)
}

// post posts form values with the CSRF token of the last page seen.
func (b *browser) post(path string, form url.Values) *response {
	b.t.Helper()
	if !form.Has("csrf") {
		form.Set("csrf", b.csrf)
	}
	return b.postRaw(path, form)
}

func (b *browser) postRaw(path string, form url.Values) *response {
	b.t.Helper()
	req, _ := http.NewRequest("POST", b.env.srv.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return b.do(req)
}

func (b *browser) signIn(name string) {
	b.t.Helper()
	b.get("/signin")
	r := b.post("/signin", url.Values{"name": {name}, "password": {testPassword}})
	if r.status != http.StatusOK || !strings.Contains(r.body, "Signed in as <strong>"+name+"</strong>") {
		b.t.Fatalf("signing in as %s: %d\n%s", name, r.status, r.body)
	}
}

// memPresets keeps presets in memory, for the tests that are not about
// storage (the album application stores them in its database).
type memPresets struct {
	mu sync.Mutex
	m  map[string]Preset // owner \x00 tool \x00 name
}

func newMemPresets() *memPresets { return &memPresets{m: map[string]Preset{}} }

func presetKey(owner, toolID, name string) string { return owner + "\x00" + toolID + "\x00" + name }

func (s *memPresets) Presets(_ context.Context, owner, toolID string) ([]Preset, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Preset
	for k, p := range s.m {
		if strings.HasPrefix(k, owner+"\x00"+toolID+"\x00") {
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func (s *memPresets) Preset(_ context.Context, owner, toolID, name string) (*Preset, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.m[presetKey(owner, toolID, name)]
	if !ok {
		return nil, ErrNoPreset
	}
	return &p, nil
}

func (s *memPresets) SavePreset(_ context.Context, owner string, p *Preset) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[presetKey(owner, p.Tool, p.Name)] = *p
	return nil
}

func (s *memPresets) DeletePreset(_ context.Context, owner, toolID, name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, presetKey(owner, toolID, name))
	return nil
}

func (s *memPresets) names(owner, toolID string) []string {
	ps, _ := s.Presets(context.Background(), owner, toolID)
	var out []string
	for _, p := range ps {
		out = append(out, p.Name)
	}
	return slices.Clip(out)
}

// formValues returns what a browser submits for the form controls in
// page, as the HTML form submission algorithm says for the controls the
// explorer writes: enabled inputs with a name (checkboxes only when
// checked), text areas, and the selected option of selects. Buttons are
// left out.
func formValues(page string) url.Values {
	out := url.Values{}
	for _, m := range controlTag.FindAllStringSubmatchIndex(page, -1) {
		tag := page[m[2]:m[3]]
		attrs := page[m[4]:m[5]]
		if _, disabled := attr(attrs, "disabled"); disabled {
			continue
		}
		name, ok := attr(attrs, "name")
		if !ok {
			continue
		}
		switch tag {
		case "input":
			typ, _ := attr(attrs, "type")
			if typ == "submit" || typ == "button" {
				continue
			}
			if _, checked := attr(attrs, "checked"); typ == "checkbox" && !checked {
				continue
			}
			v, _ := attr(attrs, "value")
			out.Add(name, v)
		case "textarea":
			rest := page[m[1]:]
			end := strings.Index(rest, "</textarea>")
			v := html.UnescapeString(rest[:end])
			v = strings.TrimPrefix(v, "\n") // the parser drops one leading newline
			out.Add(name, v)
		case "select":
			rest := page[m[1]:]
			body := rest[:strings.Index(rest, "</select>")]
			var first, chosen string
			found := false
			for i, o := range optionTag.FindAllStringSubmatch(body, -1) {
				v, _ := attr(o[1], "value")
				if i == 0 {
					first = v
				}
				if _, sel := attr(o[1], "selected"); sel {
					chosen, found = v, true
				}
			}
			if !found {
				chosen = first
			}
			out.Add(name, chosen)
		}
	}
	return out
}

var (
	controlTag = regexp.MustCompile(`<(input|textarea|select)\b([^>]*)>`)
	optionTag  = regexp.MustCompile(`<option\b([^>]*)>`)
	attrRE     = regexp.MustCompile(`\s([a-zA-Z-]+)(?:="([^"]*)")?`)
)

// attr returns the value of the named attribute in attrs, and whether it
// is there.
func attr(attrs, name string) (string, bool) {
	for _, m := range attrRE.FindAllStringSubmatch(attrs, -1) {
		if m[1] == name {
			return html.UnescapeString(m[2]), true
		}
	}
	return "", false
}
