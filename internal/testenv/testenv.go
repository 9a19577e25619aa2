// Package testenv holds what the repository's tests share about their environment.
package testenv

import (
	"os"
	"testing"
)

// FullEnv is the environment variable that, when non-empty, runs the slow tests:
// those that start browsers, build binaries, start servers in loops or load them.
const FullEnv = "TOOLAPI_TEST_FULL"

// NeedFull skips t unless FullEnv is set.
func NeedFull(t testing.TB) {
	t.Helper()
	if os.Getenv(FullEnv) == "" {
		t.Skip("slow test: set " + FullEnv + "=1 to run it")
	}
}
