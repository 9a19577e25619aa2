package mcpserver

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// An AuthError is an error of [Options.Authenticate] that says how the
// request is refused: 401 with an invalid_token challenge (credentials that
// are not good), 403 with an insufficient_scope challenge naming the scope
// needed (good credentials that do not reach this resource, so that the
// client can ask for more), or another status without a challenge (the
// credentials could not be checked; a 503 carries Retry-After). Any other
// error of Authenticate is answered as an AuthError of status 401, except
// one wrapping [tool.ErrUnavailable], answered 503.
type AuthError struct {
	// Status is the HTTP status of the answer; zero means 401.
	Status int
	// Description says what is wrong, for the error_description of the
	// challenge and the body of the answer; it must not hold secrets.
	// Empty means a generic description.
	Description string
	// Scope lists the scopes, separated by spaces, that a 403 answer
	// asks for, and that a 401 names instead of
	// [Options.ChallengeScope].
	Scope string
	// Err is the cause, for logs and errors.Is; never shown to the client.
	Err error
}

func (e *AuthError) Error() string {
	msg := e.Description
	if msg == "" {
		msg = http.StatusText(e.status())
	}
	if e.Err != nil {
		return msg + ": " + e.Err.Error()
	}
	return msg
}

func (e *AuthError) Unwrap() error { return e.Err }

func (e *AuthError) status() int {
	if e.Status == 0 {
		return http.StatusUnauthorized
	}
	return e.Status
}

// refuse answers a request that Authenticate refused with e.
func (h *httpHandler) refuse(w http.ResponseWriter, e *AuthError) {
	status := e.status()
	body := e.Description
	switch status {
	case http.StatusUnauthorized:
		scope := e.Scope
		if scope == "" {
			scope = h.s.opts.ChallengeScope
		}
		w.Header().Set("WWW-Authenticate", h.challenge("invalid_token", e.Description, scope))
		if body == "" {
			body = "invalid credentials"
		}
	case http.StatusForbidden:
		w.Header().Set("WWW-Authenticate", h.challenge("insufficient_scope", e.Description, e.Scope))
		if body == "" {
			body = "insufficient scope"
		}
	default:
		if body == "" {
			body = "credentials cannot be checked now; try again later"
		}
		if status == http.StatusServiceUnavailable {
			w.Header().Set("Retry-After", strconv.Itoa(int(retryUnavailable/time.Second)))
		}
	}
	http.Error(w, http.StatusText(status)+": "+body, status)
}

// challenge returns a Bearer challenge (RFC 6750) with the given error
// code, description and scope, each left out when empty, naming the
// protected resource metadata when there is one (RFC 9728).
func (h *httpHandler) challenge(code, desc, scope string) string {
	var params []string
	if code != "" {
		params = append(params, fmt.Sprintf("error=%q", code))
	}
	if desc != "" && code != "" {
		params = append(params, fmt.Sprintf("error_description=%q", desc))
	}
	if scope != "" {
		params = append(params, fmt.Sprintf("scope=%q", scope))
	}
	if u := h.s.opts.ResourceMetadataURL; u != "" {
		params = append(params, fmt.Sprintf("resource_metadata=%q", u))
	}
	if len(params) == 0 {
		return "Bearer"
	}
	return "Bearer " + strings.Join(params, ", ")
}
