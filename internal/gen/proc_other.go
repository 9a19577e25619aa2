//go:build !linux

package gen

// ParentArgs returns the arguments of the process that started this one,
// nil when they cannot be read (as here).
func ParentArgs() []string { return nil }
