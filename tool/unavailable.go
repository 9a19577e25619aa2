package tool

import "errors"

// ErrUnavailable is wrapped by the errors of a store that cannot answer at
// the moment (its database cannot be reached, say), as opposed to one
// that answers no. A caller that meets it while checking credentials
// answers "try again later" (HTTP 503 with Retry-After) rather than
// refusing the credentials, and counts no failed sign-in.
var ErrUnavailable = errors.New("temporarily unavailable")
