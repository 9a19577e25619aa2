package explorer

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/toolapi/toolapi/tool"
)

// Copies of a run: the same call from the command line, with curl against
// /mcp, and as the MCP request itself.
type copyView struct {
	CLI, Curl, MCP string
}

// copies returns the ways to make the run of args again, from the
// canonical JSON the registry's validation gives them; nil when the
// arguments do not validate.
func (e *server) copies(r *http.Request, acct tool.Account, t *tool.Tool, args map[string]any) *copyView {
	canonical, vs, err := e.reg.Validate(tool.WithAccount(r.Context(), acct), t.ID, args)
	if err != nil || len(vs) > 0 || canonical == nil {
		return nil
	}
	var obj map[string]any
	if err := json.Unmarshal(canonical, &obj); err != nil {
		return nil
	}
	// No secret is copied: each stays a placeholder.
	for _, def := range t.Inputs {
		if _, ok := obj[def.Name]; ok && def.Sensitive {
			obj[def.Name] = "SECRET"
		}
	}
	compact, _ := json.Marshal(obj)
	cli := e.opts.AppName + " tool run " + shellQuote(t.ID)
	if len(obj) > 0 {
		cli += " --input " + shellQuote(string(compact))
	}
	name := tool.NameOf(t.ID)
	req, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": name, "arguments": json.RawMessage(compact)},
	})
	return &copyView{CLI: cli, Curl: curlCopy(mcpURL(r), string(req)), MCP: jsonText(json.RawMessage(req))}
}

// curlProtocol is the MCP protocol version the curl copy speaks.
const curlProtocol = "2025-11-25"

// curlCopy returns a bash script that sends req to the MCP endpoint at url
// with curl, as a bearer of $TOKEN: it initializes first and sends the
// session the server gives (none when it serves without sessions) and the
// protocol version with each request after, so it works against both.
func curlCopy(url, req string) string {
	initialize := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + curlProtocol +
		`","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}`
	return `MCP=` + shellQuote(url) + `
H=(-H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' -H "Authorization: Bearer $TOKEN")
SID=$(curl -sS -D - -o /dev/null "${H[@]}" "$MCP" -d ` + shellQuote(initialize) + ` | tr -d '\r' | sed -n 's/^mcp-session-id: *//Ip')
H+=(-H 'MCP-Protocol-Version: ` + curlProtocol + `' ${SID:+-H "Mcp-Session-Id: $SID"})
curl -sS "${H[@]}" "$MCP" -d '{"jsonrpc":"2.0","method":"notifications/initialized"}'
curl -sS "${H[@]}" "$MCP" -d ` + shellQuote(req)
}

// mcpURL is where the application serves MCP, as the copies name it: /mcp
// on the host the page was asked of.
func mcpURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host + "/mcp"
}

// A historyView is one run of the visitor's history.
type historyView struct {
	When, URL, Summary         string
	Success, Done, Interrupted bool
	// Task is set for a run that started a task: its link opens the
	// task's page.
	Task bool
}

// maxHistory bounds the runs a tool page lists.
const maxHistory = 10

// history returns the visitor's latest runs of t.
func (e *server) history(ctx context.Context, v *visit, t *tool.Tool) []historyView {
	runs, err := e.runs.Runs(ctx, e.owner(v), t.ID, maxHistory)
	if err != nil {
		e.logger.Error("explorer: listing runs", "tool", t.ID, "error", err.Error())
		return nil
	}
	var out []historyView
	for _, r := range runs {
		h := historyView{When: r.Started.UTC().Format("2 Jan 2006, 15:04:05 UTC"), URL: e.runURL(t, r.ID), Summary: inputSummary(r.Inputs)}
		if oc, err := e.outcomeOf(&r); err == nil && oc != nil {
			h.Done = true
			h.Success = oc.Result != nil && oc.Result.Success
			h.Interrupted = oc.Interrupted
			h.Task = oc.Task != ""
		}
		out = append(out, h)
	}
	return out
}

// inputSummary returns a run's inputs in one short line.
func inputSummary(inputs json.RawMessage) string {
	var m map[string]any
	if json.Unmarshal(inputs, &m) != nil || len(m) == 0 {
		return "no inputs"
	}
	var parts []string
	for _, k := range sortedKeys(m) {
		v := m[k]
		text, ok := v.(string)
		if !ok {
			b, _ := json.Marshal(v)
			text = string(b)
		}
		if text == "" || text == "{}" || text == "[]" || text == "null" {
			continue
		}
		parts = append(parts, k+"="+text)
	}
	if len(parts) == 0 {
		return "no inputs"
	}
	s := strings.Join(parts, ", ")
	if r := []rune(s); len(r) > 120 {
		s = string(r[:119]) + "…"
	}
	return s
}

// shareURL returns the address of the tool's page with its form filled in
// as it is now (secrets left out), to share or bookmark.
func (e *server) shareURL(fm *form) string {
	q := url.Values{}
	for _, def := range fm.defs {
		if v, ok := fm.state[def.Name]; ok && !def.Locked {
			if v, ok := withoutSensitive(def, v); ok {
				encodeState(def, def.Name, v, q)
			}
		}
	}
	if len(q) == 0 {
		return e.toolURL(fm.t.ID)
	}
	return e.toolURL(fm.t.ID) + "?" + q.Encode()
}

// encodeState adds the form fields that hold v, the value as typed of def
// at path, to q: the names the form's own fields have.
func encodeState(def *tool.Definition, path string, v any, q url.Values) {
	switch x := v.(type) {
	case nil:
	case []any:
		if def.Items == nil {
			q.Set("in:"+path, jsonText(x))
			return
		}
		q.Set("rows:"+path, strconv.Itoa(len(x)))
		for i, item := range x {
			encodeState(def.Items, path+"["+strconv.Itoa(i)+"]", item, q)
		}
	case map[string]any:
		if len(def.Properties) == 0 {
			q.Set("in:"+path, jsonText(x))
			return
		}
		for _, p := range def.Properties {
			if pv, ok := x[p.Name]; ok {
				if pv, ok := withoutSensitive(p, pv); ok {
					encodeState(p, path+"."+p.Name, pv, q)
				}
			}
		}
	case string:
		if x != "" {
			q.Set("in:"+path, x)
		}
	default:
		q.Set("in:"+path, fromJSONText(x))
	}
}

func fromJSONText(v any) string {
	switch x := v.(type) {
	case bool:
		return strconv.FormatBool(x)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return jsonText(v)
}

// maxJSONInputs bounds the JSON inputs a person pastes.
const maxJSONInputs = 1 << 20

// jsonInputs reads the inputs a person gave as one JSON object, saying in
// plain words where broken JSON broke.
func jsonInputs(text string) (map[string]any, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil, errors.New(`Type the inputs as a JSON object, such as {"word": "rain"}.`)
	}
	if len(text) > maxJSONInputs {
		return nil, errors.New("The JSON is too long: at most 1 MiB.")
	}
	var args map[string]any
	dec := json.NewDecoder(strings.NewReader(text))
	if err := dec.Decode(&args); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			near := ""
			if o := int(se.Offset); o >= 1 && o <= len(text) {
				near = " near “" + string([]rune(text[o-1:min(len(text), o+9)])) + "”"
			}
			return nil, errors.New("The JSON is broken " + place(text, int(se.Offset)) + near + ": check the quotes, commas and brackets there.")
		case errors.As(err, &te):
			return nil, errors.New(`The inputs must be one JSON object in braces, such as {"word": "rain"}, not a ` + te.Value + ".")
		}
		return nil, errors.New("The JSON stops before it is complete: a closing bracket or quote is missing at the end.")
	}
	if dec.More() {
		return nil, errors.New("The JSON goes on after its object ends, " + place(text, int(dec.InputOffset())+1) + ".")
	}
	if args == nil {
		return nil, errors.New(`The inputs must be one JSON object in braces, such as {"word": "rain"}.`)
	}
	return args, nil
}

// place returns "at line L, column C" of a byte offset of text, counted
// from 1.
func place(text string, offset int) string {
	offset = min(max(offset, 1), len(text)+1)
	line, col := 1, 1
	for _, r := range text[:offset-1] {
		if r == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return "at line " + strconv.Itoa(line) + ", column " + strconv.Itoa(col)
}
