package tool

import "errors"

// ErrUnavailable is wrapped by the errors of a store that cannot answer now
// (its database is down): callers checking credentials answer "try again
// later" rather than refusing them.
var ErrUnavailable = errors.New("temporarily unavailable")
