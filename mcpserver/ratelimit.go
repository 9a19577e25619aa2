package mcpserver

import (
	"errors"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/toolapi/toolapi/tool"
)

// retryUnavailable is the Retry-After of a 503 answer to a request whose
// credentials could not be checked.
const retryUnavailable = 5 * time.Second

// authenticate checks the credentials of r within the limit on failed
// checks of its client address (see [Options.AuthFailures]), reserving a
// check before Authenticate runs so that concurrent guesses cannot
// overrun the limit. It answers the requests it refuses and reports
// whether r may go on, as the returned account (nil: no credentials).
//
// A 401 and a failure of the issuer (a 5xx answer other than an
// unavailable store) keep the check spent, the latter unless the
// credentials were accepted recently; good credentials, a 403 (good
// credentials lacking a scope) and an unavailable store (an error
// wrapping [tool.ErrUnavailable], answered 503 with Retry-After) give it
// back.
func (h *httpHandler) authenticate(w http.ResponseWriter, r *http.Request) (tool.Account, bool) {
	attempt, wait := h.s.failures.Begin(h.s.opts.ClientAddress(r), r.Header.Get("Authorization"))
	if wait > 0 {
		tooManyFailures(w, wait)
		return nil, false
	}
	acct, err := h.s.opts.Authenticate(r)
	if err == nil {
		if acct != nil {
			attempt.Accepted()
		} else {
			attempt.Uncounted()
		}
		return acct, true
	}
	var ae *AuthError
	if !errors.As(err, &ae) {
		ae = &AuthError{Err: err}
	}
	switch {
	case errors.Is(err, tool.ErrUnavailable):
		attempt.Uncounted()
		h.s.logger.Error("credentials not checked: accounts unavailable", "reason", err.Error())
		ae = &AuthError{Status: http.StatusServiceUnavailable, Err: err}
	case ae.status() == http.StatusUnauthorized:
		attempt.Failed()
	case ae.status() == http.StatusForbidden:
		attempt.Accepted()
	default:
		attempt.Unanswered()
		h.s.logger.Error("credentials not checked", "reason", err.Error())
	}
	h.refuse(w, ae)
	return nil, false
}

// tooManyFailures answers a request from an address that failed to
// authenticate too often.
func tooManyFailures(w http.ResponseWriter, wait time.Duration) {
	w.Header().Set("Retry-After", strconv.Itoa(max(1, int(math.Ceil(wait.Seconds())))))
	http.Error(w, "Too Many Requests: too many failed authentications from this address; try again later", http.StatusTooManyRequests)
}
