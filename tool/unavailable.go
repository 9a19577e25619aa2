package tool

import "errors"

// ErrUnavailable is wrapped by the errors of a store that cannot answer now:
// callers checking credentials answer "try again later", not "no".
var ErrUnavailable = errors.New("temporarily unavailable")
