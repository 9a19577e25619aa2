package mcpserver

import (
	"bytes"
	"io"
	"net/http"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// statelessVersion is the first protocol version without sessions: its
// clients call server/discover rather than initialize, and each of their
// requests carries its protocol version, in the Mcp-Protocol-Version header
// and in the _meta of its params.
const statelessVersion = "2026-07-28"

// metaProtocolVersion is the _meta key under which a request of a
// protocol version from 2026-07-28 on names its version.
const metaProtocolVersion = mcp.MetaKeyProtocolVersion

// servesStateless reports whether r goes to the handler without sessions
// of a Server that keeps sessions for the clients that open them. Clients
// of protocol versions from 2026-07-28 on open none: their requests carry
// the version in the Mcp-Protocol-Version header, or in the _meta of their
// params, and they discover the server with server/discover, which must
// list the versions both generations are served at. Every other request
// (initialize, the requests of a session, the event stream of a session,
// its end) goes to the handler with sessions, as before.
//
// It reads the body of r, at most [mcp.DefaultMaxRequestBodyBytes] of it,
// only for a POST that names no session and no version from 2026-07-28 on,
// and puts back what it read.
func servesStateless(r *http.Request) bool {
	if r.Method != http.MethodPost || r.Header.Get(sessionIDHeader) != "" {
		return false
	}
	if r.Header.Get(protocolVersionHeader) >= statelessVersion {
		return true
	}
	if r.Body == nil {
		return false
	}
	var read bytes.Buffer
	method, meta := methodAndVersion(io.TeeReader(io.LimitReader(r.Body, mcp.DefaultMaxRequestBodyBytes), &read))
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(&read, r.Body), r.Body}
	return method == "server/discover" || meta
}

// methodAndVersion returns the method of the JSON-RPC message body holds
// and whether its params' _meta names a protocol version. It reads body
// to its end, or to the first thing that is not a single JSON-RPC message
// (a batch is a message of protocol versions before 2025-06-18, which
// never carries one).
func methodAndVersion(body io.Reader) (method string, meta bool) {
	dec := jsontext.NewDecoder(body, jsontext.AllowDuplicateNames(true))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return "", false
	}
	for dec.PeekKind() == '"' {
		key, err := dec.ReadToken()
		if err != nil {
			return method, meta
		}
		switch key.String() {
		case "method":
			tok, err := dec.ReadToken()
			if err != nil || tok.Kind() != '"' {
				return method, meta
			}
			method = tok.String()
		case "params":
			if dec.PeekKind() != '{' {
				if dec.SkipValue() != nil {
					return method, meta
				}
				continue
			}
			ok, err := paramsMetaVersion(dec)
			if err != nil {
				return method, meta
			}
			meta = meta || ok
		default:
			if dec.SkipValue() != nil {
				return method, meta
			}
		}
	}
	return method, meta
}

// paramsMetaVersion reads the params object dec is at and reports whether
// its _meta object holds a protocol version string.
func paramsMetaVersion(dec *jsontext.Decoder) (bool, error) {
	if _, err := dec.ReadToken(); err != nil { // '{'
		return false, err
	}
	found := false
	for dec.PeekKind() == '"' {
		key, err := dec.ReadToken()
		if err != nil {
			return false, err
		}
		if key.String() != "_meta" || dec.PeekKind() != '{' {
			if err := dec.SkipValue(); err != nil {
				return false, err
			}
			continue
		}
		if _, err := dec.ReadToken(); err != nil {
			return false, err
		}
		for dec.PeekKind() == '"' {
			k, err := dec.ReadToken()
			if err != nil {
				return false, err
			}
			if k.String() == metaProtocolVersion && dec.PeekKind() == '"' {
				found = true
			}
			if err := dec.SkipValue(); err != nil {
				return false, err
			}
		}
		if _, err := dec.ReadToken(); err != nil { // '}'
			return false, err
		}
	}
	_, err := dec.ReadToken() // '}'
	return found, err
}
