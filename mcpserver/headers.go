package mcpserver

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolapi/toolapi/tool"
)

// Routing headers (protocol versions from 2026-07-28 on): a client mirrors
// the method of each request in Mcp-Method, the tool of a tools/call in
// Mcp-Name, and each input whose schema property carries x-mcp-header
// ("Region") in an Mcp-Param-Region header, so that gateways route a call
// without reading its body. The Server marks the inputs of
// [tool.Definition.Header] so, and refuses a tools/call whose headers
// disagree with its body: 400 with the JSON-RPC error [mcp.CodeHeaderMismatch].
const (
	methodHeader      = "Mcp-Method"
	nameHeader        = "Mcp-Name"
	paramHeaderPrefix = "Mcp-Param-"
	headerKeyword     = "x-mcp-header"
)

// The wrapper of a header value sent in Base64: =?base64?SGVsbG8=?=.
const (
	base64Prefix = "=?base64?"
	base64Suffix = "?="
)

// A paramHeader is an input of a tool that its listing marks with
// x-mcp-header: the path of its property from the arguments object down
// (one name for an input) and the header's name after Mcp-Param-.
type paramHeader struct {
	path   []string
	header string
}

// markHeaders marks, in the input schema sch of t (the Server's own copy),
// the property of each input with a Header with x-mcp-header. The copy
// shares its properties' Extra maps with the registry's schema: a map is
// copied before it changes.
func markHeaders(sch *jsonschema.Schema, t *tool.Tool) {
	for _, d := range t.Inputs {
		if d == nil || d.Header == "" {
			continue
		}
		p := sch.Properties[d.Name]
		if p == nil { // a locked input, which is not advertised
			continue
		}
		extra := maps.Clone(p.Extra)
		if extra == nil {
			extra = make(map[string]any, 1)
		}
		extra[headerKeyword] = d.Header
		p.Extra = extra
	}
}

// paramHeaders returns the inputs that the input schema sch, as listed,
// marks with x-mcp-header, at any depth of properties (as clients look
// for them), or why the marks are invalid: a mark that is not a header
// name, one on a property that is not a string, an integer or a boolean,
// or a header named twice (ignoring case). The SDK refuses to list a tool
// with such marks, and clients leave it out.
func paramHeaders(sch *jsonschema.Schema) ([]paramHeader, error) {
	var out []paramHeader
	seen := map[string]string{}
	var walk func(props map[string]*jsonschema.Schema, prefix []string) error
	walk = func(props map[string]*jsonschema.Schema, prefix []string) error {
		for _, name := range slices.Sorted(maps.Keys(props)) { // the same problem first, every time
			p := props[name]
			if p == nil {
				continue
			}
			path := append(append([]string(nil), prefix...), name)
			where := strings.Join(path, ".")
			if v, ok := p.Extra[headerKeyword]; ok {
				h, _ := v.(string)
				switch {
				case !isToken(h):
					return fmt.Errorf("property %s: %s must be a header name (letters, digits and !#$%%&'*+-.^_`|~), not %v", where, headerKeyword, v)
				case len(p.Types) > 0 || p.Type != "string" && p.Type != "integer" && p.Type != "boolean":
					return fmt.Errorf("property %s: %s marks only a string, integer or boolean property", where, headerKeyword)
				case seen[strings.ToLower(h)] != "":
					return fmt.Errorf("property %s: header %s already carries property %s (header names ignore case)", where, h, seen[strings.ToLower(h)])
				}
				seen[strings.ToLower(h)] = where
				out = append(out, paramHeader{path: path, header: h})
			}
			if err := walk(p.Properties, path); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(sch.Properties, nil); err != nil {
		return nil, err
	}
	return out, nil
}

// isToken reports an HTTP token (RFC 9110): visible ASCII characters
// other than the separators, at least one.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// checkHeaders checks the routing headers of a tools/call r carries
// against its body, for a tool of the registry, and answers r itself when
// they disagree: it reports whether r goes on.
//
// The SDK checks them too, but it finds the tool by the name as the body
// writes it, among the names tools are listed under: a call naming the
// tool by its other spelling (the ID where names are listed, or the name
// where IDs are) would have its Mcp-Param-* headers checked against
// nothing. Here the tool is found as every tools/call finds it
// ([tool.Registry.ToolByName]), whatever the account, so that both
// spellings are checked alike, against the inputs its listing marks.
//
// Only a POST of protocol version 2026-07-28 or later whose Mcp-Method
// header says tools/call is read (any other is no tools/call, or one the
// SDK refuses for its Mcp-Method); its body is read up to
// [mcp.DefaultMaxRequestBodyBytes] and put back. A body that is no JSON,
// no single request, or too long is left to the SDK, which refuses it.
func (h *httpHandler) checkHeaders(w http.ResponseWriter, r *http.Request) bool {
	if r.Method != http.MethodPost || r.Body == nil ||
		r.Header.Get(protocolVersionHeader) < statelessVersion ||
		r.Header.Get(methodHeader) != "tools/call" {
		return true
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, mcp.DefaultMaxRequestBodyBytes+1))
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
	if err != nil || int64(len(body)) > mcp.DefaultMaxRequestBodyBytes {
		return true // the SDK reads on, and answers
	}
	var msg struct {
		ID     jsontext.Value `json:"id"`
		Method string         `json:"method"`
		Params *struct {
			Name      *string                   `json:"name"`
			Arguments map[string]jsontext.Value `json:"arguments"`
		} `json:"params"`
	}
	// Invalid UTF-8 is read as the SDK reads it, replaced: a string that
	// held some matches no header.
	if err := json.Unmarshal(body, &msg, jsontext.AllowInvalidUTF8(true)); err != nil {
		if errors.Is(err, jsontext.ErrDuplicateName) {
			// The SDK and the run path could each take another of the
			// values: what the headers mirror is not known.
			h.mismatch(w, msg.ID, "the request repeats a member name, so its headers cannot be checked against it")
			return false
		}
		return true
	}
	if msg.Method != "tools/call" || msg.Params == nil || msg.Params.Name == nil {
		return true // the SDK refuses it
	}
	name := *msg.Params.Name
	got := headerValues(r.Header, nameHeader)
	switch {
	case len(got) == 0:
		h.mismatch(w, msg.ID, "missing required Mcp-Name header for method tools/call")
		return false
	case len(got) > 1:
		h.mismatch(w, msg.ID, "the Mcp-Name header is sent more than once")
		return false
	case got[0] != name:
		h.mismatch(w, msg.ID, fmt.Sprintf("Mcp-Name header value %q does not match body value %q", got[0], name))
		return false
	}
	t, ok := h.s.reg.ToolByName(name)
	if !ok {
		return true // not a registry tool: the SDK checks its own
	}
	e := h.s.entry(t.ID)
	if e == nil {
		return true
	}
	if problem := paramHeadersProblem(r.Header, e.headers, msg.Params.Arguments); problem != "" {
		h.mismatch(w, msg.ID, problem)
		return false
	}
	return true
}

// headerValues returns the values of the header field name, without the
// spaces and tabs around them, leaving out empty ones: an empty value is
// a header not sent, as the SDK counts it.
func headerValues(header http.Header, name string) []string {
	var out []string
	for _, v := range header.Values(name) {
		if v = strings.Trim(v, " \t"); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// paramHeadersProblem returns what is wrong with the Mcp-Param-* headers
// of a call whose arguments are args, for the inputs marked hs, or "":
// each argument present and not null must come with its header, holding
// the same value (a string as is or in Base64, an integer compared as a
// number, a boolean as true or false), once; an argument absent or null
// must come without it. A header with an empty value counts as not sent,
// so an empty string cannot be mirrored. Headers that no input is marked
// with are ignored, as HTTP has a receiver ignore the fields it does not
// know.
func paramHeadersProblem(header http.Header, hs []paramHeader, args map[string]jsontext.Value) string {
	for _, ph := range hs {
		field := paramHeaderPrefix + ph.header
		where := strings.Join(ph.path, ".")
		values := headerValues(header, field)
		raw, present := argument(args, ph.path)
		if !present {
			if len(values) > 0 {
				return fmt.Sprintf("unexpected %s header for absent or null parameter %q", field, where)
			}
			continue
		}
		if len(values) == 0 {
			return fmt.Sprintf("missing %s header for parameter %q", field, where)
		}
		if len(values) > 1 {
			return fmt.Sprintf("the %s header is sent more than once", field)
		}
		v := values[0]
		if !visibleASCII(v) {
			return fmt.Sprintf("the %s header holds characters other than visible ASCII, spaces and tabs: send the value in Base64 (%sVALUE%s)", field, base64Prefix, base64Suffix)
		}
		text, ok := decodeHeaderValue(v)
		if !ok {
			return fmt.Sprintf("the %s header holds invalid Base64", field)
		}
		body, ok := primitive(raw)
		if !ok {
			return fmt.Sprintf("the %s header mirrors parameter %q, which is not a string, an integer or a boolean", field, where)
		}
		if !sameValue(text, body) {
			return fmt.Sprintf("%s header value %q does not match the body's value of parameter %q", field, v, where)
		}
	}
	return ""
}

// argument returns the value at path in args, and false when it is absent
// or null.
func argument(args map[string]jsontext.Value, path []string) (jsontext.Value, bool) {
	v, ok := args[path[0]]
	for _, name := range path[1:] {
		if !ok {
			break
		}
		var obj map[string]jsontext.Value
		if json.Unmarshal(v, &obj) != nil {
			return nil, false
		}
		v, ok = obj[name]
	}
	if !ok || v.Kind() == 'n' {
		return nil, false
	}
	return v, true
}

// maxSafeInteger is the largest integer a header carries: the largest
// that a JavaScript number holds exactly.
const maxSafeInteger = 1<<53 - 1

// primitive returns the value raw holds when it is a string, a boolean or
// an integer of at most [maxSafeInteger] in magnitude (as int64).
func primitive(raw jsontext.Value) (any, bool) {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil, false
	}
	switch v := v.(type) {
	case string, bool:
		return v, true
	case float64:
		if v != math.Trunc(v) || math.Abs(v) > maxSafeInteger {
			return nil, false
		}
		return int64(v), true
	}
	return nil, false
}

// sameValue reports whether the header text (decoded) holds the body's
// value: an integer compares as a number ("42.0" is 42), a boolean as
// "true" or "false", a string as itself.
func sameValue(text string, body any) bool {
	switch b := body.(type) {
	case int64:
		f, err := strconv.ParseFloat(text, 64)
		if err != nil || f != math.Trunc(f) || math.Abs(f) > maxSafeInteger {
			return false
		}
		return int64(f) == b
	case bool:
		return text == strconv.FormatBool(b)
	case string:
		return text == b
	}
	return false
}

// decodeHeaderValue returns the text of a header value, decoding one
// wrapped as =?base64?...?=; a value without both ends of the wrapper is
// the text itself. ok is false for invalid Base64.
func decodeHeaderValue(v string) (string, bool) {
	if len(v) < len(base64Prefix)+len(base64Suffix) || !strings.HasPrefix(v, base64Prefix) || !strings.HasSuffix(v, base64Suffix) {
		return v, true
	}
	b, err := base64.StdEncoding.DecodeString(v[len(base64Prefix) : len(v)-len(base64Suffix)])
	if err != nil {
		return "", false
	}
	return string(b), true
}

// visibleASCII reports whether s holds only visible ASCII characters,
// spaces and tabs, the characters a header value may hold.
func visibleASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x20 && c != '\t') || c > 0x7e {
			return false
		}
	}
	return true
}

// mismatch answers a request whose headers disagree with its body: 400
// with the JSON-RPC error [mcp.CodeHeaderMismatch], whose message says
// what disagrees, under the request's ID.
func (h *httpHandler) mismatch(w http.ResponseWriter, id jsontext.Value, problem string) {
	resp := struct {
		JSONRPC string         `json:"jsonrpc"`
		ID      jsontext.Value `json:"id,omitzero"`
		Error   struct {
			Code    int64  `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0"}
	if id.Kind() == '"' || id.Kind() == '0' {
		resp.ID = id
	}
	resp.Error.Code = mcp.CodeHeaderMismatch
	resp.Error.Message = "header mismatch: " + problem
	b, err := json.Marshal(resp)
	if err != nil { // cannot happen: the ID is a JSON string or number
		http.Error(w, "Bad Request: header mismatch", http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	w.Write(b)
}

// toolIcon returns the MCP icon of a tool's Icon (an https: or data:image/
// address), with its media type when the address tells it: a data:
// address names it, an https: address by the extension of its path.
func toolIcon(src string) mcp.Icon {
	icon := mcp.Icon{Source: src}
	if rest, ok := strings.CutPrefix(src, "data:"); ok {
		media, _, _ := strings.Cut(rest, ",")
		media, _, _ = strings.Cut(media, ";")
		icon.MIMEType = media
		return icon
	}
	path := src
	if i := strings.IndexAny(path, "?#"); i >= 0 {
		path = path[:i]
	}
	if i := strings.LastIndexByte(path, '.'); i >= 0 && !strings.Contains(path[i:], "/") {
		icon.MIMEType = iconTypes[strings.ToLower(path[i+1:])]
	}
	return icon
}

// iconTypes are the media types of the picture formats clients show, by
// file extension.
var iconTypes = map[string]string{
	"png":  "image/png",
	"jpg":  "image/jpeg",
	"jpeg": "image/jpeg",
	"gif":  "image/gif",
	"webp": "image/webp",
	"svg":  "image/svg+xml",
	"ico":  "image/x-icon",
	"avif": "image/avif",
}
